"""The HTTP answers the listener writes itself, and how a socket closes after an early answer.

A request refused before uvicorn sees it (a head too large or malformed, a body too large, the HTTP
side unreachable; a websocket upgrade from an origin not allowed, server/transport/websocket.py)
gets the same body as every HTTP error of the API: `{"kind": "error", "code": …, "message": …,
"ref": null, "fatal": true}`. Then the socket lingers, as it does after any answer given before the
request was all sent (server/transport/relay.py): the writing side is closed and whatever the client
still sends is read and dropped until it closes, for a bounded time. Closing a socket with unread
bytes in it resets the connection, and a reset can make the client lose the answer.
"""

from __future__ import annotations

import asyncio
import email.utils
import http
import json

from websockets.datastructures import Headers
from websockets.http11 import Response

from protocol.codec import error_message, to_plain
from protocol.errors import ErrorCode

from .tracking import Tracker


def refusal(status: int, code: ErrorCode, message: str, retry_after: int | None = None) -> Response:
    """An HTTP response with `status` and a fatal typed error body (the connection closes after it),
    with `Retry-After` when given."""
    body = json.dumps(
        to_plain(error_message(code, message, fatal=True)), ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")
    headers = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Connection", "close"),
            ("Content-Length", str(len(body))),
            ("Content-Type", "application/json"),
            # The headers every answer of the app carries (server/http/headers.py; the transport
            # layer does not import the HTTP one).
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Referrer-Policy", "no-referrer"),
            ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
        ]
    )
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    return Response(status, http.HTTPStatus(status).phrase, headers, body)


def refuse(transport: asyncio.Transport, response: Response, seconds: float, tracker: Tracker) -> None:
    """Send `response`, then linger (below)."""
    transport.write(response.serialize())
    linger(transport, seconds, tracker)


def linger(transport: asyncio.Transport, seconds: float, tracker: Tracker) -> None:
    """The answer is written: close the writing side and drop what the client still sends, for at most
    `seconds` (the socket's protocol becomes a Lingering one)."""
    if not transport.can_write_eof():
        transport.close()
        return
    transport.write_eof()
    lingering = Lingering(transport, seconds, tracker)
    transport.set_protocol(lingering)
    tracker.track(transport, lingering)
    transport.resume_reading()


class Lingering(asyncio.Protocol):
    """A refused socket: reads and drops until the client closes, or until its time is up."""

    def __init__(self, transport: asyncio.Transport, seconds: float, tracker: Tracker) -> None:
        self._transport = transport
        self._tracker = tracker
        self._deadline = asyncio.get_running_loop().call_later(seconds, transport.abort)

    def data_received(self, data: bytes) -> None:
        pass  # the request was refused: its bytes mean nothing now

    def eof_received(self) -> None:
        return None  # the client closed its side: the socket closes

    def connection_lost(self, exc: Exception | None) -> None:
        self._deadline.cancel()
        self._tracker.forget(self._transport)

    def shutdown(self) -> None:
        """The server is stopping: the answer had its chance."""
        self._transport.abort()
