"""A journaled match taken over by another node (no sockets: the match layer and the ownership seam,
on every backend): its owner dies after logging a publication it never sent; the new owner restores
the snapshot and the logged inputs; a spectator and the player reconnect with their last stream
numbers and go on without a gap or a rewind; every input a client was shown is in the replay, which
verifies; a node whose lease was taken is refused and drops the match."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from protocol.codec import ProtocolError, decode_server_messages
from protocol.messages import Frame, InputLate, Keyframe, Over, Resync
from protocol.replay_codec import decode_replay
from rules.replay import input_rows, verify
from server.cluster.journal import FencedError, Ownership
from server.cluster.redis import RedisOwnership
from server.config import ServerConfig
from server.match.dispatch import Dispatcher
from server.match.live import Finished, LiveMatch, Seat
from server.match.owner import MatchOwner
from server.match.session import Session
from server.node import Node
from server.store.memory import MemoryStore
from server.transport.connection import Connection
from tests.cluster.conftest import GENEROUS, Backend
from tests.server.conftest import fast_config
from tests.server.helpers import RecordingTransport

HZ = 60
#: Generous leases (a loaded machine never moves the match by accident; the test ends A's lease as
#: Redis' expiry would, `lapse`), frequent snapshots.
SETTINGS = replace(GENEROUS, snapshot_every=0.5)


class Client:
    """A connection's session and everything it was sent (decoded)."""

    def __init__(self, config: ServerConfig, dispatcher: Dispatcher) -> None:
        """A connection to `dispatcher` (a node's)."""
        self.transport = RecordingTransport()
        self.conn = Connection(self.transport, queue_size=100_000, max_buffered=1 << 30)
        self.session = Session(self.conn, dispatcher, config.session, now=0.0)
        self.messages: list[Any] = []

    def read(self) -> list[Any]:
        """Everything sent so far: what the connection flushed (when the loop ran) and what it holds."""
        flushed, self.transport.writes = self.transport.writes, []
        while True:
            data, closing = self.conn.take_batch()
            if data is not None:
                flushed.append(data)
            if data is None or closing:
                break
        for data in flushed:
            for message in decode_server_messages(data):
                assert not isinstance(message, ProtocolError), message
                self.messages.append(message)
        return self.messages

    def numbered(self) -> list[Any]:
        return [m for m in self.read() if isinstance(m, Frame | Keyframe | Over | Resync)]


def player_input(tick: int) -> int | None:
    """The player's held byte, changed every 7 frames (stamped 2 ahead, a few of them late)."""
    return (0x01, 0x03, 0x02, 0x04, 0x0B)[(tick // 7) % 5] if tick % 7 == 0 else None


async def drive(live: LiveMatch, owner: MatchOwner, ticks: range, renew: bool) -> list[LiveMatch]:
    """Tick, input and flush (log, then publish) like the hub; the matches lost."""
    lost: list[LiveMatch] = []
    for tick in ticks:
        now = tick / HZ
        live.tick(tick, now)
        value = player_input(tick)
        if value is not None and live.runner is not None and live.state.value == "running":
            frame = live.runner.now + (2 if tick % 5 else -12)  # every fifth one past the window: late
            live.tell_inputs(0, max(0, frame), [value])
        lost += await owner.flush(now)
        if renew and tick % 3 == 0:
            lost += await owner.renew(now)
        if lost or live.ended_at is not None:
            break
    return lost


async def lapse(backend: Backend, ownership: Ownership, match_id: str) -> None:
    """End the match's lease as its expiry would: the embedded clock moves past it; on Redis its key
    goes (what PX does when it runs out) and the index's hint says so (tests/cluster/test_ownership.py
    lets real leases lapse)."""
    if backend.kind == "memory":
        backend.lapse()
        return
    assert isinstance(ownership, RedisOwnership)
    await ownership.redis.delete(ownership._key(match_id, "lease"))
    await ownership.redis.zadd(ownership._owned, {match_id: 0})


def byte_rows(finished: Finished) -> list[list[int]]:
    assert finished.replay is not None
    replay = decode_replay(finished.replay)
    assert verify(replay).ok, verify(replay)
    return list(input_rows(replay))


@pytest.mark.asyncio
async def test_a_match_goes_on_on_another_node_after_its_owner_dies(backend: Backend) -> None:
    """Owner A journals and publishes; it dies having logged a publication it never sent. B takes the
    orphan over; the spectator and the player reconnect to B with their last numbers: no gap, no rewind,
    every input shown to a client is in the verified replay, and A, back, is refused."""
    config = fast_config()
    dispatcher = Node(config, MemoryStore()).dispatcher
    ended: list[Finished] = []
    seats = [Seat("ann", guest="g-ann"), Seat("bot", bot="lazy")]
    live_a = LiveMatch(config.match, seats, 0.0, ended.append, "m-take", 4242, created_wall=7.0,
                       journaled=True)
    owner_a = MatchOwner(backend.ownership(SETTINGS), "node-a", SETTINGS)
    owner_a.adopt(live_a)
    player, spectator = Client(config, dispatcher), Client(config, dispatcher)
    live_a.attach_player(player.session, 0, None, 0.0)
    live_a.attach_spectator(spectator.session, None, 0.0)
    assert await drive(live_a, owner_a, range(0, 200), renew=True) == []
    # A's last tick: its publication is logged, then A dies before sending it.
    live_a.tick(200, 200 / HZ)
    owned = owner_a.owned["m-take"]
    assert owned.lease is not None and live_a.sealed
    units, live_a.sealed = live_a.sealed, []
    items = [(owned.lease, unit.seq, unit.data) for unit in units]
    assert await owner_a.ownership.append_all(items) == [None] * len(items)
    assert owner_a.snapshots >= 4  # every 0.5 s of the match's time
    seen_spectator, seen_player = spectator.numbered(), player.numbered()
    late_answers = [m for m in player.read() if isinstance(m, InputLate)]
    assert late_answers, "some inputs were late: their answers came after they were logged"

    other = backend.ownership(SETTINGS)
    await lapse(backend, other, "m-take")
    assert await other.orphans(10) == ["m-take"]
    owner_b = MatchOwner(other, "node-b", SETTINGS)
    live_b = await owner_b.take_over("m-take", config.match, 1000, 201 / HZ, ended.append)
    assert live_b is not None and live_b.players.head >= seen_player[-1].n
    spectator_b, player_b = Client(config, dispatcher), Client(config, dispatcher)
    live_b.attach_spectator(spectator_b.session, seen_spectator[-1].n, 201 / HZ)
    live_b.attach_player(player_b.session, 0, seen_player[-1].n, 201 / HZ)
    lost = await drive(live_b, owner_b, range(1001, 1000 + 8 * HZ + 200), renew=True)
    assert lost == [] and len(ended) == 1 and ended[0].replay is not None
    rows = byte_rows(ended[0])

    # The spectators' stream: consecutive numbers, frames one after another, never back.
    after = [m for m in spectator_b.numbered() if not isinstance(m, Resync)]
    assert not [m for m in spectator_b.numbered() if isinstance(m, Resync)], "no resync: no gap"
    stream = seen_spectator + after
    assert [m.n for m in stream] == list(range(stream[0].n, stream[0].n + len(stream)))
    frames = [m for m in stream if isinstance(m, Frame)]
    assert [f.frame for f in frames] == list(range(frames[0].frame, frames[0].frame + len(frames)))
    assert isinstance(stream[-1], Over) and stream[-1].result is not None
    # Every input a client was shown on a confirmed frame is the replay's.
    for frame in frames:
        assert frame.inputs == rows[frame.frame], frame.frame
    shown = [m for m in seen_player if isinstance(m, Frame) and m.frame < m.confirmed]
    assert shown and all(m.inputs[0] == rows[m.frame][0] for m in shown)
    for answer in late_answers:  # a late input's answer names the frame it was applied at: in the replay
        assert answer.applied < len(rows) and rows[answer.applied][0] != 0
    # The player's stream goes on from its number (no gap: nothing older than its history was needed).
    resumed = player_b.numbered()
    assert resumed and (isinstance(resumed[0], Resync) or resumed[0].n == seen_player[-1].n + 1)

    # A comes back: its lease is gone, its writes are refused, and it loses the match.
    assert owned.lease is not None
    with pytest.raises(FencedError):
        await owner_a.ownership.renew(owned.lease)
    lost_a = await owner_a.renew(10.0)
    assert lost_a == [live_a] and "m-take" not in owner_a.owned
