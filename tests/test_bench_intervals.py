"""`bench.cluster_cpu.median_interval`: how far a bench's median over its rounds could move by chance,
which is what a target is read against (bench/README.md, `cluster_cpu`)."""

from __future__ import annotations

import statistics

from bench.cluster_cpu import median_interval


def test_the_interval_holds_the_median_and_is_the_same_for_the_same_rounds() -> None:
    rounds = [1.106, 1.094, 1.112, 1.05, 1.17, 1.08, 1.12, 1.099, 1.131, 1.062, 1.145]
    low, high = median_interval(rounds)
    assert min(rounds) <= low <= statistics.median(rounds) <= high <= max(rounds)
    assert low < high
    assert median_interval(rounds) == (low, high)


def test_rounds_that_agree_give_no_room_and_more_rounds_give_less() -> None:
    assert median_interval([1.1] * 9) == (1.1, 1.1)
    few = [1.05, 1.08, 1.10, 1.12, 1.15]
    low_few, high_few = median_interval(few)
    low_many, high_many = median_interval(few * 9)
    assert high_many - low_many < high_few - low_few
