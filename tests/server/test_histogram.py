"""The frame clock's running percentiles: a window histogram agrees with the sorted samples to a bucket."""

from __future__ import annotations

from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from server.match.histogram import BUCKETS, WindowHistogram, bucket_of, upper_edge

samples = st.lists(st.floats(min_value=0.0, max_value=2.0, allow_nan=False), min_size=1, max_size=400)


@settings(max_examples=200, deadline=None)
@given(samples, st.integers(min_value=1, max_value=300), st.sampled_from([0.0, 0.5, 0.9, 0.99, 1.0]))
def test_a_percentile_is_the_bucket_of_the_exact_one(values: list[float], size: int, fraction: float) -> None:
    """Over the last `size` samples, the percentile is the upper edge of the exact percentile's bucket."""
    histogram = WindowHistogram(size)
    window: deque[float] = deque(maxlen=size)
    for value in values:
        histogram.add(value)
        window.append(value)
    ordered = sorted(window)
    exact = ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]
    assert len(histogram) == len(window)
    assert histogram.percentile(fraction) == upper_edge(bucket_of(exact))


def test_buckets_are_fine_where_frames_are_and_cover_stalls() -> None:
    """0.05 ms buckets below 20 ms, 1 ms ones to a second, one overflow bucket; edges ascend."""
    assert upper_edge(bucket_of(0.0012)) - 0.0012 < 0.00005 + 1e-12
    assert upper_edge(bucket_of(0.5)) - 0.5 <= 0.001 + 1e-12
    assert bucket_of(5.0) == BUCKETS - 1
    edges = [upper_edge(b) for b in range(BUCKETS)]
    assert edges == sorted(edges)
    empty = WindowHistogram(10)
    assert empty.percentile(0.99) == 0.0
