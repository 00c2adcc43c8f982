"""Directions, cells and the integer units of the core (passes and pixels)."""

from __future__ import annotations

from types import MappingProxyType
from typing import Literal, NamedTuple

Direction = Literal["up", "down", "left", "right"]

#: The four directions in the arcade's order (the maze routine's `byte & 3`: 0 up, 1 down, 2 left, 3 right).
DIRECTIONS: tuple[Direction, ...] = ("up", "down", "left", "right")


class Cell(NamedTuple):
    """A grid cell: column x, row y, 0 at the top left."""

    x: int
    y: int


#: The direction opposite each direction.
OPPOSITE: MappingProxyType[Direction, Direction] = MappingProxyType(
    {"up": "down", "down": "up", "left": "right", "right": "left"}
)

#: The unit step of each direction (y grows downward).
STEP: MappingProxyType[Direction, Cell] = MappingProxyType(
    {"up": Cell(0, -1), "down": Cell(0, 1), "left": Cell(-1, 0), "right": Cell(1, 0)}
)

#: Pixels per cell: the arcade's actors align on 16-pixel centres ($33D8: x&$0F=8, y&$0F=0).
CELL_PX = 16

#: Index of each direction in DIRECTIONS (the arcade's direction code).
DIRECTION_CODE: MappingProxyType[Direction, int] = MappingProxyType({d: i for i, d in enumerate(DIRECTIONS)})


def is_direction(value: object) -> bool:
    """True when value is one of the four direction names."""
    return value in OPPOSITE
