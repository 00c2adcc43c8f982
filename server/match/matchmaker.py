"""The ranked queue's pairing, sans-I/O: who waits, since when, at what rating, and who to pair.

    queue = Matchmaker(QueueSettings())
    queue.add("g_ann", 1500.0, now)
    for pair in queue.pair(now): ...          # each pair leaves the queue
    for gone in queue.expired(now): ...       # waited past max_wait: out of the queue

A waiting guest accepts an opponent whose rating is within its *window*, which widens with the time
waited: `window_base` points at first, `window_growth` more per second, at most `window_max`
(defaults: ±100, +10 a second, ±600 from 50 s on). Two guests pair when each is within the other's
window, and neither avoids the other: a guest carries `tags` (who it is: its id, its address) and
`avoid` (tags it must not be paired with: who dodged it too often lately). `pair` goes through the
queue longest-waiting first and gives each guest the nearest
rating among those it may pair with (ties: the one waiting longer, then the guest id), so the
outcome is a function of the queue and the time only. Time is an argument; nothing here reads a
clock.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass


@dataclass(frozen=True)
class QueueSettings:
    """The ranked queue's numbers (ServerConfig.queue; protocol/README.md lists them)."""

    #: The rating difference a guest accepts at first, what it widens by per second, and its most.
    window_base: float = 100.0
    window_growth: float = 10.0
    window_max: float = 600.0
    #: Seconds a guest may wait before it is taken out of the queue (told `unqueued`, reason timeout).
    max_wait: float = 600.0
    #: Guests waiting at once (a node's queue, and the queue across nodes in the store).
    capacity: int = 1000
    #: Seconds after its last pairing pass a node counts as gone: its guests' entries leave the shared
    #: queue, and so do pairings noted that long ago and never told (their nodes are gone).
    stale_after: float = 30.0

    def __post_init__(self) -> None:
        if self.window_base < 0 or self.window_growth < 0 or self.window_max < self.window_base:
            raise ValueError("queue windows: 0 ≤ window_base ≤ window_max and window_growth ≥ 0")
        if self.max_wait <= 0 or self.capacity < 2 or self.stale_after <= 0:
            raise ValueError("queue: max_wait and stale_after must be positive and capacity at least 2")


@dataclass(frozen=True)
class Waiting:
    """A guest in the queue: its rating and when it joined."""

    guest: str
    rating: float
    since: float
    tags: frozenset[str] = frozenset()
    avoid: frozenset[str] = frozenset()

    def accepts(self, other: Waiting) -> bool:
        """Neither avoids the other."""
        return not (self.avoid & other.tags or other.avoid & self.tags)


@dataclass(frozen=True)
class Pair:
    """Two guests to put in one match; `first` had waited longer."""

    first: Waiting
    second: Waiting


class QueueFullError(ValueError):
    """The queue holds `capacity` guests already."""


class Matchmaker:
    """The queue of one node (see the module docstring)."""

    def __init__(self, settings: QueueSettings | None = None) -> None:
        self.settings = settings or QueueSettings()
        self._waiting: dict[str, Waiting] = {}

    def __len__(self) -> int:
        return len(self._waiting)

    def __contains__(self, guest: object) -> bool:
        return guest in self._waiting

    def window(self, waited: float) -> float:
        """The rating difference a guest that has waited `waited` seconds accepts."""
        settings = self.settings
        return min(settings.window_max, settings.window_base + settings.window_growth * max(0.0, waited))

    def add(
        self,
        guest: str,
        rating: float,
        now: float,
        tags: frozenset[str] = frozenset(),
        avoid: frozenset[str] = frozenset(),
    ) -> Waiting:
        """Put a guest in the queue (again: it keeps its place); QueueFullError when full."""
        held = self._waiting.get(guest)
        if held is not None:
            return held
        if len(self._waiting) >= self.settings.capacity:
            raise QueueFullError(f"the ranked queue holds {self.settings.capacity} guests already")
        waiting = self._waiting[guest] = Waiting(guest, rating, now, tags, avoid)
        return waiting

    def remove(self, guest: str) -> Waiting | None:
        """Take a guest out of the queue; what it was, or None."""
        return self._waiting.pop(guest, None)

    def expired(self, now: float) -> list[Waiting]:
        """Take out and return the guests that have waited longer than `max_wait`."""
        gone = [w for w in self._waiting.values() if now - w.since > self.settings.max_wait]
        for waiting in gone:
            del self._waiting[waiting.guest]
        return gone

    def pair(self, now: float) -> list[Pair]:
        """Pair whom the windows allow (see the module docstring); the pairs leave the queue."""
        by_rating = sorted(self._waiting.values(), key=lambda w: (w.rating, w.since, w.guest))
        keys = [w.rating for w in by_rating]
        taken: set[str] = set()
        pairs: list[Pair] = []
        for waiting in sorted(self._waiting.values(), key=lambda w: (w.since, w.guest)):
            if waiting.guest in taken:
                continue
            match = self._nearest(waiting, by_rating, keys, taken, now)
            if match is None:
                continue
            taken |= {waiting.guest, match.guest}
            first, second = sorted((waiting, match), key=lambda w: (w.since, w.guest))
            pairs.append(Pair(first, second))
        for guest in taken:
            del self._waiting[guest]
        return pairs

    def _nearest(
        self, waiting: Waiting, by_rating: list[Waiting], keys: list[float], taken: set[str], now: float
    ) -> Waiting | None:
        """The free guest nearest in rating that `waiting` and that guest both accept."""
        reach = self.window(now - waiting.since)
        low = bisect.bisect_left(keys, waiting.rating - reach)
        high = bisect.bisect_right(keys, waiting.rating + reach)
        best: tuple[float, float, str] | None = None
        found: Waiting | None = None
        for other in by_rating[low:high]:
            if other.guest == waiting.guest or other.guest in taken or not waiting.accepts(other):
                continue
            gap = abs(other.rating - waiting.rating)
            if gap > self.window(now - other.since):
                continue
            rank = (gap, other.since, other.guest)
            if best is None or rank < best:
                best, found = rank, other
        return found
