"""The engine plays every Ice Slide room's shortest solution to a clear: the rooms, the solver and the
engine agree on how kicked gems and crates move."""

from __future__ import annotations

from collections import deque

import pytest

from rules.kick import ICE_SLIDE_ROOMS, IceSlideOptions, IceSlideRoom, KickGame, ice_slide_preset
from rules.kick.geometry import CELL_PX, OPPOSITE, STEP, Cell, Direction

from .ice_slide_solver import solve

#: The puzzle without its action: enemies gone, egg ice plain (a hatched Sno-Bee would chew stoppers).
STILL = str.maketrans({"w": ".", "s": ".", "E": "I"})


def _cell(game: KickGame) -> Cell:
    return Cell(game.player.px // CELL_PX, game.player.py // CELL_PX)


def _path(game: KickGame, goal: Cell) -> list[Direction]:
    """Directions of a shortest walk over free cells from the player's cell to goal."""
    start = _cell(game)
    came: dict[Cell, tuple[Cell, Direction] | None] = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            break
        for direction, step in STEP.items():
            nxt = Cell(cell.x + step.x, cell.y + step.y)
            if nxt not in came and game.board.free(nxt.x, nxt.y):
                came[nxt] = (cell, direction)
                queue.append(nxt)
    assert goal in came, f"no walk from {start} to {goal}"
    path: list[Direction] = []
    cell = goal
    while (link := came[cell]) is not None:
        cell, direction = link
        path.append(direction)
    return path[::-1]


def _settle(game: KickGame, frames: int = 240) -> None:
    for _ in range(frames):
        game.step_frame()
        if not game.board.sliding_blocks and game.player.px % CELL_PX == 0 and game.player.py % CELL_PX == 0:
            return


def _walk(game: KickGame, direction: Direction) -> None:
    start = _cell(game)
    step = STEP[direction]
    game.control(direction)
    for _ in range(1000):  # pass by pass: the player rests on a centre for less than a frame
        game.advance(1)
        if _cell(game) == Cell(start.x + step.x, start.y + step.y) and game.player.px % CELL_PX == 0 \
                and game.player.py % CELL_PX == 0:
            break
    game.control(None)


def _kick(game: KickGame, block: Cell, direction: Direction) -> None:
    behind = STEP[OPPOSITE[direction]]
    for step in _path(game, Cell(block.x + behind.x, block.y + behind.y)):
        _walk(game, step)
    game.control(direction)
    for _ in range(30):
        game.step_frame()
        if game.player.facing == direction:
            break
    game.control(None)
    game.step_frame()
    game.kick()
    _settle(game)


@pytest.mark.parametrize("index", range(len(ICE_SLIDE_ROOMS)), ids=[r.name for r in ICE_SLIDE_ROOMS])
def test_engine_clears_each_room_with_the_solvers_kicks(index: int) -> None:
    """Walking to each kick of the solver's solution and kicking clears the room in the engine."""
    room = ICE_SLIDE_ROOMS[index]
    still = IceSlideRoom(room.name, tuple(row.translate(STILL) for row in room.map))
    kicks = solve(still.map)
    assert kicks is not None
    game = KickGame(ice_slide_preset(IceSlideOptions(rooms=(still,), lives=1)).replace(invulnerable=True))
    while game.status != "playing":
        game.step_frame()
    for where, direction in kicks:
        x, y = (int(v) for v in where.split(","))
        _kick(game, Cell(x, y), direction)  # type: ignore[arg-type]
    for _ in range(600):
        if game.status in ("clear", "complete"):
            break
        game.step_frame()
    assert game.board.goals_complete, "\n".join(game.board.render())
    assert game.status in ("clear", "complete")
