"""The websocket fast path: after the ASGI handshake, messages go straight between uvicorn's sans-I/O
websocket protocol and the connection, with no ASGI queue, task switch or Starlette call per message.

Through ASGI, uvicorn queues every incoming message for the endpoint (pausing and resuming the
socket's reading around each one) and takes every outgoing one through a chain of coroutines; that
cost about 40 µs of CPU per message, half the server's time at scale (bench/SERVER.md).
`FloeWebSocketProtocol` is uvicorn's `WebSocketsSansIOProtocol` (given to uvicorn as its `ws` class,
server/embed.py) with one change: once the endpoint has accepted a connection and attached a
`NativeSocket` to it, each complete message is handed over by a plain call, and sends are framed
and written to the transport at once. The handshake stays on the ASGI path (origin check, denial
response, accept), and an endpoint running under another server simply finds no native socket
and keeps the ASGI path for everything.

It relies on that class's internals (`conn`, `transport`, `frames`, `curr_msg_data_type`,
`close_sent`, `disconnected`, `close_timer`, `close_timeout`); pyproject.toml keeps uvicorn within
one minor version and tests/server/test_native.py checks that the fast path is the one in use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request

#: Where the protocol leaves itself in the ASGI scope for the endpoint to find.
SCOPE_KEY = "floe.native"


class FloeWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O websocket protocol, delivering to a NativeSocket once one is attached."""

    native: NativeSocket | None = None

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope: dict[str, Any] | None = getattr(self, "scope", None)
        if scope is not None:  # an accepted upgrade: the app runs (later, in its task) with this scope
            scope[SCOPE_KEY] = self

    def send_receive_event_to_app(self) -> None:
        native = self.native
        if native is None:
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:
            return  # past our close: the peer's last messages are dropped, as uvicorn does
        if self.curr_msg_data_type == "text":
            native.deliver(bytes(data).decode("utf-8", errors="replace"))
        else:
            native.deliver(bytes(data))

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.native is not None:
            self.native.lost()


class NativeSocket:
    """The endpoint's handle on a FloeWebSocketProtocol: deliver, write, close, and the end."""

    def __init__(self, protocol: FloeWebSocketProtocol) -> None:
        self._protocol = protocol
        self._on_message: Callable[[bytes | str], None] | None = None
        #: Set when the connection is gone (the endpoint awaits it).
        self.closed = asyncio.Event()
        if protocol.disconnected:
            self.closed.set()

    @classmethod
    def of(cls, scope: Mapping[str, Any]) -> NativeSocket | None:
        """The fast path of an accepted websocket, or None when the server is not running our protocol."""
        protocol = scope.get(SCOPE_KEY)
        return cls(protocol) if isinstance(protocol, FloeWebSocketProtocol) else None

    def attach(self, on_message: Callable[[bytes | str], None]) -> None:
        """From now on, every complete message is a call to `on_message` (on the event loop).

        Messages that reached the ASGI queue before (sent right behind the handshake) go first.
        """
        self._on_message = on_message
        protocol = self._protocol
        protocol.native = self
        while not protocol.queue.empty():
            event: dict[str, Any] = dict(protocol.queue.get_nowait())
            if event["type"] == "websocket.receive":
                data = event.get("bytes")
                self.deliver(data if data is not None else event.get("text") or "")
            elif event["type"] == "websocket.disconnect":
                self.closed.set()
        if protocol.read_paused:  # uvicorn pauses reading while its queue holds a message
            protocol.read_paused = False
            protocol.transport.resume_reading()

    def deliver(self, data: bytes | str) -> None:
        """A message arrived (called by the protocol)."""
        if self._on_message is not None:
            self._on_message(data)

    def lost(self) -> None:
        """The connection is gone (called by the protocol)."""
        self.closed.set()

    @property
    def open(self) -> bool:
        """Can it still send?"""
        protocol = self._protocol
        return not (protocol.close_sent or protocol.disconnected or protocol.transport.is_closing())

    def write(self, data: bytes) -> bool:
        """Send one binary message now; False when the connection can no longer send."""
        if not self.open:
            return False
        protocol = self._protocol
        protocol.conn.send_binary(data)
        protocol.transport.write(b"".join(protocol.conn.data_to_send()))
        return True

    def buffered(self) -> int:
        """Bytes written but not yet taken by the peer (the transport's buffer)."""
        return self._protocol.transport.get_write_buffer_size()

    def close(self, code: int) -> None:
        """Start the closing handshake; the transport closes when the peer answers, or after a timeout."""
        if not self.open:
            return
        protocol = self._protocol
        protocol.conn.send_close(code)
        protocol.transport.write(b"".join(protocol.conn.data_to_send()))
        protocol.close_sent = True
        protocol.close_timer = protocol.loop.call_later(protocol.close_timeout, protocol.transport.close)
