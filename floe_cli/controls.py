"""Keys to game input, for the terminal game (`CellKeys`) and its scripted mode (`KeyHold`).

A terminal tells key presses and, while a key is held down, its repeats (after the terminal's repeat
delay, a few hundred milliseconds), never a release. `CellKeys` makes of them what a player expects:
a tap walks one full cell, a held key (its repeats) keeps walking, and keys pressed while the board is
not in play (READY, a death) wait for it instead of vanishing. `KeyHold` is the simpler rule the
script mode uses: a direction stays held until `hold` seconds pass without a press.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.kick.actors import P_WALK
from rules.kick.geometry import CELL_PX, DIRECTIONS, Direction

if TYPE_CHECKING:
    from rules.kick.game import KickGame

#: How long a direction stays held after its last key press or repeat, in seconds.
HOLD_SECONDS = 0.25

#: Script letters: l r u d move, k kicks, `.` presses nothing; whitespace only separates.
SCRIPT_KEYS: dict[str, str | None] = {
    "l": "left", "r": "right", "u": "up", "d": "down", "k": "kick", ".": None,
}


class KeyHold:
    """The direction a player holds, given key presses at times in seconds."""

    def __init__(self, hold: float = HOLD_SECONDS) -> None:
        self.hold = hold
        self.direction: Direction | None = None
        self.pressed_at = 0.0

    def press(self, direction: Direction, now: float) -> None:
        """A direction key was pressed (or repeated) at `now`."""
        self.direction = direction
        self.pressed_at = now

    def release(self) -> None:
        """Let go at once."""
        self.direction = None

    def current(self, now: float) -> Direction | None:
        """The direction held at `now` (None once `hold` seconds passed without a press)."""
        if self.direction is not None and now - self.pressed_at > self.hold:
            self.direction = None
        return self.direction


class CellKeys:
    """Terminal keys as Pengo's input: one tap, one cell; a held key walks; keys wait out the READY."""

    def __init__(self, hold: float = HOLD_SECONDS) -> None:
        #: Seconds without a press after which a direction that moves nothing (a block ahead) is let go.
        self.hold = hold
        self.direction: Direction | None = None
        self.pressed_at = 0.0
        #: Presses of the held direction since Pengo last stood on a cell centre (repeats: it is held down).
        self.repeats = 0
        #: Where Pengo stood when the direction was taken or last renewed at a centre.
        self.origin: tuple[int, int] | None = None
        self.kick_pending = False

    def press(self, direction: Direction, now: float, at: tuple[int, int]) -> None:
        """A direction key was pressed (or repeated) at `now`, Pengo standing at pixel `at`."""
        if direction == self.direction:
            self.repeats += 1
        else:
            self.direction, self.repeats, self.origin = direction, 0, at
        self.pressed_at = now

    def kick(self) -> None:
        """The kick key: it kicks on the next frame in play."""
        self.kick_pending = True

    @property
    def waiting(self) -> bool:
        """Are keys waiting for play to begin?"""
        return self.kick_pending or self.direction is not None

    def apply(self, game: KickGame, now: float) -> None:
        """Tell `game` this frame's input."""
        player = game.player
        if game.status != "playing" or player.state != P_WALK:
            self.pressed_at = now  # nothing moves yet: the keys wait, and so does the hold
            return
        if self.kick_pending:
            self.kick_pending = False
            game.kick()
        if self.direction is not None:
            at = (player.px, player.py)
            centred = player.px % CELL_PX == 0 and player.py % CELL_PX == 0
            if centred and at != self.origin:
                if self.repeats == 0:
                    self.direction = None  # a tap: one cell, and he stops on it
                else:
                    self.origin, self.repeats = at, 0  # held down: on to the next cell
            elif not player.moving and now - self.pressed_at > self.hold:
                self.direction = None  # nothing moved (a block ahead) and the key is up
        game.control(self.direction)


#: Direction names to directions (typed).
DIRECTION_NAMED: dict[str, Direction] = {d: d for d in DIRECTIONS}


def parse_script(script: str) -> list[str | None]:
    """The actions of a key script such as "llll kk dd": a direction name, "kick" or None (no key)."""
    actions: list[str | None] = []
    for ch in script:
        if ch.isspace():
            continue
        key = ch.lower()
        if key not in SCRIPT_KEYS:
            raise ValueError(f"script: unknown key {ch!r}; use l r u d (move), k (kick), . (nothing)")
        actions.append(SCRIPT_KEYS[key])
    return actions
