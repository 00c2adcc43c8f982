"""The daily: one run per UTC day per difficulty, its record, streaks and the share text.

The day's seed is FNV-1a of its UTC date key (`rng.date_seed`; the caller's clock says which day it
is, never this module), the deal is salted with the difficulty (`rng.deal_seed`), and the variant is
mulberry32's first draw from the day's seed. That seed is predictable, so scouting a day in advance
is possible; whether the server mixes in a secret revealed after the day (floe's HMAC day seed, in
place of the date key's hash) is the server's choice — `daily_seed` is the one place it would change.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .content import DIFFICULTIES, VARIANTS
from .rng import Mulberry32, date_seed, is_date_key
from .types import DifficultyKey, VariantKey


def daily_seed(date_key: str) -> int:
    """The run seed of a UTC day (FNV-1a of the date key)."""
    return date_seed(date_key)


def daily_variant(date_key: str) -> VariantKey:
    """The day's variant: mulberry32's first draw from the day's seed, over VARIANTS in table order."""
    keys = tuple(VARIANTS)
    return keys[Mulberry32(daily_seed(date_key)).below(len(keys))]


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
