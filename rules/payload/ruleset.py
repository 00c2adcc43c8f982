"""Payload as `Ruleset`s (rules/ruleset.py): `payload` (a solo run, 1 seat) and `payload-versus`
(2 seats on shared deals), both registered by rules/registry.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rules.plain import check_int, check_map, check_str, exact_keys

from .bots import BOT_NAMES, SeatBot, make_bot
from .content import DIFFICULTIES, PARTS, VARIANTS, N, compendium
from .daily import daily_configs
from .exchange import ExchangeRules
from .inputs import INPUTS, PayloadInputs
from .match import PAYLOAD_TIME_LIMIT, SUMMARY_FIELDS, PayloadConfig, PayloadMatch

__all__ = ["PAYLOAD", "PAYLOAD_VERSUS", "PayloadRuleset"]

#: Frames a second: a move takes frames (inputs.py), a time limit is counted in them.
FRAME_HZ = 60
#: The longest match a config may ask for: 2 hours of frames.
MAX_TIME_LIMIT = 2 * 60 * 60 * FRAME_HZ
_FIELDS = ("difficulty", "variant", "time_limit_frames", "margin_percent", "queue_cap")
SOLO_END_REASONS = ("cleared", "missed", "forfeit", "time")
VERSUS_END_REASONS = ("finished", "out", "forfeit", "time")


class PayloadRuleset:
    """Payload, solo or versus (the seat count is the ruleset's)."""

    version = 1
    inputs: PayloadInputs = INPUTS
    bot_names = BOT_NAMES
    frame_hz = FRAME_HZ

    def __init__(self, name: str, seats: int) -> None:
        self.name = name
        self.min_seats = seats
        self.max_seats = seats
        self.end_reasons: tuple[str, ...] = SOLO_END_REASONS if seats == 1 else VERSUS_END_REASONS

    @property
    def stream_tables(self) -> dict[str, Any]:
        """What a client needs to read the stream: the summary's fields, the part codes, the compendium."""
        return {"summary": list(SUMMARY_FIELDS), "parts": list(PARTS), "compendium": compendium(),
                "cell_px": 16}

    @property
    def rule_tables(self) -> tuple[tuple[str, Any], ...]:
        """The parts (from PARTS, as the compendium), the difficulties' rounds, every part's number, and
        versus's exchange."""
        parts = tuple((f"{row['glyph']} {row['name']}", row["badge"], f"{row['rule']} ({row['role']})")
                      for row in compendium())
        rounds = tuple(
            (spec.name, f"{len(spec.rounds)} rounds",
             "quotas " + "/".join(str(r.quota) for r in spec.rounds)
             + "; drops " + "/".join(str(r.drops) for r in spec.rounds))
            for spec in DIFFICULTIES.values())
        tables: tuple[tuple[str, Any], ...] = (
            ("Parts (PARTS)", parts), ("Difficulties (DIFFICULTIES)", rounds),
            ("Part numbers (PartNumbers)", N))
        if self.max_seats > 1:
            tables += (("Versus exchange (ExchangeRules)", self.default_config().exchange),)
        return tables

    def default_config(self) -> PayloadConfig:
        """Easy, the standard variant, 30 minutes."""
        return PayloadConfig()

    def config_plain(self, config: PayloadConfig) -> dict[str, Any]:
        """The config as plain data."""
        return {"difficulty": config.difficulty, "variant": config.variant,
                "time_limit_frames": config.time_limit_frames,
                "margin_percent": config.exchange.margin_percent, "queue_cap": config.exchange.queue_cap}

    def config_from_plain(self, data: object) -> PayloadConfig:
        """Rebuild a config strictly; ValueError names the first bad field."""
        mapping = check_map("config", data)
        exact_keys("config", mapping, _FIELDS)
        difficulty = check_str("config.difficulty", mapping["difficulty"])
        if difficulty not in DIFFICULTIES:
            raise ValueError(f"config.difficulty: expected one of {tuple(DIFFICULTIES)}, got {difficulty!r}")
        variant = check_str("config.variant", mapping["variant"])
        if variant not in VARIANTS:
            raise ValueError(f"config.variant: expected one of {tuple(VARIANTS)}, got {variant!r}")
        return PayloadConfig(
            difficulty=difficulty,  # type: ignore[arg-type]
            variant=variant,  # type: ignore[arg-type]
            time_limit_frames=check_int("config.time_limit_frames", mapping["time_limit_frames"], 1,
                                        MAX_TIME_LIMIT),
            exchange=ExchangeRules(
                margin_percent=check_int("config.margin_percent", mapping["margin_percent"], 1, 1000),
                queue_cap=check_int("config.queue_cap", mapping["queue_cap"], 0, 64),
            ),
        )

    def with_time_limit(self, config: PayloadConfig, frames: int) -> PayloadConfig:
        """The same config ending at frame `frames` at the latest."""
        return replace(config, time_limit_frames=frames)

    def new_match(self, config: PayloadConfig, seed: int, seats: Sequence[str]) -> PayloadMatch:
        """A fresh match."""
        if len(seats) != self.min_seats:
            raise ValueError(f"seats: {self.name} has {self.min_seats} seat(s), got {len(seats)}")
        return PayloadMatch(config, seed, seats)

    def make_bot(self, name: str, seed: int) -> SeatBot:
        """A bot by name."""
        return make_bot(name, seed)

    def daily_boards(self, seed: int) -> dict[str, PayloadConfig]:
        """The day's runs from the day's seed (rules/ruleset.py `DailyBoards`): one per difficulty, the
        seed's variant (daily.py `daily_configs`); none for versus (a daily run has one seat)."""
        if self.max_seats != 1:
            return {}
        return {str(key): config for key, config in daily_configs(seed).items()}

    def __repr__(self) -> str:
        return f"<Ruleset {self.name} v{self.version}>"


#: A solo Payload run.
PAYLOAD = PayloadRuleset("payload", 1)
#: Payload versus: two runs on shared deals, surplus sent as jams and nuisance parts.
PAYLOAD_VERSUS = PayloadRuleset("payload-versus", 2)
assert PAYLOAD_TIME_LIMIT <= MAX_TIME_LIMIT
