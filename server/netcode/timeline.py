"""One seat's input bytes by frame, as the runner knows them: told, held, or predicted.

A seat says its byte for some frames (an `input` message, a bot's decision, the server's neutral on
a disconnect). Between two of them the seat holds what the earlier byte leaves held, by its
ruleset's rule (`InputRules.held`: in pengo-versus the direction, with the kick edge dropped). A
frame the seat has not spoken for yet is predicted by the same rule, so a prediction is exactly what
a silent seat means, and the first told frame that differs from it is where a rollback starts.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from rules.ruleset import InputRules

#: `known_until` of a seat that will never speak again (it forfeited).
CLOSED = 1 << 62


class InputTimeline:
    """The bytes one seat told, from the oldest frame the runner may still re-simulate."""

    __slots__ = ("_frames", "_values", "_held_before", "_held", "known_until", "unlogged")

    def __init__(self, inputs: InputRules, journal: bool = False) -> None:
        self._frames: list[int] = []
        self._values: list[int] = []
        self._held = inputs.held
        #: The byte held on frames before the first kept entry (pruned entries leave it behind).
        self._held_before = inputs.neutral
        #: Frames below this are told (or settled): the seat's real input, not a prediction.
        self.known_until = 0
        #: With a journal: the entries told since the owner last logged them (`MatchRunner.take_log`),
        #: flat ([frame, byte, frame, byte, …]: the journal's form, so logging them makes nothing).
        self.unlogged: list[int] | None = [] if journal else None

    @property
    def closed(self) -> bool:
        """Has the seat stopped taking inputs (a forfeit)?"""
        return self.known_until >= CLOSED

    def byte_at(self, frame: int) -> int:
        """The byte of `frame`: told there, or held (predicted) from the last told frame before it."""
        index = bisect_right(self._frames, frame) - 1
        if index < 0:
            return self._held_before
        value = self._values[index]
        return value if self._frames[index] == frame else self._held(value)

    def tell(self, frame: int, value: int) -> int:
        """The seat's byte for `frame` (at or after `known_until`); returns the byte it replaces there."""
        assert frame >= self.known_until, f"frame {frame} is before known_until {self.known_until}"
        previous = self.byte_at(frame)
        if value != previous:
            self._frames.append(frame)
            self._values.append(value)
            unlogged = self.unlogged
            if unlogged is not None:
                unlogged.append(frame)
                unlogged.append(value)
        self.known_until = frame + 1
        return previous

    def close(self) -> None:
        """No more inputs: every later frame holds what is held now."""
        self.known_until = CLOSED

    def prune(self, below: int) -> None:
        """Forget entries before frame `below` (frames that are final); later frames read the same."""
        index = bisect_right(self._frames, below - 1)
        if index == 0:
            return
        self._held_before = self._held(self._values[index - 1])
        del self._frames[:index]
        del self._values[:index]

    def export(self, start: int) -> tuple[int, tuple[tuple[int, int], ...], int]:
        """What a journal's snapshot at frame `start` keeps of this seat: the byte held on the frames
        before the first entry at or after `start`, those entries, and `known_until` (see `load`)."""
        index = bisect_left(self._frames, start)
        held = self._held_before if index == 0 else self._held(self._values[index - 1])
        entries = tuple(zip(self._frames[index:], self._values[index:], strict=True))
        return held, entries, self.known_until

    def load(self, held_before: int, entries: Sequence[tuple[int, int]], known_until: int) -> None:
        """Take a seat's inputs as `export` gave them (a match taken over from a journal)."""
        self._held_before = held_before
        self._frames = [frame for frame, _ in entries]
        self._values = [value for _, value in entries]
        self.known_until = known_until

    def replay_entry(self, frame: int, value: int) -> None:
        """One logged entry again (a journal's batch); an entry the timeline already holds (a frame
        below `known_until`: the snapshot had it) is skipped."""
        if frame >= self.known_until:
            self.tell(frame, value)

    def __len__(self) -> int:
        return len(self._frames)

    def __repr__(self) -> str:
        entries = ", ".join(f"{f}:{v:#04x}" for f, v in zip(self._frames, self._values, strict=True))
        return (
            f"<InputTimeline held_before={self._held_before:#04x} [{entries}] known_until={self.known_until}>"
        )
