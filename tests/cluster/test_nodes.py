"""Two nodes (real nodes, hubs and frame clocks in one process, their matches shared through
server/match/sharing.py) on one store and one ownership
backend: a node that dies mid-match has its match taken over by the other, which its player and
spectator reconnect to without a gap, and which records a replay that verifies, once; a node that
stops renewing (frozen) has its writes refused and stops serving the match; a node that stops with
a hand-off gives its match to the other at once."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

import pytest
import pytest_asyncio

from protocol.errors import CloseCode
from protocol.messages import Frame, Over, Resync
from protocol.replay_codec import decode_replay
from rules.replay import input_rows, verify
from server.cluster.journal import Ownership
from server.cluster.settings import ClusterSettings
from server.config import ServerConfig
from server.match.hub import Hub
from server.match.live import LiveMatch, Seat
from server.match.shared import SharedMatches
from server.match.sharing import hand_off, share_matches
from server.node import Node
from server.store.memory import MemoryStore
from tests.cluster.conftest import Backend
from tests.cluster.test_takeover_match import Client
from tests.server.conftest import fast_config
from tests.server.helpers import UNIT, until

#: This file is about leases lapsing: short ones, a quick scan (the other tests' leases are generous).
SETTINGS = ClusterSettings(lease_ttl=3.0, lease_renew_every=0.5, lease_margin=1.0, orphan_scan_every=0.1,
                           snapshot_every=0.5)
TIMEOUT = 30 * UNIT


@dataclass
class SharedNode:
    """A node whose matches are shared."""

    node: Node
    shared: SharedMatches

    @classmethod
    async def started(cls, config: ServerConfig, store: MemoryStore, ownership: Ownership, name: str,
                      settings: ClusterSettings) -> SharedNode:
        node = Node(config, store)
        shared = share_matches(node.hub, ownership, name, settings)
        await node.start()
        shared.start()
        return cls(node, shared)

    @property
    def hub(self) -> Hub:
        return self.node.hub

    @property
    def matches(self) -> dict[str, LiveMatch]:
        return self.node.hub.matches

    async def stop(self, hand_over: bool = False) -> None:
        if hand_over:
            await hand_off(self.shared)
        else:
            await self.shared.stop()
        await self.node.hub.stop()


@dataclass
class Nodes:
    a: SharedNode
    b: SharedNode
    store: MemoryStore


@pytest_asyncio.fixture
async def nodes(backend: Backend) -> AsyncIterator[Nodes]:
    """Two started nodes on one store and one ownership backend (each its own view of it)."""
    if backend.kind == "memory":
        backend.clock = _Monotonic()  # type: ignore[assignment]  # the leases lapse in real time here
    store = MemoryStore()
    config = fast_config().with_time_limit(12)  # 4.8 s at the tests' frame rate: past a lease's lapse
    a = await SharedNode.started(config, store, backend.ownership(SETTINGS), "node-a", SETTINGS)
    b = await SharedNode.started(config, store, backend.ownership(SETTINGS), "node-b", SETTINGS)
    try:
        yield Nodes(a, b, store)
    finally:
        for node in (a, b):
            with contextlib.suppress(Exception):
                await node.stop()


class _Monotonic:
    def __call__(self) -> float:
        return asyncio.get_running_loop().time()


def kill(node: SharedNode) -> None:
    """The node dies: its clock and its background tasks stop where they are (nothing released)."""
    assert node.hub._clock_task is not None
    node.hub._clock_task.cancel()
    for task in node.shared._tasks:
        task.cancel()


async def play(live: LiveMatch, stop: asyncio.Event) -> None:
    """The player's inputs: a new held byte every 9 frames, stamped 2 ahead."""
    values = (0x01, 0x03, 0x02, 0x04, 0x0B)
    count = 0

    def due() -> bool:
        """The next input is due (or the feeding is over)."""
        return stop.is_set() or live.ended_at is not None or (
            live.runner is not None and live.state.value == "running" and live.runner.now >= 9 * count)

    while True:
        await until(due, FEED_TIMEOUT, "the next input's frame")
        if stop.is_set() or live.ended_at is not None or live.runner is None:
            return
        live.tell_inputs(0, live.runner.now + 2, [values[count % len(values)]])
        count += 1


#: Seconds the feeder waits for its next input's frame (a match that stalls this long fails the test).
FEED_TIMEOUT = 120.0


def start(node: SharedNode) -> tuple[LiveMatch, Client, Client, asyncio.Event, asyncio.Task[None]]:
    """A match of a player and a bot on `node`, its player and a spectator connected, the player playing."""
    hub = node.hub
    live = hub.new_match([Seat("ann", guest="g-ann"), Seat("bot", bot="lazy")], match_id="m-nodes")
    dispatcher = node.node.dispatcher
    player, spectator = Client(node.node.config, dispatcher), Client(node.node.config, dispatcher)
    live.attach_player(player.session, 0, None, hub.now())
    live.attach_spectator(spectator.session, None, hub.now())
    stop = asyncio.Event()
    return live, player, spectator, stop, asyncio.create_task(play(live, stop))


@pytest.mark.asyncio
async def test_a_dead_nodes_match_finishes_on_the_other(nodes: Nodes) -> None:
    """Node A dies mid-match; B takes it over once A's lease lapses; the spectator and the player come
    back to B with their last numbers: no gap on the spectators' stream, the match ends on B, and its
    replay (recorded once) verifies and holds every input a client was shown on a confirmed frame."""
    live, player, spectator, stop, playing = start(nodes.a)
    await until(lambda: live.runner is not None and live.runner.confirmed > 150, TIMEOUT, "150 frames on A")
    kill(nodes.a)
    stop.set()
    await playing
    seen_spectator, seen_player = spectator.numbered(), player.numbered()
    await until(lambda: "m-nodes" in nodes.b.matches, TIMEOUT, "B takes the match over")
    taken = nodes.b.matches["m-nodes"]
    assert taken is not live and nodes.b.shared.owner.taken_over == 1
    dispatcher, config = nodes.b.node.dispatcher, nodes.b.node.config
    spectator_b, player_b = Client(config, dispatcher), Client(config, dispatcher)
    taken.attach_spectator(spectator_b.session, seen_spectator[-1].n, nodes.b.hub.now())
    taken.attach_player(player_b.session, 0, seen_player[-1].n, nodes.b.hub.now())
    await until(lambda: taken.ended_at is not None, TIMEOUT, "the match ends on B")
    await until(lambda: "m-nodes" not in nodes.b.shared.owner.owned, TIMEOUT, "B drops the journal")
    record = await nodes.store.matches.get_match("m-nodes")
    assert record is not None and record.result is not None
    replay_bytes = await nodes.store.replays.get_replay("m-nodes")
    assert replay_bytes is not None
    replay = decode_replay(replay_bytes)
    assert verify(replay).ok
    rows = list(input_rows(replay))
    after = spectator_b.numbered()
    assert not [m for m in after if isinstance(m, Resync)], "the spectator came back without a gap"
    stream = seen_spectator + after
    assert [m.n for m in stream] == list(range(stream[0].n, stream[0].n + len(stream)))
    frames = [m for m in stream if isinstance(m, Frame)]
    assert [f.frame for f in frames] == list(range(frames[0].frame, frames[0].frame + len(frames)))
    assert isinstance(stream[-1], Over)
    assert all(f.inputs == rows[f.frame] for f in frames)
    shown = [m for m in seen_player if isinstance(m, Frame) and m.frame < m.confirmed]
    assert shown and all(m.inputs[0] == rows[m.frame][0] for m in shown)
    assert await nodes.a.shared.owner.ownership.load("m-nodes") is None


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["redis"], indirect=True)
async def test_a_frozen_owner_is_refused_and_stops_serving(nodes: Nodes) -> None:
    """Node A stops renewing (frozen past its lease) while its clock runs on: B takes the match over,
    A's next write is refused, A drops the match and closes its clients with 1001 (they reconnect to B)."""
    live, player, spectator, stop, playing = start(nodes.a)
    await until(lambda: live.runner is not None and live.runner.confirmed > 60, TIMEOUT, "60 frames on A")
    for task in nodes.a.shared._tasks[1:]:  # frozen: no renewal, no scan; its clock and flusher run on
        task.cancel()
    await until(lambda: "m-nodes" in nodes.b.matches, TIMEOUT, "B takes the match over")
    await until(lambda: "m-nodes" not in nodes.a.matches, TIMEOUT, "A drops the match")
    stop.set()
    await playing
    assert "m-nodes" not in nodes.a.shared.owner.owned
    await until(lambda: CloseCode.GOING_AWAY in player.transport.closed, TIMEOUT, "A closes its player")
    assert CloseCode.GOING_AWAY in spectator.transport.closed
    await until(lambda: nodes.b.matches["m-nodes"].ended_at is not None, TIMEOUT, "the match ends on B")


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["cluster"], indirect=True)
async def test_a_hand_off_gives_the_match_to_the_other_node_at_once(backend: Backend) -> None:
    """A node that stops with a hand-off releases its lease: the other node takes the match at its next
    scan, long before the lease would have lapsed (generous leases here)."""
    generous = replace(SETTINGS, lease_ttl=600.0, lease_renew_every=1.0, lease_margin=1.0)
    store = MemoryStore()
    config = fast_config().with_time_limit(5)
    a = await SharedNode.started(config, store, backend.ownership(generous), "node-a", generous)
    b = await SharedNode.started(config, store, backend.ownership(generous), "node-b", generous)
    try:
        live = a.hub.create_bot_duel("lazy", "lazy")
        await until(lambda: live.runner is not None and live.runner.confirmed > 60, TIMEOUT, "60 frames on A")
        await a.stop(hand_over=True)
        await until(lambda: live.id in b.matches, TIMEOUT, "B takes the match over")
        await until(lambda: b.matches[live.id].ended_at is not None, TIMEOUT, "the match ends on B")
    finally:
        await b.stop()
