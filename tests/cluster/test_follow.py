"""Any match from any node (issue 20; server/match/relay.py and follow.py): two real nodes (hubs, frame
clocks, relays and followers in one process) on one ownership backend and one bus. A player and a
spectator connected to node B follow a match node A owns: B's player's inputs reach A and are in the
replay, B's clients are sent the same records as A's, byte for byte, a reconnect to B resumes from
its last number, and when A dies mid-match B takes it over and B's clients go on, the spectator
without a gap."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio

from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.messages import (
    Error,
    Frame,
    Hello,
    Input,
    Join,
    Joined,
    Keyframe,
    Over,
    Ping,
    Pong,
    Resync,
    Watch,
)
from protocol.replay_codec import decode_replay
from protocol.version import PROTOCOL_VERSION
from rules.replay import input_rows, verify
from server.cluster.bus import BaseStream
from server.cluster.settings import ClusterSettings
from server.config import ServerConfig
from server.match.follow import FollowedMatch, FollowedStream
from server.match.live import LiveMatch, Seat
from server.match.stream import Stream
from server.node import Node
from server.store.memory import MemoryStore
from server.tokens import Guest
from tests.cluster.conftest import GENEROUS, Backend
from tests.cluster.test_takeover_match import Client
from tests.server.conftest import fast_config
from tests.server.helpers import UNIT, until

TIMEOUT = 30 * UNIT
#: Leases that lapse within the test when a node dies (the other tests' never do).
DYING = ClusterSettings(lease_ttl=3.0, lease_renew_every=0.5, lease_margin=1.0, orphan_scan_every=0.1,
                        snapshot_every=0.5, follow_heartbeat=0.2)


class Player(Client):
    """A client of one node: hello (with a guest's token), then join or watch."""

    def __init__(self, config: ServerConfig, node: Node, guest: Guest | None) -> None:
        super().__init__(config, node.dispatcher)
        self.node = node
        token = node.signer.issue(guest, node.clock.wall()) if guest is not None else None
        self.say(Hello(version=PROTOCOL_VERSION, token=token))

    def say(self, message: Any) -> None:
        self.session.receive(encode(message), self.node.hub.now())

    def welcomed(self) -> bool:
        return self.session.protocol.greeted and self.session.held is None

    def joined(self) -> Joined | None:
        return next((m for m in self.read() if isinstance(m, Joined)), None)

    def errors(self) -> list[Error]:
        return [m for m in self.read() if isinstance(m, Error)]


@dataclass
class Pair:
    a: Node
    b: Node
    config: ServerConfig


@pytest_asyncio.fixture
async def make_pair(backend: Backend) -> AsyncIterator[Any]:
    """Builds two started nodes on the backend (each its own ownership view and bus)."""
    made: list[Node] = []

    async def build(settings: ClusterSettings) -> Pair:
        if backend.kind == "memory" and settings is DYING:
            backend.clock = _Monotonic()  # type: ignore[assignment]  # the leases lapse in real time here
        # A ranked match's spectators 0.5 s late; its result rated whatever the play (a short match).
        config = fast_config(cluster=settings, ranked_spectator_delay=0.5, ranked_min_play_seconds=0)
        store = MemoryStore()
        nodes = []
        for _ in range(2):
            node = Node(config, store, ownership=backend.ownership(settings), bus=backend.bus())
            await node.start()
            made.append(node)
            nodes.append(node)
        return Pair(nodes[0], nodes[1], config)

    try:
        yield build
    finally:
        for node in made:
            with contextlib.suppress(Exception):
                await node.stop()


class _Monotonic:
    def __call__(self) -> float:
        return asyncio.get_running_loop().time()


async def welcome(*clients: Player) -> None:
    await until(lambda: all(client.welcomed() for client in clients), TIMEOUT, "every client welcomed")


async def feed(player: Player, live: LiveMatch, seat: int, stop: asyncio.Event) -> None:
    """A player's inputs: a new held byte every 9 frames, stamped 2 ahead of the owner's frame."""
    values = (0x01, 0x03, 0x02, 0x04, 0x0B)
    count = 0

    def due() -> bool:
        return stop.is_set() or live.ended_at is not None or (
            live.runner is not None and live.state.value == "running" and live.runner.now >= 9 * count)

    while True:
        await until(due, TIMEOUT, "the next input's frame")
        if stop.is_set() or live.ended_at is not None:
            return
        assert live.runner is not None
        player.say(Input(frame=live.runner.now + 2, inputs=[values[(count + seat) % len(values)]]))
        count += 1


def replay_rows(pair: Pair, match_id: str) -> list[list[int]]:
    data = pair.a.stores.replays._replays.get(match_id)  # type: ignore[attr-defined]
    assert data is not None
    replay = decode_replay(data)
    assert verify(replay).ok
    return list(input_rows(replay))


def consecutive(messages: list[Any]) -> bool:
    return [m.n for m in messages] == list(range(messages[0].n, messages[0].n + len(messages)))


@pytest.mark.asyncio
async def test_a_player_and_a_spectator_on_another_node_follow_the_match(make_pair: Any) -> None:
    pair: Pair = await make_pair(GENEROUS)
    a, b = pair.a, pair.b
    ann, bob = Guest("g-ann", "ann"), Guest("g-bob", "bob")
    live = a.hub.new_match([Seat("ann", guest=ann.id), Seat("bob", guest=bob.id)])
    watcher_a, watcher_b = Player(pair.config, a, None), Player(pair.config, b, None)
    player_b, player_a = Player(pair.config, b, ann), Player(pair.config, a, bob)
    await welcome(watcher_a, watcher_b, player_a, player_b)
    assert live.id not in b.hub.matches
    for watcher in (watcher_a, watcher_b):
        watcher.say(Watch(match=live.id))
    await until(lambda: watcher_b.joined() is not None, TIMEOUT, "B's spectator joined")
    player_b.say(Join(match=live.id))
    await until(lambda: player_b.joined() is not None, TIMEOUT, "B's player joined")
    assert isinstance(player_b.session.match, FollowedMatch) and player_b.session.seat == 0
    player_a.say(Join(match=live.id))
    await until(lambda: live.state.value == "running", TIMEOUT, "the match started (both seats connected)")
    # The owner's status counts B's spectator and tells B's player's round trip (B's heartbeats).
    player_b.session.lag_ms = 42
    await until(lambda: live.spectator_count() == 2 and live.status_message(a.hub.now()).lag[0] == 42,
                TIMEOUT, "A's status tells B's clients")

    stop = asyncio.Event()
    feeders = [asyncio.create_task(feed(player_b, live, 0, stop)),
               asyncio.create_task(feed(player_a, live, 1, stop))]
    try:
        # A reconnect to B mid-match resumes from its last number.
        await until(lambda: len(player_b.numbered()) > 200, TIMEOUT, "B's player saw 200 records")
        stop.set()
        await asyncio.gather(*feeders)
        seen = player_b.numbered()
        player_b.session.closed(b.hub.now())
        again = Player(pair.config, b, ann)
        await welcome(again)
        again.say(Join(match=live.id, since=seen[-1].n))
        await until(lambda: again.joined() is not None and bool(again.numbered()), TIMEOUT,
                    "the reconnect resumed")
        resumed = again.numbered()
        assert not isinstance(resumed[0], Resync) and resumed[0].n == seen[-1].n + 1
        stop = asyncio.Event()
        feeders = [asyncio.create_task(feed(again, live, 0, stop)),
                   asyncio.create_task(feed(player_a, live, 1, stop))]
        await until(lambda: live.ended_at is not None, TIMEOUT, "the match ended")
        await until(lambda: isinstance(watcher_b.numbered()[-1], Over)
                    and isinstance(again.numbered()[-1], Over), TIMEOUT, "B's clients heard the end")
        await until(lambda: isinstance(watcher_a.numbered()[-1], Over), TIMEOUT,
                    "A's spectator heard the end")
    finally:
        stop.set()
        await asyncio.gather(*feeders)

    # B's spectator was sent exactly A's spectator's records; B's player exactly A's player's.
    assert watcher_b.numbered() == watcher_a.numbered()
    assert consecutive(watcher_b.numbered())
    assert seen + again.numbered() == player_a.numbered()
    assert not [m for m in player_a.numbered() if isinstance(m, Resync)]
    # B's player's inputs reached A: every confirmed frame B was shown is the replay's, its seat moved.
    await until(lambda: live.id in a.stores.replays._replays, TIMEOUT, "the replay stored")  # type: ignore[attr-defined]
    rows = replay_rows(pair, live.id)
    frames = [m for m in watcher_b.numbered() if isinstance(m, Frame)]
    assert frames and all(frame.inputs == rows[frame.frame] for frame in frames)
    assert {row[0] for row in rows} >= {0x01, 0x03, 0x02}, "B's player's inputs are A's replay's"


@pytest.mark.asyncio
async def test_a_remote_players_ping_and_refusals_come_from_the_owner(make_pair: Any) -> None:
    pair: Pair = await make_pair(GENEROUS)
    a, b = pair.a, pair.b
    ann = Guest("g-ann", "ann")
    live = a.hub.new_match([Seat("ann", guest=ann.id), Seat("bot", bot="lazy")])
    player, stranger = Player(pair.config, b, ann), Player(pair.config, b, Guest("g-cat", "cat"))
    nobody = Player(pair.config, b, None)
    await welcome(player, stranger, nobody)
    stranger.say(Join(match=live.id))
    nobody.say(Watch(match="no-such-id"))
    player.say(Join(match=live.id))
    await until(lambda: bool(stranger.errors()) and bool(nobody.errors()) and player.joined() is not None,
                TIMEOUT, "the answers")
    assert stranger.errors()[0].code == ErrorCode.NOT_SEATED.value
    assert nobody.errors()[0].code == ErrorCode.NO_SUCH_MATCH.value
    await until(lambda: live.state.value == "running", TIMEOUT, "the match started")
    player.say(Ping(id=7, t=1))
    await until(lambda: any(isinstance(m, Pong) for m in player.read()), TIMEOUT, "the owner's pong")
    pong = next(m for m in player.read() if isinstance(m, Pong))
    assert pong.id == 7 and pong.frame >= 0
    player.say(Input(frame=10**6, inputs=[1]))  # far ahead: the owner's runner refuses it
    await until(lambda: bool(player.errors()), TIMEOUT, "the owner's refusal")
    assert player.errors()[0].ref == "input"


@pytest.mark.asyncio
@pytest.mark.parametrize("ranked", [False, True], ids=["room", "ranked"])
async def test_the_followers_go_on_when_the_owner_dies(make_pair: Any, ranked: bool) -> None:
    """A dies mid-match; B takes it over; B's player and spectator, which followed it on A, go on with
    their sockets, served from B's own match from then on (a ranked match's spectator follows its
    delayed stream: continuous too)."""
    pair: Pair = await make_pair(DYING)
    a, b = pair.a, pair.b
    ann, bob = Guest("g-ann", "ann"), Guest("g-bob", "bob")
    if ranked:
        live = a.hub.create_ranked_match(ann, bob, a.ids.match_id(), ("127.0.0.1", "127.0.0.2"))
        assert live.spectator_delay > 0
    else:
        live = a.hub.new_match([Seat("ann", guest=ann.id), Seat("bot", bot="lazy")])
    players = [Player(pair.config, b, ann)] + ([Player(pair.config, b, bob)] if ranked else [])
    watcher = Player(pair.config, b, None)
    await welcome(watcher, *players)
    watcher.say(Watch(match=live.id))
    for player in players:
        player.say(Join(match=live.id))
    await until(lambda: live.state.value == "running", TIMEOUT, "the match started")
    stop = asyncio.Event()
    feeders = [asyncio.create_task(feed(player, live, seat, stop)) for seat, player in enumerate(players)]
    await until(lambda: len(watcher.numbered()) > 100 and live.journaled and live.sealed == [], TIMEOUT,
                "the spectator saw 100 records")
    await until(lambda: a.shared is not None and a.shared.owner.snapshots > 0, TIMEOUT, "a snapshot")
    stop.set()
    await asyncio.gather(*feeders)
    # A dies: its clock, its sharing and its relay stop where they are (nothing released).
    assert a.hub._clock_task is not None and a.shared is not None and a.relay is not None
    a.hub._clock_task.cancel()
    for task in a.shared._tasks:
        task.cancel()
    await a.relay.stop()
    late = Player(pair.config, b, None)  # watches while nobody answers: it waits for the takeover
    await welcome(late)
    late.say(Watch(match=live.id))
    await until(lambda: live.id in b.hub.matches, TIMEOUT, "B took the match over")
    taken = b.hub.matches[live.id]
    assert late.session.match is taken and late.joined() is not None, "the waiting one served by B's match"
    # B's clients go on from B's own match (not through the bus any more), on the same connections.
    assert b.follower is not None
    assert watcher.session.match is taken and all(player.session.match is taken for player in players)
    assert [player.session.seat for player in players] == list(range(len(players)))
    assert live.id not in b.follower.followed
    stop = asyncio.Event()
    feeders = [asyncio.create_task(feed(player, taken, seat, stop)) for seat, player in enumerate(players)]
    try:
        await until(lambda: taken.ended_at is not None, TIMEOUT, "the match ended on B")
        await until(lambda: isinstance(watcher.numbered()[-1], Over), TIMEOUT, "B's spectator heard the end")
        await until(lambda: isinstance(late.numbered()[-1], Over), TIMEOUT, "the late one heard the end")
    finally:
        stop.set()
        await asyncio.gather(*feeders)
    stream = watcher.numbered()
    assert len([m for m in watcher.read() if isinstance(m, Joined)]) == 1, "no second `joined`"
    assert not [m for m in stream if isinstance(m, Resync)], "the spectator had no gap"
    assert consecutive(stream)
    frames = [m for m in stream if isinstance(m, Frame)]
    assert [f.frame for f in frames] == list(range(frames[0].frame, frames[0].frame + len(frames)))
    assert all(isinstance(player.numbered()[-1], Over) for player in players)
    await until(lambda: live.id in b.stores.replays._replays, TIMEOUT, "the replay stored")  # type: ignore[attr-defined]
    rows = replay_rows(pair, live.id)
    assert all(frame.inputs == rows[frame.frame] for frame in frames)
    assert any(isinstance(m, Keyframe) for m in stream)


class Sink:
    """A subscriber that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def send_bytes(self, data: bytes) -> bool:
        self.sent.append(data)
        return True


def test_a_subscriber_ahead_of_the_stream_waits_until_it_gets_there() -> None:
    """`Stream.hold`: a spectator that heard numbers a taken-over delayed stream has not reached is sent
    nothing until the stream passes them, then every number after, none twice."""
    stream: Stream[Sink] = Stream(10)
    for _ in range(1, 4):
        stream.publish_bytes(lambda number: bytes([number]))
    ahead, level = Sink(), Sink()
    stream.hold(ahead, 6)
    stream.subscribers |= {ahead, level}
    for _ in range(4, 9):
        stream.publish_bytes(lambda number: bytes([number]))
    assert ahead.sent == [bytes([7]), bytes([8])]
    assert level.sent == [bytes([n]) for n in range(4, 9)]


def test_a_follower_drops_records_after_a_gap_and_the_owners_catch_up_closes_it() -> None:
    """A followed stream: records in order are kept and fanned out; one past a gap is refused; the
    owner's catch-up (the records after the follower's head) closes it; a resync replaces the history
    and reaches the clients only when the follower was behind."""
    followed = FollowedStream(50)
    client = Sink()
    followed.stream.subscribers.add(client)  # type: ignore[arg-type]
    assert followed.receive(1, b"1") and followed.receive(2, b"2") and followed.receive(2, b"2")
    assert not followed.receive(4, b"4"), "3 is missing: a gap"
    assert followed.apply(BaseStream(2, 4, False, (b"3", b"4")))
    assert followed.receive(5, b"5")
    assert client.sent == [b"1", b"2", b"3", b"4", b"5"]
    assert followed.catch_up(2) == [b"3", b"4", b"5"]
    assert followed.apply(BaseStream(-1, 5, True, (b"resync-5",)))  # in step: the clients hear nothing
    assert client.sent[-1] == b"5" and followed.catch_up(None) == [b"resync-5"]
    assert followed.apply(BaseStream(-1, 9, True, (b"resync-9",)))  # behind: the clients get the resync
    assert client.sent[-1] == b"resync-9" and followed.stream.head == 9
    assert followed.catch_up(3) == [b"resync-9"], "older than the history: the last resync"
    assert followed.catch_up(12) == [b"resync-9"], "ahead of the stream: a resync, as the owner sends"
    assert followed.catch_up(12, delayed=True) == [], "a delayed stream's spectator ahead waits for it"


@pytest.mark.asyncio
async def test_a_match_nobody_follows_is_not_published_on_the_bus(make_pair: Any) -> None:
    """The owner relays a match's records only while another node follows it."""
    pair: Pair = await make_pair(GENEROUS)
    a, b = pair.a, pair.b
    assert a.relay is not None and a.publisher is not None
    live = a.hub.create_bot_duel("lazy", "lazy")
    await until(lambda: live.spectators.head > 50, TIMEOUT, "50 records published on A")
    assert a.relay.records == 0 and a.publisher.published == 0, "nobody follows: nothing on the bus"
    watcher = Player(pair.config, b, None)
    await welcome(watcher)
    watcher.say(Watch(match=live.id))
    await until(lambda: len(watcher.numbered()) > 20, TIMEOUT, "B's spectator follows the stream")
    assert a.relay.records > 0
