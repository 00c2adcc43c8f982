"""Building a KickGame from command-line choices (preset, seed, level, skill)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from rules.kick.config import ConfigError
from rules.kick.game import KickGame
from rules.kick.presets import IceSlideOptions, PengoOptions, ice_slide_preset, pengo_preset
from rules.kick.tables import PENGO_ACTS

PRESETS: tuple[str, ...] = ("pengo", "ice-slide")


@dataclass(frozen=True)
class GameChoice:
    """What to play: None means the preset's own default."""

    preset: str = "pengo"
    seed: int | None = None
    level: int | None = None
    skill: int | None = None

    def resolved_seed(self) -> int:
        """The seed the game will use (the preset's default when none was given)."""
        if self.seed is not None:
            return self.seed
        return PengoOptions().seed if self.preset == "pengo" else IceSlideOptions().seed


def make_game(choice: GameChoice) -> KickGame:
    """A new KickGame for the choice; raises ValueError naming the option for a bad level or skill."""
    seed = choice.resolved_seed()
    level = 1 if choice.level is None else choice.level
    if choice.preset == "pengo":
        if isinstance(level, bool) or not 1 <= level <= PENGO_ACTS:
            raise ValueError(f"--level: pengo's levels are its acts, 1 to {PENGO_ACTS}; got {level}")
        try:
            return KickGame(pengo_preset(PengoOptions(seed=seed, level=level, skill=choice.skill)))
        except ConfigError as error:
            raise ValueError(f"--{error}") from None
    if choice.preset == "ice-slide":
        if choice.skill is not None:
            raise ValueError("--skill applies to the pengo preset only")
        try:
            return KickGame(ice_slide_preset(IceSlideOptions(seed=seed, level=level)))
        except ConfigError as error:
            raise ValueError(f"--{error}") from None
    raise ValueError(f"preset: expected one of {PRESETS}, got {choice.preset!r}")


#: Board seeds are 16-bit: Pengo's random generator ($2D7C) holds two bytes.
MAX_BOARD_SEED = 0xFFFF


def parse_seed(text: str) -> int:
    """A board seed from the command line: decimal or 0x-prefixed hex, 0 to 65535 (argparse type; its
    refusal is the whole message argparse prints)."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, decimal or 0x hex, got {text!r}") from None
    if not 0 <= value <= MAX_BOARD_SEED:
        raise argparse.ArgumentTypeError(
            f"board seeds are 16-bit: 0 to {MAX_BOARD_SEED} ({MAX_BOARD_SEED:#x}), got {text}")
    return value
