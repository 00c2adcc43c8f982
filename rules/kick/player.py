"""The player between steps: the kick and the border shake, the start of a life and the respawn.

`PlayerRules` acts on the session's record (`KickGame`) when the player does more than walk: the fire
button at a cell centre ($3F85) and what the kick does ($41D9), placing him for a life, and where he
comes back after a death ($0D66). His pixel steps stay with the pass scheduler in `game.py`.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from .actors import NEVER, P_BREAK, P_PUSH, P_READY, P_SHAKE
from .events import Kick, KickEvent, Shake
from .geometry import CELL_PX, STEP, Cell
from .tables import (
    BREAK_POSE_T32,
    PENGO_RESPAWN,
    PLAYER_READY_SECONDS,
    PUSH_POSE_WRAPS,
    READY_WRAPS,
    SHAKE_STUN_AT_T32,
    T32,
)
from .timers import due_after, passes_for_seconds, ticks_due, wraps_due

if TYPE_CHECKING:
    from .enemies import EnemyRules
    from .game import KickGame


class PlayerRules:
    """The kick, the shake, the start of a life and the respawn."""

    def __init__(self, game: KickGame, events: list[KickEvent], enemies: EnemyRules) -> None:
        self._game = game
        self._events = events
        self._enemies = enemies

    # ---- a life ----------------------------------------------------------------------------------

    def place(self) -> None:
        """On the start cell, facing down."""
        game = self._game
        player = game.player
        player.px, player.py = game.start_cell.x * CELL_PX, game.start_cell.y * CELL_PX
        player.facing = "down"
        player.jump += 1

    def ready(self) -> None:
        """A life's play starts: placed, and free to move after 2 wraps ($3D90)."""
        game = self._game
        player = game.player
        if player.state == P_READY and player.due == NEVER:
            self.place()
            now = game.now
            if game.arcade:
                player.due = wraps_due(now, READY_WRAPS)
            else:
                player.due = now + passes_for_seconds(PLAYER_READY_SECONDS)

    def respawn(self) -> Cell:
        """Back for the next life on the respawn cell, the ice under it erased ($09B0); returns the cell."""
        game = self._game
        player = game.player
        player.dead = False
        player.state = P_READY
        player.due = NEVER
        player.moving = False
        player.shake_tests = []
        board = game.board
        chosen = self._respawn_cell()
        block = board.block_at(chosen.x, chosen.y)
        if block is not None and game.materials[block.material].breaks_when_blocked:
            board.remove(block.id)
        game.start_cell = chosen
        return chosen

    def _respawn_cell(self) -> Cell:
        """The respawn table's first cell without an egg or a special block ($0D66); on authored maps,
        the map's start cell or the free cell nearest to it."""
        game = self._game
        board = game.board
        config = game.config
        if config.player.respawn is not None or config.generator is not None:
            candidates = config.player.respawn or tuple(Cell(x, y) for x, y in PENGO_RESPAWN)
            for cell in candidates:
                if not board.inside(cell.x, cell.y):
                    continue
                block = board.block_at(cell.x, cell.y)
                if block is not None and (
                    block.egg is not None
                    or block.breaking is not None
                    or not game.materials[block.material].breaks_when_blocked
                ):
                    continue
                return Cell(cell.x, cell.y)
            return game.start_cell
        start = game.frame.start
        seen = {start}
        frontier = deque([start])
        while frontier:
            cell = frontier.popleft()
            if board.free(cell.x, cell.y):
                return cell
            for step in STEP.values():
                nxt = Cell(cell.x + step.x, cell.y + step.y)
                if board.inside(nxt.x, nxt.y) and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        return start

    # ---- the kick --------------------------------------------------------------------------------

    def _busy(self) -> bool:
        """A block the player kicked is still sliding (one slide at a time)."""
        return self._game.config.one_slide and any(
            b.motion is not None and b.motion.by == "player" for b in self._game.board.sliding_blocks
        )

    def resolve_kick(self) -> bool:
        """The fire button at a centre ($3F85) and the kick's resolution ($41D9). True: Pengo is busy."""
        if self._busy():
            return False  # $3F92: swallowed while the block is busy
        game = self._game
        player = game.player
        board = game.board
        facing = player.facing
        step = STEP[facing]
        nx, ny = player.px // CELL_PX + step.x, player.py // CELL_PX + step.y
        at = Cell(nx, ny)
        now = game.now
        if not board.inside(nx, ny):
            self._events.append(Kick(at, facing, "border"))
            shake_seconds = game.config.wall_shake_seconds
            if shake_seconds is None:
                return False
            self._events.append(Shake(facing))
            player.state = P_SHAKE
            player.shake_side = facing
            if game.arcade:
                player.due = ticks_due(now, T32, BREAK_POSE_T32)
                player.shake_tests = [ticks_due(now, T32, n) for n in SHAKE_STUN_AT_T32]
            else:
                player.due = now + passes_for_seconds(shake_seconds)
                player.shake_tests = [now + 1]
            return True
        block = board.block_at(nx, ny)
        if block is None or block.breaking is not None:
            self._events.append(Kick(at, facing, "empty" if block is None else "busy"))
            return False
        egg = block.egg
        result = board.push(nx, ny, facing, "player")
        self._events.append(Kick(at, facing, result.kind))
        if result.kind == "slide":
            self._enemies.slide_started(facing)
            game.hits[block.id] = 0
            player.state = P_PUSH
            pose = wraps_due(now, PUSH_POSE_WRAPS)
            player.due = due_after(game.arcade, now, pose, game.config.player.push_seconds)
            return True
        if result.kind == "break" and egg is not None:
            self._enemies.egg_destroyed(block)
        player.state = P_BREAK
        pose = ticks_due(now, T32, BREAK_POSE_T32)
        player.due = due_after(game.arcade, now, pose, game.config.player.break_seconds)
        return True

    def shake_test(self) -> None:
        """One of the shake's stun tests is due ($40BC)."""
        player = self._game.player
        player.shake_tests.pop(0)
        self._enemies.shake_stun(player.shake_side)
