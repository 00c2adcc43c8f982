"""Reading one HTTP request head off a new connection: bounded in size, parsed by h11, sans-I/O.

    reader = HeadReader(max_bytes=8192)
    head = reader.feed(data)        # None until the head is complete; HeadError when it is refused

Every request that reaches the public port is read here first, whether it becomes a websocket or is
relayed to uvicorn, so the bound on its size and the parse happen in one place. The bytes received
so far (`received`) are kept for the websocket handshake, which websockets' protocol parses again
from the raw bytes; the parser (`parser`, positioned after the head) goes on to the relay, which
reads the body's framing from it.
"""

from __future__ import annotations

from dataclasses import dataclass

import h11

from protocol.errors import ErrorCode

from .refusal import refusal


class HeadError(Exception):
    """A request head refused, with the answer to send (server/transport/refusal.py)."""

    def __init__(self, status: int, code: ErrorCode, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.response = refusal(status, code, message)


@dataclass(frozen=True)
class RequestHead:
    """A parsed request head: the request line and the headers with their names as sent."""

    method: bytes
    target: bytes
    http_version: bytes
    headers: tuple[tuple[bytes, bytes], ...]

    @property
    def path(self) -> bytes:
        """The target without its query string."""
        return self.target.partition(b"?")[0]

    @property
    def chunked(self) -> bool:
        """Is the body sent in chunks (h11 accepts no other transfer coding)?"""
        return any(name.lower() == b"transfer-encoding" for name, _ in self.headers)

    @property
    def keep_alive(self) -> bool:
        """Does the client want the connection kept for another request (HTTP/1.1 without `close`)?"""
        if self.http_version != b"1.1":
            return False
        options = (value.split(b",") for name, value in self.headers if name.lower() == b"connection")
        return all(option.strip().lower() != b"close" for values in options for option in values)

    def content_length(self) -> int:
        """The body's length when it is not chunked (0 without a Content-Length)."""
        for name, value in self.headers:
            if name.lower() == b"content-length":
                return int(value)
        return 0


class HeadReader:
    """Collects a connection's first bytes until its request head is complete (at most `max_bytes`)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.parser = h11.Connection(h11.SERVER, max_incomplete_event_size=max_bytes)
        #: Every byte received until the head was complete (the head and what followed it).
        self.received = bytearray()

    def feed(self, data: bytes) -> RequestHead | None:
        """Take bytes from the socket; the head once it is complete, else None. Raises HeadError."""
        self.received += data
        self.parser.receive_data(data)
        try:
            event = self.parser.next_event()
        except h11.RemoteProtocolError as error:
            if error.error_status_hint == 431:
                raise self._too_large() from None
            status = error.error_status_hint
            raise HeadError(status, ErrorCode.MALFORMED, f"bad request head: {error}") from None
        if event is h11.NEED_DATA:
            return None
        if not isinstance(event, h11.Request):  # a closed connection: nothing to answer
            raise HeadError(400, ErrorCode.MALFORMED, "the connection closed before a request head")
        # h11 bounds only a head still incomplete; one that arrived whole in one read is measured here.
        if len(self.received) - len(self.parser.trailing_data[0]) > self.max_bytes:
            raise self._too_large()
        return RequestHead(
            method=event.method,
            target=event.target,
            http_version=event.http_version,
            headers=tuple((bytes(name), bytes(value)) for name, value in event.headers.raw_items()),
        )

    def _too_large(self) -> HeadError:
        return HeadError(431, ErrorCode.TOO_LARGE, f"the request head is over {self.max_bytes} bytes")
