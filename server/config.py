"""The server's settings, in one frozen dataclass: defaults for `floe serve`, overrides for tests."""

from __future__ import annotations

import os
import resource
import secrets
from dataclasses import dataclass, field, replace
from typing import Any

from protocol.limits import MAX_CLIENT_MESSAGE_BYTES, RATE_BURST, RATE_PER_SECOND, REMATCH_OFFER_SECONDS
from rules.ruleset import Ruleset
from rules.solo.ruleset import PENGO_SOLO
from rules.versus.ruleset import PENGO_VERSUS
from rules.versus.tables import FRAME_HZ

from .match.matchmaker import QueueSettings
from .netcode.runner import RunnerSettings

#: The environment variable holding the token secret (at least MIN_SECRET_BYTES bytes of UTF-8).
SECRET_ENV = "FLOE_SECRET"
#: The environment variable naming the Redis store (`floe serve --redis` wins over it).
REDIS_ENV = "FLOE_REDIS_URL"

DEFAULT_ORIGINS = (
    "http://localhost:8000",
    "http://127.0.0.1:8000",
    "http://localhost",
    "http://127.0.0.1",
    "http://[::1]:8000",
)


#: The shortest token secret the server takes.
MIN_SECRET_BYTES = 16


class ConfigError(ValueError):
    """A setting the server refuses to start with."""


def secret_from_env() -> bytes | None:
    """FLOE_SECRET as bytes, or None when it is not set; ConfigError when it is set but too short
    (an empty one included: it must not silently mean a random secret)."""
    value = os.environ.get(SECRET_ENV)
    if value is None:
        return None
    secret = value.encode("utf-8")
    if len(secret) < MIN_SECRET_BYTES:
        raise ConfigError(f"{SECRET_ENV} must be at least {MIN_SECRET_BYTES} bytes, got {len(secret)}")
    return secret


def token_secret(configured: bytes | None, shared_store: bool) -> tuple[bytes, str]:
    """The secret to sign tokens with, and where it came from ("configured" or "random").

    A random secret is made only for the embedded store (tokens then die with the process, which is
    what one process on its own store means); a store shared by several processes needs every one
    of them to sign alike, so it refuses to start without a configured secret.
    """
    if configured is not None:
        if len(configured) < MIN_SECRET_BYTES:
            raise ConfigError(f"the token secret must be at least {MIN_SECRET_BYTES} bytes")
        return configured, "configured"
    if shared_store:
        raise ConfigError(f"a shared store needs a token secret: set {SECRET_ENV} (at least "
                          f"{MIN_SECRET_BYTES} bytes, the same on every node)")
    return secrets.token_bytes(32), "random"


@dataclass(frozen=True)
class LimitSettings:
    """Per-guest and per-address bounds of the lobby (rates are per second; a burst is a bucket's size)."""

    #: Matches with every seat taken that one guest may hold a seat in at once.
    live_matches_per_guest: int = 1
    #: `desync` reports (a browser engine disagreed with a keyframe) logged per connection; later ones
    #: are ignored.
    desync_reports_per_connection: int = 1
    #: Rooms one guest may have waiting for a second player.
    open_rooms_per_guest: int = 3
    #: Rooms and bot matches one guest may make: a burst, then this many a second.
    match_rate_per_guest: float = 0.2
    match_burst_per_guest: float = 5
    #: The same per address (several guests behind one address share it).
    match_rate_per_address: float = 1.0
    match_burst_per_address: float = 20
    #: Guests one address may make.
    guest_rate_per_address: float = 0.2
    guest_burst_per_address: float = 10
    #: Live matches (rooms waiting or joined, bot matches, ranked matches) one client address may have a
    #: seat in at once, counted once per match whatever the number of its guests from that address: a
    #: household's players, not a node's worth (bench/SERVER.md: a core holds about 50).
    live_matches_per_address: int = 8


@dataclass(frozen=True)
class ServerConfig:
    """Everything the server can be told; tests shorten the times and raise the frame rate."""

    #: Frames per second of the match loop (60 is the game; tests run faster).
    frame_rate: int = FRAME_HZ
    runner: RunnerSettings = field(default_factory=RunnerSettings)
    #: Frames ahead that clients stamp inputs (told in `welcome`).
    input_delay: int = 2
    #: The clock wakes this many times a frame, each time ticking one slice of the matches.
    tick_slices: int = 4
    #: Frames of input a client gathers per message (told in `welcome`); a change goes at once.
    input_batch: int = 2
    #: The streams go out every this many ticks, each connection's records in one websocket message:
    #: half the messages of one per frame, for at most one frame more of display latency.
    send_every: int = 2
    #: The ruleset every match is played with, and its config (None: the ruleset's default).
    ruleset: Ruleset[Any, Any] = PENGO_VERSUS
    match_config: Any = None
    #: The browser client's build served at `/` (None: clients/web/dist beside the server package).
    web_root: str | None = None
    #: Stream messages kept per stream for reconnects; an older gap gets a resync from a keyframe.
    history: int = 600
    #: Messages one connection may have queued at once (they leave together at the end of the callback
    #: that queued them) before it counts as too slow and is dropped...
    send_queue: int = 512
    #: ...and bytes its socket may hold unsent (the client is not reading them).
    send_buffer_bytes: int = 1024 * 1024
    #: Seconds a dropped player may take to come back before the seat forfeits.
    reconnect_grace: float = 30.0
    #: Seconds a room waits for its players before it is cancelled (from its creation: not renewable).
    room_timeout: float = 300.0
    #: Per-guest and per-address bounds of the lobby.
    limits: LimitSettings = field(default_factory=LimitSettings)
    #: Seconds a seat in a live match counts against its guest at most (a match that never reported
    #: its end frees its seats then; matches end long before).
    live_hold: float = 3600.0
    #: Seconds a finished match stays listed for late reconnects before it is forgotten.
    linger: float = 30.0
    #: At most this many frames simulated per match in one tick when the loop fell behind; past it the
    #: schedule slips (logged) instead of stepping a burst that would make every later tick late too.
    max_catch_up: int = 8
    max_message_bytes: int = MAX_CLIENT_MESSAGE_BYTES
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
    rate_per_second: float = RATE_PER_SECOND
    rate_burst: float = RATE_BURST
    #: Refused messages (errors) after which a connection is closed as hostile.
    max_strikes: int = 1000
    allowed_origins: tuple[str, ...] = DEFAULT_ORIGINS
    #: Live matches (rooms included) one process holds at most.
    max_matches: int = 2000
    #: The largest request body of the JSON routes (bytes; refused with 413 before it is read).
    http_body_bytes: int = 16 * 1024
    #: Seconds a request's body (JSON or upload) may take to arrive, from its head (408 past it: a
    #: trickled body holds no request open, nor a verification slot).
    http_body_seconds: float = 10.0
    #: Replay verification: body bound, frame bound, concurrency, wall-time bound, pool kind.
    verify_max_bytes: int = 1024 * 1024
    verify_max_frames: int = 10 * 60 * FRAME_HZ
    verify_concurrency: int = 2
    #: Of those, how many one client address may hold at once.
    verify_per_client: int = 1
    verify_timeout: float = 30.0
    verify_pool: str = "process"
    #: The ranked queue: its windows, wait and capacity (server/match/matchmaker.py).
    queue: QueueSettings = field(default_factory=QueueSettings)
    #: Seconds both players of a found ranked match have to connect before it is cancelled.
    ranked_join_timeout: float = 15.0
    #: Seconds the ranked queue refuses a guest who was not connected when its found match had to start.
    ranked_dodge_cooldown: float = 300.0
    #: Seconds between two pairing passes of the queue (a guest's arrival pairs at once, too).
    ranked_pair_every: float = 0.5
    #: Seconds between looks at the journal of ranked results to apply; an entry with no match record
    #: after ranked_stale_after seconds is dropped (its match died with its node).
    ranked_recovery_every: float = 60.0
    ranked_stale_after: float = 3600.0
    #: The daily challenge: its ruleset and config (None: the ruleset's default, a 10-minute pengo-solo
    #: run), runs a guest may submit a day, and seconds after midnight the previous day still takes runs.
    daily_ruleset: Ruleset[Any, Any] = PENGO_SOLO
    daily_config: Any = None
    daily_submissions: int = 20
    daily_grace: float = 900.0
    #: Tokens: the HMAC secret (None: FLOE_SECRET's, or a random one for the embedded store, see
    #: `token_secret`) and their lifetime.
    secret: bytes | None = field(default_factory=secret_from_env, repr=False)
    token_ttl: float = 7 * 24 * 3600.0
    #: Replays, match records and player records kept by the in-memory store (oldest evicted first).
    store_capacity: int = 10_000
    #: The Redis store's URL (None: the embedded store) and its keys' prefix.
    redis_url: str | None = None
    redis_prefix: str = "floe:"
    # ---- issue 18: the verification pool shared fairly, replay streams, daily runs bounded ----------
    #: Verification requests (verify, daily runs, replay streams) one client address may have waiting
    #: for a slot (429 past it), all clients together (503 past it), and seconds one may wait (503).
    verify_queue_per_client: int = 4
    verify_queue_total: int = 64
    verify_queue_seconds: float = 20.0
    #: Replay streams kept in memory, and how many of them one client's cache misses may hold (a miss
    #: past its share evicts that client's own oldest stream, not another client's).
    replay_stream_cache: int = 16
    replay_stream_cache_per_client: int = 4
    #: Bytes of daily runs' replays kept per day (the lowest-ranked runs' replays go first; their
    #: scores stay on the board).
    daily_replay_bytes: int = 32 * 1024 * 1024
    # ---- issue 18, the websocket listener: frames paid for, unread answers bounded, connections capped ----
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
    #: Open connections (websockets and HTTP) on this node; None: what the descriptor limit allows
    #: (`connection_cap`); a configured cap above that is refused at startup. Past it: HTTP 503 `busy`.
    max_connections: int | None = None
    # ---- ranked play and tokens (issue 18): aborts, dodges, token renewals --------------------------
    #: A ranked result is rated only when the match ran at least this many seconds of frames (at the
    #: game's 60 frames a second) and both seats sent an input other than neutral; a match that ends
    #: before that (a leave, a forfeit, anything) is aborted: cancelled, not rated. 0: every result
    #: is rated (the rule off).
    ranked_min_play_seconds: float = 10.0
    #: A guest's dodges (and aborts) within this many seconds double its cooldown each time, up to
    #: ranked_dodge_cooldown_max...
    ranked_dodge_memory: float = 24 * 3600.0
    ranked_dodge_cooldown_max: float = 3600.0
    #: ...and a player is not paired again (for ranked_dodge_memory) with a guest, or any guest of an
    #: address, that dodged it this many times in that time.
    ranked_avoid_after: int = 2
    #: Token renewals per guest, and per client address, in an hour (a burst of that many, refilled
    #: over the hour).
    renewals_per_guest: int = 6
    renewals_per_address: int = 20
    #: Messages a connection may send while its `hello`'s token is checked against the store; past it
    #: they are refused (`busy`).
    hello_backlog: int = 32
    # ---- admission (issue 18): the node's budget of matches, messages per address, invited seats ----
    #: The work this node admits, in board-frames a second: a live match (a room waiting, a running
    #: match) costs its seats times `frame_rate`, and a new one past the budget is refused (HTTP 503
    #: `busy` with Retry-After). Counted work, never measured load, so a busy machine refuses nothing.
    #: 6000 is 50 1 v 1 matches at 60 frames/s: bench/SERVER.md's capacity of one core.
    capacity_board_frames: int = 6000
    #: Messages all the websockets of one client address may send together (a token bucket they share,
    #: on top of each connection's own): a burst, then this many a second.
    message_rate_per_address: float = 480.0
    message_burst_per_address: float = 960.0
    #: Seconds a guest who took a room's seat by its invitation has to connect before the seat is given
    #: back (the room waits for the invitation again).
    invite_connect_timeout: float = 30.0
    # ---- issue 19: rematch offers, connection information, spectators ---------------------------------
    #: Seconds a rematch offer waits for the other player's answer before it expires...
    rematch_offer_seconds: float = REMATCH_OFFER_SECONDS
    #: ...and the offers one seat may make of one ended match (declined and expired ones count).
    rematch_offers_per_seat: int = 3
    #: Seconds between two looks at a running match's `status` (each seat's lag and grace countdown, the
    #: spectators): it goes out when it changed (a lag by 10 ms or more), besides the one at every
    #: change of state or connection.
    status_every: float = 2.0
    #: Seconds between the round-trip probes (websocket pings, which browsers answer by themselves) on
    #: each websocket; their pongs give `status.lag`.
    lag_probe_every: float = 2.0
    #: Seconds a ranked match's spectators follow it late: the server holds their confirmed stream
    #: (records, keyframes, `over`) this long, so a spectator cannot relay a ranked game as it is played.
    #: Other matches' spectators get the confirmed stream at once (the rollback window behind).
    ranked_spectator_delay: float = 10.0
    # ---- rooms of 2 to 4 seats, their time limit, a guest's recovery code (issue 19, the lobby) ----
    #: Seats a room may have (its creator chooses, `POST /api/rooms` `seats`): the engine plays 2 to 4.
    room_seats_min: int = 2
    room_seats_max: int = 4
    #: Minutes a room's match may be limited to (`POST /api/rooms` `minutes`; none: the ruleset's default):
    #: at most the verifier's `verify_max_frames`, so every room's replay stays verifiable.
    room_minutes_min: int = 1
    room_minutes_max: int = 10
    #: Recovery codes a guest may be given, and codes redeemed from one client address, in an hour (a
    #: burst of that many, refilled over the hour): a guessed code is 256 bits of HMAC, and this keeps
    #: even the signature checks few.
    recovery_codes_per_guest: int = 6
    recoveries_per_address: int = 10
    #: Tune the garbage collector for the match loop at startup (see server/app.py); tests leave it.
    tune_gc: bool = True

    def __post_init__(self) -> None:
        if self.match_config is None:
            object.__setattr__(self, "match_config", self.ruleset.default_config())
        if self.daily_config is None:
            object.__setattr__(self, "daily_config", self.daily_ruleset.default_config())

    @property
    def ranked_min_play_frames(self) -> int:
        """`ranked_min_play_seconds` in the match's frames (the game's 60 a second, whatever the loop's
        pace): the frame a ranked match must reach for its result to be rated."""
        return round(self.ranked_min_play_seconds * FRAME_HZ)

    def with_time_limit(self, seconds: float) -> ServerConfig:
        """The same config, every other rule kept, with matches limited to `seconds` of frames."""
        frames = max(1, round(seconds * FRAME_HZ))
        return replace(self, match_config=self.ruleset.with_time_limit(self.match_config, frames))


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
