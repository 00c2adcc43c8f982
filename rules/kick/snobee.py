"""The Sno-Bee's mind: one decision at a cell centre ($33D8), as the arcade takes it.

`decide` is the `sno-bee` brain of `brain.BRAINS`: it reads and acts only through its `BrainHost` and
returns whether the Sno-Bee steps after deciding. Every random draw comes from the session's one
KickRandom stream (`host.rng`), in the listing's order (PENGO-RULES §4 and §6).
Deviation (documented): a hatchling starts from its level's base period instead of the stale one the
previous occupant of its slot left ($34FB), and every retry loop is bounded (the arcade can hang).
Under `fidelity="arcade"` (`host.arcade_fidelity`) the readings of SNOBEE-FACTS.md apply where the
first port differed; `rules/kick/README.md` lists each one with its address.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actors import MODE_FLEE, Enemy
from .geometry import CELL_PX, DIRECTIONS, OPPOSITE, STEP, Direction
from .tables import CHEW_EXTRA_PERIOD, DEAD_END_CHEWS, DODGE_PERIOD, HURRY_AFTER_MINUTES

if TYPE_CHECKING:
    from .brain import BrainHost

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


def decide(host: BrainHost, e: Enemy) -> bool:
    """Take one decision for a centred, moving Sno-Bee; True when it steps afterwards."""
    pace = host.pace
    remaining = host.remaining
    minutes = host.life_minutes()
    flee = minutes >= pace.flee_minutes
    if not flee and pace.last_flee_enabled:
        if remaining == 2:
            host.zero_last_enemy_clock()
        if remaining <= 1 and host.last_enemy_clock_high() >= pace.last_flee_high:
            flee = True
    if flee:
        if e.mode < MODE_FLEE:
            if host.arcade_fidelity:
                e.base_period, e.base_den = pace.flee_period  # $340A writes +1C alone
            else:
                e.set_base(*pace.flee_period)
            e.mode = (host.rng.byte() & 3) + 9
            host.flee(e)
    else:
        if remaining < pace.angry_below:
            e.set_base(*pace.angry_period)
            e.mode = 2
        if minutes >= HURRY_AFTER_MINUTES and pace.hurry_enabled:
            e.set_base(*pace.hurry_period(minutes))
            e.mode = 2
    return _run_mode(host, e)


def _run_mode(host: BrainHost, e: Enemy) -> bool:
    mode = e.mode
    if mode == 0:
        return _dodge(host, e)
    if mode in (1, 6, 7):
        return _roam(host, e)
    if mode == 2:
        return _eat(host, e)
    if mode == 3:
        return _hunt_axis(host, e, vertical=True)
    if mode == 4:
        return _hunt_axis(host, e, vertical=False)
    if mode in (5, 8):
        return _hunt(host, e)
    if 9 <= mode <= 12:
        return _flee_start(host, e)
    return _flee_border(host, e)


def _toward_vertical(host: BrainHost, e: Enemy) -> Direction:
    return "down" if host.player.py >= e.py else "up"  # $37B0


def _toward_lateral(host: BrainHost, e: Enemy) -> Direction:
    return "left" if host.player.px < e.px else "right"  # $37E8


def _hunt_axis(host: BrainHost, e: Enemy, vertical: bool) -> bool:
    """Hunt-x ($378A) and hunt-y ($37C2)."""
    player = host.player
    own, target = (e.px, player.px) if vertical else (e.py, player.py)
    if own != target and (host.rng.byte() & 7 == 0 or abs(target - own) != CELL_PX):
        return _roam(host, e)
    e.dir = _toward_vertical(host, e) if vertical else _toward_lateral(host, e)
    return _ahead(host, e)


def _hunt(host: BrainHost, e: Enemy) -> bool:
    """Hunt ($37FA): column first, then row, each with a chance to give up to roam."""
    player = host.player
    rng = host.rng
    if player.px == e.px:
        e.dir = _toward_vertical(host, e)
        return _ahead(host, e)
    if rng.byte() & 7 == 0:
        return _roam(host, e)
    if abs(player.px - e.px) == CELL_PX:
        e.dir = _toward_vertical(host, e)
        return _ahead(host, e)
    if player.py == e.py:
        e.dir = _toward_lateral(host, e)
        return _ahead(host, e)
    if rng.byte() & 7 == 0:
        return _roam(host, e)
    if abs(player.py - e.py) == CELL_PX:
        e.dir = _toward_lateral(host, e)
        return _ahead(host, e)
    return _roam(host, e)


def _free_exits(host: BrainHost, e: Enemy) -> list[Direction]:
    cx, cy = e.px // CELL_PX, e.py // CELL_PX
    tile_free = host.board.tile_free
    return [d for d in ROAM_ORDER if tile_free(cx + STEP[d].x, cy + STEP[d].y)]


def _threat(host: BrainHost, e: Enemy) -> Direction | None:
    """The direction of a sliding block heading at this Sno-Bee on its line ($359F), or None."""
    for block in host.board.sliding_blocks:
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
            if host.arcade_fidelity and (
                (d == "down" and block.py == e.py) or (d == "right" and block.px == e.px)
            ):
                continue  # $35E5, $3605: `ret nc`, strictly behind for down and right
            return d
    return None


def _start_dodge(host: BrainHost, e: Enemy, block_dir: Direction) -> bool:
    """$35C2: save the mode, mode 0, period 5, no step."""
    e.saved_mode = e.mode
    e.mode = 0
    e.dodge_dir = block_dir
    e.set_period(DODGE_PERIOD, 1)
    return False


def _dodge(host: BrainHost, e: Enemy) -> bool:
    """Mode 0 ($351E): step aside from the block's line, or run ahead of it."""
    first, second, ahead, last = DODGE_CHOICES[e.dodge_dir]
    exits = _free_exits(host, e)
    for choice in (first, second):
        if choice in exits:
            _restore_mode(host, e)
            e.dir = choice
            return True
    if ahead in exits:
        e.set_period(DODGE_PERIOD, 1)
        e.dir = ahead
        return True
    _restore_mode(host, e)
    if last in exits or host.arcade_fidelity:  # $354B/$356F/$3585/$359B: the last choice is not tested
        e.dir = last
        return True
    return False


def _restore_mode(host: BrainHost, e: Enemy) -> None:
    e.mode = e.saved_mode
    e.set_period(e.base_period, e.base_den)


def _roam(host: BrainHost, e: Enemy) -> bool:
    """Roam ($3649): dodge a threat, else choose among the free exits."""
    if host.kind(e).dodges:
        threat = _threat(host, e)
        if threat is not None:
            return _start_dodge(host, e, threat)
    e.set_period(e.base_period, e.base_den)
    exits = _free_exits(host, e)
    count = len(exits)
    rng = host.rng
    reverse = OPPOSITE[e.dir]
    if count == 0:
        e.mode = 2  # $366F
        return False
    if count == 1:
        e.dir = exits[0]
        _dead_end(host, e)
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
            host.pause_after_step(e)  # $3745: step now, pause until the next wrap
        return True
    if rng.byte() & 1:  # $3752: four exits
        player = host.player
        dx, dy = player.px - e.px, player.py - e.py
        if abs(dy) >= abs(dx):
            e.dir = "down" if dy > 0 or (dy == 0 and not host.arcade_fidelity) else "up"  # $3772
        else:
            e.dir = "right" if dx > 0 else "left"
    return True


def _dead_end(host: BrainHost, e: Enemy) -> None:
    """$3675: a Sno-Bee shuttling between two dead ends A, B, A, B turns into an eater."""
    here = (e.py // CELL_PX) * host.board.cols + e.px // CELL_PX
    e.dead_end_count = (e.dead_end_count + 1) & 0xFF
    visit = e.dead_end_count
    if visit == 0:
        e.dead_end_a = here
    elif visit == 1:
        e.dead_end_b = here
    elif visit == 2:
        if here != e.dead_end_a:
            if host.arcade_fidelity:
                e.dead_end_count = 0xFF  # $36B9: A is kept; the next dead end records a new one
            else:
                e.dead_end_count = 0
                e.dead_end_a = here
    elif visit == 3:
        if here == e.dead_end_b:
            e.mode = 2
            e.chews = DEAD_END_CHEWS
        e.dead_end_count = 0xFF
    else:
        e.dead_end_count = 0xFF


def _eat(host: BrainHost, e: Enemy) -> bool:
    """Eat ($3843): head for a point near Pengo, chewing through ice."""
    if host.kind(e).dodges:
        threat = _threat(host, e)
        if threat is not None:
            return _start_dodge(host, e, threat)
    rng = host.rng
    if rng.byte() & 1 == 0:
        player = host.player
        if player.py == e.py and rng.byte() & 7 == 0:
            return _roam(host, e)
        if player.px != e.px and rng.byte() & 7 == 0:
            return _roam(host, e)
        dy = rng.byte() & 0x10
        dx = rng.byte() & 0x10
        target_y = player.py + dy
        if host.arcade_fidelity:
            if target_y >= host.board.rows * CELL_PX:
                target_y = -CELL_PX  # $387E: the 8-bit add wraps only from $F0 + $10
        elif target_y > (host.board.rows - 1) * CELL_PX:
            target_y = -CELL_PX  # the arcade's y wraps to 0 past $F0 (a bug, $3879)
        target_x = player.px + dx
        ddx, ddy = target_x - e.px, target_y - e.py
        if abs(ddy) >= abs(ddx):
            e.dir = "down" if ddy > 0 else "up"
        else:
            e.dir = "right" if ddx > 0 else "left"
    steps = _ahead(host, e)
    if e.chewing:
        e.chews = (e.chews - 1) & 0xFF
        if e.chews & 0x7F == 0:
            e.mode = 1  # $38C9: chews used up
    return steps


def _ahead(host: BrainHost, e: Enemy) -> bool:
    """The ahead check ($38D6): chew into the cell ahead, or turn away from a diamond or an egg."""
    e.set_period(e.base_period, e.base_den)
    e.chewing = False
    board = host.board
    arcade = host.arcade_fidelity
    for retry in range(AHEAD_RETRIES):
        if retry and arcade:
            e.set_period(e.base_period, e.base_den)  # $38CE falls into $38D6, which resets +6
        step = STEP[e.dir]
        nx, ny = e.px // CELL_PX + step.x, e.py // CELL_PX + step.y
        if not board.inside(nx, ny):
            return False  # the clamp blocks the step
        if board.tile_free(nx, ny):
            return True
        e.set_period(e.base_period + CHEW_EXTRA_PERIOD * e.base_den, e.base_den)  # $38F0: creep in
        block = board.block_at(nx, ny)
        if block is not None and block.breaking is not None:
            e.chewing = True
            return True
        if block is None or block.egg is not None or not host.can_chew(e, block):
            e.dir = DIRECTIONS[host.rng.byte() & 3]
            continue
        host.chew(e, block)
        e.chewing = True
        return True
    return False


def _flee_start(host: BrainHost, e: Enemy) -> bool:
    """Modes 9–12 ($348C): reach a border line, then run along it."""
    rng = host.rng
    right_px = (host.board.cols - 1) * CELL_PX
    bottom_px = (host.board.rows - 1) * CELL_PX
    if e.py in (0, bottom_px):
        e.mode = 15 + (rng.byte() & 1)
        if host.arcade_fidelity:
            e.dir = FLEE_BORDER_DIR[e.mode]  # $34C6
        return False
    if e.px in (0, right_px):
        e.mode = 13 + (rng.byte() & 1)
        if host.arcade_fidelity:
            e.dir = FLEE_BORDER_DIR[e.mode]  # $34B5
        return False
    e.dir = DIRECTIONS[e.mode - 9]
    return _ahead(host, e)


def _flee_border(host: BrainHost, e: Enemy) -> bool:
    """Modes 13–16: run along the border to a corner and vanish ($34F3)."""
    direction = FLEE_BORDER_DIR[e.mode]
    arcade = host.arcade_fidelity
    if not arcade:
        e.dir = direction  # the first port's; the arcade keeps its facing ($34DA reads +4)
    board = host.board
    right_px = (board.cols - 1) * CELL_PX
    bottom_px = (board.rows - 1) * CELL_PX
    reached = (
        (direction == "up" and e.py == 0)
        or (direction == "down" and e.py == bottom_px)
        or (direction == "left" and e.px == 0)
        or (direction == "right" and e.px == right_px)
    )
    step = STEP[e.dir]
    nx, ny = e.px // CELL_PX + step.x, e.py // CELL_PX + step.y
    ahead = board.block_at(nx, ny)
    blocked = ahead is not None and not host.can_chew(e, ahead)
    if arcade and not blocked and ahead is None and board.inside(nx, ny) and not board.tile_free(nx, ny):
        blocked = True  # $34E3: a stopping block's reservation is the diamond's tile $1C
    if reached or blocked:
        host.vanish(e)
        return arcade  # $34F3 ends in `ret`: the arcade's step still follows
    return _ahead(host, e)


def stun_recovery_facing(host: BrainHost, e: Enemy) -> Direction:
    """$3A2E: away from the border it stands on, else a random facing."""
    right_px = (host.board.cols - 1) * CELL_PX
    bottom_px = (host.board.rows - 1) * CELL_PX
    if e.px == 0:
        return "right"
    if e.px == right_px:
        return "left"
    if e.py == 0:
        return "down"
    if e.py == bottom_px:
        return "up"
    return DIRECTIONS[host.rng.byte() & 3]
