"""Boards for the Payload tests."""

from __future__ import annotations

from hypothesis import strategies as st

from rules.payload.content import PARTS
from rules.payload.types import CELLS, Board, PartKey, cell_at


def board_of(*parts: tuple[int, int, PartKey]) -> Board:
    """A board with these (row, col, part) and nothing else."""
    cells: list[PartKey | None] = [None] * CELLS
    for row, col, part in parts:
        cells[cell_at(row, col)] = part
    return tuple(cells)


#: Any board: each cell empty (half the time) or any part.
boards = st.lists(st.one_of(st.none(), st.none(), st.sampled_from(list(PARTS))), min_size=CELLS,
                  max_size=CELLS).map(tuple)
