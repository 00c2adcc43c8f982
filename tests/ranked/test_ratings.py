"""Ratings: the Glicko-2 library against Glickman's worked example, lichess's numbers, exactly once."""

from __future__ import annotations

import pytest
from glicko2.math import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi, update_rating

from protocol.messages import MatchState
from server.match.ratings import (
    MAX_RD,
    MIN_RD,
    START,
    apply_result,
    rate,
    rated_seats,
    rating_before,
)
from server.store.base import MatchRecord
from server.store.players import LEGACY_RULESET, Glicko

#: The ruleset of the records these matches rate (MatchRecord's default).
PV = LEGACY_RULESET


def test_the_library_reproduces_glickmans_worked_example() -> None:
    """Glickman's "Example of the Glicko-2 system": 1500/200 (σ 0.06, τ 0.5) beats 1400/30, loses to
    1550/100 and 1700/300 → μ′ −0.2069, φ′ 0.8722, σ′ 0.05999, i.e. rating 1464.06, RD 151.52 (the
    paper rounds μ′ before scaling; unrounded it is 1464.05)."""
    games = [(1400, 30, 1.0), (1550, 100, 0.0), (1700, 300, 0.0)]
    opponents = [(rating_to_mu(r), rd_to_phi(rd), score) for r, rd, score in games]
    after = update_rating(rating_to_mu(1500), rd_to_phi(200), 0.06, opponents, tau=0.5)
    assert round(after.mu, 4) == -0.2069 and round(after.phi, 4) == 0.8722
    assert after.sigma == pytest.approx(0.05999, abs=1e-5)
    assert mu_to_rating(after.mu) == pytest.approx(1464.06, abs=0.011)
    assert phi_to_rd(after.phi) == pytest.approx(151.52, abs=0.005)


def test_one_game_moves_a_new_player_a_lot_and_an_established_one_a_little() -> None:
    """From lichess's start (1500, RD 500) a win gains hundreds of points; at RD 60 a few."""
    fresh_win = rate(START, START, 1.0)
    assert fresh_win.rating > 1700 and fresh_win.rd < START.rd and fresh_win.provisional
    settled = Glicko(1500.0, 60.0, 0.06)
    win, loss = rate(settled, settled, 1.0), rate(settled, settled, 0.0)
    assert 1500 < win.rating < 1520 and 1480 < loss.rating < 1500
    assert MIN_RD <= win.rd <= MAX_RD and not win.provisional


def test_the_bounds_hold() -> None:
    """The RD never drops under 45 nor rises over 500, the volatility stays ≤ 0.1, the rating ≥ 600."""
    floor = Glicko(610.0, 45.0, 0.1)
    after = rate(floor, Glicko(3000.0, 45.0, 0.06), 0.0)
    assert after.rating >= 600 and after.rd >= 45 and after.volatility <= 0.1


def ranked_record(outcomes: list[str], match_id: str = "m1") -> MatchRecord:
    """A finished ranked match of g_a (seat 0) and g_b (seat 1)."""
    result = {"winner": 0, "outcomes": outcomes, "reason": "time", "frame": 60, "scores": [5, 3]}
    return MatchRecord(match_id, ("ann", "bob"), ("g_a", "g_b"), MatchState.OVER, result, match_id, 1.0, 2.0,
                       60, ranked=True)


def test_a_result_applies_once_per_record() -> None:
    """Applying a match to a record notes it; applying it again is no change at all."""
    record = ranked_record(["won", "lost"])
    first = apply_result(None, record, 0, START, 5.0)
    assert first is not None
    standing = first.standing(PV)
    assert standing.wins == 1 and standing.glicko.rating > START.rating
    game = first.game("m1")
    assert game is not None and game.before == START
    assert apply_result(first, record, 0, START, 6.0) is None


def test_a_forfeit_is_a_loss_and_a_cancelled_match_moves_nothing() -> None:
    """Forfeited scores 0 like a loss; a cancelled or unranked match has no rated seats."""
    assert rated_seats(ranked_record(["won", "forfeited"])) == [(0, "g_a", 1.0), (1, "g_b", 0.0)]
    loser = apply_result(None, ranked_record(["won", "forfeited"]), 1, START, 5.0)
    assert loser is not None
    standing = loser.standing(PV)
    assert standing.losses == 1 and standing.glicko.rating < START.rating
    cancelled = MatchRecord("m2", ("ann", "bob"), ("g_a", "g_b"), MatchState.CANCELLED, None, None, 1.0, 2.0,
                            ranked=True)
    assert rated_seats(cancelled) is None
    unranked = MatchRecord("m3", ("ann", "bob"), ("g_a", "g_b"), MatchState.OVER,
                           ranked_record(["won", "lost"]).result, "m3", 1.0, 2.0)
    assert rated_seats(unranked) is None


def test_the_opponents_rating_before_the_match_is_read_from_its_record() -> None:
    """Once the opponent applied the match, its noted rating before it is used, not its new one."""
    record = ranked_record(["won", "lost"])
    bob = apply_result(None, record, 1, START, 5.0)
    assert bob is not None and bob.standing(PV).glicko != START
    assert rating_before(bob, "m1", PV) == START
    assert rating_before(bob, "other", PV) == bob.standing(PV).glicko
    assert rating_before(None, "m1", PV) == START
