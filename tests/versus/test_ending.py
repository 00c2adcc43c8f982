"""How a match ends (rules/versus/ending.py): the vocabularies, MatchResult and match_end, called directly."""

from __future__ import annotations

import marshal

import pytest

from rules.result import OUTCOMES, MatchResult, Outcome
from rules.synctest import canonical_encoding
from rules.versus.ending import EndReason, OutReason, match_end

LIMIT = 1000


def test_the_vocabularies_are_closed() -> None:
    """Outcomes, end reasons and seat-out reasons are the design's words, in a fixed order."""
    assert [o.value for o in Outcome] == ["won", "lost", "drawn", "forfeited"]
    assert OUTCOMES == ("won", "lost", "drawn", "forfeited")
    assert [r.value for r in EndReason] == ["elimination", "forfeit", "time"]
    assert [r.value for r in OutReason] == ["lives", "forfeit"]
    won: str = Outcome.WON  # a str member; mypy holds enum and str literals apart
    assert won == "won" and f"{EndReason.TIME:<5}|" == "time |"


def test_a_result_holds_members_and_its_plain_form_holds_strings() -> None:
    """Strings given to MatchResult become members, and plain() gives exact str values back."""
    result = MatchResult(0, ("won", "lost"), "time", 10, [5, 3])
    assert result.outcomes == (Outcome.WON, Outcome.LOST) and result.reason == EndReason.TIME
    assert result.scores == (5, 3)
    assert result == MatchResult(0, (Outcome.WON, Outcome.LOST), EndReason.TIME, 10, (5, 3))
    plain = result.plain()
    assert plain == {
        "winner": 0, "outcomes": ["won", "lost"], "reason": "time", "frame": 10, "scores": [5, 3]}
    assert all(type(value) is str for value in (*plain["outcomes"], plain["reason"]))
    marshal.dumps(plain)
    assert canonical_encoding(plain) == (
        b'{"frame":10,"outcomes":["won","lost"],"reason":"time","scores":[5,3],"winner":0}')
    assert MatchResult.from_plain(plain) == result


@pytest.mark.parametrize(("outcomes", "reason", "field"), [
    (("victory", "lost"), "time", "result.outcomes"),
    (("won", 1), "time", "result.outcomes"),
])
def test_a_word_outside_the_vocabulary_is_refused(
    outcomes: tuple[object, ...], reason: str, field: str
) -> None:
    """A MatchResult with an outcome outside the vocabulary raises ValueError naming the field."""
    with pytest.raises(ValueError, match=field):
        MatchResult(None, outcomes, reason, 1, (0, 0))  # type: ignore[arg-type]


def test_the_match_goes_on_while_two_seats_are_in_and_time_remains() -> None:
    """Two or more seats in before the time limit: no result."""
    assert match_end([True, True, False], [False] * 3, [2], [0, 0, 0], 10, LIMIT) is None


def test_the_last_seat_standing_wins_by_elimination() -> None:
    """One seat left after the others lost their lives: it wins by elimination; the scores do not matter."""
    result = match_end([False, True], [False, False], [0], [900, 100], 50, LIMIT)
    assert result == MatchResult(1, (Outcome.LOST, Outcome.WON), EndReason.ELIMINATION, 50, (900, 100))


def test_the_last_seat_standing_wins_by_forfeit_when_every_other_seat_forfeited() -> None:
    """Every other seat forfeited: the one left wins by forfeit, and the forfeiters' outcome is forfeited."""
    result = match_end([False, True, False], [True, False, True], [2], [0, 0, 0], 50, LIMIT)
    assert result is not None and result.reason is EndReason.FORFEIT
    assert result.outcomes == (Outcome.FORFEITED, Outcome.WON, Outcome.FORFEITED)
    mixed = match_end([False, True, False], [True, False, False], [2], [0, 0, 0], 50, LIMIT)
    assert mixed is not None and mixed.reason is EndReason.ELIMINATION
    assert mixed.outcomes == (Outcome.FORFEITED, Outcome.WON, Outcome.LOST)


def test_seats_going_out_together_last_are_decided_by_score() -> None:
    """When the last seats go out on one frame the best score among them wins; equal best scores draw."""
    alive = [False, False, False]
    won = match_end(alive, [False] * 3, [1, 2], [999, 30, 20], 70, LIMIT)
    assert won is not None and (won.winner, won.reason) == (1, EndReason.ELIMINATION)
    assert won.outcomes == (Outcome.LOST, Outcome.WON, Outcome.LOST)
    drawn = match_end(alive, [False] * 3, [1, 2], [0, 20, 20], 70, LIMIT)
    assert drawn is not None and drawn.winner is None
    assert drawn.outcomes == (Outcome.LOST, Outcome.DRAWN, Outcome.DRAWN)


def test_at_the_time_limit_the_best_score_among_the_seats_in_wins() -> None:
    """At the limit the best score among the seats still in wins; equal best scores draw."""
    result = match_end([True, True, False], [False] * 3, [], [10, 20, 99], LIMIT, LIMIT)
    assert result == MatchResult(1, ("lost", "won", "lost"), "time", LIMIT, (10, 20, 99))
    drawn = match_end([True, True], [False, False], [], [20, 20], LIMIT, LIMIT)
    assert drawn is not None and (drawn.winner, drawn.outcomes) == (None, (Outcome.DRAWN, Outcome.DRAWN))
