"""How seats go out and how a match ends: the closed vocabularies, `MatchResult`, and the decision.

The vocabularies are `enum.StrEnum`s, so a member equals its string ("won" == Outcome.WON) and
formats as it. Plain data (a result's `plain()`, the event log, snapshots) carries the `.value`
strings: `rules.synctest.canonical_encoding` refuses enum members and `marshal` cannot write a str
subclass, and the replay hash is over the strings.

`match_end` is the end-of-frame decision as a pure function of the seats' standing, the scores and
the frame; `VersusMatch.step` calls it when a seat went out or time ran out.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar


class Outcome(enum.StrEnum):
    """What a match came to for one seat."""

    WON = "won"
    """The seat won: the last seat standing, or the best score at the time limit."""
    LOST = "lost"
    """The seat lost: out of lives, or behind at the end."""
    DRAWN = "drawn"
    """The seat shared the best score with another at the end, and nobody won."""
    FORFEITED = "forfeited"
    """The seat left the match for good (a forfeit byte), whatever happened after."""


class EndReason(enum.StrEnum):
    """Why a match ended."""

    ELIMINATION = "elimination"
    """The other seats went out and not all of them by forfeit (or every seat went out at once)."""
    FORFEIT = "forfeit"
    """One seat is still in and every other seat forfeited."""
    TIME = "time"
    """The time limit was reached with two or more seats still in."""


class OutReason(enum.StrEnum):
    """Why a seat went out of a match."""

    LIVES = "lives"
    """Its board lost its last life."""
    FORFEIT = "forfeit"
    """Its player forfeited (the input byte 0x80)."""


_Member = TypeVar("_Member", bound=enum.StrEnum)

#: Every outcome's string, in the vocabulary's order (what a replay's result may hold).
OUTCOMES: tuple[str, ...] = tuple(outcome.value for outcome in Outcome)


@dataclass(frozen=True, init=False)
class MatchResult:
    """How a match ended: the winner (None for a draw), one outcome per seat, why, when, the scores.

    Outcomes and the reason may be given as their strings (a replay's plain result): they are held
    as the members; a string outside the vocabulary raises ValueError naming the field.
    """

    winner: int | None
    outcomes: tuple[Outcome, ...]
    reason: EndReason
    frame: int
    scores: tuple[int, ...]

    def __init__(
        self,
        winner: int | None,
        outcomes: Iterable[Outcome | str],
        reason: EndReason | str,
        frame: int,
        scores: Iterable[int],
    ) -> None:
        # object.__setattr__: the dataclass is frozen; this is its only initialiser.
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "outcomes", tuple(_member(Outcome, "outcomes", o) for o in outcomes))
        object.__setattr__(self, "reason", _member(EndReason, "reason", reason))
        object.__setattr__(self, "frame", frame)
        object.__setattr__(self, "scores", tuple(scores))

    def plain(self) -> dict[str, Any]:
        """Plain data: the outcomes and the reason as their strings."""
        return {
            "winner": self.winner,
            "outcomes": [outcome.value for outcome in self.outcomes],
            "reason": self.reason.value,
            "frame": self.frame,
            "scores": list(self.scores),
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> MatchResult:
        """Rebuild from plain() (unchecked: rules.versus.replay.result_from_plain checks a stranger's)."""
        return cls(
            data["winner"], tuple(data["outcomes"]), data["reason"], data["frame"], tuple(data["scores"])
        )


def _member(vocabulary: type[_Member], name: str, value: _Member | str) -> _Member:
    """`value` as a member of `vocabulary`; ValueError naming the result's field when it is not one."""
    if isinstance(value, vocabulary):
        return value
    try:
        return vocabulary(value)
    except ValueError:
        allowed = tuple(member.value for member in vocabulary)
        raise ValueError(f"result.{name}: expected one of {allowed}, got {value!r}") from None


def match_end(
    alive: Sequence[bool],
    forfeited: Sequence[bool],
    just_out: Sequence[int],
    scores: Sequence[int],
    frame: int,
    time_limit_frames: int,
) -> MatchResult | None:
    """The result when the match ends at `frame` (the frame just stepped, plus one), else None.

    - One seat left in: it wins, by forfeit when every other seat forfeited, else by elimination.
    - No seat left (the last ones went out together): the best score among the seats that went out
      this frame (`just_out`; every seat if none did) wins, equal best scores draw; by elimination.
    - Two or more in at the time limit: the best score among them wins, equal best scores draw.
    A forfeited seat's outcome is always forfeited.
    """
    seats = range(len(alive))
    live = [seat for seat in seats if alive[seat]]
    score_row = tuple(scores)
    if len(live) == 1:
        winner: int | None = live[0]
        everyone_else_forfeited = all(forfeited[seat] for seat in seats if seat != winner)
        reason = EndReason.FORFEIT if everyone_else_forfeited else EndReason.ELIMINATION
        drawn: tuple[int, ...] = ()
    elif not live:
        winner, drawn = _best(list(just_out) or list(seats), score_row)
        reason = EndReason.ELIMINATION
    elif frame >= time_limit_frames:
        winner, drawn = _best(live, score_row)
        reason = EndReason.TIME
    else:
        return None
    return MatchResult(winner, _outcomes(forfeited, winner, drawn), reason, frame, score_row)


def _best(seats: list[int], scores: tuple[int, ...]) -> tuple[int | None, tuple[int, ...]]:
    """(the one seat with the best score, ()) or (None, the seats sharing it)."""
    top = max(scores[seat] for seat in seats)
    leaders = tuple(seat for seat in seats if scores[seat] == top)
    if len(leaders) == 1:
        return leaders[0], ()
    return None, leaders


def _outcomes(forfeited: Sequence[bool], winner: int | None, drawn: tuple[int, ...]) -> tuple[Outcome, ...]:
    """Each seat's outcome: forfeited first, then won, drawn, or lost."""
    outcomes = []
    for seat, left in enumerate(forfeited):
        if left:
            outcomes.append(Outcome.FORFEITED)
        elif seat == winner:
            outcomes.append(Outcome.WON)
        elif seat in drawn:
            outcomes.append(Outcome.DRAWN)
        else:
            outcomes.append(Outcome.LOST)
    return tuple(outcomes)
