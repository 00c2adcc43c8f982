"""The transport layer's settings: the public port, its connections, the websockets on it."""

from __future__ import annotations

import resource
from dataclasses import dataclass

from protocol.limits import RATE_BURST, RATE_PER_SECOND

from ..errors import ConfigError

#: The browser origins always allowed to open the websocket (`floe serve` adds its own host and port).
DEFAULT_ORIGINS = (
    "http://localhost:8000",
    "http://127.0.0.1:8000",
    "http://localhost",
    "http://127.0.0.1",
    "http://[::1]:8000",
)


@dataclass(frozen=True)
class TransportSettings:
    """floe's listener: where it listens, the bounds of every connection, the websockets' own."""

    #: The address and port the listener takes (`floe serve`; the tests take port 0).
    host: str = "127.0.0.1"
    port: int = 8000
    #: Connections the kernel queues on the public port before the listener accepts them (uvicorn's
    #: default, which served that port before).
    listen_backlog: int = 2048
    #: Bytes a request head (request line and headers) may take on the public port; past it the
    #: listener answers 431 and closes (server/transport/head.py).
    max_head_bytes: int = 8 * 1024
    #: Seconds a new connection has to send its whole request head before it is dropped (slowloris),
    #: and at most the time a refused request's socket lingers to drain (server/transport/refusal.py).
    head_timeout: float = 5.0
    #: Connections (websockets and HTTP) one client address may hold open at once; past it a new one
    #: gets 429 `rate-limited` and is closed (server/transport/listener.py).
    max_connections_per_address: int = 64
    #: Proxies whose `X-Forwarded-For` names the client (`floe serve --trusted-proxy`): behind one of
    #: them a client's address is the one it forwarded, elsewhere the socket's peer (and any
    #: forwarding header a client sends is dropped).
    trusted_proxies: tuple[str, ...] = ()
    #: Seconds a websocket has, once its handshake is done, to say `hello` before it is closed.
    hello_timeout: float = 10.0
    #: Seconds a relayed HTTP request may go without a byte either way before both sides are dropped
    #: (longer than `verify_timeout`, which is the slowest answer the API gives).
    http_idle_timeout: float = 60.0
    #: Browser origins allowed to open the websocket (`FLOE_ORIGINS`; "*" allows any).
    allowed_origins: tuple[str, ...] = DEFAULT_ORIGINS
    #: Open connections (websockets and HTTP) on this node; None: what the descriptor limit allows
    #: (`connection_cap`); a configured cap above that is refused at startup. Past it: HTTP 503 `busy`.
    max_connections: int | None = None
    #: Messages one connection may have queued at once (they leave together at the end of the callback
    #: that queued them) before it counts as too slow and is dropped...
    send_queue: int = 512
    #: ...and bytes its socket may hold unsent (the client is not reading them).
    send_buffer_bytes: int = 1024 * 1024
    #: The websocket layer's own hard limit (the socket is closed past it, code 1009); frames
    #: between max_message_bytes and it get a typed `too-large` error and the connection lives on.
    ws_max_bytes: int = 64 * 1024
    #: Seconds a peer has to answer our close frame before its socket is dropped (server/transport/
    #: websocket.py); the same bound covers a close the peer started and a client that stopped reading.
    ws_close_timeout: float = 5.0
    #: Seconds between the server's keepalive pings on each websocket (None: no pings)...
    ws_ping_interval: float | None = 20.0
    #: ...and seconds the pong may take before the socket counts as dead (closed, code 1011).
    ws_ping_timeout: float = 20.0
    #: Frames of every kind (data, continuation, ping, pong, close) one websocket may send: a token
    #: bucket of this many a second and this burst, charged as each piece of a read is parsed and before
    #: its frames are handled; past it the connection is closed (fatal `rate-limited`, code 1008).
    ws_frame_rate: float = 4 * RATE_PER_SECOND
    ws_frame_burst: float = 4 * RATE_BURST
    #: ...and the bytes those frames take (headers included), a second and the burst.
    ws_byte_rate: float = 256 * 1024
    ws_byte_burst: float = 1024 * 1024
    #: Frames handled per read of the socket: past it the rest of the read waits for the loop's next
    #: turn (the socket is not read meanwhile), so one read costs the loop a bounded time.
    ws_frames_per_read: int = 256
    #: Seconds a websocket's socket may hold more than `send_buffer_bytes` it has not read (its reads are
    #: paused meanwhile, so its pings are not answered) before it is dropped.
    ws_unread_timeout: float = 10.0
    #: Seconds a websocket that said hello may follow no match and wait in no queue before it is closed
    #: (fatal `idle`, code 1008).
    ws_idle_timeout: float = 120.0
    #: Seconds between the round-trip probes (websocket pings, which browsers answer by themselves) on
    #: each websocket; their pongs give `status.lag`.
    lag_probe_every: float = 2.0


#: Descriptors kept for the process's own use (Redis, the verification pool, uvicorn's socket, logs)
#: when the connection cap is derived from the descriptor limit.
DESCRIPTOR_HEADROOM = 256


def descriptor_limit() -> int:
    """The process's soft limit on open descriptors (RLIMIT_NOFILE; a large number when unlimited)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1 << 20 if soft == resource.RLIM_INFINITY else int(soft)


def connection_cap(configured: int | None, descriptors: int) -> int:
    """The node-wide cap on open connections. Each connection may hold two descriptors (a relayed HTTP
    request has one to uvicorn too) and DESCRIPTOR_HEADROOM are kept aside: the cap is what is left,
    halved, unless configured lower; ConfigError when configured higher (the process would run out of
    descriptors before its cap refuses anyone)."""
    most = (descriptors - DESCRIPTOR_HEADROOM) // 2
    if most < 1:
        raise ConfigError(f"{descriptors} open descriptors (ulimit -n) leave no room for connections")
    if configured is None:
        return most
    if configured < 1 or configured > most:
        raise ConfigError(f"max_connections must be 1 to {most} with {descriptors} open descriptors "
                          f"(ulimit -n; {DESCRIPTOR_HEADROOM} kept, two a connection), got {configured}")
    return configured
