"""A publishing group's matches publish together (`LiveMatch.publish_phase`, `journal_slices`
neighbouring tick slices): a node that journals them logs a group's batches in one append after the
group's last slice, one a group every `send_every` frames, however many matches it holds, and no
publication waits past its group's last wake-up. Driven by hand (no clock task): the hub's wake-ups
in turn (a group's last ends with the owner's fast flush), each followed by its reply and, when the
owner woke it, what the flusher does."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pytest

from server.cluster.journal import Appended, Appending, FencedError
from server.cluster.memory import MemoryBus, MemoryOwnership
from server.config import ServerConfig
from server.match.hub import Hub
from server.match.live import LiveMatch
from server.match.shared import SharedMatches
from server.node import Node
from tests.cluster.conftest import GENEROUS
from tests.server.conftest import fast_config
from tests.server.test_session import FixedClock

pytestmark = pytest.mark.asyncio

MATCHES = 12
FRAMES = 40


def shared_node(**match: int) -> tuple[ServerConfig, FixedClock, MemoryOwnership, Node, Hub, SharedMatches]:
    """A node sharing its matches on the embedded ownership, driven by hand on a clock the test moves
    (`match`: match settings besides the tests' fast ones): its config, clock, ownership, node, hub
    and shared matches."""
    config = fast_config(**match).override(cluster=GENEROUS)
    clock = FixedClock()
    ownership = MemoryOwnership(GENEROUS, clock=clock.monotonic)
    node = Node(config, clock=clock, ownership=ownership, bus=MemoryBus(GENEROUS))
    assert node.shared is not None
    return config, clock, ownership, node, node.hub, node.shared


def record_appends(ownership: MemoryOwnership, fast: list[list[str]], awaited: list[list[str]]) -> None:
    """Note each append's match ids as the ownership is asked: the fast path's (`append_soon`) in
    `fast`, the flusher's (`append_all`) in `awaited` (one list for both keeps their order)."""
    append_all, append_soon = ownership.append_all, ownership.append_soon

    async def counted(items: list[Appending]) -> list[Exception | None]:
        awaited.append([lease.match_id for lease, _, _ in items])
        return await append_all(items)

    def counted_soon(items: list[Appending], done: Appended) -> bool:
        fast.append([lease.match_id for lease, _, _ in items])
        return append_soon(items, done)

    ownership.append_all = counted  # type: ignore[method-assign,assignment]
    ownership.append_soon = counted_soon  # type: ignore[method-assign,assignment]


async def test_a_slice_s_matches_are_logged_in_one_append_every_send_every_frames() -> None:
    config, clock, ownership, node, hub, shared = shared_node()
    appends: list[list[str]] = []
    record_appends(ownership, fast=appends, awaited=appends)
    send_every = config.match.send_every
    group = hub.group_slices
    assert group == min(config.match.journal_slices, hub.slices) and group > 1  # the default groups slices
    groups = -(-hub.slices // group)
    subtick = 0

    async def frame() -> None:
        nonlocal subtick
        for _ in range(hub.slices):
            subtick += 1
            clock.now += 1 / (config.match.pace * hub.slices)
            before = len(appends)
            hub._on_tick(subtick)  # the frame clock's call
            index = subtick % hub.slices
            closed = index % group == group - 1 or index == hub.slices - 1
            assert len(appends) - before <= (1 if closed else 0)  # one append a group, after its last slice
            await shared.owner.settled()  # the fast request's reply
            if shared._due.is_set():  # what the flusher does when woken (a new match's lease, snapshots)
                shared._due.clear()
                await shared.owner.flush(clock.now)
            if closed:
                assert all(not live.sealed for live in lives if live.publish_phase == index // group), \
                    "a sealed publication waited past its group's last wake-up"

    # Half the matches start a frame after the others: by their own frame counts they would publish
    # on the other frames, two appends a group where one does.
    lives = [hub.create_bot_duel("lazy", "lazy") for _ in range(MATCHES // 2)]
    await frame()
    lives += [hub.create_bot_duel("lazy", "lazy") for _ in range(MATCHES // 2)]
    group_of = {live.id: live.publish_phase for live in lives}
    assert sorted(group_of.values()) == sorted((i % hub.slices) // group for i in range(MATCHES))
    assert len({live.start_tick for live in lives}) == 2
    for _ in range(FRAMES - 1):
        await frame()
    running = [ids for ids in appends if len(ids) == MATCHES // groups]
    assert all(len({group_of[match] for match in ids}) == 1 for ids in appends), "one group per append"
    # Once every match runs: one append a group every `send_every` frames, each with the group's matches.
    assert len(running) >= (FRAMES - 5) * groups // send_every
    assert len(appends) <= FRAMES * groups // send_every + groups + 2
    assert {live.id for live in lives} == {match for ids in appends for match in ids}
    assert all(live.runner is not None and live.current_frame() >= FRAMES - 3 for live in lives)
    # What that costs, on /health: a group's first slice's publications wait a slice interval for each
    # later slice of the group (the embedded ownership answers at once), its last slice's none.
    waited_ms = (group - 1) * 1000 / (config.match.pace * hub.slices)
    wait = node.stats()["journal"]["wait_ms"]
    assert wait["samples"] >= len(running)
    assert waited_ms <= wait["p50"] <= wait["max"] <= waited_ms + 0.1


async def test_a_node_that_journals_nothing_spreads_its_publishing_over_the_frames() -> None:
    """On the embedded store (no journal) each tick slice is its own group whatever `journal_slices`
    says: the slices' matches publish on alternate frames, not all on the same one; a journaling node
    groups them (`group_publications`), which it must do before any match is hosted."""
    config = fast_config(journal_slices=4)
    node = Node(config, clock=FixedClock())
    hub = node.hub
    assert node.shared is None and hub.group_slices == 1 and all(hub._ends_group)
    lives = [hub.create_bot_duel("lazy", "lazy") for _ in range(hub.slices)]
    send_every = config.match.send_every
    assert sorted(live.publish_phase % send_every for live in lives) == \
        sorted(index % send_every for index in range(hub.slices))
    with pytest.raises(RuntimeError, match="before any match"):
        hub.group_publications(4)
    journaling = shared_node(journal_slices=4)[4]
    assert journaling.group_slices == min(4, journaling.slices) and journaling._ends_group[-1]
    assert not any(journaling._ends_group[:-1])


async def test_one_slice_a_group_logs_each_slice_on_its_own_wake_up() -> None:
    """`journal_slices=1`: an append a slice, right after its wake-up (no publication waits)."""
    config, clock, ownership, node, hub, shared = shared_node(journal_slices=1)
    assert hub.group_slices == 1
    lives = [hub.create_bot_duel("lazy", "lazy") for _ in range(hub.slices)]
    assert sorted(live.publish_phase for live in lives) == list(range(hub.slices))
    for subtick in range(1, hub.slices * 20 + 1):
        clock.now += 1 / (config.match.pace * hub.slices)
        hub._on_tick(subtick)
        await shared.owner.settled()
        if shared._due.is_set():
            shared._due.clear()
            await shared.owner.flush(clock.now)
        assert all(not live.sealed for live in lives), "a sealed publication waited past its own wake-up"
    assert all(live.runner is not None and live.current_frame() >= 15 for live in lives)
    wait = node.stats()["journal"]["wait_ms"]
    assert wait["samples"] > 0 and wait["max"] <= 0.1  # published within its own wake-up


async def test_a_group_that_ends_while_a_request_is_out_goes_in_the_next_one_after_its_reply() -> None:
    """The store's reply comes late (held by the test): the next group's end writes nothing while the
    request is out, its seals wait, and the reply's handling writes them in one request (two groups of
    two slices: the next group's end comes while the first group's request is out)."""
    config, clock, ownership, node, hub, shared = shared_node(journal_slices=2)
    assert hub.group_slices == 2 and hub.slices == 4
    out: list[tuple[list[str], Callable[[], bool]]] = []
    append_soon = ownership.append_soon

    def held(items: list[Appending], done: Appended) -> bool:
        out.append(([lease.match_id for lease, _, _ in items], partial(append_soon, items, done)))
        return True  # written; its reply waits for the test

    ownership.append_soon = held  # type: ignore[method-assign,assignment]
    lives = [hub.create_bot_duel("lazy", "lazy") for _ in range(hub.slices)]
    group_of = {live.id: live.publish_phase for live in lives}
    subtick = 0

    async def wake_up() -> None:
        nonlocal subtick
        subtick += 1
        clock.now += 1 / (config.match.pace * hub.slices)
        hub._on_tick(subtick)
        if shared._due.is_set() and not shared.owner.flushing:  # a new match's lease (the slow path)
            shared._due.clear()
            await shared.owner.flush(clock.now)

    while not out:  # the first fast request, its reply held
        await wake_up()
    first_ids, reply = out[0]
    (first_group,) = {group_of[match] for match in first_ids}
    waiting = [live for live in lives if group_of[live.id] != first_group]
    while not all(live.sealed for live in waiting):  # the other group sealed, its end came and went
        await wake_up()
    await wake_up()
    await wake_up()
    assert len(out) == 1, "a request was written while one was out"
    assert reply()
    assert len(out) == 2, "the reply's handling did not write what the group's end left"
    assert {group_of[match] for match in out[1][0]} == {group_of[live.id] for live in waiting}
    assert out[1][1]()
    assert not any(live.sealed for live in waiting)


async def test_a_new_match_waiting_for_its_lease_holds_no_other_match_back() -> None:
    """A match's first seals wait for the flusher to take its lease (`flush`); the other matches of its
    group go on in the fast request meanwhile, and the new one's batches follow once it is leased."""
    config, clock, ownership, node, hub, shared = shared_node()
    fast: list[list[str]] = []
    slow: list[list[str]] = []
    record_appends(ownership, fast=fast, awaited=slow)
    subtick = 0

    async def frame(flusher: bool) -> None:
        nonlocal subtick
        for _ in range(hub.slices):
            subtick += 1
            clock.now += 1 / (config.match.pace * hub.slices)
            hub._on_tick(subtick)
            await shared.owner.settled()
            if flusher and shared._due.is_set():
                shared._due.clear()
                await shared.owner.flush(clock.now)

    lives = [hub.create_bot_duel("lazy", "lazy") for _ in range(hub.slices * 2)]
    for _ in range(4):
        await frame(flusher=True)
    assert all(shared.owner.owned[live.id].lease is not None for live in lives)
    newcomer = hub.create_bot_duel("lazy", "lazy")
    while not newcomer.sealed:  # the flusher does not run: the newcomer's lease is not taken yet
        await frame(flusher=False)
    fast.clear()
    slow.clear()
    for _ in range(4):  # its seals wait for the lease; the others' go on
        await frame(flusher=False)
    assert newcomer.sealed and shared.owner.owned[newcomer.id].lease is None
    assert not slow and all(newcomer.id not in ids for ids in fast)
    assert {match for ids in fast for match in ids} == {live.id for live in lives}  # every other went on
    await frame(flusher=True)  # the flusher takes the lease and logs what waited
    assert shared.owner.owned[newcomer.id].lease is not None and not newcomer.sealed
    assert any(newcomer.id in ids for ids in slow)


async def test_a_refused_batch_publishes_what_came_before_it_and_loses_its_match() -> None:
    """A reply that refuses a match's second batch: its first is published, the match is lost (its
    later publications are not), and another match of the request is published whole."""
    config, clock, ownership, node, hub, shared = shared_node()
    owner = shared.owner
    lives = [hub.create_bot_duel("lazy", "lazy") for _ in range(2)]
    subtick = 0
    while not all(owner.owned[live.id].lease is not None for live in lives) or subtick < 40:
        subtick += 1
        clock.now += 1 / (config.match.pace * hub.slices)
        hub._on_tick(subtick)
        await owner.settled()
        if shared._due.is_set():
            shared._due.clear()
            await owner.flush(clock.now)
    owner.stopped = True  # nothing is written: the seals gather
    while not all(len(live.sealed) >= 2 for live in lives):
        subtick += 1
        clock.now += 1 / (config.match.pace * hub.slices)
        hub._on_tick(subtick)
    refused, whole = lives
    taken = [(owner.owned[live.id], live.sealed[:2]) for live in lives]
    lease = owner.owned[refused.id].lease
    assert lease is not None
    batches = owner.batches
    lost: list[LiveMatch] = []
    owner._settle(taken, [None, FencedError(refused.id, lease.token, "held by another node"), None, None],
                  clock.now, clock.now, lost)
    first, second = taken[0][1]
    assert lost == [refused] and refused.id not in owner.owned
    assert refused.players.head == first.marks["p"] < second.marks["p"]  # the first went out, not the second
    assert whole.players.head == taken[1][1][1].marks["p"] and owner.owned[whole.id].seq == taken[1][1][1].seq
    assert owner.batches == batches + 3
