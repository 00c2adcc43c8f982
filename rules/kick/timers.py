"""Time inside: seconds and speeds as whole passes, and the counters that run on the pass counter's ticks.

The arcade times most things on ticks of one global pass counter (PENGO-RULES §0): a counter of n on
ticks of `length` passes runs out on the n-th tick after it starts, so how long it lasts depends on the
counter's phase. Every timer of the core is the absolute pass on which it runs out.
"""

from __future__ import annotations

from fractions import Fraction

from .geometry import CELL_PX
from .tables import PENGO_LOOP_HZ, WRAP


def passes_for_seconds(seconds: float) -> int:
    """Whole passes for a duration in seconds (at least 1 for any positive duration)."""
    passes = round(seconds * PENGO_LOOP_HZ)
    return max(1, passes) if seconds > 0 else 0


def period_for_speed(cells_per_second: float) -> Fraction:
    """Passes per pixel for a speed in cells per second, as an exact fraction.

    Speeds made by `pengo_speed(p)` come back as exactly p; other speeds keep their fraction, so an
    actor at 2.6 cells/s accumulates its sub-pass remainder exactly.
    """
    period = Fraction(PENGO_LOOP_HZ, CELL_PX) / Fraction(cells_per_second).limit_denominator(100_000)
    period = period.limit_denominator(10_000)
    if abs(period - round(period)) < Fraction(1, 10_000):
        return Fraction(round(period))
    return period


def next_tick(now: int, length: int) -> int:
    """The first pass after `now` on which a tick of `length` passes fires."""
    return (now // length + 1) * length


def ticks_due(since: int, length: int, count: int) -> int:
    """The pass on which a counter of `count` on ticks of `length` passes, started on `since`, runs out."""
    return next_tick(since, length) + (count - 1) * length


def wraps_due(now: int, count: int) -> int:
    """The pass on which a counter of `count` on wraps (the low byte's), started on `now`, runs out."""
    return ticks_due(now, WRAP, count)


def due_after(arcade: bool, now: int, arcade_due: int, seconds: float) -> int:
    """When a timer started on `now` runs out: `arcade_due` in arcade timing, else after `seconds`."""
    return arcade_due if arcade else now + max(1, passes_for_seconds(seconds))
