"""Leases with fencing tokens and the fenced journal, on every backend (embedded, Redis, Redis Cluster):
one holder at a time, a higher token after expiry, stale writes refused and changing nothing, and a
reader that restores the snapshot plus the inputs logged after it exactly."""

from __future__ import annotations

from dataclasses import replace

import pytest
from redis.asyncio.cluster import RedisCluster

from rules.versus.inputs import INPUTS
from rules.versus.match import VersusMatch
from rules.versus.ruleset import PENGO_VERSUS
from server.cluster.journal import (
    SNAPSHOT_FORMAT,
    Batch,
    FencedError,
    Header,
    Journal,
    JournalError,
    JournalSnapshot,
    Lease,
    Ownership,
    appending,
)
from server.cluster.redis import RedisOwnership
from server.netcode.runner import Checkpoint, MatchRunner, SeatLog
from tests.cluster.conftest import SHORT, Backend, node_name
from tests.cluster.test_resume import CONFIG, SEED, SETTINGS, drive, fresh, script
from tests.cluster_helpers import RunningCluster
from tests.redis_helpers import unique_prefix
from tests.server.helpers import until_awaited

pytestmark = pytest.mark.asyncio

#: How long a test waits for Redis to let a short lease lapse (seconds; the lease is 0.3 s).
LAPSE_TIMEOUT = 20.0


def header(seed: int = SEED) -> Header:
    """A two-seat match's header."""
    return Header(
        ruleset=PENGO_VERSUS.name, ruleset_version=PENGO_VERSUS.version, snapshot_format=SNAPSHOT_FORMAT,
        seed=seed, config=PENGO_VERSUS.config_plain(CONFIG), seats=("ann", "bob"), guests=("g1", None),
        bots=(None, "lazy"), ranked=False, private=False, created=1.5, keyframe_phase=seed,
        runner={"rollback_window": SETTINGS.rollback_window, "keyframe_every": SETTINGS.keyframe_every},
        extra={"invite": None},
    )


def batch(seq: int, now: int = 0) -> Batch:
    return Batch(seq, now, (SeatLog(((now, 3),), now + 1), SeatLog((), now)), {"players": seq})


async def lapse(backend: Backend, ownership: Ownership, match_id: str) -> None:
    """Let the match's lease lapse: the embedded clock moves; Redis' expiry is waited for (polled)."""
    if backend.kind == "memory":
        backend.lapse()
        return

    async def lapsed() -> bool:
        return await ownership.holder(match_id) is None

    await until_awaited(lapsed, LAPSE_TIMEOUT, "the lease to lapse")


async def test_one_holder_at_a_time(backend: Backend) -> None:
    """The first node gets token 1; another gets nothing while that lease lives, and sees who holds it."""
    a, b = backend.ownership(), backend.ownership()
    node_a, node_b = node_name(), node_name()
    lease = await a.acquire("m1", node_a)
    assert lease == Lease("m1", node_a, 1)
    assert await b.acquire("m1", node_b) is None
    held = await b.holder("m1")
    assert held is not None and (held.node, held.token) == (node_a, 1)
    assert await b.holder("m2") is None
    other = await b.acquire("m2", node_b)  # another match is another lease
    assert other is not None and other.token == 1


async def test_expiry_gives_a_higher_token_and_fences_the_old_holder(backend: Backend) -> None:
    """After the lease lapses another node acquires with a higher token; the old holder's renewal,
    append and snapshot are refused with a FencedError naming the new holder, and change nothing."""
    a, b = backend.ownership(SHORT), backend.ownership()
    node_a, node_b = node_name(), node_name()
    old = await a.acquire("m1", node_a)
    assert old is not None
    await a.create(old, header())
    await a.append(old, batch(1))
    await lapse(backend, a, "m1")
    new = await b.acquire("m1", node_b)
    assert new is not None and new.token > old.token
    before = await b.load("m1")
    with pytest.raises(FencedError, match=f"held by node {node_b} with token {new.token}"):
        await a.append(old, batch(2))
    with pytest.raises(FencedError, match="refused"):
        await a.snapshot(old, JournalSnapshot(1, fresh_checkpoint()))
    with pytest.raises(FencedError):
        await a.renew(old)
    with pytest.raises(FencedError):
        await a.finish(old)
    await a.release(old)  # not its lease any more: nothing happens
    assert await b.load("m1") == before
    held = await a.holder("m1")
    assert held is not None and held.token == new.token
    await b.append(new, batch(2))  # the new holder goes on from the logged sequence
    loaded = await b.load("m1")
    assert loaded is not None and [x.seq for x in loaded.batches] == [1, 2]


async def test_a_lapsed_lease_refuses_writes_before_anyone_takes_it(backend: Backend) -> None:
    """An owner that was paused past its lease finds its writes refused even before another node
    acquires (its signal to stop serving the match)."""
    ownership = backend.ownership(SHORT)
    lease = await ownership.acquire("m1", node_name())
    assert lease is not None
    await ownership.create(lease, header())
    await lapse(backend, ownership, "m1")
    with pytest.raises(FencedError, match="lapsed"):
        await ownership.append(lease, batch(1))
    assert await ownership.orphans(10) == ["m1"]


async def test_renewing_all_at_once_renews_each_and_fences_each_alone(backend: Backend) -> None:
    """`renew_all` renews every live lease in one go and gives back, per lease, its FencedError: a
    lease another node took and a lapsed one are refused without holding the others back, and the
    lapsed match stays an orphan (its index entry is not pushed on)."""
    a, b = backend.ownership(SHORT), backend.ownership()
    node_a = node_name()
    leases = []
    for match_id in ("m1", "m2", "m3"):
        lease = await a.acquire(match_id, node_a)
        assert lease is not None
        await a.create(lease, header())
        leases.append(lease)
    assert await a.renew_all(leases) == [None, None, None]
    await lapse(backend, a, "m1")
    await lapse(backend, a, "m2")
    await lapse(backend, a, "m3")
    taken = await b.acquire("m2", node_name())
    assert taken is not None
    kept = await a.acquire("m3", node_a)  # m3 renewed again through a new lease of the same node
    assert kept is not None
    answers = await a.renew_all([leases[0], leases[1], kept])
    assert isinstance(answers[0], FencedError) and "lapsed" in str(answers[0])
    assert isinstance(answers[1], FencedError) and f"token {taken.token}" in str(answers[1])
    assert answers[2] is None
    assert await a.renew_all([]) == []
    assert await b.orphans(10) == ["m1"]


async def test_release_hands_the_match_over_at_once(backend: Backend) -> None:
    """A released lease is free for another node at once (a graceful hand-off), with a higher token."""
    a, b = backend.ownership(), backend.ownership()
    lease = await a.acquire("m1", node_name())
    assert lease is not None
    await a.release(lease)
    taken = await b.acquire("m1", node_name())
    assert taken is not None and taken.token == lease.token + 1


async def test_the_journal_rules(backend: Backend) -> None:
    """One header; batches in order only; a snapshot within the logged batches; bounds refused."""
    ownership = backend.ownership()
    lease = await ownership.acquire("m1", node_name())
    assert lease is not None
    with pytest.raises(JournalError, match="no journal"):
        await ownership.append(lease, batch(1))
    await ownership.create(lease, header())
    with pytest.raises(JournalError, match="already"):
        await ownership.create(lease, header())
    with pytest.raises(JournalError, match="out of order"):
        await ownership.append(lease, batch(2))
    await ownership.append(lease, batch(1))
    with pytest.raises(JournalError, match="out of order"):
        await ownership.append(lease, batch(1))
    with pytest.raises(JournalError, match="outside"):
        await ownership.snapshot(lease, JournalSnapshot(5, fresh_checkpoint()))
    big = Batch(2, 0, (SeatLog(tuple((f, f % 7) for f in range(5000)), 1), SeatLog((), 0)))
    with pytest.raises(JournalError, match="is over"):
        await ownership.append(lease, big)
    loaded = await ownership.load("m1")
    assert loaded is not None and loaded.header == header() and [x.seq for x in loaded.batches] == [1]


async def test_the_log_is_bounded_until_a_snapshot(backend: Backend) -> None:
    """Past journal_max_batches since the snapshot an append is refused; a snapshot drops what it includes."""
    ownership = backend.ownership(replace(backend.settings, journal_max_batches=3))
    lease = await ownership.acquire("m9", node_name())
    assert lease is not None
    await ownership.create(lease, header())
    for seq in (1, 2, 3):
        await ownership.append(lease, batch(seq, seq))
    with pytest.raises(JournalError, match="snapshot first"):
        await ownership.append(lease, batch(4, 4))
    await ownership.snapshot(lease, JournalSnapshot(2, fresh_checkpoint(), {"players": 2}))
    await ownership.append(lease, batch(4, 4))
    loaded = await ownership.load("m9")
    assert loaded is not None and loaded.snapshot is not None and loaded.snapshot.seq == 2
    assert [x.seq for x in loaded.batches] == [3, 4] and loaded.last_seq == 4
    assert loaded.marks() == {"players": 4}


async def test_finish_drops_the_journal(backend: Backend) -> None:
    """A finished match has no journal and is no orphan; its old lease cannot write again."""
    ownership = backend.ownership()
    lease = await ownership.acquire("m1", node_name())
    assert lease is not None
    await ownership.create(lease, header())
    await ownership.finish(lease)
    assert await ownership.load("m1") is None
    assert await ownership.orphans(10) == []
    with pytest.raises(FencedError):
        await ownership.append(lease, batch(1))


def runner_of(made: Header) -> MatchRunner:
    """A fresh journaling runner of the match a header describes (what a takeover makes first)."""
    assert (made.ruleset, made.ruleset_version) == (PENGO_VERSUS.name, PENGO_VERSUS.version)
    match = PENGO_VERSUS.new_match(PENGO_VERSUS.config_from_plain(made.config), made.seed, list(made.seats))
    assert isinstance(match, VersusMatch)
    return MatchRunner(match, INPUTS, SETTINGS, keyframe_phase=made.keyframe_phase, journal=True)


def fresh_checkpoint() -> Checkpoint:
    """A checkpoint of a runner that has just started (frame 0's keyframe)."""
    runner = fresh()
    runner.advance(0)
    return runner.checkpoint()


async def test_a_reader_restores_the_snapshot_and_the_inputs_exactly(backend: Backend) -> None:
    """An owner journals a match as it would (a batch each tick before publishing, a snapshot every
    120 ticks); another node takes it over, loads the journal and resumes a runner from it: the
    records from the snapshot's keyframe on, and the rest of the match, are the original's."""
    a, b = backend.ownership(), backend.ownership()
    lease = await a.acquire("m1", node_name())
    assert lease is not None
    await a.create(lease, header())
    arrivals = script(7, 1000)
    original = runner_of(header())
    records = []
    seq = 0
    for tick in range(0, 400):
        records += drive(original, arrivals, range(tick, tick + 1))
        seq += 1
        marks = {"confirmed": original.confirmed}
        seats = tuple(SeatLog.of(*seat) for seat in original.take_log())
        await a.append(lease, Batch(seq, original.now, seats, marks))
        if tick % 120 == 119:
            await a.snapshot(lease, JournalSnapshot(seq, original.checkpoint(), marks))
    await a.release(lease)
    taken_lease = await b.acquire("m1", node_name())
    assert taken_lease is not None and taken_lease.token == 2
    journal = await b.load("m1")
    assert isinstance(journal, Journal) and journal.snapshot is not None
    assert journal.header == header() and journal.header.snapshot_format == SNAPSHOT_FORMAT
    assert 0 < len(journal.batches) < 120 and journal.last_seq == seq
    assert journal.now() == original.now and journal.marks() == {"confirmed": original.confirmed}
    taken = runner_of(journal.header)
    taken.resume(journal.snapshot.checkpoint, journal.logs(), journal.now())
    again = taken.advance(journal.now()).confirmed
    start = journal.snapshot.checkpoint.frame
    seen = [r for r in records if r.frame >= start]
    assert again[: len(seen)] == seen and len(seen) > SETTINGS.keyframe_every
    rest_original = drive(original, arrivals, range(original.now + 1, 1100))
    rest_taken = drive(taken, arrivals, range(taken.now + 1, 1100))
    assert again[len(seen):] + rest_taken == rest_original
    assert taken.finished and taken.match.log_hash == original.match.log_hash
    assert taken.result == original.result and journal.header.seed == SEED


async def test_on_a_cluster_each_match_keeps_to_one_slot_and_matches_spread(cluster: RunningCluster) -> None:
    """On the Redis Cluster: every key of a match hashes to one slot (no CROSSSLOT in any script), and
    thirty matches' journals land on all three masters, each fully usable."""
    client = RedisCluster.from_url(cluster.url)
    ownership = RedisOwnership(client, unique_prefix())
    await client.initialize()
    try:
        await _spread(ownership, client)
    finally:
        await client.aclose()


async def _spread(ownership: RedisOwnership, client: RedisCluster) -> None:
    masters = set()
    for index in range(30):
        match_id = f"spread-{index}"
        keys = [*ownership._keys(match_id), ownership._key(match_id, "fence")]
        assert len({client.keyslot(key) for key in keys}) == 1
        node = client.get_node_from_key(keys[0])
        assert node is not None
        masters.add(node.name)
        lease = await ownership.acquire(match_id, "node-a")
        assert lease is not None
        await ownership.create(lease, header(index))
        await ownership.append(lease, batch(1))
        await ownership.snapshot(lease, JournalSnapshot(1, fresh_checkpoint()))
        loaded = await ownership.load(match_id)
        assert loaded is not None and loaded.header.seed == index and loaded.snapshot is not None
        await ownership.finish(lease)
    assert len(masters) == 3


async def test_append_all_logs_many_matches_at_once_each_checked(backend: Backend) -> None:
    """One append_all for several matches: each item is fenced and ordered on its own; the refused ones
    come back as their errors and the others are logged."""
    a, b = backend.ownership(), backend.ownership()
    leases = []
    for index in range(4):
        lease = await a.acquire(f"all-{index}", "node-a")
        assert lease is not None
        await a.create(lease, header(index))
        leases.append(lease)
    await a.release(leases[3])  # handed over: node b holds it now, with a higher token
    stolen = await b.acquire("all-3", "node-b")
    assert stolen is not None
    out = await a.append_all([appending(leases[0], batch(1)), appending(leases[1], batch(2)),
                              appending(leases[2], batch(1)), appending(leases[3], batch(1)),
                              appending(leases[0], batch(2))])
    assert out[0] is None and out[2] is None and out[4] is None  # a match's batches in turn, in one call
    assert isinstance(out[1], JournalError) and "out of order" in str(out[1])
    assert isinstance(out[3], FencedError) and "node-b" in str(out[3])
    logged = [await b.load(f"all-{index}") for index in range(4)]
    assert [len(j.batches) if j else None for j in logged] == [2, 0, 1, 0]
    assert await a.append_all([]) == []


async def test_snapshots_of_many_matches_go_together_each_with_its_own_answer(backend: Backend) -> None:
    """`snapshot_all` (the owner's snapshots due, one round trip on one Redis): each item is kept or
    refused on its own (fenced, outside the logged batches, over the size bound), the others kept."""
    ownership = backend.ownership(replace(backend.settings, journal_max_snapshot_bytes=64 * 1024))
    node = node_name()
    leases = []
    for match_id in ("s1", "s2", "s3", "s4"):
        lease = await ownership.acquire(match_id, node)
        assert lease is not None
        await ownership.create(lease, header())
        await ownership.append(lease, batch(1, 1))
        await ownership.append(lease, batch(2, 2))
        leases.append(lease)
    stale = replace(leases[1], token=leases[1].token + 1)  # not the lease's token: fenced
    huge = replace(fresh_checkpoint(), state=bytes(65 * 1024))
    answers = await ownership.snapshot_all([
        (leases[0], JournalSnapshot(2, fresh_checkpoint(), {"p": 7})),
        (stale, JournalSnapshot(2, fresh_checkpoint())),
        (leases[2], JournalSnapshot(5, fresh_checkpoint())),
        (leases[3], JournalSnapshot(1, huge)),
    ])
    assert answers[0] is None
    assert isinstance(answers[1], FencedError)
    assert isinstance(answers[2], JournalError) and "outside" in str(answers[2])
    assert isinstance(answers[3], JournalError) and "is over" in str(answers[3])
    kept = await ownership.load("s1")
    assert kept is not None and kept.snapshot is not None and kept.snapshot.seq == 2 and kept.batches == ()
    assert kept.marks() == {"p": 7}
    for match_id in ("s2", "s3", "s4"):  # refused: nothing changed
        loaded = await ownership.load(match_id)
        assert loaded is not None and loaded.snapshot is None and [b.seq for b in loaded.batches] == [1, 2]
