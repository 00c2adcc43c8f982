"""Building a KickGame from command-line choices (preset, seed, level, skill)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.kick.game import KickGame
from rules.kick.presets import IceSlideOptions, PengoOptions, ice_slide_preset, pengo_preset

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
    """A new KickGame for the choice; raises rules.kick.ConfigError for a bad level or skill."""
    seed = choice.resolved_seed()
    level = 1 if choice.level is None else choice.level
    if choice.preset == "pengo":
        return KickGame(pengo_preset(PengoOptions(seed=seed, level=level, skill=choice.skill)))
    if choice.preset == "ice-slide":
        if choice.skill is not None:
            raise ValueError("--skill applies to the pengo preset only")
        return KickGame(ice_slide_preset(IceSlideOptions(seed=seed, level=level)))
    raise ValueError(f"preset: expected one of {PRESETS}, got {choice.preset!r}")


def parse_seed(text: str) -> int:
    """A seed from the command line: decimal or 0x-prefixed hex (argparse type)."""
    return int(text, 0)
