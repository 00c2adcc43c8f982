"""How a match ended, for every ruleset: a winner (or none), one outcome and one score per seat, a reason.

`MatchResult` is immutable: `plain()` is what the stream's `over`, the match records and the replays
carry (the outcomes and the reason as plain strings), and `result_from_plain` reads it back strictly.
The outcomes are a closed vocabulary (`Outcome`); the reason is the ruleset's own (pengo-versus's
`EndReason`: elimination, forfeit, time), held as given and written as its string.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .plain import check_int, check_list, check_map, check_str, exact_keys, show


class Outcome(enum.StrEnum):
    """What a match came to for one seat."""

    WON = "won"
    """The seat won: the last seat standing, or the best at the end."""
    LOST = "lost"
    """The seat lost: out, or behind at the end."""
    DRAWN = "drawn"
    """The seat shared the best standing with another at the end, and nobody won."""
    FORFEITED = "forfeited"
    """The seat left the match for good (a forfeit byte), whatever happened after."""


#: Every outcome's string, in the vocabulary's order (what a replay's result may hold).
OUTCOMES: tuple[str, ...] = tuple(outcome.value for outcome in Outcome)

_FIELDS = ("winner", "outcomes", "reason", "frame", "scores")


def _outcome(value: Outcome | str) -> Outcome:
    if isinstance(value, Outcome):
        return value
    try:
        return Outcome(value)
    except ValueError:
        raise ValueError(f"result.outcomes: expected one of {OUTCOMES}, got {value!r}") from None


def _text(value: str) -> str:
    """A str (an enum member's value, or the string itself)."""
    return value.value if isinstance(value, enum.Enum) else str(value)


@dataclass(frozen=True, init=False)
class MatchResult:
    """How a match ended: the winner (None for a draw), one outcome per seat, why, when, the scores.

    Outcomes may be given as their strings (a replay's plain result): they are held as `Outcome`
    members, and a string outside the vocabulary raises ValueError naming the field.
    """

    winner: int | None
    outcomes: tuple[Outcome, ...]
    reason: str
    frame: int
    scores: tuple[int, ...]

    def __init__(
        self,
        winner: int | None,
        outcomes: Iterable[Outcome | str],
        reason: str,
        frame: int,
        scores: Iterable[int],
    ) -> None:
        # object.__setattr__: the dataclass is frozen; this is its only initialiser.
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "outcomes", tuple(_outcome(o) for o in outcomes))
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "frame", frame)
        object.__setattr__(self, "scores", tuple(scores))

    def plain(self) -> dict[str, Any]:
        """Plain data: the outcomes and the reason as their strings."""
        return {
            "winner": self.winner,
            "outcomes": [outcome.value for outcome in self.outcomes],
            "reason": _text(self.reason),
            "frame": self.frame,
            "scores": list(self.scores),
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> MatchResult:
        """Rebuild from plain() (trusted data; `result_from_plain` checks untrusted data)."""
        return cls(data["winner"], data["outcomes"], data["reason"], data["frame"], data["scores"])


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
    return MatchResult(winner, outcomes, reason, frame, scores)
