"""The simple brains of authored games (Ice Slide): patrol, chase and pusher (`brain.BRAINS`).

They take no random draws: a patrol turns right, then left, then back; a chaser follows the
shortest open path (ties broken in DIRECTIONS order) and patrols when there is none; a pusher chases
and kicks a block at the player when one lies between them on a row or column.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from .actors import Enemy
from .geometry import CELL_PX, DIRECTIONS, OPPOSITE, STEP, Direction

if TYPE_CHECKING:
    from .brain import BrainHost

#: A patrol's turns, tried in order when the way ahead is blocked.
_RIGHT_TURN: dict[Direction, Direction] = {"up": "right", "right": "down", "down": "left", "left": "up"}
#: A chaser searches at most this many cells (bounds the work per decision on big boards).
CHASE_SEARCH_LIMIT = 4096


def patrol(host: BrainHost, e: Enemy) -> bool:
    """Ahead, else right, else left, else back; True when it steps."""
    right = _RIGHT_TURN[e.dir]
    for direction in (e.dir, right, OPPOSITE[right], OPPOSITE[e.dir]):
        if _free(host, e, direction):
            e.dir = direction
            return True
    return False


def chase(host: BrainHost, e: Enemy) -> bool:
    """The first step of a shortest open path to the player, else patrol; True when it steps."""
    direction = _toward_player(host, e)
    if direction is not None:
        e.dir = direction
        return True
    return patrol(host, e)


def pusher(host: BrainHost, e: Enemy) -> bool:
    """Kick a block lying between it and the player (then stand), else chase; True when it steps."""
    if _push_at_player(host, e):
        return False
    return chase(host, e)


def _free(host: BrainHost, e: Enemy, direction: Direction) -> bool:
    step = STEP[direction]
    return host.board.tile_free(e.px // CELL_PX + step.x, e.py // CELL_PX + step.y)


def _toward_player(host: BrainHost, e: Enemy) -> Direction | None:
    board = host.board
    start = (e.px // CELL_PX, e.py // CELL_PX)
    goal = (host.player.px // CELL_PX, host.player.py // CELL_PX)
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


def _push_at_player(host: BrainHost, e: Enemy) -> bool:
    """Kick the adjacent block when the player is further along the same row or column."""
    player = host.player
    board = host.board
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
    return host.kick(e, ex + step.x, ey + step.y, direction)
