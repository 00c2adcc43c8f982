"""The frame clock: one task that calls `on_tick(tick)` at `rate` ticks a second without drifting.

Tick k is due at `start + k / rate` on the event loop's monotonic clock; the task sleeps until the
next deadline, never `sleep(1 / rate)` in a loop (that drifts by every wake-up's lateness). When a
wake-up is so late that ticks were missed, the next call carries the newest due tick (the matches
simulate the frames in between, bounded by their catch-up limit). The lateness of the last
`LATENESS_SAMPLES` wake-ups is kept twice: as the samples themselves (the benchmark reads them) and
as a window histogram whose percentiles cost the same however full it is (what `/health` reports,
on the match loop).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque
from collections.abc import Callable

from ..logs import log_event
from .histogram import WindowHistogram

log = logging.getLogger("floe.clock")

#: Wake-up latenesses kept for the percentiles.
LATENESS_SAMPLES = 20_000


class FrameClock:
    """Drives the match loop. `on_tick` must not await (it is the match loop)."""

    def __init__(self, rate: float, on_tick: Callable[[int], None]) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.rate = rate
        self.on_tick = on_tick
        self.tick = 0
        self.start = 0.0
        self.lateness: deque[float] = deque(maxlen=LATENESS_SAMPLES)
        self.histogram = WindowHistogram(LATENESS_SAMPLES)
        self.missed = 0
        self.busy = 0.0

    def deadline(self, tick: int) -> float:
        """When tick `tick` is due."""
        return self.start + tick / self.rate

    async def run(self) -> None:
        """Tick until cancelled."""
        loop = asyncio.get_running_loop()
        self.start = loop.time()
        while True:
            next_tick = self.tick + 1
            delay = self.deadline(next_tick) - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                await asyncio.sleep(0)  # let the sockets in even when the loop is behind
            woke = loop.time()
            due = max(next_tick, math.floor((woke - self.start) * self.rate))
            if due > next_tick:
                self.missed += due - next_tick
            late = woke - self.deadline(next_tick)
            self.lateness.append(late)
            self.histogram.add(late)
            self.tick = due
            try:
                self.on_tick(due)
            except Exception:  # noqa: BLE001 - the loop must outlive any one tick's bug
                log_event(log, logging.ERROR, "clock.tick-failed", tick=due, exc_info=True)
            self.busy += loop.time() - woke

    def percentile(self, fraction: float) -> float:
        """A percentile of wake-up lateness in seconds (0.0 before the first tick), in constant time."""
        return self.histogram.percentile(fraction)
