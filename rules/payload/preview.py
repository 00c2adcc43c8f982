"""Projections for the placement and column previews: exact, because a drop is deterministic.

`column_projection(state)` is what each column pays now; `placement_projection(state, part, cell)`
what each would pay with `part` on `cell`. Both resolve under `rules_for(state)` (this round's jams,
the variant, the blueprints), so the preview is the drop.
"""

from __future__ import annotations

from dataclasses import dataclass

from .run import RunState, rules_for
from .simulate import simulate_drop
from .types import CELLS, COLS, Board, CellIndex, Column, PartKey, Rules


@dataclass(frozen=True, slots=True)
class Projection:
    """What each column pays (index = column), and the best column (leftmost on a tie)."""

    totals: tuple[int, ...]

    @property
    def best(self) -> Column:
        """The column that pays most."""
        return Column(max(range(COLS), key=lambda col: (self.totals[col], -col)))

    @property
    def top(self) -> int:
        """The most a column pays."""
        return max(self.totals)


def project(board: Board, rules: Rules) -> Projection:
    """Every column's total on this board."""
    return Projection(tuple(simulate_drop(board, Column(col), rules)[0] for col in range(COLS)))


def with_part(board: Board, part: PartKey | None, cell: CellIndex) -> Board:
    """The board with `part` on `cell` (None takes it off)."""
    if not 0 <= cell < CELLS:
        raise ValueError(f"cell: must be from 0 to {CELLS - 1}, got {cell!r}")
    return board[:cell] + (part,) + board[cell + 1:]


def column_projection(state: RunState) -> Projection:
    """What each column pays on the run's board this round."""
    return project(state.board, rules_for(state))


def placement_projection(state: RunState, part: PartKey, cell: CellIndex) -> Projection:
    """What each column would pay this round with `part` placed on `cell`."""
    return project(with_part(state.board, part, cell), rules_for(state))
