"""One HTTP request relayed from the public port to uvicorn on its private unix socket, and the answer back.

The listener has read the request head (server/transport/head.py) and knows the peer; the relay:

- reads the body as h11 decodes it (Content-Length or chunked) up to the largest body a route takes
  (`http_body_bytes`, `verify_max_bytes`; the app bounds each route itself, server/http/bodylimit.py;
  past it: 413, server/transport/refusal.py), answering `Expect: 100-continue` itself;
- then connects to uvicorn's socket and writes the whole request at once: the head rebuilt (the
  client's headers less the hop-by-hop ones and any forwarding header the client sent, plus
  `X-Forwarded-For: <peer>`, which uvicorn trusts because only the listener can reach that socket:
  server/embed.py, and `Connection: close`) and the body with its exact Content-Length. uvicorn so
  never answers before it has the whole request (it closes without reading the rest, which would
  reset the socket and lose its answer), and its parser can never disagree with floe's about where
  the request ends. One request per connection to uvicorn, so every request's head is read by floe;
- copies uvicorn's answer back (pausing uvicorn's socket while the client's is full), its head
  rewritten only in `Connection`: a client that keeps its connection alive (HTTP/1.1 without
  `Connection: close`) gets it back for its next request, whose head the listener reads afresh
  (pipelined requests included, in order); any other is closed once the answer is sent;
- drops both sockets after `http_idle_timeout` seconds without a byte either way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, Protocol, cast

import h11
from websockets.http11 import Response

from protocol.errors import ErrorCode

from ..config import ServerConfig
from ..logs import log_event
from .head import RequestHead
from .refusal import refusal, refuse
from .tracking import Tracker

log = logging.getLogger("floe.relay")

#: Request headers that never cross the relay: hop-by-hop ones (RFC 9110 §7.6.1), the body framing
#: and `Expect` (the relay deals with both), and every claim about the client's address or scheme but
#: the listener's own.
DROPPED_HEADERS = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-connection",
        b"upgrade",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"content-length",
        b"expect",
        b"forwarded",
        b"x-real-ip",
    }
)
FORWARDING_PREFIX = b"x-forwarded-"
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
#: Bytes of uvicorn's answer head the relay reads to rewrite it (uvicorn's heads are far smaller; one
#: that is not is passed on as it is, and the client's connection closes after it).
MAX_ANSWER_HEAD = 64 * 1024


class RelayHost(Tracker, Protocol):
    """What a relay needs of the listener that made it."""

    config: ServerConfig
    #: uvicorn's private unix socket.
    upstream_path: str
    #: True once the server is shutting down (uvicorn may be gone: not an error then).
    stopping: bool

    def run(self, coroutine: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """A task the listener waits for when it stops."""
        ...

    def next_request(self, transport: asyncio.Transport, received: bytes) -> None:
        """A kept-alive connection after its answer: read its next request head (starting with the
        bytes already `received` after the last request)."""
        ...


def forwarded_head(head: RequestHead, peer_host: str, body_bytes: int) -> bytes:
    """The request head uvicorn gets: the client's, cleaned, with the peer's address, one request and
    the body's exact length."""
    lines = [b"%s %s HTTP/%s" % (head.method, head.target, head.http_version)]
    for name, value in head.headers:
        lowered = name.lower()
        if lowered not in DROPPED_HEADERS and not lowered.startswith(FORWARDING_PREFIX):
            lines.append(name + b": " + value)
    lines.append(b"X-Forwarded-For: " + peer_host.encode("ascii"))
    lines.append(b"Connection: close")
    if body_bytes or head.chunked or head.content_length():
        lines.append(b"Content-Length: %d" % body_bytes)
    return b"\r\n".join(lines) + b"\r\n\r\n"


def answer_head(head: bytes, request_method: bytes, keep_alive: bool) -> tuple[bytes, bool]:
    """uvicorn's answer head (without its blank line) as the client gets it, and whether the client's
    connection stays open after the answer: it does when the client asked to keep it and the answer's
    end is known without a close (a length, chunks, or no body)."""
    status_line, *fields = head.split(b"\r\n")
    status = int(status_line.split(b" ", 2)[1])
    names = {field.partition(b":")[0].strip().lower() for field in fields}
    delimited = (
        b"content-length" in names
        or b"transfer-encoding" in names
        or status in (204, 304)
        or request_method == b"HEAD"
    )
    keep = keep_alive and delimited
    kept = [field for field in fields if field.partition(b":")[0].strip().lower() != b"connection"]
    if not keep:
        kept.append(b"connection: close")
    return b"\r\n".join([status_line, *kept]) + b"\r\n\r\n", keep


class HttpRelay(asyncio.Protocol):
    """The client's side of a relayed request (the protocol of its socket after the head was read)."""

    def __init__(
        self,
        transport: asyncio.Transport,
        head: RequestHead,
        parser: h11.Connection,
        peer_host: str,
        host: RelayHost,
    ) -> None:
        """`parser` is the h11 connection that read the head; it holds whatever of the body followed."""
        self._transport = transport
        self._head = head
        self._parser = parser
        self._peer_host = peer_host
        self._host = host
        self._loop = asyncio.get_running_loop()
        self._max_body = max(host.config.http_body_bytes, host.config.verify_max_bytes)
        self._body = bytearray()
        self._request_done = False
        self._keep_alive = head.keep_alive
        #: uvicorn's answer until its head is complete (then None: the rest is copied as it comes).
        self._answer_start: bytearray | None = bytearray()
        self._upstream: asyncio.Transport | None = None
        self._client_gone = False
        self._last_activity = self._loop.time()
        self._idle: asyncio.TimerHandle | None = None
        self._connecting: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Read the body (what of it came with the head first), then relay the request."""
        self._idle = self._loop.call_later(self._host.config.http_idle_timeout, self._check_idle)
        if self._head.content_length() > self._max_body:
            self._refuse_body()
            return
        if self._parser.they_are_waiting_for_100_continue:
            self._transport.write(CONTINUE)
        self._read_body()

    # ---- the client's socket -------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        self._last_activity = self._loop.time()
        self._parser.receive_data(data)  # after the request: the next one's first bytes, kept for it
        self._read_body()

    def eof_received(self) -> bool:
        # A client may half-close once its request is sent; the answer still goes back. Before that,
        # the request can never complete.
        if self._request_done:
            return True
        self._abort()
        return False

    def pause_writing(self) -> None:
        if self._upstream is not None:
            self._upstream.pause_reading()

    def resume_writing(self) -> None:
        if self._upstream is not None:
            self._upstream.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self._client_gone = True
        if self._idle is not None:
            self._idle.cancel()
        if self._connecting is not None:
            self._connecting.cancel()
        if self._upstream is not None:
            self._upstream.abort()
        self._host.forget(self._transport)

    def shutdown(self) -> None:
        """The server is stopping: uvicorn finishes the request in flight, so the relay goes on."""

    # ---- uvicorn's socket (called by _Upstream) ------------------------------------------------------

    def upstream_connected(self, upstream: asyncio.Transport) -> None:
        if self._client_gone:
            upstream.abort()
            return
        self._upstream = upstream
        head = forwarded_head(self._head, self._peer_host, len(self._body))
        upstream.writelines([head, self._body])
        self._body = bytearray()

    def from_upstream(self, data: bytes) -> None:
        self._last_activity = self._loop.time()
        answer = self._answer_start
        if answer is None:
            self._transport.write(data)
            return
        answer += data
        end = answer.find(b"\r\n\r\n")
        if end < 0:
            if len(answer) > MAX_ANSWER_HEAD:
                self._answer_start, self._keep_alive = None, False
                self._transport.write(answer)
            return
        self._answer_start = None
        head, self._keep_alive = answer_head(bytes(answer[:end]), self._head.method, self._keep_alive)
        self._transport.writelines([head, answer[end + 4 :]])

    def upstream_closed(self, exc: Exception | None) -> None:
        """uvicorn answered and closed (Connection: close): the client's socket is kept for its next
        request, or closes once the answer is sent."""
        if self._client_gone:
            return
        if self._keep_alive and self._answer_start is None and exc is None and not self._host.stopping:
            if self._idle is not None:
                self._idle.cancel()
            self._host.next_request(self._transport, self._parser.trailing_data[0])
        else:
            self._transport.close()

    # ---- inside ----------------------------------------------------------------------------------------

    def _read_body(self) -> None:
        """Collect what h11 has decoded of the body; at its end, relay the request."""
        parser = self._parser
        while not self._request_done:
            try:
                event = parser.next_event()
            except h11.RemoteProtocolError as error:
                log_event(log, logging.INFO, "relay.bad-body", error=str(error), peer=self._peer_host)
                self._abort()
                return
            if isinstance(event, h11.Data):
                self._body += event.data
                if len(self._body) > self._max_body:
                    self._refuse_body()
                    return
            elif isinstance(event, h11.EndOfMessage):
                self._request_done = True
                self._transport.pause_reading()
                self._connecting = self._host.run(self._connect(), "floe-relay-connect")
            else:  # NEED_DATA, or PAUSED after a request that asked to switch protocols
                return

    async def _connect(self) -> None:
        try:
            await self._loop.create_unix_connection(lambda: _Upstream(self), self._host.upstream_path)
        except OSError as error:
            if self._host.stopping:
                log_event(log, logging.WARNING, "relay.unreachable", error=str(error), stopping=True)
                self._answer(refusal(503, ErrorCode.BUSY, "the server is stopping"))
            else:
                log_event(log, logging.ERROR, "relay.unreachable", error=str(error))
                self._answer(refusal(502, ErrorCode.INTERNAL, "the HTTP API is not reachable"))

    def _refuse_body(self) -> None:
        self._request_done = True
        self._body = bytearray()
        self._answer(refusal(413, ErrorCode.TOO_LARGE, f"the request body is over {self._max_body} bytes"))

    def _answer(self, response: Response) -> None:
        """Answer the client instead of uvicorn; the relay is done with its socket."""
        if self._client_gone:
            return
        if self._idle is not None:
            self._idle.cancel()
        refuse(self._transport, response, self._host.config.head_timeout, self._host)

    def _check_idle(self) -> None:
        timeout = self._host.config.http_idle_timeout
        quiet = self._loop.time() - self._last_activity
        if quiet < timeout:
            self._idle = self._loop.call_later(timeout - quiet, self._check_idle)
            return
        self._idle = None
        log_event(log, logging.INFO, "relay.idle", peer=self._peer_host, seconds=timeout)
        self._abort()

    def _abort(self) -> None:
        self._transport.abort()
        if self._upstream is not None:
            self._upstream.abort()


class _Upstream(asyncio.Protocol):
    """uvicorn's side of a relayed request."""

    def __init__(self, relay: HttpRelay) -> None:
        self._relay = relay

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._relay.upstream_connected(cast(asyncio.Transport, transport))

    def data_received(self, data: bytes) -> None:
        self._relay.from_upstream(data)

    def eof_received(self) -> None:
        return None  # uvicorn is done: its socket closes, then connection_lost

    def connection_lost(self, exc: Exception | None) -> None:
        self._relay.upstream_closed(exc)
