"""SyncTest mode: the runner rolls back and re-simulates as it goes and must reproduce every frame."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rules.synctest import DesyncError, run_synctest
from rules.versus.bots import make_bot
from rules.versus.inputs import INPUTS
from rules.versus.match import VersusConfig, VersusMatch, versus_config
from rules.versus.tables import RULESET_VERSION
from server.netcode.runner import MatchRunner, RunnerSettings


def version_config(version: int) -> VersusConfig:
    """A version's default config with matches of 2400 frames."""
    config = versus_config(version)
    return replace(config, rules=replace(config.rules, time_limit_frames=2400))


#: The current version's (landings with extra slots and hurries, the whole-game bot, the arcade's slot
#: timers).
CONFIG = version_config(RULESET_VERSION)


def bot_runner(
    seed: int, settings: RunnerSettings, match: VersusMatch | None = None, version: int = RULESET_VERSION
) -> MatchRunner:
    bots = {0: make_bot("competent", seed, version), 1: make_bot("lazy", seed + 1, version)}
    return MatchRunner(match or VersusMatch(version_config(version), seed, 2), INPUTS, settings, bots)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_long_bot_match_survives_synctest(version: int) -> None:
    """A competent-vs-lazy match of up to 2400 frames, rolled back 8 frames every 8, never desyncs
    (under every version: version 2's hurries, extra slots and hatching eggs restore too, and version
    3's stale slot bytes)."""
    run = bot_runner(0xB07, RunnerSettings(rollback_window=8, synctest_every=8), version=version)
    now = 0
    while run.result is None:
        now += 1
        run.advance(now)
    assert run.match.frame > 1000
    assert run.rollbacks >= run.match.frame // 8 - 1 and run.resimulated >= 8 * (run.rollbacks - 2)


def test_recorded_bot_inputs_pass_the_rules_synctest() -> None:
    """A server bot match's inputs, re-run through rules.synctest with rollbacks, reproduce every frame."""
    run = bot_runner(0xFACE, RunnerSettings())
    rows: list[tuple[int, ...]] = []
    for now in range(1, 601):
        rows += [record.inputs for record in run.advance(now).frames]

    def make() -> VersusMatch:
        return VersusMatch(CONFIG, 0xFACE, 2)

    def step(match: VersusMatch, inputs: tuple[int, ...]) -> object:
        return match.step(list(inputs))

    report = run_synctest(make, step, rows, rollback=8, every=10)
    assert report.frames == 600 and report.rollbacks == 60


class ForgetfulMatch(VersusMatch):
    """A match whose restore forgets the garbage streams: the kind of bug SyncTest exists to catch."""

    def restore(self, snap: dict[str, Any]) -> None:
        garbage = [seat.garbage for seat in self.seat_states]
        super().restore(snap)
        for seat, stream in zip(self.seat_states, garbage, strict=True):
            seat.garbage = stream
        self.score_bias = getattr(self, "score_bias", 0) + 1
        self.games[0].score += self.score_bias  # and drifts the score on every restore


def test_synctest_catches_a_broken_restore() -> None:
    """A restore that does not put everything back raises DesyncError naming the frame."""
    run = bot_runner(3, RunnerSettings(rollback_window=4, synctest_every=2), ForgetfulMatch(CONFIG, 3, 2))
    with pytest.raises(DesyncError) as caught:
        for now in range(1, 200):
            run.advance(now)
    assert caught.value.phase in ("resimulate", "output") and caught.value.frame > 0
