"""floe's public socket: each connection's request head is read here, then it becomes a websocket or an
HTTP request relayed to uvicorn.

    listener = Listener(hub, dispatcher, upstream_path)     # uvicorn serves the app on upstream_path
    port = await listener.start("127.0.0.1", 0)
    …
    listener.begin_shutdown()                              # then stop uvicorn, then:
    await listener.wait_closed()

`FrontDoor` is the one place that knows who a connection comes from and what it asked for: the peer
address is taken from the socket, and the request head is read with a bound on its size
(`max_head_bytes`, else 431) and on its time (`head_timeout`, else the socket is dropped: slowloris).
A head for `/ws` hands the socket to a `WebSocketSession` (server/transport/websocket.py), any other
to an `HttpRelay` (server/transport/relay.py), which tells the app the peer's address and, when the
client keeps its connection alive, hands it back to a new FrontDoor for the next request (the same
bounds apply: a kept-alive connection with no new head within `head_timeout` is closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import cast

from ..config import ServerConfig
from ..logs import log_event
from ..match.dispatch import Dispatcher
from ..match.hub import Hub
from .head import HeadError, HeadReader
from .refusal import refuse
from .relay import HttpRelay
from .tracking import Stoppable
from .websocket import WebSocketSession

log = logging.getLogger("floe.listener")

#: The websocket endpoint's path (the same host and port as the HTTP API).
WS_PATH = b"/ws"
#: Seconds of slack at shutdown: past `ws_close_timeout` before the sockets still open are aborted,
#: and then for the aborted ones to report their end.
ABORT_GRACE = 1.0


@dataclass(frozen=True)
class Peer:
    """Where a connection comes from (the socket's peer address)."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def peer_of(transport: asyncio.BaseTransport) -> Peer:
    """The peer address of a TCP socket (an empty host when the socket does not say)."""
    name = transport.get_extra_info("peername")
    if isinstance(name, tuple) and len(name) >= 2:
        return Peer(str(name[0]), int(name[1]))
    return Peer("", 0)


class Listener:
    """The public socket, its connections, and their shutdown."""

    def __init__(self, hub: Hub, dispatcher: Dispatcher, upstream_path: str) -> None:
        """`upstream_path`: the unix socket uvicorn serves the app's HTTP side on."""
        self.hub = hub
        self.dispatcher = dispatcher
        self.config: ServerConfig = hub.config
        self.upstream_path = upstream_path
        self.stopping = False
        self._server: asyncio.Server | None = None
        #: Every open socket and the protocol now driving it.
        self._open: dict[asyncio.Transport, Stoppable] = {}
        self._all_closed = asyncio.Event()

    async def start(self, host: str, port: int) -> int:
        """Listen on `host` and `port` (0: a free one); returns the port bound."""
        loop = asyncio.get_running_loop()
        backlog = self.config.listen_backlog
        self._server = await loop.create_server(lambda: FrontDoor(self), host, port, backlog=backlog)
        bound = int(self._server.sockets[0].getsockname()[1])
        log_event(log, logging.INFO, "listener.start", host=host, port=bound)
        return bound

    # ---- bookkeeping (called by the connections' protocols) ------------------------------------------

    def track(self, transport: asyncio.Transport, protocol: Stoppable) -> None:
        """`protocol` drives `transport` from now on."""
        self._open[transport] = protocol

    def forget(self, transport: asyncio.Transport) -> None:
        """`transport` is closed."""
        self._open.pop(transport, None)
        if self.stopping and not self._open:
            self._all_closed.set()

    def next_request(self, transport: asyncio.Transport, received: bytes) -> None:
        """A kept-alive connection after its answer: a new FrontDoor reads its next request head,
        starting with the bytes already `received` (a pipelined request)."""
        door = FrontDoor(self)
        transport.set_protocol(door)
        door.connection_made(transport)
        transport.resume_reading()
        if received:
            door.data_received(received)

    # ---- shutdown ------------------------------------------------------------------------------------

    def begin_shutdown(self) -> None:
        """Accept no more connections; drop those still sending a head; close every websocket (1001).
        Relayed requests go on while uvicorn finishes them."""
        self.stopping = True
        if self._server is not None:
            self._server.close()
        if not self._open:
            self._all_closed.set()
        for protocol in list(self._open.values()):
            protocol.shutdown()

    async def wait_closed(self) -> None:
        """Wait until every socket is closed: the close handshakes get `ws_close_timeout`, then what is
        left is aborted."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._all_closed.wait(), self.config.ws_close_timeout + ABORT_GRACE)
        for transport in list(self._open):
            transport.abort()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._all_closed.wait(), ABORT_GRACE)
        if self._server is not None:
            await self._server.wait_closed()
        log_event(log, logging.INFO, "listener.stop")


class FrontDoor(asyncio.Protocol):
    """A new connection until its request head is read: its peer, the bounded head, the hand-over."""

    def __init__(self, listener: Listener) -> None:
        self._listener = listener
        self._config = listener.config
        self._head = HeadReader(self._config.max_head_bytes)
        self._transport: asyncio.Transport | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self.peer = Peer("", 0)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)
        self.peer = peer_of(transport)
        loop = asyncio.get_running_loop()
        self._deadline = loop.call_later(self._config.head_timeout, self._too_slow)
        self._listener.track(self._transport, self)

    def data_received(self, data: bytes) -> None:
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        try:
            head = self._head.feed(data)
        except HeadError as error:
            self._refuse(error)
            return
        if head is None:
            return
        self._stop_deadline()
        listener = self._listener
        if head.path == WS_PATH:
            session = WebSocketSession(
                transport, str(self.peer), listener.hub, listener.dispatcher, listener.forget
            )
            self._hand_over(transport, session)
            session.start(bytes(self._head.received))
        else:
            relay = HttpRelay(transport, head, self._head.parser, self.peer.host, listener)
            self._hand_over(transport, relay)
            relay.start()

    def eof_received(self) -> None:
        return None  # no complete head will come: the socket closes

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_deadline()
        if self._transport is not None:
            self._listener.forget(self._transport)

    def shutdown(self) -> None:
        """The server is stopping: a connection that has not sent its head yet is dropped."""
        if self._transport is not None:
            self._transport.abort()

    def _hand_over(self, transport: asyncio.Transport, protocol: WebSocketSession | HttpRelay) -> None:
        transport.set_protocol(protocol)
        self._listener.track(transport, protocol)

    def _refuse(self, error: HeadError) -> None:
        self._stop_deadline()
        log_event(log, logging.INFO, "listener.refused", reason=str(error), peer=str(self.peer))
        if self._transport is not None:
            refuse(self._transport, error.response, self._config.head_timeout, self._listener)

    def _too_slow(self) -> None:
        self._deadline = None
        seconds = self._config.head_timeout
        log_event(log, logging.INFO, "listener.head-timeout", peer=str(self.peer), seconds=seconds)
        if self._transport is not None:
            self._transport.close()  # nothing is left to send: a plain close (an idle kept-alive one too)

    def _stop_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
