"""What a seat shows: the read-only view a bot plays from, and what the stream draws each frame.

The arcade's state codes (rules/kick/actors.py) are decoded here and nowhere else: an enemy's slot
state becomes its visible phase (`PHASE_OF_STATE`, plus whether a stunned Sno-Bee blinks), Pengo's
state becomes an action (walk, push, break, shake, dying).

- `SeatView` is what a player sees of one board, as immutable values built when read: the status,
  the level, Pengo, the enemies on the board, the resting and moving blocks, and which blocks hold an
  egg *while the eggs flash* (the only time they are on screen). Bots (rules/versus/bots.py) read
  this, never the live `KickGame`: nothing a bot does can change a match, and it cannot see the
  random stream, a slot's mode or timers, or hidden eggs.
- `frame_actors` and `keyframe_view` are the stream's per-frame positions and keyframe boards, in
  arcade pixels (16 to a cell). A frame record carries, per seat, only what moves:
  `[player, enemies, sliding blocks]` with `player = [px, py, facing, action]`, each enemy
  `[id, px, py, phase, facing]` (enemies not on the board are left out) and each sliding block
  `[id, px, py]`. protocol/README.md documents both layouts for clients.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from rules.kick.actors import BLINKING, GONE, HATCH_NEXT, P_DYING, P_WALK, PHASE_OF_STATE, PLAYER_ACTION
from rules.kick.board import Block, KickBoard
from rules.kick.game import KickGame
from rules.kick.geometry import Direction

if TYPE_CHECKING:
    from .match import VersusMatch
    from .seat import SeatState

#: Slot states with nothing on the board to show.
_HIDDEN = (GONE, HATCH_NEXT)


class PlayerView(NamedTuple):
    """Pengo as seen: where, facing, whether he can walk now (in play, not pushing, breaking,
    shaking or dying), whether he is between cells, and whether he is dead."""

    px: int
    py: int
    facing: Direction
    walking: bool
    moving: bool
    dead: bool


class EnemyView(NamedTuple):
    """An enemy on the board: its id, position, visible phase (rules.kick.actors.PHASE_OF_STATE's
    names: pause, moving, stunned, hatching, …), whether it blinks (a stun about to end) and facing."""

    id: str
    px: int
    py: int
    phase: str
    blinking: bool
    facing: Direction


class BlockView(NamedTuple):
    """A block as seen: id, cell, pixel position, material, whether its material slides when kicked,
    whether it is shattering, and whether it is sliding."""

    id: int
    cx: int
    cy: int
    px: int
    py: int
    material: str
    slides: bool
    breaking: bool
    moving: bool


class BoardView:
    """The blocks of one board, read-only: every read builds immutable values from the live board (the
    board of the level in play: a new level brings a new board)."""

    __slots__ = ("_game",)

    def __init__(self, game: KickGame) -> None:
        self._game = game

    @property
    def _board(self) -> KickBoard:
        return self._game.board

    @property
    def cols(self) -> int:
        """Columns."""
        return self._board.cols

    @property
    def rows(self) -> int:
        """Rows."""
        return self._board.rows

    def inside(self, x: int, y: int) -> bool:
        """Is the cell on the board?"""
        return self._board.inside(x, y)

    def tile_free(self, x: int, y: int) -> bool:
        """Is the cell on the board and free of blocks?"""
        return self._board.tile_free(x, y)

    def occupancy(self) -> tuple[int, ...]:
        """Row by row, the id of the block in each cell (0 for a free cell)."""
        return tuple(self._board.grid)

    def _view(self, block: Block) -> BlockView:
        return BlockView(
            block.id,
            block.cx,
            block.cy,
            block.px,
            block.py,
            block.material,
            self._game.materials[block.material].slides,
            block.breaking is not None,
            block.motion is not None,
        )

    def block_at(self, x: int, y: int) -> BlockView | None:
        """The block in a cell, or None."""
        block = self._board.block_at(x, y)
        return None if block is None else self._view(block)

    def block(self, block_id: int) -> BlockView | None:
        """A block by id, or None once it is gone."""
        block = self._board.blocks.get(block_id)
        return None if block is None else self._view(block)

    def blocks(self) -> tuple[BlockView, ...]:
        """Every block, in the board's order."""
        view = self._view
        return tuple(view(block) for block in self._board.blocks.values())


class SeatView:
    """What the player of one seat sees of its board (see the module docstring)."""

    __slots__ = ("_game", "board")

    def __init__(self, game: KickGame) -> None:
        self._game = game
        self.board = BoardView(game)

    @property
    def status(self) -> str:
        """The board's status: ready, playing, dying, clear, bonus, lost, …"""
        return self._game.status

    @property
    def level(self) -> int:
        """The level (round) being played, from 1."""
        return self._game.level

    @property
    def eggs_flashing(self) -> bool:
        """Do the egg blocks show their eggs now (the flash at a round's start and its last enemies)?"""
        game = self._game
        return game.clock < game.flash_until

    def egg_blocks(self) -> tuple[int, ...]:
        """The ids of the blocks that show an egg: every egg block while the eggs flash, else none."""
        if not self.eggs_flashing:
            return ()
        return tuple(block.id for block in self._game.board.blocks.values() if block.egg is not None)

    @property
    def player(self) -> PlayerView:
        """Pengo."""
        game = self._game
        player = game.player
        walking = game.status == "playing" and not player.dead and player.state == P_WALK
        return PlayerView(player.px, player.py, player.facing, walking, player.moving, player.dead)

    def enemies(self) -> tuple[EnemyView, ...]:
        """The enemies on the board, in slot order."""
        return tuple(
            EnemyView(enemy.id, enemy.px, enemy.py, PHASE_OF_STATE[enemy.state], enemy.state == BLINKING,
                      enemy.dir)
            for enemy in self._game.slots
            if enemy.state not in _HIDDEN
        )


# ---- the stream ------------------------------------------------------------------------------------------


def _player(game: KickGame) -> list[Any]:
    player = game.player
    action = "dying" if player.dead or player.state == P_DYING else PLAYER_ACTION[player.state]
    return [player.px, player.py, player.facing, action]


def _enemies(game: KickGame) -> list[list[Any]]:
    return [
        [enemy.id, enemy.px, enemy.py, PHASE_OF_STATE[enemy.state], enemy.dir]
        for enemy in game.slots
        if enemy.state not in _HIDDEN
    ]


def seat_actors(game: KickGame) -> list[Any]:
    """One seat's moving things: the player, the enemies on the board, the sliding blocks."""
    sliding = [[block.id, block.px, block.py] for block in game.board.sliding_blocks]
    return [_player(game), _enemies(game), sliding]


def frame_actors(match: VersusMatch) -> list[Any]:
    """Every seat's actors, in seat order."""
    return [seat_actors(game) for game in match.games]


def seat_keyframe(seat: SeatState, name: str) -> dict[str, Any]:
    """One seat's board in a keyframe: blocks and actors, score, lives, pending attacks, gems."""
    game = seat.game
    board = game.board
    return {
        "name": name,
        "alive": seat.alive,
        "forfeited": seat.forfeited,
        "status": game.status,
        "level": game.level,
        "score": game.score,
        "lives": game.lives,
        "cols": board.cols,
        "rows": board.rows,
        "blocks": [[b.id, b.cx, b.cy, b.material, b.px, b.py] for b in board.blocks.values()],
        "player": _player(game),
        "enemies": _enemies(game),
        "pending": [list(packet) for packet in seat.pending],
        "gems": [list(gem) for gem in seat.gems],
    }


def keyframe_view(match: VersusMatch) -> dict[str, Any]:
    """The whole visible state: each board's blocks and actors, score, lives, pending attacks, gems."""
    return {
        "frame": match.frame,
        "time_left": max(0, match.rules.time_limit_frames - match.frame),
        "seats": [seat_keyframe(seat, match.names[seat.index]) for seat in match.seat_states],
    }
