"""Payload's vocabulary: branded cell and column indices, part/blueprint/jam keys, the board, the
`Rules` a drop is resolved under, the `DropEvent` log and the run's `Phase` union.

Everything here is immutable: a board is a tuple (one slot per cell, row-major from the top), every
event and phase a frozen dataclass, so a state handed out can never be changed behind its holder's back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NewType

#: A cell of the board: row × COLS + column, row 0 at the top.
CellIndex = NewType("CellIndex", int)
#: A column of the board, 0 at the left: where a marble is dropped.
Column = NewType("Column", int)

#: The board's size (5 × 7 = 35 cells: a cell index fits the input byte's 6-bit argument).
COLS = 5
ROWS = 7
CELLS = COLS * ROWS

PartKey = Literal[
    "peg", "bumper", "bell", "lantern", "coil", "gear", "crucible", "prism", "spring",
    "ramp_left", "ramp_right", "fork", "cup", "magnet", "echo", "drum", "rust", "snag",
]
BlueprintKey = Literal[
    "loose_screws", "heavy_marbles", "extra_hopper", "oiled_springs", "wide_draft", "bell_tower",
]
JamKey = Literal["shortShift", "noBells", "slippery", "deadSprings", "dullForks"]
DifficultyKey = Literal["easy", "hard"]
VariantKey = Literal["standard", "tight", "heavy", "bouncy", "lean"]
#: What a part is for: the compendium groups by it and the draft forces a scaler.
Role = Literal["adder", "scaler", "splitter", "mover", "support", "nuisance"]

#: A board: one part (or None) per cell, row-major from the top.
Board = tuple[PartKey | None, ...]


def cell_at(row: int, col: int) -> CellIndex:
    """The cell at (row, col)."""
    return CellIndex(row * COLS + col)


def row_of(cell: CellIndex) -> int:
    """The row of a cell (0 at the top)."""
    return cell // COLS


def col_of(cell: CellIndex) -> Column:
    """The column of a cell."""
    return Column(cell % COLS)


@dataclass(frozen=True, slots=True)
class Rules:
    """What a drop is resolved under: the difficulty's jams, the variant and the blueprints folded in
    (run.rules_for builds it; simulate_drop reads only this)."""

    start_value: int = 1
    bells: bool = True
    slippery: bool = False
    springs: bool = True
    forks: bool = True
    spring_fires: int = 1
    bell_bonus: int = 0


# -- the drop event log --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Enter:
    """A marble enters the board at the top of a column (slid one column over when slippery)."""

    marble: int
    cell: CellIndex
    value: int
    label: str


@dataclass(frozen=True, slots=True)
class Trigger:
    """A part fired on a marble: its value went from `before` to `after` (equal for a bounce, a ramp or
    a silenced part), and `label` says how."""

    marble: int
    cell: CellIndex
    part: PartKey
    before: int
    after: int
    label: str


@dataclass(frozen=True, slots=True)
class Spawn:
    """A prism split a copy off: `marble` is the copy, starting at the prism's `cell` with `value`,
    and leaving it down `column`."""

    marble: int
    parent: int
    cell: CellIndex
    column: Column
    value: int
    label: str


@dataclass(frozen=True, slots=True)
class Capped:
    """A copy was refused: MARBLE_CAP marbles are already in this drop."""

    marble: int
    cell: CellIndex
    label: str


@dataclass(frozen=True, slots=True)
class Bank:
    """A marble left the board (off the bottom, or out of a crucible) and banked its value."""

    marble: int
    cell: CellIndex
    value: int


DropEvent = Enter | Trigger | Spawn | Capped | Bank


# -- the run's phase -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Draft:
    """The round's draft: pick one of `offers` (`selected`) and place it, or skip; `rerolls` counts the
    rerolls used (Loose Screws)."""

    offers: tuple[PartKey, ...]
    selected: int | None = None
    rerolls: int = 0


@dataclass(frozen=True, slots=True)
class Blueprints:
    """A blueprint is granted: take one of `choices`, or decline."""

    choices: tuple[BlueprintKey, ...]


@dataclass(frozen=True, slots=True)
class Dropping:
    """Drop marbles: `drops_left` more this round."""

    drops_left: int


@dataclass(frozen=True, slots=True)
class RunOver:
    """The run is over: every round's quota was met (`won`), or one was missed."""

    won: bool


Phase = Draft | Blueprints | Dropping | RunOver
