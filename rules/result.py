"""How a match ended, for every ruleset: a winner (or none), one outcome and one score per seat, a reason.

`MatchResult` is immutable plain-data-shaped: `plain()` is what the stream's `over`, the match
records and the replays carry, and `result_from_plain` reads it back strictly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .plain import check_int, check_list, check_map, check_str, exact_keys, show

#: A seat's outcome.
OUTCOMES = ("won", "lost", "drawn", "forfeited")

_FIELDS = ("winner", "outcomes", "reason", "frame", "scores")


@dataclass(frozen=True)
class MatchResult:
    """How a match ended: the winner (None for a draw), one outcome and score per seat, why, and when."""

    winner: int | None
    outcomes: tuple[str, ...]
    reason: str
    frame: int
    scores: tuple[int, ...]

    def plain(self) -> dict[str, Any]:
        """Plain data."""
        return {
            "winner": self.winner,
            "outcomes": list(self.outcomes),
            "reason": self.reason,
            "frame": self.frame,
            "scores": list(self.scores),
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> MatchResult:
        """Rebuild from plain() (trusted data; `result_from_plain` checks untrusted data)."""
        return cls(
            data["winner"], tuple(data["outcomes"]), data["reason"], data["frame"], tuple(data["scores"])
        )


def result_from_plain(data: object, seats: int | None = None) -> MatchResult:
    """Rebuild a MatchResult from `MatchResult.plain()`, checking every field (ValueError names it)."""
    mapping = check_map("result", data)
    exact_keys("result", mapping, _FIELDS)
    outcomes = check_list("result.outcomes", mapping["outcomes"])
    count = len(outcomes) if seats is None else seats
    if len(outcomes) != count:
        raise ValueError(f"result.outcomes: expected {count} outcomes (one per seat), got {len(outcomes)}")
    for index, outcome in enumerate(outcomes):
        if outcome not in OUTCOMES:
            raise ValueError(f"result.outcomes[{index}]: expected one of {OUTCOMES}, got {show(outcome)}")
    winner = mapping["winner"]
    if winner is not None:
        check_int("result.winner", winner, 0, max(0, count - 1))
    reason = check_str("result.reason", mapping["reason"])
    frame = check_int("result.frame", mapping["frame"], 0)
    scores = check_list("result.scores", mapping["scores"])
    if len(scores) != count:
        raise ValueError(f"result.scores: expected {count} scores (one per seat), got {len(scores)}")
    for index, score in enumerate(scores):
        check_int(f"result.scores[{index}]", score, 0)
    return MatchResult(winner, tuple(outcomes), reason, frame, tuple(scores))
