"""A player's moves as values, and `apply_move`, the one dispatch from a move to the reducer.

The input byte (inputs.py) decodes to these; bots choose these; the balance bench plays these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from .run import (
    RunState,
    Step,
    apply_drop,
    decline_blueprint,
    place_selected,
    reroll,
    select_offer,
    skip_draft,
    take_blueprint,
)
from .types import Blueprints, CellIndex, Column


@dataclass(frozen=True, slots=True)
class SelectOffer:
    """Pick offer `index` of the draft."""

    index: int


@dataclass(frozen=True, slots=True)
class Place:
    """Place the picked offer on `cell`."""

    cell: CellIndex


@dataclass(frozen=True, slots=True)
class Skip:
    """Skip the draft, or decline a blueprint."""


@dataclass(frozen=True, slots=True)
class Reroll:
    """Deal the draft again (Loose Screws)."""


@dataclass(frozen=True, slots=True)
class TakeBlueprint:
    """Take blueprint choice `index`."""

    index: int


@dataclass(frozen=True, slots=True)
class Drop:
    """Drop a marble down `column`."""

    column: Column


Move = SelectOffer | Place | Skip | Reroll | TakeBlueprint | Drop


def apply_move(state: RunState, move: Move) -> Step:
    """The reducer step for a move (IllegalMoveError when the phase does not allow it)."""
    match move:
        case SelectOffer(index):
            return select_offer(state, index)
        case Place(cell):
            return place_selected(state, cell)
        case Skip():
            return decline_blueprint(state) if isinstance(state.phase, Blueprints) else skip_draft(state)
        case Reroll():
            return reroll(state)
        case TakeBlueprint(index):
            return take_blueprint(state, index)
        case Drop(column):
            return apply_drop(state, column)
        case _:
            assert_never(move)
