"""Computer players that drive a KickGame frame by frame (no terminal code, so the bench can import them).

A player's `act(game)` is called once before every `game.step_frame()` and may call `game.control()` and
`game.kick()`. Every choice is drawn from `rules.kick.rng.KickRandom` seeded from the game's seed, so a
run is a pure function of (preset, seed, level, skill, player).

The scripted player reads the live session (`game.player`, `game.slots`, `game.kick_board`) rather than
`game.state`, because `state` copies every block and would cost more than the engine itself when it is
read on every frame of a benchmark; it only reads, and it only decides near cell centres.
"""

from __future__ import annotations

from typing import Protocol

from rules.kick.actors import BLINKING, P_WALK, PAUSE
from rules.kick.game import KickGame
from rules.kick.geometry import CELL_PX, DIRECTIONS, OPPOSITE, STEP, Cell, Direction
from rules.kick.rng import KickRandom

PLAYER_KINDS: tuple[str, ...] = ("scripted", "random", "idle")

#: Decide for the next cell centre once the player is this many pixels (or fewer) from it: close enough
#: that the arcade's turn assist ($3EA6) steers toward that centre rather than back to the last one.
DECIDE_PX = 3


class Player(Protocol):
    """Something that plays a KickGame: called once before each frame."""

    def act(self, game: KickGame) -> None:
        """Press or release controls for the coming frame."""


def player_rng(seed: int, salt: int) -> KickRandom:
    """A KickRandom for a player, derived from the game seed; the low byte is made odd (longest cycle)."""
    return KickRandom(((seed * 0x9E37 + salt) & 0xFFFF) | 1)


class IdlePlayer:
    """Never touches the controls."""

    def act(self, game: KickGame) -> None:
        """Do nothing."""


class RandomPlayer:
    """Holds a random direction (or none) for a random while and kicks at random."""

    def __init__(self, seed: int) -> None:
        self.rng = player_rng(seed, 0x52)
        self.frames_left = 0

    def act(self, game: KickGame) -> None:
        """Maybe pick a new direction; maybe kick."""
        rng = self.rng
        if self.frames_left <= 0:
            choice = rng.below(5)
            game.control(None if choice == 4 else DIRECTIONS[choice])
            self.frames_left = 4 + rng.below(40)
        self.frames_left -= 1
        if rng.chance(24):
            game.kick()


def enemy_cells(game: KickGame) -> set[Cell]:
    """The cells (nearest centre) of every enemy that is on the board and dangerous or stunned."""
    cells: set[Cell] = set()
    half = CELL_PX // 2
    for e in game.slots:
        if PAUSE <= e.state <= BLINKING:
            cells.add(Cell((e.px + half) // CELL_PX, (e.py + half) // CELL_PX))
    return cells


class ScriptedPlayer:
    """Walks in straight lines, turns at obstacles, kicks a block when an enemy is lined up behind it.

    At each cell it reaches it looks down the four directions: a kickable block next to it with an enemy
    in the free run of cells beyond is kicked at once (the player stops on the centre, faces the block
    and kicks). Otherwise it keeps going straight (turning off now and then at a junction), and when the
    way ahead is blocked it sometimes kicks the block ahead and otherwise turns to a free side, avoiding
    cells next to an enemy when it can.
    """

    def __init__(self, seed: int) -> None:
        self.rng = player_rng(seed, 0x5C)
        self.planned_for: Cell | None = None
        self.kick_dir: Direction | None = None

    # ---- reading the board -------------------------------------------------------------------------

    @staticmethod
    def _kickable(game: KickGame, x: int, y: int) -> bool:
        board = game.kick_board
        block = board.block_at(x, y)
        if block is None or block.breaking is not None:
            return False
        material = board.material(block.material)
        return material.slides or material.breaks_when_blocked

    @staticmethod
    def _lined_up(game: KickGame, cell: Cell, d: Direction, enemies: set[Cell]) -> bool:
        """Is there an enemy in the run of free cells beyond the block next to `cell` in direction d?"""
        board = game.kick_board
        step = STEP[d]
        x, y = cell.x + 2 * step.x, cell.y + 2 * step.y
        while board.tile_free(x, y):
            if (x, y) in enemies:
                return True
            x += step.x
            y += step.y
        return False

    # ---- deciding ----------------------------------------------------------------------------------

    def _plan(self, game: KickGame, cell: Cell, facing: Direction) -> Direction | None:
        """Choose what to do at `cell`: a direction to walk, or None to stop (self.kick_dir says why)."""
        board = game.kick_board
        rng = self.rng
        enemies = enemy_cells(game)
        self.kick_dir = None
        for d in DIRECTIONS:
            step = STEP[d]
            kickable = self._kickable(game, cell.x + step.x, cell.y + step.y)
            if kickable and self._lined_up(game, cell, d, enemies):
                self.kick_dir = d
                return None
        free: list[Direction] = []
        safe: list[Direction] = []
        for d in DIRECTIONS:
            step = STEP[d]
            nx, ny = cell.x + step.x, cell.y + step.y
            if not board.tile_free(nx, ny):
                continue
            free.append(d)
            near = any((nx + s.x, ny + s.y) in enemies for s in STEP.values()) or (nx, ny) in enemies
            if not near:
                safe.append(d)
        choices = safe or free
        ahead = STEP[facing]
        if facing in choices:
            sides = [d for d in choices if d != facing and d != OPPOSITE[facing]]
            if sides and rng.chance(6):
                return sides[rng.below(len(sides))]
            return facing
        if self._kickable(game, cell.x + ahead.x, cell.y + ahead.y) and (not choices or rng.chance(3)):
            self.kick_dir = facing
            return None
        forward = [d for d in choices if d != OPPOSITE[facing]]
        pick = forward or choices
        if pick:
            return pick[rng.below(len(pick))]
        boxed = [d for d in DIRECTIONS if self._kickable(game, cell.x + STEP[d].x, cell.y + STEP[d].y)]
        if boxed:  # walled in: kick a way out
            self.kick_dir = boxed[rng.below(len(boxed))]
        return None

    def act(self, game: KickGame) -> None:
        """Steer toward the next cell centre's plan; stop and kick when the plan says so."""
        if game.status != "playing":
            self.planned_for = None
            self.kick_dir = None
            return
        p = game.player
        if p.state != P_WALK or p.dead:
            return
        px, py = p.px, p.py
        facing = p.facing
        if px % CELL_PX == 0 and py % CELL_PX == 0:
            cell = Cell(px // CELL_PX, py // CELL_PX)
            if self.kick_dir is not None and self.planned_for == cell:
                game.control(self.kick_dir)
                game.kick()
                self.kick_dir = None
                self.planned_for = None
                return
            if p.moving and self.planned_for == cell:
                return  # arrived and already leaving as planned
            self.planned_for = cell
            direction = self._plan(game, cell, facing)
            if self.kick_dir is not None:
                game.control(self.kick_dir)
                game.kick()
                self.kick_dir = None
                self.planned_for = None
                return
            game.control(direction)
            return
        step = STEP[facing]
        offset = (px if step.x else py) % CELL_PX
        forward = step.x + step.y > 0
        distance = CELL_PX - offset if forward else offset
        if distance > DECIDE_PX:
            return
        target = Cell((px + step.x * distance) // CELL_PX, (py + step.y * distance) // CELL_PX)
        if self.planned_for == target:
            return
        self.planned_for = target
        game.control(self._plan(game, target, facing))


def make_player(kind: str, seed: int) -> Player:
    """A player by name: scripted, random or idle."""
    if kind == "scripted":
        return ScriptedPlayer(seed)
    if kind == "random":
        return RandomPlayer(seed)
    if kind == "idle":
        return IdlePlayer()
    raise ValueError(f"player: expected one of {PLAYER_KINDS}, got {kind!r}")
