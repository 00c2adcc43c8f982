"""The simple brains of authored games (Ice Slide): patrol, chase and pusher.

They take no random draws: a patrol turns right, then left, then back; a chaser follows the
shortest open path (ties broken in DIRECTIONS order); a pusher chases and kicks a block at the
player when one lies between them on a row or column.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from .actors import Enemy
from .geometry import CELL_PX, DIRECTIONS, OPPOSITE, STEP, Direction

if TYPE_CHECKING:
    from .game import KickGame

#: A patrol's turns, tried in order when the way ahead is blocked.
_RIGHT_TURN: dict[Direction, Direction] = {"up": "right", "right": "down", "down": "left", "left": "up"}
#: A chaser searches at most this many cells (bounds the work per decision on big boards).
CHASE_SEARCH_LIMIT = 4096


def decide_simple(game: KickGame, e: Enemy) -> bool:
    """One decision at a cell centre for a patrol, chase or pusher brain; True when it steps."""
    if e.brain == "pusher" and _push_at_player(game, e):
        return False
    if e.brain in ("chase", "pusher"):
        direction = _toward_player(game, e)
        if direction is not None:
            e.dir = direction
            return True
    return _patrol(game, e)


def _free(game: KickGame, e: Enemy, direction: Direction) -> bool:
    step = STEP[direction]
    return game.board.tile_free(e.px // CELL_PX + step.x, e.py // CELL_PX + step.y)


def _patrol(game: KickGame, e: Enemy) -> bool:
    right = _RIGHT_TURN[e.dir]
    for direction in (e.dir, right, OPPOSITE[right], OPPOSITE[e.dir]):
        if _free(game, e, direction):
            e.dir = direction
            return True
    return False


def _toward_player(game: KickGame, e: Enemy) -> Direction | None:
    board = game.board
    start = (e.px // CELL_PX, e.py // CELL_PX)
    goal = (game.player.px // CELL_PX, game.player.py // CELL_PX)
    if start == goal:
        return None
    first: dict[tuple[int, int], Direction] = {}
    queue: deque[tuple[int, int]] = deque()
    for direction in DIRECTIONS:
        step = STEP[direction]
        cell = (start[0] + step.x, start[1] + step.y)
        if board.tile_free(*cell) and cell not in first:
            first[cell] = direction
            queue.append(cell)
    seen = 0
    while queue and seen < CHASE_SEARCH_LIMIT:
        cell = queue.popleft()
        seen += 1
        if cell == goal:
            return first[cell]
        for direction in DIRECTIONS:
            step = STEP[direction]
            nxt = (cell[0] + step.x, cell[1] + step.y)
            if nxt not in first and nxt != start and board.tile_free(*nxt):
                first[nxt] = first[cell]
                queue.append(nxt)
    return None


def _push_at_player(game: KickGame, e: Enemy) -> bool:
    """Kick the adjacent block when the player is further along the same row or column."""
    player = game.player
    board = game.board
    ex, ey = e.px // CELL_PX, e.py // CELL_PX
    px, py = player.px // CELL_PX, player.py // CELL_PX
    if ex == px and ey != py:
        direction: Direction = "down" if py > ey else "up"
    elif ey == py and ex != px:
        direction = "right" if px > ex else "left"
    else:
        return False
    step = STEP[direction]
    block = board.block_at(ex + step.x, ey + step.y)
    if (
        block is None
        or block.breaking is not None
        or any(b.motion and b.motion.by == e.id for b in board.sliding_blocks)
    ):
        return False
    e.dir = direction
    return board.push(ex + step.x, ey + step.y, direction, e.id).kind == "slide"
