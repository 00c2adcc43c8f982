"""Payload's matches go through floe's replays unchanged: recorded, read back from plain data and
re-verified by rules/replay.py (the rulesets are registered only while these tests run: registering
them with the server is a later step)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from rules import registry
from rules.payload.ruleset import PAYLOAD, PAYLOAD_VERSUS
from rules.replay import Replay, input_rows, record, verify
from tests.payload.play import bot_rows


@pytest.fixture(autouse=True)
def payload_registered() -> Iterator[None]:
    """Both Payload rulesets are findable while a test runs, and forgotten after."""
    registry.register(PAYLOAD)
    registry.register(PAYLOAD_VERSUS)
    try:
        yield
    finally:
        registry.unregister(PAYLOAD)
        registry.unregister(PAYLOAD_VERSUS)


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
