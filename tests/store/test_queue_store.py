"""The shared ranked queue (server/store/base.py's QueueStore) on every store: one entry per guest within
the capacity, a pair taken once whichever nodes race for it, pairings noted for the other node's guests,
and what a dead node left dropped after `stale`."""

from __future__ import annotations

import asyncio

import pytest

from server.store.base import MATCHED, Pairing, ProposedPair, QueueEntry, Stores

pytestmark = pytest.mark.asyncio

QUEUE = "pengo-versus"


def entry(guest: str, node: str = "node-a", rating: float = 1500.0, since: float = 100.0) -> QueueEntry:
    return QueueEntry(guest, guest.upper(), rating, 350.0, True, since, node, f"10.0.0.{len(guest)}",
                      (f"guest:{guest}",), ())


async def test_one_entry_per_guest_within_the_capacity(store: Stores) -> None:
    queue = store.queue
    assert await queue.join(QUEUE, entry("ann"), 2, 100.0)
    assert not await queue.join(QUEUE, entry("ann", "node-b"), 2, 100.0)
    assert await queue.join(QUEUE, entry("bob"), 2, 100.0)
    assert not await queue.join(QUEUE, entry("cyd"), 2, 100.0)
    assert await queue.join("other-ruleset", entry("cyd"), 2, 100.0)
    view = await queue.look(QUEUE, "node-a", ("ann",), -1, 101.0, 30.0)
    assert view.entries is not None and {e.guest for e in view.entries} == {"ann", "bob"}
    assert view.entries[0] in (entry("ann"), entry("bob")) and view.pairings == (None,)
    again = await queue.look(QUEUE, "node-a", (), view.version, 101.5, 30.0)
    assert again.entries is None and again.version == view.version
    assert await queue.leave(QUEUE, "bob") and not await queue.leave(QUEUE, "bob")
    changed = await queue.look(QUEUE, "node-a", (), view.version, 102.0, 30.0)
    assert changed.entries is not None and [e.guest for e in changed.entries] == ["ann"]


async def test_a_pair_is_taken_once_by_racing_nodes(store: Stores) -> None:
    """Two nodes propose the same pair at once (and a third a pair with one of them): exactly one wins;
    the winner's pairing for the other node's guest is noted, settled and dropped when told."""
    queue = store.queue
    ann, bob, cyd = entry("ann", "node-a"), entry("bob", "node-b"), entry("cyd", "node-c")
    for waiting in (ann, bob, cyd):
        assert await queue.join(QUEUE, waiting, 10, 100.0)

    def proposal(node: str, first: QueueEntry, second: QueueEntry) -> ProposedPair:
        notes = [None if e.node == node else Pairing(f"m-{node}", seat, node, 101.0, other)
                 for seat, (e, other) in enumerate(((first, second), (second, first)))]
        return ProposedPair(first, second, notes[0], notes[1])

    results = await asyncio.gather(*(queue.take_pairs(QUEUE, (proposal(node, first, second),), 101.0)
                                      for node, first, second in (("node-a", ann, bob), ("node-b", ann, bob),
                                                                  ("node-c", bob, cyd))))
    assert sum(taken for (taken,) in results) == 1
    winner = ("node-a", "node-b", "node-c")[[taken for (taken,) in results].index(True)]
    view = await queue.look(QUEUE, "node-b", ("bob",), -1, 102.0, 30.0)
    assert view.entries is not None and len(view.entries) == 1
    if winner == "node-b":
        assert view.pairings == (None,)  # its own guest: told by the node itself
        return
    noted = view.pairings[0]
    assert noted is not None and (noted.match, noted.by, noted.state) == (f"m-{winner}", winner, "pairing")
    made = Pairing(noted.match, noted.seat, winner, 102.0, noted.opponent, MATCHED)
    await queue.settle(QUEUE, "bob", made, 102.0)
    told = (await queue.look(QUEUE, "node-b", ("bob",), view.version, 102.5, 30.0)).pairings[0]
    assert told == made
    await queue.done(QUEUE, "bob")
    assert (await queue.look(QUEUE, "node-b", ("bob",), view.version, 103.0, 30.0)).pairings == (None,)
    await queue.settle(QUEUE, "bob", made, 103.0)  # settled after it was told: not noted again
    assert (await queue.look(QUEUE, "node-b", ("bob",), view.version, 103.0, 30.0)).pairings == (None,)


async def test_a_changed_entry_is_not_taken(store: Stores) -> None:
    """A proposal made from an old reading (the guest left and came back) is refused."""
    queue = store.queue
    assert await queue.join(QUEUE, entry("ann"), 10, 100.0)
    assert await queue.join(QUEUE, entry("bob"), 10, 100.0)
    assert await queue.leave(QUEUE, "bob")
    assert await queue.join(QUEUE, entry("bob", since=105.0), 10, 105.0)
    stale_pair = ProposedPair(entry("ann"), entry("bob"), None, None)
    assert await queue.take_pairs(QUEUE, (stale_pair,), 106.0) == (False,)


async def test_a_dead_nodes_entries_and_stale_pairings_are_dropped(store: Stores) -> None:
    queue = store.queue
    assert await queue.join(QUEUE, entry("ann", "node-a"), 10, 100.0)
    assert await queue.join(QUEUE, entry("bob", "node-b"), 10, 100.0)
    assert await queue.join(QUEUE, entry("cyd", "node-b"), 10, 100.0)
    note = Pairing("m1", 1, "node-a", 100.0, entry("dan", "node-a"))
    pair = ProposedPair(entry("ann", "node-a"), entry("cyd", "node-b"), None, note)
    assert await queue.take_pairs(QUEUE, (pair,), 100.0) == (True,)
    view = await queue.look(QUEUE, "node-a", (), -1, 120.0, 30.0)
    assert view.entries is not None and [e.guest for e in view.entries] == ["bob"]
    view = await queue.look(QUEUE, "node-a", ("cyd",), -1, 140.0, 30.0)  # node-b silent for 40 s
    assert view.entries == () and view.pairings == (None,)
