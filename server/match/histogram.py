"""Running percentiles of the last N samples in constant time: a ring of samples and bucket counts.

`/health` reports the frame clock's lateness percentiles on the match loop, so they must cost the
same however many samples are kept: each sample is put in a bucket as it arrives (and taken out of
its bucket when it leaves the window), and a percentile walks the fixed number of buckets. Buckets
are 0.05 ms wide up to 20 ms and 1 ms wide up to 1 s (what lateness needs: fine where a frame's
budget is, coarse for stalls); a percentile is its bucket's upper edge.
"""

from __future__ import annotations

from collections import deque

#: Bucket edges in seconds: fine, then coarse, then one overflow bucket.
_FINE_STEP = 0.00005
_FINE_TOP = 0.020
_COARSE_STEP = 0.001
_COARSE_TOP = 1.0
_FINE = round(_FINE_TOP / _FINE_STEP)
_COARSE = round((_COARSE_TOP - _FINE_TOP) / _COARSE_STEP)
BUCKETS = _FINE + _COARSE + 1


def bucket_of(value: float) -> int:
    """The bucket a sample (seconds) falls in."""
    if value < _FINE_TOP:
        return max(0, int(value / _FINE_STEP))
    if value < _COARSE_TOP:
        return _FINE + int((value - _FINE_TOP) / _COARSE_STEP)
    return BUCKETS - 1


def upper_edge(bucket: int) -> float:
    """The largest value a bucket holds (seconds; the overflow bucket reports 1 s)."""
    if bucket < _FINE:
        return (bucket + 1) * _FINE_STEP
    return min(_COARSE_TOP, _FINE_TOP + (bucket - _FINE + 1) * _COARSE_STEP)


class WindowHistogram:
    """The last `size` samples as bucket counts: `add` is O(1), `percentile` O(BUCKETS)."""

    __slots__ = ("_ring", "_counts", "size")

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a window holds at least one sample")
        self.size = size
        self._ring: deque[int] = deque()
        self._counts = [0] * BUCKETS

    def __len__(self) -> int:
        return len(self._ring)

    def add(self, value: float) -> None:
        """Count a sample; the oldest leaves once the window is full."""
        bucket = bucket_of(value)
        self._ring.append(bucket)
        self._counts[bucket] += 1
        if len(self._ring) > self.size:
            self._counts[self._ring.popleft()] -= 1

    def clear(self) -> None:
        """Forget every sample."""
        self._ring.clear()
        self._counts = [0] * BUCKETS

    def summary_ms(self) -> dict[str, float]:
        """The window's p50, p99 and max in milliseconds and its sample count (what /health shows)."""
        return {"p50": round(self.percentile(0.50) * 1000, 3), "p99": round(self.percentile(0.99) * 1000, 3),
                "max": round(self.percentile(1.0) * 1000, 3), "samples": len(self)}

    def percentile(self, fraction: float) -> float:
        """The value below which `fraction` of the window's samples lie (0.0 when empty)."""
        total = len(self._ring)
        if not total:
            return 0.0
        rank = min(total - 1, int(fraction * total))
        seen = 0
        for bucket, count in enumerate(self._counts):
            seen += count
            if seen > rank:
                return upper_edge(bucket)
        return upper_edge(BUCKETS - 1)  # pragma: no cover - the counts add up to the total
