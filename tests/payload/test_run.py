"""The run reducer and its helpers: phases in order, illegal moves refused with nothing changed, every
draft offers a scaler, shared deals, the helpers fold in difficulty, variant, blueprints and jams."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.payload.content import BLUEPRINTS, DIFFICULTIES, SCALER_KEYS, VARIANTS
from rules.payload.events import BlueprintTaken, Dropped, OffersDealt, RoundCleared, RunEnded
from rules.payload.preview import column_projection, placement_projection
from rules.payload.run import (
    IllegalMoveError,
    RunState,
    apply_drop,
    decline_blueprint,
    drops_for_round,
    jam_for,
    offers_for,
    place_selected,
    quota_for,
    reroll,
    roll_offers,
    rules_for,
    select_offer,
    skip_draft,
    start_run,
    take_blueprint,
)
from rules.payload.simulate import simulate_drop
from rules.payload.types import Blueprints, CellIndex, Column, DifficultyKey, Draft, Dropping, RunOver

DIFFICULTY_KEYS: list[DifficultyKey] = list(DIFFICULTIES)


def at_round(difficulty: DifficultyKey, seed: int, round_index: int) -> RunState:
    """A run moved to a round (its board as dealt), at that round's draft."""
    state, _ = start_run(difficulty, seed)
    state = replace(state, round=round_index)
    return replace(state, phase=Draft(roll_offers(state.deal, state, "offer")))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(DIFFICULTY_KEYS), st.integers(0, 2**32 - 1), st.integers(0, 7),
       st.sampled_from(list(VARIANTS)), st.booleans(), st.integers(0, 1))
def test_every_draft_offers_a_scaler(difficulty: DifficultyKey, seed: int, round_index: int, variant: str,
                                     wide: bool, rerolls: int) -> None:
    """Whatever the seed, round, variant, Wide Draft or reroll, a draft holds a scaler (invariant 4)
    and distinct parts from the round's pool (or a scaler)."""
    state = at_round(difficulty, seed, round_index % len(DIFFICULTIES[difficulty].rounds))
    state = replace(state, variant=variant, blueprints=("wide_draft",) if wide else ())  # type: ignore[arg-type]
    offers = roll_offers(state.deal, state, f"reroll{rerolls}" if rerolls else "offer")
    assert any(part in SCALER_KEYS for part in offers)
    assert len(offers) == len(set(offers)) == offers_for(state)


def test_a_run_goes_through_its_phases() -> None:
    """Draft → (blueprint) → drops, round after round, until the run is over."""
    state, events = start_run("easy", 11)
    assert isinstance(state.phase, Draft) and isinstance(events[0], OffersDealt)
    state, _ = select_offer(state, 1)
    state, events = place_selected(state, CellIndex(0))
    assert state.board[0] == events[0].part  # type: ignore[union-attr]
    assert isinstance(state.phase, Dropping) and state.phase.drops_left == 4
    seen_blueprint = False
    while not state.over:
        if isinstance(state.phase, Draft):
            state, _ = skip_draft(state)
        elif isinstance(state.phase, Blueprints):
            state, events = take_blueprint(state, 0)
            seen_blueprint = True
            assert isinstance(events[0], BlueprintTaken)
        else:
            before = state
            state, events = apply_drop(state, Column(2))
            dropped = events[0]
            assert isinstance(dropped, Dropped)
            assert (dropped.total, dropped.log) == simulate_drop(before.board, Column(2), rules_for(before))
    assert isinstance(state.phase, RunOver)
    assert isinstance(events[-1], RunEnded) and events[-1].score == state.total_score
    assert state.rounds_cleared >= 1 and seen_blueprint == (state.rounds_cleared >= 1)


def test_illegal_moves_change_nothing() -> None:
    """A move out of phase or out of range raises IllegalMoveError; the state is untouched."""
    state, _ = start_run("hard", 3)
    frozen = state
    with pytest.raises(IllegalMoveError, match="not dropping"):
        apply_drop(state, Column(0))
    with pytest.raises(IllegalMoveError, match="no offer is selected"):
        place_selected(state, CellIndex(0))
    with pytest.raises(IllegalMoveError, match="offer 9"):
        select_offer(state, 9)
    with pytest.raises(IllegalMoveError, match="Loose Screws"):
        reroll(state)
    with pytest.raises(IllegalMoveError, match="no blueprint"):
        take_blueprint(state, 0)
    state, _ = select_offer(state, 0)
    with pytest.raises(IllegalMoveError, match="cell 35"):
        place_selected(state, CellIndex(35))
    assert frozen == start_run("hard", 3)[0]


def test_a_reroll_never_moves_the_other_players_offers() -> None:
    """Shared deals: two runs on one seed see the same offers in every round, whatever one of them
    rerolled, skipped or took before; a reroll deals from its own keys."""
    a, _ = start_run("easy", 99)
    b = replace(a, blueprints=("loose_screws",))
    b_rerolled, _ = reroll(b)
    assert isinstance(b_rerolled.phase, Draft) and b_rerolled.phase.rerolls == 1
    with pytest.raises(IllegalMoveError, match="already"):
        reroll(b_rerolled)
    a, _ = skip_draft(a)
    b, _ = skip_draft(b_rerolled)
    for _ in range(4):
        a, _ = apply_drop(a, Column(2))
        b, _ = apply_drop(b, Column(2))
    assert isinstance(a.phase, Draft) and isinstance(b.phase, Draft)
    assert a.phase.offers == b.phase.offers


def test_helpers_fold_in_variant_blueprints_and_jams() -> None:
    """quota_for applies the variant (rounded up); drops_for_round Extra Hopper and shortShift;
    rules_for the jams, Heavy Marbles, Oiled Springs and Bell Tower."""
    state, _ = start_run("easy", 1, "tight")
    assert [quota_for(state, r) for r in range(4)] == [15, 36, 82, 174]
    hard = at_round("hard", 1, 5)
    assert jam_for(hard) == ("shortShift",) and drops_for_round(hard) == 2
    assert drops_for_round(replace(hard, blueprints=("extra_hopper",))) == 3
    easy3 = at_round("easy", 1, 2)
    assert jam_for(easy3) == ("noBells",) and not rules_for(easy3).bells
    assert rules_for(at_round("easy", 1, 3)).slippery
    received = replace(at_round("easy", 1, 0), received=("deadSprings",))
    assert jam_for(received) == ("deadSprings",) and not rules_for(received).springs
    rich = replace(state, blueprints=("heavy_marbles", "oiled_springs", "bell_tower"))
    folded = rules_for(rich)
    assert (folded.start_value, folded.spring_fires, folded.bell_bonus) == (2, 2, 2)
    assert rules_for(replace(state, variant="heavy")).start_value == 2


def test_every_blueprint_is_reachable() -> None:
    """Every blueprint (Loose Screws included) is offered by some grant and can be taken."""
    offered: set[str] = set()
    for seed in range(40):
        state, _ = start_run("easy", seed)
        state = replace(state, round=1)
        state, events = skip_draft(state)
        assert isinstance(state.phase, Blueprints)
        offered.update(state.phase.choices)
        taken, _ = take_blueprint(state, len(state.phase.choices) - 1)
        assert taken.blueprints[-1] == state.phase.choices[-1] and isinstance(taken.phase, Dropping)
        declined, _ = decline_blueprint(state)
        assert declined.blueprints == ()
    assert offered == set(BLUEPRINTS)


def test_a_missed_quota_ends_the_run_after_every_drop() -> None:
    """Every drop of a round resolves; the quota is checked after the last one."""
    state, _ = start_run("easy", 5)
    state, _ = skip_draft(state)
    state = replace(state, board=(None,) * len(state.board))
    for left in (3, 2, 1):
        state, _ = apply_drop(state, Column(0))
        assert state.phase == Dropping(left)
    state, events = apply_drop(state, Column(0))
    assert state.phase == RunOver(False) and state.round_score == 4
    assert not any(isinstance(e, RoundCleared) for e in events)


def test_previews_are_the_drop() -> None:
    """The column and placement projections are what the drops pay under this round's rules."""
    state = at_round("easy", 8, 3)
    projection = column_projection(state)
    for col in range(5):
        assert projection.totals[col] == simulate_drop(state.board, Column(col), rules_for(state))[0]
    placed = placement_projection(state, "coil", CellIndex(27))
    board = state.board[:27] + ("coil",) + state.board[28:]
    assert placed.totals[2] == simulate_drop(board, Column(2), rules_for(state))[0]
    assert placed.best in range(5) and placed.top == max(placed.totals)


def test_bad_start_is_refused() -> None:
    """start_run names a bad difficulty, variant or seed."""
    with pytest.raises(ValueError, match="difficulty"):
        start_run("medium", 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="variant"):
        start_run("easy", 1, "spicy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        start_run("easy", -1)

