"""The random bot: sees nothing, draws CPython's `random.Random(seed)` numbers (rules/versus/twister.py)."""

from __future__ import annotations

from rules.kick.geometry import DIRECTIONS

from ..inputs import KICK_BIT, NEUTRAL, encode_input
from ..twister import Twister

__all__ = ["RandomBot"]


class RandomBot:
    """Holds a random direction (or none) for a random while and taps kick at random; sees nothing.

    Its draws are CPython's `random.Random(seed)` ones (rules/versus/twister.py): it played the golden
    replay `duel-random-busy` with them.
    """

    def __init__(self, seed: int) -> None:
        self.rng = Twister(seed)
        self.held = NEUTRAL
        self.frames_left = 0

    def decide(self, view: object, frame: int) -> int:
        """The next input byte (the view is not looked at)."""
        rng = self.rng
        if self.frames_left <= 0:
            self.held = encode_input(rng.choice((None, *DIRECTIONS)))
            self.frames_left = 4 + rng.below(40)
        self.frames_left -= 1
        return self.held | (KICK_BIT if rng.below(12) == 0 else 0)
