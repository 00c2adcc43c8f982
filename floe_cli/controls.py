"""Keys to game input, shared by the terminal game and its scripted (non-interactive) mode.

A direction key holds that direction until another direction key, or until `hold` seconds pass without
the key being pressed again (terminals send repeats while a key is held down); kick is a press.
"""

from __future__ import annotations

from rules.kick.geometry import DIRECTIONS, Direction

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
