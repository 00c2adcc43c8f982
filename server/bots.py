"""Server-side bots for "play a bot": the rules' bots when they load, else a seeded random stand-in.

`rules/versus/bots.py` is imported lazily, on the first bot, so a server whose rules lack it (or
whose bots module is broken) still serves every other match; the stand-in wanders and kicks.
"""

from __future__ import annotations

import importlib
import logging
from typing import Protocol

from rules.kick.game import KickGame
from rules.kick.geometry import DIRECTIONS
from rules.kick.rng import KickRandom
from rules.versus.inputs import encode_input

from .logs import log_event

log = logging.getLogger("floe.bots")

#: The bots a client may ask for.
BOT_NAMES = ("competent", "lazy")


class SeatBot(Protocol):
    """Plays one seat: called once before every frame with that seat's board."""

    def decide(self, game: KickGame, frame: int) -> int:
        """The input byte for this frame."""
        ...


class RandomBot:
    """The stand-in: holds a random direction for a random while, kicks now and then, all seeded."""

    def __init__(self, seed: int) -> None:
        self.rng = KickRandom((seed & 0xFFFF) | 1)
        self.value = 0
        self.until = 0

    def decide(self, game: KickGame, frame: int) -> int:
        """Keep the held direction until its time is up; press kick one frame in twenty-five or so."""
        if frame >= self.until:
            choice = self.rng.below(len(DIRECTIONS) + 1)
            self.value = encode_input(DIRECTIONS[choice] if choice < len(DIRECTIONS) else None)
            self.until = frame + 20 + self.rng.below(60)
        return self.value | (0x08 if self.rng.chance(25) else 0)


def make_seat_bot(name: str, seed: int) -> SeatBot:
    """The bot called `name` ("competent" or "lazy"), or the random stand-in if the rules have none."""
    if name not in BOT_NAMES:
        raise ValueError(f"unknown bot {name!r}; one of {BOT_NAMES}")
    try:
        module = importlib.import_module("rules.versus.bots")
        bot: SeatBot = module.make_bot(name, seed)
        return bot
    except Exception as error:  # noqa: BLE001 - any failure to load the bots falls back, logged
        log_event(log, logging.WARNING, "bots.fallback", bot=name, error=f"{type(error).__name__}: {error}")
        return RandomBot(seed)
