"""The Sno-Bee's mind: one decision at a cell centre ($33D8), as the arcade takes it.

Every random draw comes from the session's one KickRandom stream, in the listing's order
(PENGO-RULES §4 and §6). `decide` returns whether the Sno-Bee steps after deciding.
Deviation (documented): a hatchling starts from its level's base period instead of the stale one the
previous occupant of its slot left ($34FB), and every retry loop is bounded (the arcade can hang).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actors import Enemy
from .geometry import CELL_PX, DIRECTIONS, OPPOSITE, STEP, Direction
from .tables import CHEW_EXTRA_PERIOD, DEAD_END_CHEWS, DODGE_PERIOD

if TYPE_CHECKING:
    from .game import KickGame

#: Roam lists its exits in this order ($36E0, $3720).
ROAM_ORDER: tuple[Direction, ...] = ("right", "left", "down", "up")
#: Dodge choices per direction of the threatening block ($351E): first, second, run ahead, else.
DODGE_CHOICES: dict[Direction, tuple[Direction, Direction, Direction, Direction]] = {
    "up": ("right", "left", "up", "down"),
    "down": ("left", "right", "down", "up"),
    "left": ("up", "down", "left", "right"),
    "right": ("down", "up", "right", "left"),
}
#: Flee along a border: modes 13–16 are up, down, left, right ($34D0–$3515).
FLEE_BORDER_DIR: dict[int, Direction] = {13: "up", 14: "down", 15: "left", 16: "right"}
#: The ahead check redraws a facing at most this many times before giving up (the arcade loops
#: forever when diamonds or egg blocks close all four sides, $38CE).
AHEAD_RETRIES = 16


def decide(game: KickGame, e: Enemy) -> bool:
    """Take one decision for a centred, moving Sno-Bee; True when it steps afterwards."""
    rng = game.rng
    minutes = game.life_minutes()
    flee = minutes >= game.flee_minutes
    if not flee and game.last_flee_enabled:
        if game.remaining_count == 2:
            game.zero_last_enemy_clock()
        if game.remaining_count <= 1 and game.last_enemy_clock_high() >= game.last_flee_high:
            flee = True
    if flee:
        if e.mode < 9:
            game.set_base(e, *game.flee_period)
            e.mode = (rng.byte() & 3) + 9
            game.enemy_flees(e)
    else:
        if game.remaining_count < game.angry_below:
            game.set_base(e, *game.angry_period)
            e.mode = 2
        if minutes >= 1 and game.hurry_enabled:
            game.set_base(e, *game.hurry_period(minutes))
            e.mode = 2
    return _run_mode(game, e)


def _run_mode(game: KickGame, e: Enemy) -> bool:
    mode = e.mode
    if mode == 0:
        return _dodge(game, e)
    if mode in (1, 6, 7):
        return _roam(game, e)
    if mode == 2:
        return _eat(game, e)
    if mode == 3:
        return _hunt_axis(game, e, vertical=True)
    if mode == 4:
        return _hunt_axis(game, e, vertical=False)
    if mode in (5, 8):
        return _hunt(game, e)
    if 9 <= mode <= 12:
        return _flee_start(game, e)
    return _flee_border(game, e)


def _toward_vertical(game: KickGame, e: Enemy) -> Direction:
    return "down" if game.player.py >= e.py else "up"  # $37B0


def _toward_lateral(game: KickGame, e: Enemy) -> Direction:
    return "left" if game.player.px < e.px else "right"  # $37E8


def _hunt_axis(game: KickGame, e: Enemy, vertical: bool) -> bool:
    """Hunt-x ($378A) and hunt-y ($37C2)."""
    player = game.player
    own, target = (e.px, player.px) if vertical else (e.py, player.py)
    if own != target and (game.rng.byte() & 7 == 0 or abs(target - own) != CELL_PX):
        return _roam(game, e)
    e.dir = _toward_vertical(game, e) if vertical else _toward_lateral(game, e)
    return _ahead(game, e)


def _hunt(game: KickGame, e: Enemy) -> bool:
    """Hunt ($37FA): column first, then row, each with a chance to give up to roam."""
    player = game.player
    rng = game.rng
    if player.px == e.px:
        e.dir = _toward_vertical(game, e)
        return _ahead(game, e)
    if rng.byte() & 7 == 0:
        return _roam(game, e)
    if abs(player.px - e.px) == CELL_PX:
        e.dir = _toward_vertical(game, e)
        return _ahead(game, e)
    if player.py == e.py:
        e.dir = _toward_lateral(game, e)
        return _ahead(game, e)
    if rng.byte() & 7 == 0:
        return _roam(game, e)
    if abs(player.py - e.py) == CELL_PX:
        e.dir = _toward_lateral(game, e)
        return _ahead(game, e)
    return _roam(game, e)


def _free_exits(game: KickGame, e: Enemy) -> list[Direction]:
    cx, cy = e.px // CELL_PX, e.py // CELL_PX
    tile_free = game.board.tile_free
    return [d for d in ROAM_ORDER if tile_free(cx + STEP[d].x, cy + STEP[d].y)]


def _threat(game: KickGame, e: Enemy) -> Direction | None:
    """The direction of a sliding block heading at this Sno-Bee on its line ($359F), or None."""
    for block in game.board.sliding_blocks:
        motion = block.motion
        if motion is None or motion.stopping:
            continue
        d = motion.dir
        if (
            (d == "up" and block.px == e.px and block.py >= e.py)
            or (d == "down" and block.px == e.px and block.py <= e.py)
            or (d == "left" and block.py == e.py and block.px >= e.px)
            or (d == "right" and block.py == e.py and block.px <= e.px)
        ):
            return d
    return None


def _start_dodge(game: KickGame, e: Enemy, block_dir: Direction) -> bool:
    """$35C2: save the mode, mode 0, period 5, no step."""
    e.saved_mode = e.mode
    e.mode = 0
    e.dodge_dir = block_dir
    game.set_period(e, DODGE_PERIOD, 1)
    return False


def _dodge(game: KickGame, e: Enemy) -> bool:
    """Mode 0 ($351E): step aside from the block's line, or run ahead of it."""
    first, second, ahead, last = DODGE_CHOICES[e.dodge_dir]
    exits = _free_exits(game, e)
    for choice in (first, second):
        if choice in exits:
            _restore_mode(game, e)
            e.dir = choice
            return True
    if ahead in exits:
        game.set_period(e, DODGE_PERIOD, 1)
        e.dir = ahead
        return True
    _restore_mode(game, e)
    if last in exits:
        e.dir = last
        return True
    return False


def _restore_mode(game: KickGame, e: Enemy) -> None:
    e.mode = e.saved_mode
    game.set_period(e, e.base_period, e.base_den)


def _roam(game: KickGame, e: Enemy) -> bool:
    """Roam ($3649): dodge a threat, else choose among the free exits."""
    if game.kinds[e.kind].dodges:
        threat = _threat(game, e)
        if threat is not None:
            return _start_dodge(game, e, threat)
    game.set_period(e, e.base_period, e.base_den)
    exits = _free_exits(game, e)
    count = len(exits)
    rng = game.rng
    reverse = OPPOSITE[e.dir]
    if count == 0:
        e.mode = 2  # $366F
        return False
    if count == 1:
        e.dir = exits[0]
        _dead_end(game, e)
        return True
    if count == 2:
        e.dir = exits[0] if exits[0] != reverse else exits[1]  # $36E0: no draw
        return True
    if count == 3:
        pick = exits[rng.below(3)]
        retries = 0
        while pick == reverse and retries < AHEAD_RETRIES:
            pick = exits[rng.below(3)]
            retries += 1
        if pick == reverse:
            pick = next(d for d in exits if d != reverse)
        if pick != e.dir:
            e.dir = pick
            game.pause_after_step(e)  # $3745: step now, pause until the next wrap
        return True
    if rng.byte() & 1:  # $3752: four exits
        player = game.player
        dx, dy = player.px - e.px, player.py - e.py
        if abs(dy) >= abs(dx):
            e.dir = "down" if dy >= 0 else "up"
        else:
            e.dir = "right" if dx > 0 else "left"
    return True


def _dead_end(game: KickGame, e: Enemy) -> None:
    """$3675: a Sno-Bee shuttling between two dead ends A, B, A, B turns into an eater."""
    here = (e.py // CELL_PX) * game.board.cols + e.px // CELL_PX
    e.dead_end_count = (e.dead_end_count + 1) & 0xFF
    visit = e.dead_end_count
    if visit == 0:
        e.dead_end_a = here
    elif visit == 1:
        e.dead_end_b = here
    elif visit == 2:
        if here != e.dead_end_a:
            e.dead_end_count = 0
            e.dead_end_a = here
    elif visit == 3:
        if here == e.dead_end_b:
            e.mode = 2
            e.chews = DEAD_END_CHEWS
        e.dead_end_count = 0xFF
    else:
        e.dead_end_count = 0xFF


def _eat(game: KickGame, e: Enemy) -> bool:
    """Eat ($3843): head for a point near Pengo, chewing through ice."""
    if game.kinds[e.kind].dodges:
        threat = _threat(game, e)
        if threat is not None:
            return _start_dodge(game, e, threat)
    rng = game.rng
    if rng.byte() & 1 == 0:
        player = game.player
        if player.py == e.py and rng.byte() & 7 == 0:
            return _roam(game, e)
        if player.px != e.px and rng.byte() & 7 == 0:
            return _roam(game, e)
        dy = rng.byte() & 0x10
        dx = rng.byte() & 0x10
        target_y = player.py + dy
        if target_y > (game.board.rows - 1) * CELL_PX:
            target_y = -CELL_PX  # the arcade's y wraps to 0 past $F0 (a bug, $3879)
        target_x = player.px + dx
        ddx, ddy = target_x - e.px, target_y - e.py
        if abs(ddy) >= abs(ddx):
            e.dir = "down" if ddy > 0 else "up"
        else:
            e.dir = "right" if ddx > 0 else "left"
    steps = _ahead(game, e)
    if e.chewing:
        e.chews = (e.chews - 1) & 0xFF
        if e.chews & 0x7F == 0:
            e.mode = 1  # $38C9: chews used up
    return steps


def _ahead(game: KickGame, e: Enemy) -> bool:
    """The ahead check ($38D6): chew into the cell ahead, or turn away from a diamond or an egg."""
    game.set_period(e, e.base_period, e.base_den)
    e.chewing = False
    board = game.board
    for _ in range(AHEAD_RETRIES):
        step = STEP[e.dir]
        nx, ny = e.px // CELL_PX + step.x, e.py // CELL_PX + step.y
        if not board.inside(nx, ny):
            return False  # the clamp blocks the step
        if board.tile_free(nx, ny):
            return True
        game.set_period(e, e.base_period + CHEW_EXTRA_PERIOD * e.base_den, e.base_den)  # $38F0: creep in
        block = board.block_at(nx, ny)
        if block is not None and block.breaking is not None:
            e.chewing = True
            return True
        if block is None or block.egg is not None or not game.can_chew(e, block):
            e.dir = DIRECTIONS[game.rng.byte() & 3]
            continue
        game.enemy_chews(e, block)
        e.chewing = True
        return True
    return False


def _flee_start(game: KickGame, e: Enemy) -> bool:
    """Modes 9–12 ($348C): reach a border line, then run along it."""
    rng = game.rng
    right_px = (game.board.cols - 1) * CELL_PX
    bottom_px = (game.board.rows - 1) * CELL_PX
    if e.py in (0, bottom_px):
        e.mode = 15 + (rng.byte() & 1)
        return False
    if e.px in (0, right_px):
        e.mode = 13 + (rng.byte() & 1)
        return False
    e.dir = DIRECTIONS[e.mode - 9]
    return _ahead(game, e)


def _flee_border(game: KickGame, e: Enemy) -> bool:
    """Modes 13–16: run along the border to a corner and vanish ($34F3)."""
    direction = FLEE_BORDER_DIR[e.mode]
    e.dir = direction
    right_px = (game.board.cols - 1) * CELL_PX
    bottom_px = (game.board.rows - 1) * CELL_PX
    reached = (
        (direction == "up" and e.py == 0)
        or (direction == "down" and e.py == bottom_px)
        or (direction == "left" and e.px == 0)
        or (direction == "right" and e.px == right_px)
    )
    step = STEP[direction]
    ahead = game.board.block_at(e.px // CELL_PX + step.x, e.py // CELL_PX + step.y)
    if reached or (ahead is not None and not game.can_chew(e, ahead)):
        game.enemy_vanishes(e)
        return False
    return _ahead(game, e)


def stun_recovery_facing(game: KickGame, e: Enemy) -> Direction:
    """$3A2E: away from the border it stands on, else a random facing."""
    right_px = (game.board.cols - 1) * CELL_PX
    bottom_px = (game.board.rows - 1) * CELL_PX
    if e.px == 0:
        return "right"
    if e.px == right_px:
        return "left"
    if e.py == 0:
        return "down"
    if e.py == bottom_px:
        return "up"
    return DIRECTIONS[game.rng.byte() & 3]
