"""The daily: one run per UTC day per difficulty, its record, streaks and the share text.

The generator takes a day's seed: the deal is salted with the difficulty (`rng.deal_seed`), and the
variant is mulberry32's first draw from the seed (`seed_variant`). Two sources of that seed:

- the offline practice daily (the browser's, unranked): FNV-1a of the UTC date key (`daily_seed`;
  the caller's clock says which day it is, never this module). Predictable, so a day can be scouted
  in advance: legal there, where nothing is ranked;
- the server's daily (ranked boards, server/http/daily.py): floe's HMAC day seed, an HMAC of the date
  under a key that is secret until the day is over and published then, in place of the date key's
  hash, so nobody can deal tomorrow's parts today (`daily_configs(seed)`, the ruleset's
  `daily_boards`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .content import DIFFICULTIES, VARIANTS
from .match import PAYLOAD_TIME_LIMIT, PayloadConfig
from .rng import Mulberry32, date_seed, is_date_key
from .types import DifficultyKey, VariantKey


def daily_seed(date_key: str) -> int:
    """The run seed of a UTC day (FNV-1a of the date key)."""
    return date_seed(date_key)


def seed_variant(seed: int) -> VariantKey:
    """A day's variant: mulberry32's first draw from the day's seed, over VARIANTS in table order."""
    keys = tuple(VARIANTS)
    return keys[Mulberry32(seed).below(len(keys))]


def daily_variant(date_key: str) -> VariantKey:
    """The practice daily's variant: `seed_variant` of the date key's seed."""
    return seed_variant(daily_seed(date_key))


def daily_configs(
    seed: int, time_limit_frames: int = PAYLOAD_TIME_LIMIT
) -> dict[DifficultyKey, PayloadConfig]:
    """The day's runs from its seed, one per difficulty (in DIFFICULTIES order): that difficulty, the
    seed's variant, the standard time limit."""
    variant = seed_variant(seed)
    return {key: PayloadConfig(difficulty=key, variant=variant, time_limit_frames=time_limit_frames)
            for key in DIFFICULTIES}


def day_number(date_key: str) -> int:
    """Days since 1970-01-01 of a UTC date key (the proleptic Gregorian calendar; no clock read)."""
    if not is_date_key(date_key):
        raise ValueError(f"date_key: expected a UTC date YYYY-MM-DD, got {date_key!r}")
    year, month, day = int(date_key[:4]), int(date_key[5:7]), int(date_key[8:])
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


@dataclass(frozen=True, slots=True)
class DailyRecord:
    """One day's run: what it was played with and what it came to (`log_hash` pins the replay)."""

    date_key: str
    difficulty: DifficultyKey
    variant: VariantKey
    won: bool
    rounds_cleared: int
    score: int
    log_hash: str


@dataclass(frozen=True, slots=True)
class Streak:
    """Consecutive days won (`current`), the best run of them, the last day played."""

    current: int = 0
    best: int = 0
    last_date: str | None = None


def update_streak(streak: Streak, record: DailyRecord) -> Streak:
    """The streak after a day's record: a win the day after the last day played extends it, a win
    after a gap starts it at 1, a loss ends it; a second record for a day already counted, or an older
    day, changes nothing."""
    if streak.last_date is not None and day_number(record.date_key) <= day_number(streak.last_date):
        return streak
    if not record.won:
        return replace(streak, current=0, last_date=record.date_key)
    follows = streak.last_date is not None and day_number(record.date_key) == day_number(streak.last_date) + 1
    current = streak.current + 1 if follows else 1
    return Streak(current, max(streak.best, current), record.date_key)


def share_text(record: DailyRecord, streak: Streak) -> str:
    """The text a player shares: the day, difficulty and variant, a square per round (🟩 cleared, 🟥
    the round missed, ⬛ not reached), the score and the streak. No board: nothing is spoiled."""
    rounds = len(DIFFICULTIES[record.difficulty].rounds)
    squares = "🟩" * record.rounds_cleared
    if not record.won:
        squares += "🟥" + "⬛" * (rounds - record.rounds_cleared - 1)
    difficulty = DIFFICULTIES[record.difficulty].name
    variant = VARIANTS[record.variant].name
    return (f"Payload {record.date_key} · {difficulty} · {variant}\n"
            f"{squares} {record.rounds_cleared}/{rounds} · {record.score:,}\n"
            f"streak {streak.current} (best {streak.best})")
