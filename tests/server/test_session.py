"""The session's guards without sockets: the token bucket, the strikes, the handshake and the seat binding.

A session (server/match/session.py) is fed bytes with an explicit time and answers through a
recording outbox, so every number below is exact: no clock, no refill speed, no network.
"""

from __future__ import annotations

import pytest

from protocol.codec import encode
from protocol.errors import CloseCode
from protocol.messages import Error, Hello, Join, Joined, Ping, Pong, ServerMessage, Status, Watch, Welcome
from protocol.version import PROTOCOL_VERSION
from server.match.live import Seat
from server.match.session import Session
from server.node import Node
from server.store.memory import MemoryStore
from server.tokens import Guest
from tests.server.conftest import fast_config
from tests.server.helpers import UNIT, until


class FixedClock:
    """A clock that says what the test sets."""

    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> float:
        return 1_700_000_000.0 + self.now


class CountingIds:
    """Ids and seeds that count up."""

    def __init__(self) -> None:
        self.count = 0

    def _next(self) -> int:
        self.count += 1
        return self.count

    def match_id(self) -> str:
        return f"m{self._next()}"

    def seed(self) -> int:
        return 1000 + self._next()

    def guest_id(self) -> str:
        return f"g_{self._next()}"

    def invite(self) -> str:
        return f"invite-{self._next()}"


class RecordingOutbox:
    """An outbox that keeps what it is given."""

    def __init__(self) -> None:
        self.messages: list[ServerMessage | bytes] = []
        self.closed: list[tuple[int, ServerMessage | None]] = []
        self.peer = "127.0.0.9:1"

    @property
    def open(self) -> bool:
        return not self.closed

    def send(self, message: ServerMessage) -> bool:
        if self.closed:
            return False
        self.messages.append(message)
        return True

    def send_bytes(self, data: bytes) -> bool:
        if self.closed:
            return False
        self.messages.append(data)
        return True

    def close(self, code: int = CloseCode.NORMAL, message: ServerMessage | None = None) -> None:
        if not self.closed:
            self.closed.append((code, message))

    def kinds(self) -> list[str]:
        """The kinds of the messages sent (encoded stream bytes count as 'bytes')."""
        return ["bytes" if isinstance(m, bytes) else m.KIND for m in self.messages]


def make(**overrides: object) -> tuple[Node, Session, RecordingOutbox, FixedClock]:
    """A node on a fixed clock and counting ids, and one session on a recording outbox."""
    config = fast_config().override(**overrides)
    clock = FixedClock()
    node = Node(config, MemoryStore(), clock, CountingIds())
    out = RecordingOutbox()
    return node, Session(out, node.dispatcher, config.session, clock.now), out, clock


def hello(token: str | None = None) -> bytes:
    return encode(Hello(version=PROTOCOL_VERSION, token=token))


def test_a_flood_passes_exactly_the_burst_and_one_error_a_second() -> None:
    """200 pings at one instant: the burst (21 tokens, the hello takes one) is answered, the rest dropped
    with one rate-limited error; a second later the bucket is full again (a full burst, not the whole
    second's rate) and one more error may be sent."""
    _, session, out, clock = make(rate_per_second=50, rate_burst=21)
    session.receive(hello(), clock.now)
    ping = encode(Ping(id=1, t=0))
    for _ in range(200):
        session.receive(ping, clock.now)
    assert out.kinds().count("pong") == 20
    errors = [m for m in out.messages if isinstance(m, Error)]
    assert [e.code for e in errors] == ["rate-limited"] and session.strikes == 180
    clock.now += 1.0
    for _ in range(60):
        session.receive(ping, clock.now)
    assert out.kinds().count("pong") == 20 + 21
    assert [m.code for m in out.messages if isinstance(m, Error)] == ["rate-limited"] * 2
    assert out.open


def test_too_many_refused_messages_close_the_connection_as_hostile() -> None:
    """Past max_strikes refused messages the session closes the connection with a fatal error (1008)."""
    _, session, out, clock = make(max_strikes=5)
    session.receive(hello(), clock.now)
    for _ in range(5):
        session.receive(b"\xc1", clock.now)  # never valid msgpack
        assert out.open
    session.receive(b"\xc1", clock.now)
    code, last = out.closed[0]
    assert code == CloseCode.POLICY and isinstance(last, Error) and last.fatal and last.code == "rate-limited"
    session.receive(encode(Ping(id=1, t=0)), clock.now)
    assert "pong" not in out.kinds()


def test_handshake_first_once_and_of_this_version() -> None:
    """Before hello every message is refused; a second hello is refused; another version is fatal."""
    _, session, out, clock = make()
    session.receive(encode(Ping(id=1, t=0)), clock.now)
    session.receive(hello(), clock.now)
    session.receive(hello(), clock.now)
    assert out.kinds() == ["error", "welcome", "error"]
    first, _, again = out.messages
    assert isinstance(first, Error) and first.code == "hello-first"
    assert isinstance(again, Error) and again.code == "duplicate-hello"
    _, fresh, fresh_out, _ = make()
    fresh.receive(encode(Hello(version=PROTOCOL_VERSION + 1)), clock.now)
    assert fresh_out.closed and fresh_out.closed[0][0] == CloseCode.POLICY


@pytest.mark.asyncio
async def test_joining_binds_the_seat_and_closing_starts_the_grace_period() -> None:
    """A guest's token binds its session to its seat (once the store said no renewal revoked it, the
    join sent meanwhile waiting for it); when the session closes the seat holds nothing and, past the
    grace period, forfeits."""
    node, session, out, clock = make(reconnect_grace=5.0)
    guest = Guest("g_ann", "ann")
    token = node.signer.issue(guest, clock.wall())
    live = node.hub.new_match([Seat("ann", guest=guest.id), Seat("bot", bot="lazy")])
    session.receive(hello(token), clock.now)
    session.receive(encode(Join(match=live.id)), clock.now)
    assert out.messages == [] and session.held is not None  # the token is being checked
    await until(lambda: session.held is None, 10 * UNIT, "the token checked")
    welcome = out.messages[0]
    assert isinstance(welcome, Welcome) and welcome.guest == "g_ann"
    assert session.match is live and session.seat == 0 and not session.spectator
    assert isinstance(out.messages[1], Joined)
    live.tick(0, clock.now)
    assert live.state == "running"
    session.closed(clock.now)
    assert session.match is None and live.seats[0].connection is None
    clock.now += 5.5
    live.tick(1, clock.now)
    assert live.runner is not None and live.runner.timelines[0].closed  # the seat forfeited


def test_a_spectator_is_bound_read_only() -> None:
    """Watching binds the session as a spectator of the match, with no seat."""
    node, session, out, clock = make()
    live = node.hub.new_match([Seat("a", bot="lazy"), Seat("b", bot="competent")])
    session.receive(hello(), clock.now)
    session.receive(encode(Watch(match=live.id)), clock.now)
    assert session.match is live and session.seat is None and session.spectator
    assert [type(m) for m in out.messages[:2]] == [Welcome, Joined]
    live.tick(0, clock.now)
    assert any(isinstance(m, Status) for m in out.messages)


@pytest.mark.parametrize("data", [b"", b"\x00" * 5000, "text", b"\x81\xa4kind\xa5nope!"])
def test_refused_frames_are_answered_and_counted(data: bytes | str) -> None:
    """Empty, oversized, text and unknown frames each get one typed error and one strike."""
    _, session, out, clock = make()
    session.receive(hello(), clock.now)
    session.receive(data, clock.now)
    assert out.kinds() == ["welcome", "error"] and session.strikes == 1 and out.open
    pong_next = encode(Ping(id=9, t=0))
    session.receive(pong_next, clock.now)
    assert out.messages[-1] == Pong(id=9, t=0, frame=-1)


@pytest.mark.asyncio
async def test_a_desync_report_is_logged_once_per_connection_and_changes_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A player's `desync` (its browser engine disagreed with a keyframe) is logged as a WARNING naming
    the match, seat and frame, at most `limits.desync_reports_per_connection` times; a spectator's is
    refused as `not-joined`; the match goes on as before."""
    from protocol.messages import Desync
    from server.logs import FIELDS

    node, session, out, clock = make()
    guest = Guest("g_ann", "ann")
    live = node.hub.new_match([Seat("ann", guest=guest.id), Seat("bot", bot="lazy")])
    session.receive(hello(node.signer.issue(guest, clock.wall())), clock.now)
    session.receive(encode(Join(match=live.id)), clock.now)
    await until(lambda: session.held is None, 10 * UNIT, "the token checked")
    live.tick(0, clock.now)
    with caplog.at_level("WARNING", logger="floe.session"):
        for frame in (240, 360):
            session.receive(encode(Desync(frame=frame)), clock.now)
    logged = [record for record in caplog.records if "match.client-desync" in record.getMessage()]
    assert len(logged) == node.config.lobby.limits.desync_reports_per_connection == 1
    assert getattr(logged[0], FIELDS) == {"match": live.id, "seat": 0, "frame": 240, "guest": "g_ann"}
    assert not any(isinstance(message, Error) for message in out.messages)
    assert live.state == "running"

    _, watcher, watched, _ = make()
    watcher.receive(hello(), clock.now)
    watcher.receive(encode(Desync(frame=240)), clock.now)
    refused = [message for message in watched.messages if isinstance(message, Error)]
    assert [error.code for error in refused] == ["not-joined"]
