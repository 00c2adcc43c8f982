"""Threats and targets: which kick crushes a Sno-Bee, when a border shake pays, what a goal is, and how
far the diamonds are from a line.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.kick.geometry import CELL_PX, DIRECTIONS, STEP, Direction

from ..view import BoardView, EnemyView, SeatView
from .seeing import TARGETS, slideable

__all__ = ["Goal", "best_shot", "crush_count", "in_line", "line_distance", "shake"]


class Goal:
    """Something worth doing from a cell: a kick in a direction (or, with kick None, walking onto it)."""

    __slots__ = ("cell", "kick", "value", "why")

    def __init__(self, cell: int, kick: Direction | None, value: float, why: str) -> None:
        self.cell = cell
        self.kick = kick
        self.value = value
        self.why = why


def best_shot(view: SeatView, x: int, y: int) -> Direction | None:
    """The kick from (x, y) that crushes the most Sno-Bees, or None."""
    targets = [e for e in view.enemies() if e.phase in TARGETS]
    if not targets:
        return None
    best: Direction | None = None
    best_count = 0
    board = view.board
    for d in DIRECTIONS:
        count = crush_count(board, x, y, d, targets)
        if count > best_count:
            best, best_count = d, count
    return best


def crush_count(board: BoardView, x: int, y: int, d: Direction, targets: list[EnemyView]) -> int:
    """Sno-Bees a kick from (x, y) toward d crushes: the block next to Pengo must slide, and a
    target must be on the free run beyond it, close enough to the line to be caught on arrival."""
    sx, sy = STEP[d].x, STEP[d].y
    if not slideable(board, x + sx, y + sy):
        return 0
    bx, by = x + 2 * sx, y + 2 * sy
    if not board.tile_free(bx, by):
        return 0
    run = 0
    while board.tile_free(bx + run * sx, by + run * sy):
        run += 1
    count = 0
    for e in targets:
        ex, ey = e.px, e.py
        if sx:
            along, perp, line, start = ex, ey, y * CELL_PX, bx * CELL_PX
        else:
            along, perp, line, start = ey, ex, x * CELL_PX, by * CELL_PX
        delta = (along - start) * (sx + sy)  # pixels along the run from its first cell
        if delta < -8 or delta > (run - 1) * CELL_PX + 8:
            continue
        offset = perp - line
        if offset == 0:
            count += 1
            continue
        if abs(offset) > 7:
            continue
        if e.phase != "moving":
            count += 1
            continue
        # Moving across the line: where it will be when the block gets there (a pixel per ~11
        # passes for the Sno-Bee, per 3 for the block, plus a frame before the kick).
        cells = 1 + delta / CELL_PX
        drift = (13 + cells * 48) / 11
        es = STEP[e.facing]
        moving = es.y if sx else es.x
        if abs(offset + moving * drift) <= 7:
            count += 1
    return count


def shake(board: BoardView, x: int, y: int, hunters: list[EnemyView]) -> Direction | None:
    """A border side Pengo stands on with a Sno-Bee walking along it (and no other one close)."""
    cols, rows = board.cols, board.rows
    right, bottom = (cols - 1) * CELL_PX, (rows - 1) * CELL_PX
    sides: tuple[tuple[Direction, bool], ...] = (
        ("left", x == 0),
        ("right", x == cols - 1),
        ("up", y == 0),
        ("down", y == rows - 1),
    )
    for side, on_side in sides:
        if not on_side:
            continue
        walkers = 0
        others_close = False
        for e in hunters:
            on_line = (
                (side == "left" and e.px == 0)
                or (side == "right" and e.px == right)
                or (side == "up" and e.py == 0)
                or (side == "down" and e.py == bottom)
            )
            near = abs(e.px / CELL_PX - x) + abs(e.py / CELL_PX - y)
            if on_line and e.phase == "moving" and 1.6 <= near <= 6:
                walkers += 1
            elif near < 2.5:
                others_close = True
        if walkers and not others_close:
            return side
    return None


def in_line(cells: list[tuple[int, int]]) -> bool:
    """Are the cells side by side in one row or one column?"""
    xs = sorted(c[0] for c in cells)
    ys = sorted(c[1] for c in cells)
    if len(set(ys)) == 1:
        return all(xs[i] + 1 == xs[i + 1] for i in range(len(xs) - 1))
    if len(set(xs)) == 1:
        return all(ys[i] + 1 == ys[i + 1] for i in range(len(ys) - 1))
    return False


def _median(values: list[int]) -> int:
    return sorted(values)[len(values) // 2]


def line_distance(cells: Sequence[tuple[int, int]], cols: int, rows: int) -> int:
    """How far three cells are from a line: the fewest cell steps (Manhattan, summed) that would put
    them side by side in one row or one column of a cols × rows board (0: they are a line)."""
    best = 1 << 30
    for along, across, length, width in ((0, 1, cols, rows), (1, 0, rows, cols)):
        line = min(max(_median([c[across] for c in cells]), 0), width - 1)
        ordered = sorted(c[along] for c in cells)
        shifted = [value - index for index, value in enumerate(ordered)]
        start = min(max(_median(shifted), 0), length - len(cells))
        cost = sum(abs(c[across] - line) for c in cells) + sum(abs(v - start) for v in shifted)
        best = min(best, cost)
    return best
