"""simulate_drop and the seed's invariants: deterministic, a copy starts at its prism, every value
change is a labelled event, fork doubling does not stack, MARBLE_CAP bounds spawns, dispatch is
exhaustive."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.payload.content import PARTS
from rules.payload.simulate import MARBLE_CAP, VALUE_CAP, Marble, apply_part, simulate_drop
from rules.payload.types import (
    CELLS,
    COLS,
    Bank,
    Board,
    Capped,
    Column,
    DropEvent,
    Enter,
    PartKey,
    Rules,
    Spawn,
    Trigger,
    cell_at,
    row_of,
)
from tests.payload.helpers import board_of, boards

RULES = Rules()
rules_st = st.builds(Rules, start_value=st.integers(1, 3), bells=st.booleans(), slippery=st.booleans(),
                     springs=st.booleans(), forks=st.booleans(), spring_fires=st.integers(1, 3),
                     bell_bonus=st.sampled_from([0, 2]))


def values_are_accounted(total: int, events: tuple[DropEvent, ...]) -> None:
    """Replay the log: every value change is a Trigger with a label, each marble banks what the log
    says it holds, and the banks sum to the total."""
    values: dict[int, int] = {}
    banked = 0
    for event in events:
        match event:
            case Enter(marble, _, value, label):
                assert marble not in values and label
                values[marble] = value
            case Spawn(marble, parent, _, _, value, label):
                assert marble not in values and label and value == values[parent]
                values[marble] = value
            case Trigger(marble, _, part, before, after, label):
                assert part in PARTS and label, event
                assert before == values[marble], event
                values[marble] = after
            case Bank(marble, _, value):
                assert value == values.pop(marble), event
                banked += value
            case Capped(_, _, label):
                assert label
    assert not values, "a marble never banked"
    assert banked == total


@settings(max_examples=150, deadline=None)
@given(boards, st.integers(0, COLS - 1), rules_st)
def test_every_value_change_is_a_labelled_event(board: Board, column: int, rules: Rules) -> None:
    """The log accounts for every point of the total (invariant 3) and the drop is deterministic
    (invariant 1: the same machine and column always pay the same)."""
    total, events = simulate_drop(board, Column(column), rules)
    values_are_accounted(total, events)
    assert simulate_drop(board, Column(column), rules) == (total, events)


@settings(max_examples=150, deadline=None)
@given(boards, st.integers(0, COLS - 1))
def test_a_split_copy_starts_at_the_prism(board: Board, column: int) -> None:
    """Each copy is spawned at a prism's cell right after its parent triggered that prism, and until a
    spring lifts it, it only meets parts below the prism (invariant 2)."""
    total, events = simulate_drop(board, Column(column), RULES)
    for index, event in enumerate(events):
        if not isinstance(event, Spawn):
            continue
        assert board[event.cell] == "prism"
        parents = [e for e in events[:index] if isinstance(e, Trigger) and e.marble == event.parent]
        assert parents[-1].cell == event.cell and parents[-1].part == "prism"
        for later in events[index + 1:]:
            if isinstance(later, Trigger) and later.marble == event.marble:
                assert row_of(later.cell) > row_of(event.cell)
                if later.part == "spring":
                    break


@settings(max_examples=100, deadline=None)
@given(boards, st.integers(0, COLS - 1))
def test_marble_cap_bounds_spawns(board: Board, column: int) -> None:
    """No drop holds more than MARBLE_CAP marbles."""
    _, events = simulate_drop(board, Column(column), RULES)
    assert sum(isinstance(e, Enter | Spawn) for e in events) <= MARBLE_CAP


def test_a_board_of_prisms_hits_the_cap() -> None:
    """Prisms everywhere (forked into pairs) would spawn far past the cap: the cap holds and says so."""
    board: Board = tuple("prism" if cell % 3 else "fork" for cell in range(CELLS))
    total, events = simulate_drop(board, Column(2), RULES)
    assert sum(isinstance(e, Enter | Spawn) for e in events) == MARBLE_CAP
    assert any(isinstance(e, Capped) for e in events)
    values_are_accounted(total, events)


def test_values_stay_exact_in_javascript() -> None:
    """A marble's value never passes VALUE_CAP (2**53 − 1), however many forked coils it meets."""
    board: Board = tuple("coil" if cell % 5 != 1 else "fork" for cell in range(CELLS))
    total, events = simulate_drop(board, Column(0), Rules(start_value=2**45))
    assert all(e.after <= VALUE_CAP for e in events if isinstance(e, Trigger))
    assert total == VALUE_CAP


def test_prism_copies_the_value_so_far() -> None:
    """Adds before a prism are duplicated: peg, bumper, prism → two marbles of 4."""
    board = board_of((0, 1, "peg"), (1, 1, "bumper"), (2, 1, "prism"))
    total, events = simulate_drop(board, Column(1), RULES)
    spawn = next(e for e in events if isinstance(e, Spawn))
    assert (spawn.cell, spawn.column, spawn.value) == (cell_at(2, 1), 2, 4)
    assert total == 8


def test_fork_doubling_does_not_stack() -> None:
    """A peg beside one fork adds 2; beside two forks, still 2."""
    one = board_of((1, 2, "peg"), (1, 1, "fork"))
    two = board_of((1, 2, "peg"), (1, 1, "fork"), (1, 3, "fork"), (0, 2, "fork"))
    assert simulate_drop(one, Column(2), RULES)[0] == 1 + 2
    total, events = simulate_drop(two, Column(2), RULES)
    peg = next(e for e in events if isinstance(e, Trigger) and e.part == "peg")
    assert peg.after - peg.before == 2


def test_forks_never_double_each_other() -> None:
    """A fork beside a fork adds its own 1, undoubled."""
    board = board_of((1, 2, "fork"), (1, 1, "fork"), (2, 2, "fork"))
    _, events = simulate_drop(board, Column(2), RULES)
    hums = [e for e in events if isinstance(e, Trigger) and e.part == "fork"]
    assert [e.after - e.before for e in hums] == [1, 1]


def test_a_forked_coil_squares() -> None:
    """A coil beside a fork multiplies by 4, and says so."""
    board = board_of((0, 0, "bumper"), (1, 0, "coil"), (1, 1, "fork"))
    total, events = simulate_drop(board, Column(0), RULES)
    assert total == 12
    coil = next(e for e in events if isinstance(e, Trigger) and e.part == "coil")
    assert "fork" in coil.label


def test_spring_replays_the_parts_above_once() -> None:
    """A spring lifts the marble 2 rows: the bumper above fires twice, the spring once, then it is spent."""
    board = board_of((1, 0, "bumper"), (3, 0, "spring"))
    total, events = simulate_drop(board, Column(0), RULES)
    assert total == 1 + 2 + 2
    labels = [e.label for e in events if isinstance(e, Trigger) and e.part == "spring"]
    assert labels == ["↑2", "spring spent"]
    oiled = simulate_drop(board, Column(0), Rules(spring_fires=2))[0]
    assert oiled == 1 + 2 + 2 + 2


def test_jams_bite_in_the_drop() -> None:
    """noBells silences bells (visibly), slippery slides the entry one column right, deadSprings."""
    board = board_of((1, 1, "bell"), (2, 2, "spring"))
    assert simulate_drop(board, Column(1), RULES)[0] == 5
    total, events = simulate_drop(board, Column(1), Rules(bells=False))
    assert total == 1 and any(isinstance(e, Trigger) and "noBells" in e.label for e in events)
    total, events = simulate_drop(board, Column(0), Rules(slippery=True))
    assert total == 5 and isinstance(events[0], Enter) and events[0].cell == cell_at(0, 1)
    _, events = simulate_drop(board, Column(2), Rules(springs=False))
    assert any(isinstance(e, Trigger) and "deadSprings" in e.label for e in events)


def test_an_unhandled_part_kind_fails() -> None:
    """A kind outside PartKey reaches assert_never and fails loudly instead of doing nothing."""
    marble = Marble(0, 1, 0, 0)
    with pytest.raises(AssertionError):
        apply_part("anvil", marble, board_of(), cell_at(0, 0), RULES, 1, 0)  # type: ignore[arg-type]


def test_dispatch_names_every_part_once() -> None:
    """apply_part's match has one case per PartKey and per PARTS entry, then the assert_never arm."""
    source = (Path(__file__).resolve().parents[2] / "rules/payload/simulate.py").read_text(encoding="utf-8")
    function = next(node for node in ast.walk(ast.parse(source))
                    if isinstance(node, ast.FunctionDef) and node.name == "apply_part")
    match = next(node for node in ast.walk(function) if isinstance(node, ast.Match))
    cases = [case.pattern.value.value for case in match.cases  # type: ignore[attr-defined]
             if isinstance(case.pattern, ast.MatchValue)]
    assert sorted(cases) == sorted(get_args(PartKey)) == sorted(PARTS)
    assert isinstance(match.cases[-1].pattern, ast.MatchAs) and match.cases[-1].pattern.pattern is None


def test_bad_column_or_board_is_refused() -> None:
    """A column off the board or a board of the wrong size is a ValueError."""
    with pytest.raises(ValueError, match="column"):
        simulate_drop(board_of(), Column(COLS), RULES)
    with pytest.raises(ValueError, match="board"):
        simulate_drop((None,), Column(0), RULES)
