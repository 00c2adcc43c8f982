"""The lazy bot: wanders and kicks at random, the floor every other bot must beat."""

from __future__ import annotations

from rules.kick.geometry import CELL_PX, DIRECTIONS, STEP, Direction

from ..inputs import NEUTRAL
from ..view import SeatView
from .seeing import BYTES, PRESS_GAP, bot_random

__all__ = ["LazyBot"]


class LazyBot:
    """Wanders: holds a random direction for 0.5–2 s (or until blocked), kicks at random now and then."""

    def __init__(self, seed: int) -> None:
        self.rng = bot_random(seed, 0x1A)
        self.held: Direction | None = None
        self.until = 0
        self.last_press = -PRESS_GAP

    def decide(self, view: SeatView, frame: int) -> int:
        """Keep wandering; maybe kick."""
        if view.status != "playing":
            return NEUTRAL
        rng = self.rng
        blocked = False
        if self.held is not None:
            player = view.player
            if player.walking and player.px % CELL_PX == 0 and player.py % CELL_PX == 0:
                step = STEP[self.held]
                cx, cy = player.px // CELL_PX, player.py // CELL_PX
                blocked = not view.board.tile_free(cx + step.x, cy + step.y)
        if frame >= self.until or (blocked and rng.chance(4)):
            choice = rng.below(6)
            self.held = None if choice >= 4 else DIRECTIONS[choice]
            self.until = frame + 30 + rng.below(91)
        kick = False
        if frame - self.last_press >= PRESS_GAP and rng.chance(40):
            kick = True
            self.last_press = frame
        return BYTES[(self.held, kick)]
