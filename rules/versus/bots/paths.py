"""Path finding over a board's cells for the competent bots: who reaches which cell first.

Cells are numbered y * cols + x; `grid` is the board's occupancy (`BoardView.occupancy`, non-zero where
a block rests). Pengo walks only where he gets well before any Sno-Bee could (`Paths.search`), each
Sno-Bee's walking distance being a search of its own (`Paths.bee_distance`).
"""

from __future__ import annotations

from collections import deque

from rules.kick.geometry import CELL_PX, Direction

from ..view import EnemyView
from .seeing import STEPS

__all__ = ["FAR", "HORIZON", "Paths", "openness"]

#: Sno-Bee distance of a cell no Sno-Bee can walk to.
FAR = 99
#: How far (in cells of walking) the competent bot looks for something to do.
HORIZON = 14


class Paths:
    """The neighbours of every cell of a cols × rows board (rebuilt only when the size changes), and
    the breadth-first searches over them."""

    def __init__(self) -> None:
        self.geometry: tuple[int, int] = (0, 0)
        #: Per cell, its in-board neighbours with the direction to each.
        self.neighbours: list[tuple[tuple[Direction, int], ...]] = []
        #: Per cell, its in-board neighbours.
        self.adjacent: list[tuple[int, ...]] = []

    def setup(self, cols: int, rows: int) -> None:
        """Fit the neighbour tables to a cols × rows board."""
        if self.geometry == (cols, rows):
            return
        self.geometry = (cols, rows)
        neighbours: list[tuple[tuple[Direction, int], ...]] = []
        for i in range(cols * rows):
            x, y = i % cols, i // cols
            neighbours.append(
                tuple(
                    (d, (y + sy) * cols + x + sx)
                    for d, sx, sy in STEPS
                    if 0 <= x + sx < cols and 0 <= y + sy < rows
                )
            )
        self.neighbours = neighbours
        self.adjacent = [tuple(there for _d, there in around) for around in neighbours]

    def bee_distance(self, active: list[EnemyView], grid: tuple[int, ...], cols: int, rows: int) -> list[int]:
        """Steps each cell is from the nearest Sno-Bee over free cells (FAR: none can walk there).

        A Sno-Bee between two centres counts from both; a hatching one from its egg block, a step late.
        """
        size = cols * rows
        dist = [FAR] * size
        queue: deque[int] = deque()
        for e in active:
            delay = 1 if e.phase == "hatching" else 0
            for cx, cy in (
                (e.px // CELL_PX, e.py // CELL_PX),
                ((e.px + CELL_PX - 1) // CELL_PX, (e.py + CELL_PX - 1) // CELL_PX),
            ):
                cell = cy * cols + cx
                if 0 <= cell < size and dist[cell] > delay:
                    dist[cell] = delay
                    queue.append(cell)
        adjacent = self.adjacent
        while queue:
            here = queue.popleft()
            depth = dist[here] + 1
            for there in adjacent[here]:
                if dist[there] > depth and not grid[there]:
                    dist[there] = depth
                    queue.append(there)
        return dist

    def search(
        self, start: int, grid: tuple[int, ...], bee: list[int], slack: int, depth0: int = 0
    ) -> tuple[list[int], list[int], list[int]]:
        """Breadth-first over free cells Pengo reaches `slack` steps before any Sno-Bee could:
        (distance, parent) per cell, -1 when unreached, and the cells in the order reached."""
        size = len(grid)
        dist = [-1] * size
        parent = [-1] * size
        dist[start] = depth0
        order = [start]
        adjacent = self.adjacent
        index = 0
        while index < len(order):
            here = order[index]
            index += 1
            depth = dist[here] + 1
            if depth > HORIZON:
                continue
            for there in adjacent[here]:
                if dist[there] < 0 and not grid[there] and bee[there] - depth >= slack:
                    dist[there] = depth
                    parent[there] = here
                    order.append(there)
        return dist, parent, order

    def first_step(self, start: int, goal: int, parent: list[int]) -> Direction | None:
        """The direction of the first step from start on the searched path to goal (None: no path)."""
        cell = goal
        while parent[cell] != start:
            cell = parent[cell]
            if cell < 0:
                return None
        for d, there in self.neighbours[start]:
            if there == cell:
                return d
        return None

    def step(self, cell: int, d: Direction) -> int:
        """The neighbour of cell toward d (-1: off the board)."""
        for direction, there in self.neighbours[cell]:
            if direction == d:
                return there
        return -1


def openness(grid: tuple[int, ...], cols: int, rows: int) -> list[int]:
    """Free cells in the 5 × 5 square around each cell (corridors score low, open floor high)."""
    width = cols + 1
    total = [0] * (width * (rows + 1))  # a summed-area table of free cells
    for y in range(rows):
        row = 0
        base = y * cols
        for x in range(cols):
            row += not grid[base + x]
            total[(y + 1) * width + x + 1] = total[y * width + x + 1] + row
    out = [0] * (cols * rows)
    for y in range(rows):
        y0, y1 = max(0, y - 2), min(rows, y + 3)
        for x in range(cols):
            x0, x1 = max(0, x - 2), min(cols, x + 3)
            top, low = y0 * width, y1 * width
            out[y * cols + x] = total[low + x1] - total[top + x1] - total[low + x0] + total[top + x0]
    return out
