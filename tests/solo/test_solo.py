"""pengo-solo: one board through the Ruleset seam: ends, results, replays that verify, strict config."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from rules.registry import lookup
from rules.replay import Replay, record, verify
from rules.ruleset import seat_seed
from rules.solo.match import SoloConfig, SoloMatch
from rules.solo.ruleset import PENGO_SOLO
from rules.synctest import run_synctest
from rules.versus.inputs import FORFEIT, encode_input


def bot_run(seed: int, config: SoloConfig | None = None, bot: str = "competent") -> SoloMatch:
    """A run played to its end by a versus bot."""
    match = PENGO_SOLO.new_match(config or SoloConfig(), seed, ["me"])
    player = PENGO_SOLO.make_bot(bot, seat_seed(seed, 0))
    while match.result is None:
        match.step([player.decide(match.seat_view(0), match.frame)])
    return match


def test_the_registry_finds_pengo_solo() -> None:
    """("pengo-solo", 1) is registered next to pengo-versus, one seat only."""
    ruleset = lookup("pengo-solo", 1)
    assert ruleset is PENGO_SOLO and ruleset.min_seats == ruleset.max_seats == 1
    with pytest.raises(ValueError, match="1 seat"):
        PENGO_SOLO.new_match(SoloConfig(), 1, ["a", "b"])


def test_a_run_ends_at_game_over_and_its_replay_verifies() -> None:
    """The lazy bot loses its lives well before ten minutes; the result is `lost` by game over with its
    score, and the recorded replay re-verifies."""
    match = bot_run(7, bot="lazy")
    result = match.result
    assert result is not None and result.reason == "game-over" and result.outcomes == ("lost",)
    assert result.winner is None and result.scores[0] == match.seat.game.score and match.frame < 36000
    verdict = verify(record(match, PENGO_SOLO))
    assert verdict.ok, verdict.reason


def test_the_time_limit_ends_a_run_as_won() -> None:
    """A run that still has lives at the time limit ends there, `won`, by time."""
    match = bot_run(3, SoloConfig(time_limit_frames=300, lives=5))
    assert match.result is not None and match.result.reason == "time" and match.result.outcomes == ("won",)
    assert match.frame == 300 and match.result.winner == 0


def test_a_forfeit_ends_a_run_at_once() -> None:
    """The forfeit byte ends the run as forfeited on that frame."""
    match = SoloMatch(SoloConfig(), 5, ["me"])
    match.step([encode_input("left")])
    match.step([FORFEIT])
    assert match.result is not None and match.result.reason == "forfeit" and match.result.frame == 2
    assert verify(record(match, PENGO_SOLO)).ok


def test_an_edited_run_does_not_verify() -> None:
    """A run whose moves were all played 7 frames later, or whose score was raised, fails with a reason."""
    replay = record(bot_run(11, SoloConfig(time_limit_frames=1200)), PENGO_SOLO)
    moves = tuple((frame + 7, value) for frame, value in replay.moves[0] if frame + 7 < replay.final_frame)
    shifted = verify(replace(replay, moves=(moves,)))
    assert not shifted.ok and "differs" in shifted.reason
    result = replay.result
    richer = replace(replay, result=type(result)(result.winner, result.outcomes, result.reason, result.frame,
                                                 (result.scores[0] + 1000,)))
    verdict = verify(richer)
    assert not verdict.ok and verdict.reason.startswith("result differs")


def test_snapshots_roll_back_exactly() -> None:
    """SyncTest: every frame restored from 8 frames back and re-stepped gives the same state and log."""
    rng = random.Random(4)
    inputs = [[rng.choice([0, 1, 2, 3, 4, 9, 10, 11, 12])] for _ in range(400)]
    report = run_synctest(lambda: SoloMatch(SoloConfig(), 99, ["me"]),
                          lambda m, row: m.records_plain(m.step(row)), inputs, rollback=8, check_outputs=True)
    assert report.frames == 400


def test_the_config_reads_back_strictly() -> None:
    """config_plain round-trips; a missing, extra or out-of-range field names itself."""
    plain = PENGO_SOLO.config_plain(SoloConfig())
    assert PENGO_SOLO.config_from_plain(plain) == SoloConfig()
    for bad, field in (({**plain, "extra": 1}, "extra"), ({**plain, "lives": 0}, "lives"),
                       ({k: v for k, v in plain.items() if k != "skill"}, "skill")):
        with pytest.raises(ValueError, match=field):
            PENGO_SOLO.config_from_plain(bad)
    assert Replay.from_plain(record(bot_run(2, SoloConfig(time_limit_frames=60)), PENGO_SOLO).to_plain())
