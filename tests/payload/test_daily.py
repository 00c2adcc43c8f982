"""The daily: the day's seed and variant from the date key, streaks, the share text."""

from __future__ import annotations

import pytest

from rules.payload.daily import (
    DailyRecord,
    Streak,
    daily_configs,
    daily_seed,
    daily_variant,
    day_number,
    seed_variant,
    share_text,
    update_streak,
)
from rules.payload.rng import fnv1a32
from rules.payload.ruleset import PAYLOAD, PAYLOAD_VERSUS
from rules.payload.run import start_run


def record(date: str, won: bool, cleared: int = 4, score: int = 300) -> DailyRecord:
    """A day's Easy record."""
    return DailyRecord(date, "easy", "standard", won, cleared, score, "0" * 64)


def test_the_day_deals_the_same_everywhere_and_differs_by_difficulty() -> None:
    """The day's seed is FNV-1a of its date key; Easy and Hard of one day deal differently."""
    assert daily_seed("2026-12-03") == fnv1a32("2026-12-03")
    easy, _ = start_run("easy", daily_seed("2026-12-03"), daily_variant("2026-12-03"))
    again, _ = start_run("easy", daily_seed("2026-12-03"), daily_variant("2026-12-03"))
    hard, _ = start_run("hard", daily_seed("2026-12-03"), daily_variant("2026-12-03"))
    assert easy == again and easy.deal != hard.deal
    variants = {daily_variant(f"2026-01-{day:02d}") for day in range(1, 29)}
    assert len(variants) >= 3


def test_the_servers_daily_is_dealt_from_any_seed_it_is_given() -> None:
    """The generator takes a seed, not a date: the practice daily's variant is `seed_variant` of the date
    key's seed; the server's boards (`daily_boards`, from floe's HMAC day seed) are one per difficulty
    with that seed's variant; versus deals no daily."""
    assert daily_variant("2026-12-03") == seed_variant(daily_seed("2026-12-03"))
    hmac_seed = 0x5EED1234
    boards = PAYLOAD.daily_boards(hmac_seed)
    assert boards == {str(key): config for key, config in daily_configs(hmac_seed).items()}
    assert [(name, config.difficulty, config.variant) for name, config in boards.items()] == [
        ("easy", "easy", seed_variant(hmac_seed)), ("hard", "hard", seed_variant(hmac_seed))]
    assert PAYLOAD_VERSUS.daily_boards(hmac_seed) == {}


def test_day_numbers() -> None:
    """Days since 1970-01-01, across leap days; a bad key is refused."""
    assert [day_number(d) for d in ("1970-01-01", "2000-02-29", "2000-03-01", "2026-12-03")] == [
        0, 11016, 11017, 20790]
    with pytest.raises(ValueError):
        day_number("2026-02-30")


def test_streaks() -> None:
    """Consecutive wins extend the streak, a gap restarts it, a loss ends it, a replayed day is ignored."""
    streak = Streak()
    for day in ("2026-12-01", "2026-12-02", "2026-12-03"):
        streak = update_streak(streak, record(day, True))
    assert (streak.current, streak.best) == (3, 3)
    assert update_streak(streak, record("2026-12-03", False)) == streak
    streak = update_streak(streak, record("2026-12-05", True))
    assert (streak.current, streak.best) == (1, 3)
    streak = update_streak(streak, record("2026-12-06", False))
    assert (streak.current, streak.best, streak.last_date) == (0, 3, "2026-12-06")


def test_share_text() -> None:
    """A square per round, the score and the streak, nothing of the board."""
    lost = record("2026-12-03", False, cleared=2, score=150)
    text = share_text(lost, Streak(0, 4, "2026-12-03"))
    assert text == "Payload 2026-12-03 · Easy · Standard\n🟩🟩🟥⬛ 2/4 · 150\nstreak 0 (best 4)"
    assert "🟩🟩🟩🟩 4/4 · 1,200" in share_text(record("2026-12-03", True, score=1200), Streak(1, 1))
