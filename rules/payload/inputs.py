"""Payload's moves in floe's input byte (one byte per seat per frame; rules/ruleset.py's InputRules).

    0x00          neutral: nothing new
    0x01          skip: skip the draft, or decline a blueprint
    0x02          reroll the draft (Loose Screws)
    0x08 + i      select offer i          (i = 0 … 7)
    0x10 + i      take blueprint choice i (i = 0 … 7)
    0x18 + c      drop a marble down column c (c = 0 … 7)
    0x40 + cell   place the selected offer on cell (cell = row × 5 + column, 0 … 34)
    0x80          forfeit: the seat leaves the run for good

Every other byte is malformed. A byte is **held** until the seat says another (that is how the
runner predicts a silent seat and how a replay's move list rebuilds its frames), so a move happens
on the frame its byte *first appears*: the frame where a seat's byte differs from its byte on the
frame before. Repeating a move (two drops down the same column) takes a different byte between the
two, usually a neutral frame: `0x1A, 0x00, 0x1A`. A whole draft is two moves and so spans frames:
select (`0x08 + i`), then place (`0x40 + cell`). A move the phase does not allow (a drop during the
draft) is refused with a `refused` record and changes nothing; a malformed byte is an
IllegalInputError before the frame is stepped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from rules.errors import IllegalInputError

from .moves import Drop, Move, Place, Reroll, SelectOffer, Skip, TakeBlueprint
from .types import CELLS, COLS, CellIndex, Column

NEUTRAL = 0x00
SKIP = 0x01
REROLL = 0x02
SELECT = 0x08
BLUEPRINT = 0x10
DROP = 0x18
PLACE = 0x40
FORFEIT = 0x80
#: How many offers or blueprint choices a byte can name.
MAX_CHOICES = 8


def encode_move(move: Move) -> int:
    """A move's input byte."""
    match move:
        case SelectOffer(index):
            return SELECT + _bounded("offer", index, MAX_CHOICES)
        case Place(cell):
            return PLACE + _bounded("cell", cell, CELLS)
        case Skip():
            return SKIP
        case Reroll():
            return REROLL
        case TakeBlueprint(index):
            return BLUEPRINT + _bounded("blueprint", index, MAX_CHOICES)
        case Drop(column):
            return DROP + _bounded("column", column, COLS)
        case _:
            assert_never(move)


def _bounded(name: str, value: int, bound: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < bound:
        raise IllegalInputError(f"{name}: must be from 0 to {bound - 1}, got {value!r}")
    return value


def _table() -> dict[int, Move | None]:
    table: dict[int, Move | None] = {NEUTRAL: None, SKIP: Skip(), REROLL: Reroll()}
    for i in range(MAX_CHOICES):
        table[SELECT + i] = SelectOffer(i)
        table[BLUEPRINT + i] = TakeBlueprint(i)
    for col in range(COLS):
        table[DROP + col] = Drop(Column(col))
    for cell in range(CELLS):
        table[PLACE + cell] = Place(CellIndex(cell))
    return table


_DECODED = _table()


def is_valid_input(value: object) -> bool:
    """A well-formed byte (a forfeit included)."""
    return type(value) is int and (value in _DECODED or value == FORFEIT)


def decode_move(value: int) -> Move | None:
    """The move a byte names (None for neutral); IllegalInputError for a malformed byte or a forfeit."""
    if type(value) is not int or value not in _DECODED:
        raise IllegalInputError(f"input: {value!r} is not a Payload move byte")
    return _DECODED[value]


@dataclass(frozen=True, slots=True)
class PayloadInputs:
    """This module's byte as rules/ruleset.py's InputRules: a byte stays held (the move is its edge)."""

    neutral: int = NEUTRAL
    forfeit: int = FORFEIT

    def is_valid(self, value: object) -> bool:
        """A well-formed byte."""
        return is_valid_input(value)

    def held(self, value: int) -> int:
        """A byte stays held: the frames after it repeat it, which does nothing new."""
        return value


INPUTS = PayloadInputs()
