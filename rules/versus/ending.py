"""How seats go out and how a pengo-versus match ends: its reasons, and the decision.

`EndReason` and `OutReason` are `enum.StrEnum`s, like rules/result.py's `Outcome`: a member equals
its string ("time" == EndReason.TIME). Plain data (a result's `plain()`, the event log, snapshots)
carries the `.value` strings: `rules.synctest.canonical_encoding` refuses enum members and `marshal`
cannot write a str subclass, and the replay hash is over the strings.

`match_end` is the end-of-frame decision as a pure function of the seats' standing, the scores and
the frame; `VersusMatch.step` calls it when a seat went out or time ran out.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from rules.result import MatchResult, Outcome


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
