"""A stream held back: what a ranked match's spectators are sent, `ranked_spectator_delay` seconds late.

The match hands each spectator record (a frame, a keyframe, the end) to `push` with the time; the
record goes out once it is `delay` seconds old (`release`, every tick), in order. With no delay it
goes out at once, as before. Held records are the match's packed bytes (one copy shared with the
players' stream), a few seconds of frames.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable


class DelayedFeed:
    """Actions run `delay` seconds after they were pushed, in order."""

    def __init__(self, delay: float) -> None:
        self.delay = max(0.0, delay)
        self._held: deque[tuple[float, Callable[[], None]]] = deque()

    def push(self, now: float, action: Callable[[], None]) -> None:
        """Run `action` at `now + delay` (now, with no delay and nothing held)."""
        if self.delay <= 0 and not self._held:
            action()
        else:
            self._held.append((now + self.delay, action))

    def release(self, now: float) -> None:
        """Run every held action that is due."""
        held = self._held
        while held and held[0][0] <= now:
            held.popleft()[1]()

    def __len__(self) -> int:
        """Actions held."""
        return len(self._held)
