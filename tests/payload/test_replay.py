"""Payload's matches go through floe's replays unchanged: recorded, read back from plain data and
re-verified by rules/replay.py (rules/registry.py registers both rulesets)."""

from __future__ import annotations

from dataclasses import replace

from rules import registry
from rules.payload.daily import DailyRecord, Streak, daily_seed, daily_variant, share_text, update_streak
from rules.payload.match import PayloadConfig
from rules.payload.ruleset import PAYLOAD, PAYLOAD_VERSUS
from rules.replay import Replay, input_rows, record, verify
from tests.payload.play import bot_rows


def test_both_payload_rulesets_are_registered() -> None:
    """rules/registry.py finds `payload` and `payload-versus` by name and version, and as the newest."""
    assert registry.lookup("payload", 1) is PAYLOAD
    assert registry.lookup("payload-versus", 1) is PAYLOAD_VERSUS
    assert registry.newest("payload-versus") is PAYLOAD_VERSUS


def test_a_solo_run_and_a_versus_match_verify_from_their_replays() -> None:
    """record → plain → from_plain → verify reproduces the end frame, result and log hash; the move
    lists rebuild exactly the bytes the bots sent."""
    for ruleset, bots in ((PAYLOAD, ("competent",)), (PAYLOAD_VERSUS, ("competent", "lazy"))):
        match, rows = bot_rows(ruleset, "easy", 606, bots)
        replay = Replay.from_plain(record(match, ruleset).to_plain())
        assert list(input_rows(replay)) == rows
        verdict = verify(replay)
        assert verdict.ok, verdict.reason
        assert verdict.log_hash == match.log_hash


def test_a_tampered_replay_fails() -> None:
    """One changed move (another column) changes the log: the verdict says so."""
    match, _ = bot_rows(PAYLOAD, "easy", 606, ("competent",))
    replay = record(match, PAYLOAD)
    moves = list(replay.moves[0])
    index = next(i for i, (_, value) in enumerate(moves) if 0x18 <= value < 0x1D)
    frame, value = moves[index]
    moves[index] = (frame, 0x18 + (value - 0x18 + 1) % 5)
    verdict = verify(replace(replay, moves=(tuple(moves),)))
    assert not verdict.ok


def test_a_daily_run_is_a_verified_replay_with_a_record() -> None:
    """The day's run (its seed and variant from the date key) is recorded for its player (layout 2),
    verifies, and makes the day's record, streak and share text."""
    date = "2026-12-03"
    config = PayloadConfig(difficulty="easy", variant=daily_variant(date))
    match = PAYLOAD.new_match(config, daily_seed(date), ["ada"])
    bot = PAYLOAD.make_bot("competent", 1)
    while match.result is None:
        match.step([bot.decide(match.seat_view(0), match.frame)])
    replay = Replay.from_plain(record(match, PAYLOAD, player="ada").to_plain())
    assert replay.player == "ada" and verify(replay).ok
    run = match.runs[0]
    day = DailyRecord(date, "easy", config.variant, run.won, run.rounds_cleared, run.total_score,
                      match.log_hash)
    streak = update_streak(Streak(), day)
    assert streak.current == (1 if run.won else 0)
    assert share_text(day, streak).startswith(f"Payload {date} · Easy · ")
