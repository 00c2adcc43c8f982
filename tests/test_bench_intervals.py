"""`bench.cluster_cpu.median_interval`: how far a bench's median over its rounds could move by chance,
which is what a target is read against (bench/README.md, `cluster_cpu`)."""

from __future__ import annotations

import statistics
from typing import Any

import pytest

from bench.cluster_cpu import median_interval, pooled, summary


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


def _record(code: str, matches: int, ratio: float) -> dict[str, Any]:
    return {"commit": "c0ffee", "code": code, "matches": matches, "seconds": 10.0, "warmup": 3.0,
            "together": True, "plain": False, "set": [], "round": 1,
            "cpu_ms_per_match_second": {"lone": 5.0, "pair": 5.0 * ratio}}


def test_recorded_rounds_pool_by_the_code_measured_and_the_run_shape() -> None:
    records = [_record("aaa", 20, 1.08), _record("aaa", 20, 1.12), _record("bbb", 20, 1.30),
               _record("aaa", 40, 1.05), _record("aaa", 20, 1.10)]
    groups = pooled(records)
    assert [(shape["code"], shape["matches"], setup) for shape, setup, _ in groups] == [
        ("aaa", 20, "pair"), ("bbb", 20, "pair"), ("aaa", 40, "pair")]
    for (_, _, values), expected in zip(groups, [[1.08, 1.12, 1.10], [1.30], [1.05]], strict=True):
        assert values == pytest.approx(expected)  # each ratio worked out from its round's CPU figures
    assert "median 1.100" in summary("pair", groups[0][2])
