"""The lazy bot: takes the first offer, puts it on the first empty cell (reading order), declines
every blueprint and drops every marble down the middle column. The floor a balance is read against.
"""

from __future__ import annotations

from ..moves import Drop, Move, Place, SelectOffer, Skip
from ..rng import Mulberry32
from ..run import RunState
from ..types import CELLS, COLS, Blueprints, CellIndex, Column, Draft, Dropping


def lazy_move(state: RunState, rng: Mulberry32) -> Move:
    """The lazy bot's next move (the run must not be over; `rng` is unused: the lazy bot never varies)."""
    phase = state.phase
    if isinstance(phase, Draft):
        if phase.selected is None:
            return SelectOffer(0)
        empty = [cell for cell in range(CELLS) if state.board[cell] is None]
        return Place(CellIndex(empty[0])) if empty else Skip()
    if isinstance(phase, Blueprints):
        return Skip()
    if isinstance(phase, Dropping):
        return Drop(Column(COLS // 2))
    raise ValueError("lazy_move: the run is over")
