"""The sans-I/O match runner: prediction, rollback arithmetic, confirmation, bounds and keyframes."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.synctest import state_checksum
from rules.versus.inputs import FORFEIT, INPUTS
from rules.versus.match import VersusConfig, VersusMatch
from rules.versus.tables import VERSUS_RULES
from rules.versus.wire import records_wire
from server.netcode.runner import (
    Advance,
    FrameRecord,
    InputApplied,
    InputRefused,
    KeyframeRecord,
    MatchRunner,
    RunnerSettings,
)
from tests.server.helpers import bytes_per_frame, straight_run
from tests.versus.helpers import random_inputs

CONFIG = VersusConfig(rules=replace(VERSUS_RULES, time_limit_frames=400))
SEED = 0x5EED
LEFT, RIGHT, LEFT_KICK = 0x03, 0x04, 0x0B


def runner(**settings: int) -> MatchRunner:
    return MatchRunner(VersusMatch(CONFIG, SEED, 2), INPUTS, RunnerSettings(**settings))


def tell_ahead(run: MatchRunner, rows: list[list[int]], upto: int) -> None:
    """Tell every seat's input for frames below `upto` (on time)."""
    for frame in range(run.timelines[0].known_until, min(upto, len(rows))):
        for seat, value in enumerate(rows[frame]):
            run.tell_input(seat, frame, value)


def test_on_time_inputs_never_predict_or_roll_back() -> None:
    """Inputs told before their frames are simulated: no prediction, no rollback, every frame confirmed."""
    rows = random_inputs(1, 2, 200)
    run = runner()
    for now in range(1, 200):
        tell_ahead(run, rows, now + 2)
        out = run.advance(now)
        assert out.rewind_to is None
        assert run.confirmed == run.frame == now
    assert run.rollbacks == 0 and run.predicted == 0
    assert run.match.log_hash == straight_run(CONFIG, SEED, 2, rows[:199]).log_hash


def test_silent_seat_is_predicted_holding_without_kick() -> None:
    """A seat that said LEFT+kick once is simulated holding LEFT afterwards."""
    run = runner()
    run.tell_input(0, 0, LEFT_KICK)
    out = run.advance(5)
    assert [record.inputs[0] for record in out.frames] == [LEFT_KICK, LEFT, LEFT, LEFT, LEFT]
    assert run.predicted == 5


def test_late_input_inside_window_rolls_back_to_its_frame() -> None:
    """An input 4 frames late restores that frame and re-simulates to the present (a snapshot a frame)."""
    run = runner(rollback_window=8, snapshot_every=1)
    run.tell_input(0, 0, LEFT)
    run.advance(10)
    applied = run.tell_input(1, 6, RIGHT)
    assert applied == InputApplied(6, 6) and not applied.late
    out = run.advance(10)
    assert out.rewind_to == 6 and [record.frame for record in out.frames] == [6, 7, 8, 9]
    assert run.rollbacks == 1 and run.resimulated == 4
    rows = [[LEFT, RIGHT if frame >= 6 else 0] for frame in range(10)]
    assert state_checksum(run.match.snapshot()) == state_checksum(
        straight_run(CONFIG, SEED, 2, rows).snapshot()
    )


def test_sparse_snapshots_roll_back_from_the_newest_one_before_the_target() -> None:
    """Predicted frames snapshot every `snapshot_every` frames; a rollback between two restores the older,
    re-simulates the unchanged frames quietly and streams only from its target; the state is exact."""
    run = runner(rollback_window=8, snapshot_every=4)
    run.tell_input(0, 0, LEFT)
    run.advance(10)
    assert sorted(run._snapshots) == [0, 4, 8]  # frame 0's is the keyframe's
    run.tell_input(1, 6, RIGHT)
    out = run.advance(10)
    assert out.rewind_to == 6 and [record.frame for record in out.frames] == [6, 7, 8, 9]
    assert run.rollbacks == 1 and run.resimulated == 6  # from frame 4's snapshot
    rows = [[LEFT, RIGHT if frame >= 6 else 0] for frame in range(10)]
    straight = straight_run(CONFIG, SEED, 2, rows)
    assert state_checksum(run.match.snapshot()) == state_checksum(straight.snapshot())
    assert run.match.log_hash == straight.log_hash


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.lists(st.integers(1, 8), min_size=40, max_size=40))
def test_sparse_snapshots_with_random_late_inputs_match_the_straight_run(
    seed: int, spacing: int, lateness: list[int]
) -> None:
    """Whatever the spacing and however late each seat's inputs come (inside the window), the runner
    ends on the straight run's state, and the frames it confirmed are the straight run's frames."""
    rows = random_inputs(seed, 2, 160)
    run = runner(rollback_window=8, snapshot_every=spacing)
    confirmed: dict[int, FrameRecord] = {}
    told = [0, 0]
    for now in range(1, 161):
        for seat in (0, 1):
            # Seat s tells frames up to now − its current lateness (so it is always behind or on time).
            upto = min(160, now + 1 - lateness[(now // 4 + seat) % len(lateness)])
            for frame in range(told[seat], max(told[seat], upto)):
                run.tell_input(seat, frame, rows[frame][seat])
            told[seat] = max(told[seat], upto)
        for item in run.advance(now).confirmed:
            if isinstance(item, FrameRecord):
                confirmed[item.frame] = item
    straight = straight_run(CONFIG, SEED, 2, rows[: run.frame])
    assert run.match.log_hash == straight.log_hash
    expected = VersusMatch(CONFIG, SEED, 2)
    for frame in sorted(confirmed):
        assert confirmed[frame].events == records_wire(expected.step(rows[frame]))


def test_input_older_than_window_applies_at_earliest_open_frame() -> None:
    """An input for a frame past the window lands on now − window and says so."""
    run = runner(rollback_window=8)
    run.advance(30)
    applied = run.tell_input(1, 5, RIGHT)
    assert applied == InputApplied(5, 22) and applied.late
    assert run.advance(30).rewind_to == 22
    later = run.tell_input(1, 10, LEFT)  # a frame the seat already spoke for moves after it
    assert isinstance(later, InputApplied) and later.applied == 23


def test_a_run_moves_with_its_first_late_byte_and_stops_at_a_refusal() -> None:
    """A run is told byte by byte: the first late byte is reported, the rest follow it in order."""
    run = runner(rollback_window=8, max_ahead=20)
    run.advance(30)
    outcome = run.tell_inputs(1, 20, [LEFT, RIGHT, LEFT, RIGHT])  # frames 20..23: 20 and 21 are too old
    assert outcome.refused is None and outcome.late == InputApplied(20, 22)
    assert [run.timelines[1].byte_at(frame) for frame in range(22, 26)] == [LEFT, RIGHT, LEFT, RIGHT]
    assert run.late_inputs == 4
    on_time = run.tell_inputs(0, 30, [LEFT, LEFT])
    assert on_time.refused is None and on_time.late is None
    stopped = run.tell_inputs(0, 49, [RIGHT, RIGHT, RIGHT])  # frame 51 is beyond now + max_ahead
    assert stopped.refused is not None and stopped.refused.code == "frame-ahead"
    assert run.timelines[0].known_until == 51  # 49 and 50 were recorded, 51 was not
    bad = run.tell_inputs(1, 40, [LEFT, 0x07, LEFT])
    assert bad.refused is not None and bad.refused.code == "bad-input"
    assert run.timelines[1].known_until == 41


def test_late_input_equal_to_prediction_costs_nothing() -> None:
    """A late input that matches what was predicted confirms the frame without a rollback."""
    run = runner()
    run.tell_input(1, 0, LEFT)
    run.advance(10)
    run.tell_input(1, 7, LEFT)
    assert run.advance(10).rewind_to is None and run.rollbacks == 0


def test_future_inputs_are_bounded() -> None:
    """An input beyond now + max_ahead is refused; one inside the bound waits for its frame."""
    run = runner(max_ahead=20)
    run.advance(10)
    refused = run.tell_input(0, 31, LEFT)
    assert isinstance(refused, InputRefused) and refused.code == "frame-ahead"
    assert run.tell_input(0, 30, LEFT) == InputApplied(30, 30)
    out = run.advance(31)
    assert out.frames[-1].frame == 30 and out.frames[-1].inputs[0] == LEFT


def test_bad_bytes_and_forfeit_bytes_are_refused() -> None:
    """Clients cannot send malformed bytes or the forfeit byte (leaving is its own message)."""
    run = runner()
    for value in (0x07, 0xFF, FORFEIT):
        refused = run.tell_input(0, 0, value)
        assert isinstance(refused, InputRefused) and refused.code == "bad-input"
    assert isinstance(run.tell_input(5, 0, 0), InputRefused)


def test_confirmation_waits_for_every_seat_or_the_window() -> None:
    """With one seat silent, frames confirm only as the window passes; its input confirms the rest."""
    run = runner(rollback_window=8)
    for frame in range(40):
        run.tell_input(0, frame, LEFT)
    run.advance(20)
    assert run.confirmed == 12
    for frame in range(12, 25):
        run.tell_input(1, frame, 0)
    run.advance(20)
    assert run.confirmed == 20


def test_confirmed_frames_never_change() -> None:
    """Under random lateness, every confirmed frame equals the final history's frame."""
    rng = random.Random(7)
    rows = random_inputs(3, 2, 300)
    run = runner(rollback_window=8)
    confirmed: dict[int, FrameRecord] = {}
    pending: list[tuple[int, int, int, int]] = []  # (arrival, seat, frame, value)
    arrived = [0, 0]  # a socket delivers each seat's inputs in order
    for frame, row in enumerate(rows):
        for seat, value in enumerate(row):
            arrived[seat] = max(arrived[seat], frame + rng.randrange(-2, 12))
            pending.append((arrived[seat], seat, frame, value))
    pending.sort(key=lambda item: (item[0], item[2]))
    told: list[list[tuple[int, int]]] = [[], []]
    for now in range(1, 320):
        while pending and pending[0][0] <= now:
            _, seat, frame, value = pending.pop(0)
            outcome = run.tell_input(seat, frame, value)
            assert isinstance(outcome, InputApplied)
            told[seat].append((outcome.applied, value))
        for item in run.advance(now).confirmed:
            if isinstance(item, FrameRecord):
                assert item.frame not in confirmed
                confirmed[item.frame] = item
    frames = run.match.frame
    columns = [bytes_per_frame(seat, frames) for seat in told]
    straight = VersusMatch(CONFIG, SEED, 2)
    for frame in range(frames):
        inputs = [columns[0][frame], columns[1][frame]]
        records = straight.step(inputs)
        if frame < run.confirmed:
            assert confirmed[frame].inputs == tuple(inputs)
            assert confirmed[frame].events == records_wire(records)
    assert len(confirmed) == run.confirmed > 250
    assert straight.log_hash == run.match.log_hash and run.rollbacks > 0


def test_keyframes_carry_the_state_checksum() -> None:
    """Keyframes come every keyframe_every frames, before their frame, with the straight run's checksum."""
    rows = random_inputs(5, 2, 130)
    run = runner(keyframe_every=60)
    items: list[FrameRecord | KeyframeRecord] = []
    for now in range(0, 130):
        tell_ahead(run, rows, now + 2)
        items += run.advance(now).confirmed
    keyframes = [(index, item) for index, item in enumerate(items) if isinstance(item, KeyframeRecord)]
    assert [k.frame for _, k in keyframes] == [0, 60, 120]
    straight = VersusMatch(CONFIG, SEED, 2)
    for index, keyframe in keyframes:
        while straight.frame < keyframe.frame:
            straight.step(rows[straight.frame])
        assert keyframe.checksum == state_checksum(straight.snapshot())
        following = items[index + 1] if index + 1 < len(items) else None
        assert following is None or (isinstance(following, FrameRecord) and following.frame == keyframe.frame)


def test_forfeit_ends_the_match_and_the_result_waits_for_confirmation() -> None:
    """A forfeit goes through the match's own step; the result is final only once its frame is confirmed."""
    run = runner(rollback_window=8)
    run.tell_input(0, 0, LEFT)
    run.advance(10)
    run.forfeit(1)
    out = run.advance(11)
    assert isinstance(run.match, VersusMatch)  # the match runner() built
    assert run.match.finished and out.result is None  # seat 0 has not spoken for frame 10
    results: list[Advance] = [run.advance(now) for now in range(12, 25)]
    final = [out.result for out in results if out.result is not None]
    assert len(final) == 1 and final[0].outcomes == ("won", "forfeited")
    refused = run.tell_input(0, 30, LEFT)
    assert isinstance(refused, InputRefused) and refused.code == "match-over"


def test_hold_neutral_starts_at_the_present() -> None:
    """A dropped player's seat holds nothing from the present on, without rewriting the past."""
    run = runner()
    run.tell_input(1, 0, LEFT)
    run.advance(10)
    run.hold_neutral(1)
    out = run.advance(14)
    assert out.rewind_to is None and [r.inputs[1] for r in out.frames] == [0, 0, 0, 0]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**16), st.integers(0, 12), st.integers(1, 8))
def test_rollback_result_equals_the_applied_inputs(seed: int, lateness: int, window: int) -> None:
    """Whatever the lateness, the runner ends where a straight run of the inputs as applied ends."""
    rng = random.Random(seed)
    rows = random_inputs(seed, 2, 150)
    run = runner(rollback_window=window)
    told: list[list[tuple[int, int]]] = [[], []]
    for now in range(1, 160):
        for seat in range(2):
            frame = now - rng.randrange(lateness + 1)
            if 0 <= frame < len(rows) and frame >= run.timelines[seat].known_until:
                outcome = run.tell_input(seat, frame, rows[frame][seat])
                assert isinstance(outcome, InputApplied)
                told[seat].append((outcome.applied, rows[frame][seat]))
        run.advance(now)
    frames = run.match.frame
    columns = [bytes_per_frame(seat, frames) for seat in told]
    straight = straight_run(CONFIG, SEED, 2, [[columns[0][f], columns[1][f]] for f in range(frames)])
    assert straight.log_hash == run.match.log_hash
