"""pengo-solo as a `Ruleset` (rules/ruleset.py): one seat, its config as plain data, the versus bots.

`PENGO_SOLO` is registered under ("pengo-solo", 1) by rules/registry.py. Its config is four
integers and a difficulty, written field by field and read back strictly (every field, no other,
bounded; the board must be makeable). It plays versus's input byte and bots (rules/versus/bots/
read a `SeatView`, which a run shows the same way).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rules.kick import tables as kick_tables
from rules.plain import check_int, check_map, check_str, exact_keys
from rules.versus.bots import BOT_NAMES, Bot, make_bot
from rules.versus.inputs import INPUTS, PengoInputs
from rules.versus.tables import FRAME_HZ
from rules.versus.view import SeatView

from .match import SOLO_TABLES, SoloConfig, SoloEnd, SoloMatch

__all__ = ["PENGO_SOLO", "SoloRuleset"]

#: The longest run a config may ask for: 30 minutes of frames.
MAX_TIME_LIMIT = 30 * 60 * 60
_FIELDS = ("time_limit_frames", "lives", "skill", "difficulty")


class SoloRuleset:
    """pengo-solo: one Pengo board until game over or the time limit (rules/solo/match.py)."""

    name = "pengo-solo"
    version = 1
    min_seats = 1
    max_seats = 1
    inputs: PengoInputs = INPUTS
    bot_names = BOT_NAMES
    end_reasons: tuple[str, ...] = tuple(reason.value for reason in SoloEnd)
    frame_hz = FRAME_HZ

    @property
    def rule_tables(self) -> tuple[tuple[str, Any], ...]:
        """The run's settings (SoloConfig) and Pengo's numbers (rules/kick/tables.py)."""
        return (("Run settings (SoloConfig)", self.default_config()),
                ("Pengo (rules/kick/tables.py)", kick_tables))

    @property
    def stream_tables(self) -> dict[str, Any]:
        """The stream's words and layouts: pengo-versus's, with the run's events (rules/solo/match.py)."""
        return SOLO_TABLES

    def default_config(self) -> SoloConfig:
        """Ten minutes, three lives, skill 1, the arcade difficulty."""
        return SoloConfig()

    def config_plain(self, config: SoloConfig) -> dict[str, Any]:
        """The config as plain data."""
        return {
            "time_limit_frames": config.time_limit_frames,
            "lives": config.lives,
            "skill": config.skill,
            "difficulty": config.difficulty,
        }

    def config_from_plain(self, data: object) -> SoloConfig:
        """Rebuild a config strictly; ValueError names the first bad field."""
        mapping = check_map("config", data)
        exact_keys("config", mapping, _FIELDS)
        config = SoloConfig(
            time_limit_frames=check_int(
                "config.time_limit_frames", mapping["time_limit_frames"], 1, MAX_TIME_LIMIT
            ),
            lives=check_int("config.lives", mapping["lives"], 1, 99),
            skill=check_int("config.skill", mapping["skill"], 0, 99),
            difficulty=check_str("config.difficulty", mapping["difficulty"]),  # type: ignore[arg-type]
        )
        try:
            config.board_config(0)
        except ValueError as error:
            raise ValueError(f"config: {error}") from None
        return config

    def with_time_limit(self, config: SoloConfig, frames: int) -> SoloConfig:
        """The same config ending at frame `frames` at the latest."""
        return replace(config, time_limit_frames=frames)

    def new_match(self, config: SoloConfig, seed: int, seats: Sequence[str]) -> SoloMatch:
        """A fresh run."""
        return SoloMatch(config, seed, seats)

    def make_bot(self, name: str, seed: int) -> Bot[SeatView]:
        """A versus bot (they read one seat's view)."""
        return make_bot(name, seed)

    def __repr__(self) -> str:
        return f"<Ruleset {self.name} v{self.version}>"


#: The daily challenge's ruleset.
PENGO_SOLO = SoloRuleset()
