"""A runner taken over from its journal (a checkpoint and the entries logged after it) goes on exactly
as the runner it replaces: the same records from the checkpoint's keyframe on, the same end."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from rules.versus.inputs import INPUTS
from rules.versus.match import VersusConfig, VersusMatch
from rules.versus.tables import VERSUS_RULES
from server.netcode.runner import (
    Checkpoint,
    FrameRecord,
    KeyframeRecord,
    MatchRunner,
    RunnerSettings,
    SeatLog,
)

CONFIG = VersusConfig(rules=replace(VERSUS_RULES, time_limit_frames=900))
SEED = 0x5EED
SETTINGS = RunnerSettings(keyframe_every=60)
BYTES = (0x00, 0x01, 0x02, 0x03, 0x04, 0x0B, 0x09)


def fresh() -> MatchRunner:
    return MatchRunner(VersusMatch(CONFIG, SEED, 2), INPUTS, SETTINGS, keyframe_phase=SEED, journal=True)


def script(seed: int, frames: int) -> list[list[tuple[int, int, int]]]:
    """Per schedule frame: the (seat, stamped frame, byte) inputs that arrive then, some late."""
    rng = random.Random(seed)
    arrivals: list[list[tuple[int, int, int]]] = [[] for _ in range(frames + 20)]
    for seat in range(2):
        for frame in range(frames):
            if rng.random() < 0.15:
                # early, on time, late, past the window
                arrive = max(0, frame + rng.choice((-2, 0, 3, 6, 12)))
                arrivals[arrive].append((seat, frame, rng.choice(BYTES)))
    return arrivals


def drive(runner: MatchRunner, arrivals: list[list[tuple[int, int, int]]], ticks: range,
          log: list[tuple[SeatLog, ...]] | None = None) -> list[FrameRecord | KeyframeRecord]:
    """Tell each tick's inputs and advance; the confirmed records produced (and each tick's log)."""
    confirmed: list[FrameRecord | KeyframeRecord] = []
    for tick in ticks:
        for seat, frame, value in arrivals[tick]:
            runner.tell_input(seat, frame, value)
        out = runner.advance(tick)
        confirmed += out.confirmed
        if log is not None:
            log.append(tuple(SeatLog.of(*seat) for seat in runner.take_log()))
        if runner.finished:
            break
    return confirmed


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_resumed_runner_repeats_and_continues_the_match(seed: int) -> None:
    """Checkpoint at tick 300, log until tick 410 ("the crash"): a fresh runner resumed from them
    re-confirms the same records from the checkpoint's keyframe and then plays on identically."""
    arrivals = script(seed, 1000)
    original = fresh()
    before = drive(original, arrivals, range(0, 300))
    checkpoint = original.checkpoint()
    assert isinstance(checkpoint, Checkpoint) and checkpoint.frame <= original.confirmed
    log: list[tuple[SeatLog, ...]] = []
    during = drive(original, arrivals, range(300, 410), log)
    crash_now = original.now
    assert original.rollbacks > 0 and any(seat.entries for batch in log for seat in batch)
    assert checkpoint.frame < original.confirmed - SETTINGS.keyframe_every // 2

    taken = fresh()
    taken.resume(checkpoint, log, crash_now)
    again = taken.advance(crash_now).confirmed  # the crash's tick's inputs are in the log already
    # What the original confirmed from the keyframe on comes out again, the same.
    seen = [r for r in before + during if r.frame >= checkpoint.frame]
    assert again[: len(seen)] == seen
    rest_original = drive(original, arrivals, range(crash_now + 1, 1100))
    rest_taken = drive(taken, arrivals, range(crash_now + 1, 1100))
    assert again[len(seen):] + rest_taken == rest_original
    assert original.finished and taken.finished
    assert taken.result == original.result
    assert taken.match.log_hash == original.match.log_hash
    assert taken.match.moves == original.match.moves
