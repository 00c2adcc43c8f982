"""The ranked queue's pairing: nearest rating within windows that widen with waiting, on a given clock."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.match.matchmaker import Matchmaker, QueueFullError, QueueSettings


def pairs_of(queue: Matchmaker, now: float) -> list[tuple[str, str]]:
    """The pairs made now, as (first, second) guest ids."""
    return [(pair.first.guest, pair.second.guest) for pair in queue.pair(now)]


def test_the_window_widens_with_waiting_up_to_its_most() -> None:
    """±100 at first, +10 a second, at most ±600."""
    queue = Matchmaker()
    assert [queue.window(t) for t in (0, 10, 30, 50, 500)] == [100, 200, 400, 600, 600]


def test_near_ratings_pair_at_once_and_far_ones_after_waiting() -> None:
    """1500 and 1580 pair at once; 1500 and 1800 only once both windows reach 300 (20 s)."""
    queue = Matchmaker()
    queue.add("a", 1500, 0.0)
    queue.add("b", 1580, 0.0)
    assert pairs_of(queue, 0.0) == [("a", "b")] and len(queue) == 0
    queue.add("c", 1500, 0.0)
    queue.add("d", 1800, 5.0)
    assert pairs_of(queue, 20.0) == []  # c accepts 300, d only 250
    assert pairs_of(queue, 25.0) == [("c", "d")]


def test_each_guest_gets_the_nearest_rating_longest_waiting_first() -> None:
    """The longest waiter picks first and takes the nearest rating it may; the rest pair among themselves."""
    queue = Matchmaker()
    queue.add("old", 1500, 0.0)
    queue.add("far", 1590, 1.0)
    queue.add("near", 1520, 2.0)
    queue.add("other", 1600, 2.0)
    assert pairs_of(queue, 2.0) == [("old", "near"), ("far", "other")]


def test_leaving_expiring_and_the_capacity() -> None:
    """A guest leaves the queue, or expires past max_wait; a full queue refuses one more."""
    queue = Matchmaker(QueueSettings(max_wait=60.0, capacity=2))
    queue.add("a", 1500, 0.0)
    queue.add("b", 3000, 0.0)
    with pytest.raises(QueueFullError):
        queue.add("c", 1500, 0.0)
    assert queue.remove("a") is not None and "a" not in queue and queue.remove("a") is None
    assert [w.guest for w in queue.expired(61.0)] == ["b"] and len(queue) == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(800, 2500), st.integers(0, 100)), min_size=0, max_size=40),
       st.integers(0, 200))
def test_pairs_are_disjoint_and_within_both_windows(entries: list[tuple[int, int]], now: int) -> None:
    """Whatever the queue, every guest is in at most one pair and each pair fits both windows."""
    queue = Matchmaker()
    for index, (rating, since) in enumerate(entries):
        queue.add(f"g{index}", float(rating), float(min(since, now)))
    pairs = queue.pair(float(now))
    seen = [guest for pair in pairs for guest in (pair.first.guest, pair.second.guest)]
    assert len(seen) == len(set(seen)) and len(queue) == len(entries) - len(seen)
    for pair in pairs:
        gap = abs(pair.first.rating - pair.second.rating)
        assert gap <= queue.window(now - pair.first.since) and gap <= queue.window(now - pair.second.since)
