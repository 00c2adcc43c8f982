"""floe's public socket: each connection's request head is read here, then it becomes a websocket or an
HTTP request relayed to uvicorn.

    listener = Listener(settings, dispatcher, upstream_path)  # uvicorn serves the app on upstream_path
    port = await listener.start("127.0.0.1", 0)
    …
    listener.begin_shutdown()                              # then stop uvicorn, then:
    await listener.wait_closed()

`FrontDoor` is the one place that knows who a connection comes from and what it asked for. The
client's address is the socket's peer, or, when the peer is one of the `trusted_proxies`, the address
that proxy appended to `X-Forwarded-For` (`client_address`); each address holds at most
`max_connections_per_address` open sockets (past it: 429 and close — counted at accept for a direct
peer, once the head names the client behind a proxy), and the node at most `max_connections` (by
default what its descriptor limit allows, `connection_cap`; past it: 503 `busy` and an immediate
close, so refused sockets hold no descriptor). Each refusal by either cap is logged (WARNING).
The request head is read with a bound on its size (`max_head_bytes`, else 431) and on its time
(`head_timeout`, else the socket is dropped: slowloris).
A head for `/ws` hands the socket to a `WebSocketSession` (server/transport/websocket.py), any other
to an `HttpRelay` (server/transport/relay.py), which tells the app the peer's address and, when the
client keeps its connection alive, hands it back to a new FrontDoor for the next request (the same
bounds apply: a kept-alive connection with no new head within `head_timeout` is closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from dataclasses import dataclass
from typing import cast

from protocol.errors import ErrorCode

from ..errors import ConfigError
from ..logs import log_event
from ..match.dispatch import Dispatcher
from .budget import FrameBudget
from .head import HeadError, HeadReader, RequestHead
from .refusal import refusal, refuse
from .relay import HttpRelay
from .settings import TransportSettings, connection_cap, descriptor_limit
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


def client_address(peer: str, head: RequestHead, trusted: tuple[str, ...]) -> str:
    """Who a request comes from: the peer, or behind trusted proxies the nearest address they forwarded
    that is not itself one of them (the rightmost entries of `X-Forwarded-For` are the proxies' own)."""
    if peer not in trusted:
        return peer
    forwarded = [
        hop.strip().decode("ascii", "replace")
        for name, value in head.headers
        if name.lower() == b"x-forwarded-for"
        for hop in value.split(b",")
    ]
    for hop in reversed(forwarded):
        if hop and hop not in trusted:
            return hop
    return peer


def peer_of(transport: asyncio.BaseTransport) -> Peer:
    """The peer address of a TCP socket (an empty host when the socket does not say)."""
    name = transport.get_extra_info("peername")
    if isinstance(name, tuple) and len(name) >= 2:
        return Peer(str(name[0]), int(name[1]))
    return Peer("", 0)


def check_websocket_settings(config: TransportSettings) -> None:
    """ConfigError at startup for a frame budget or per-read bound no websocket could be served with."""
    try:
        FrameBudget(config.ws_frame_rate, config.ws_frame_burst, config.ws_byte_rate, config.ws_byte_burst,
                    now=0.0)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    if config.ws_frames_per_read < 1:
        raise ConfigError(f"ws_frames_per_read must be at least 1, got {config.ws_frames_per_read}")


class Listener:
    """The public socket, its connections, and their shutdown."""

    def __init__(self, settings: TransportSettings, dispatcher: Dispatcher, upstream_path: str) -> None:
        """`upstream_path`: the unix socket uvicorn serves the app's HTTP side on."""
        self.dispatcher = dispatcher
        self.config = settings
        self.upstream_path = upstream_path
        self.stopping = False
        self._server: asyncio.Server | None = None
        #: Every open socket and the protocol now driving it.
        self._open: dict[asyncio.Transport, Stoppable] = {}
        #: The client address each counted socket holds a place for, and the places taken per address.
        self._address_of: dict[asyncio.Transport, str] = {}
        self.per_address: Counter[str] = Counter()
        self._all_closed = asyncio.Event()
        #: Sockets open at once on this node at most (ConfigError at startup when set above the limit).
        self.max_connections = connection_cap(self.config.max_connections, descriptor_limit())
        check_websocket_settings(self.config)

    async def start(self, host: str, port: int) -> int:
        """Listen on `host` and `port` (0: a free one); returns the port bound."""
        loop = asyncio.get_running_loop()
        backlog = self.config.listen_backlog
        self._server = await loop.create_server(lambda: FrontDoor(self), host, port, backlog=backlog)
        bound = int(self._server.sockets[0].getsockname()[1])
        log_event(log, logging.INFO, "listener.start", host=host, port=bound,
                  max_connections=self.max_connections)
        return bound

    # ---- bookkeeping (called by the connections' protocols) ------------------------------------------

    def track(self, transport: asyncio.Transport, protocol: Stoppable) -> None:
        """`protocol` drives `transport` from now on."""
        self._open[transport] = protocol

    def full(self) -> bool:
        """Are more sockets open than the node's cap (the newest one counted)?"""
        return len(self._open) > self.max_connections

    def open_count(self) -> int:
        """Sockets open now (refused ones still lingering included)."""
        return len(self._open)

    def websockets(self) -> list[WebSocketSession]:
        """The websockets open now."""
        return [protocol for protocol in self._open.values() if isinstance(protocol, WebSocketSession)]

    def admit(self, transport: asyncio.Transport, address: str) -> bool:
        """Count `transport` against its client `address` (once); False when the address is full."""
        if transport in self._address_of:
            return True
        if self.per_address[address] >= self.config.max_connections_per_address:
            return False
        self._address_of[transport] = address
        self.per_address[address] += 1
        return True

    def forget(self, transport: asyncio.Transport) -> None:
        """`transport` is closed."""
        self._open.pop(transport, None)
        address = self._address_of.pop(transport, None)
        if address is not None:
            self.per_address[address] -= 1
            if self.per_address[address] <= 0:
                del self.per_address[address]
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
        self._listener.track(self._transport, self)
        if self._listener.full():
            self._node_full()
            return
        behind_proxy = self.peer.host in self._config.trusted_proxies
        if not behind_proxy and not self._listener.admit(self._transport, self.peer.host):
            self._too_many(self.peer.host)
            return
        loop = asyncio.get_running_loop()
        self._deadline = loop.call_later(self._config.head_timeout, self._too_slow)

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
        address = client_address(self.peer.host, head, self._config.trusted_proxies)
        if not listener.admit(transport, address):
            self._too_many(address)
            return
        if head.path == WS_PATH:
            session = WebSocketSession(transport, address, listener.config, listener.dispatcher,
                                       listener.forget)
            self._hand_over(transport, session)
            session.start(bytes(self._head.received))
        else:
            relay = HttpRelay(transport, head, self._head.parser, address, listener)
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

    def _too_many(self, address: str) -> None:
        limit = self._config.max_connections_per_address
        log_event(log, logging.WARNING, "listener.address-full", address=address, limit=limit)
        self._stop_deadline()
        answer = refusal(429, ErrorCode.RATE_LIMITED, f"over {limit} open connections from this address")
        if self._transport is not None:
            refuse(self._transport, answer, self._config.head_timeout, self._listener)

    def _node_full(self) -> None:
        """Past the node's cap: answered at once and closed without lingering (a flood of refused sockets
        must not hold the descriptors the cap keeps)."""
        limit = self._listener.max_connections
        log_event(log, logging.WARNING, "listener.full", peer=str(self.peer), limit=limit)
        answer = refusal(503, ErrorCode.BUSY, f"the server holds its {limit} connections", retry_after=1)
        if self._transport is not None:
            self._transport.write(answer.serialize())
            self._transport.close()

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
