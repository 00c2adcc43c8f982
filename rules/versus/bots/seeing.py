"""What a bot reads of its seat's `SeatView` (rules/versus/view.py), and the bytes it answers with.

The engine reads the stick and the kick button only at a cell centre ($3EF4, $3F85), so a bot decides
at a centre or a few pixels before one (`next_centre`) and holds its byte in between. Everything here
reads only what a player sees: the blocks, the visible Sno-Bees and Pengo.
"""

from __future__ import annotations

from rules.kick.geometry import CELL_PX, DIRECTIONS, STEP, Direction
from rules.kick.rng import KickRandom

from ..inputs import encode_input
from ..view import BoardView, EnemyView, SeatView

__all__ = [
    "ACTIVE",
    "BYTES",
    "DECIDE_PX",
    "PRESS_GAP",
    "STEPS",
    "TARGETS",
    "bot_random",
    "kick_still_good",
    "next_centre",
    "slide_map",
    "slideable",
    "split_enemies",
]

#: Plan for the next cell centre once Pengo is this many pixels (or fewer) from it: the engine's turn
#: assist ($3EA6) then steers toward that centre, and the plan is at most a few frames old when used.
DECIDE_PX = 3
#: Frames between two presses of the kick button (one frame pressed, at least one released).
PRESS_GAP = 3

#: The input byte of each (held direction or None, kick pressed).
BYTES: dict[tuple[Direction | None, bool], int] = {
    (direction, kick): encode_input(direction, kick)
    for direction in (None, *DIRECTIONS)
    for kick in (False, True)
}
#: The four directions with their cell steps (dx, dy).
STEPS: tuple[tuple[Direction, int, int], ...] = tuple((d, STEP[d].x, STEP[d].y) for d in DIRECTIONS)
#: Phases of a Sno-Bee that can reach Pengo (hatching ones soon), and of one a slide crushes.
ACTIVE = ("moving", "pause", "hatching")
TARGETS = ("moving", "pause", "stunned")


def bot_random(seed: int, salt: int) -> KickRandom:
    """A KickRandom for a bot; the low byte is made odd, which puts it on a longest cycle."""
    mixed = (seed * 0x9E37 + salt * 0x3B1 + (seed >> 16) * 0x61) & 0xFFFF
    return KickRandom(mixed | 1)


def next_centre(view: SeatView) -> tuple[int, int, bool] | None:
    """The cell centre Pengo decides at next (x, y, at it now), or None while it is too far away."""
    player = view.player
    px, py = player.px, player.py
    if px % CELL_PX == 0 and py % CELL_PX == 0:
        return px // CELL_PX, py // CELL_PX, True
    step = STEP[player.facing]
    offset = (px if step.x else py) % CELL_PX
    distance = CELL_PX - offset if step.x + step.y > 0 else offset
    if distance > DECIDE_PX:
        return None
    return (px + step.x * distance) // CELL_PX, (py + step.y * distance) // CELL_PX, False


def split_enemies(enemies: tuple[EnemyView, ...]) -> tuple[list[EnemyView], list[EnemyView]]:
    """(dangerous: paused, moving or hatching; stunned, blinking or not) Sno-Bees."""
    active: list[EnemyView] = []
    stunned: list[EnemyView] = []
    for e in enemies:
        phase = e.phase
        if phase in ACTIVE:
            active.append(e)
        elif phase == "stunned":
            stunned.append(e)
    return active, stunned


def slideable(board: BoardView, x: int, y: int) -> bool:
    """Is there an unbroken block at (x, y) that slides when kicked?"""
    block = board.block_at(x, y)
    return block is not None and not block.breaking and block.slides


def kick_still_good(board: BoardView, x: int, y: int, d: Direction) -> bool:
    """Re-check a planned kick at the centre it was planned for: a block (or the border) is there."""
    nx, ny = x + STEP[d].x, y + STEP[d].y
    if not board.inside(nx, ny):
        return True
    block = board.block_at(nx, ny)
    return block is not None and not block.breaking


def slide_map(board: BoardView) -> bytearray:
    """1 for every cell holding a resting, unbroken block that slides when kicked."""
    cols = board.cols
    slide = bytearray(cols * board.rows)
    for block in board.blocks():
        if not block.moving and not block.breaking and block.slides:
            slide[block.cy * cols + block.cx] = 1
    return slide
