"""Replays: record, the msgpack codec, verification, tampering, the bounds, and a SyncTest of the match."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from protocol.replay_codec import MAX_REPLAY_BYTES, ReplayDecodeError, decode_replay, encode_replay
from rules.replay import (
    FORMAT_VERSION,
    MATCH_FORMAT_VERSION,
    MAX_REPLAY_FRAMES,
    Replay,
    Verdict,
    record,
    verify,
)
from rules.result import MatchResult, result_from_plain
from rules.synctest import run_synctest
from rules.versus.events import Landing, record_plain
from rules.versus.inputs import FORFEIT, NEUTRAL
from rules.versus.match import VersusConfig, VersusMatch
from rules.versus.ruleset import PENGO_VERSUS, config_from_plain, config_plain
from rules.versus.tables import RULESET_NAME, RULESET_VERSION, RULESET_VERSIONS, AttackTable, VersusRules

from .helpers import random_inputs, run

#: Attacks worth more, landing sooner: a short random match then exchanges garbage, nuisance and gems.
BUSY = VersusConfig(VersusRules(attack=AttackTable(egg=6, crush=(4, 6, 8, 8), eat=2, fuse_frames=40),
                                lives=5))
#: A seed whose random-input match under BUSY lands all three kinds and thaws a gem.
BUSY_SEED = 4


def play(seed: int, seats: int = 2, config: VersusConfig | None = None, frames: int = 20_000) -> VersusMatch:
    """A match played to its end with seeded random inputs."""
    match = VersusMatch(config, seed, seats)
    run(match, random_inputs(seed, seats, frames))
    assert match.finished
    return match


@cache
def recorded() -> Replay:
    """One recorded 2-seat match (shared by the tamper tests; a Replay is immutable)."""
    return record(play(BUSY_SEED, config=BUSY), PENGO_VERSUS)


# ---- record, round trips ----------------------------------------------------------------------------------


def test_record_verify_round_trip_through_msgpack() -> None:
    """A recorded match survives encode/decode unchanged and verifies with its result, hash and frames."""
    match = play(BUSY_SEED, config=BUSY)
    replay = record(match, PENGO_VERSUS)
    data = encode_replay(replay)
    assert isinstance(data, bytes) and encode_replay(decode_replay(data)) == data
    decoded = decode_replay(data)
    assert decoded == replay
    verdict = verify(decoded)
    assert verdict == Verdict(True, "ok", match.result, match.log_hash, match.frame)
    assert (replay.ruleset, replay.ruleset_version, replay.format_version) == (RULESET_NAME, RULESET_VERSION,
                                                                              MATCH_FORMAT_VERSION)
    assert replay.final_frame == match.frame == replay.result.frame
    assert [list(map(list, m)) for m in replay.moves] == match.moves


@pytest.mark.parametrize("seats", [3, 4])
def test_multi_seat_replays_verify(seats: int) -> None:
    """3- and 4-seat matches (with a forfeit) record and verify."""
    match = VersusMatch(BUSY, seats, seats)
    inputs = random_inputs(seats, seats, 20_000)
    inputs[300][seats - 1] = FORFEIT
    run(match, inputs)
    replay = decode_replay(encode_replay(record(match, PENGO_VERSUS)))
    assert replay.result.outcomes[seats - 1] == "forfeited"
    assert verify(replay).ok


def test_time_limit_replay_verifies() -> None:
    """A match decided at a (short) time limit verifies; its config travels in the replay."""
    config = VersusConfig(VersusRules(time_limit_frames=900, lives=9), difficulty="easy")
    match = play(5, config=config)
    assert match.result is not None and match.result.reason == "time"
    replay = decode_replay(encode_replay(record(match, PENGO_VERSUS)))
    assert config_from_plain(replay.config) == config
    assert verify(replay).ok


def test_record_refuses_an_unfinished_match() -> None:
    """record() raises for a match that has not ended."""
    match = VersusMatch(seed=1)
    match.step([NEUTRAL, NEUTRAL])
    with pytest.raises(ValueError, match="not ended"):
        record(match, PENGO_VERSUS)


def test_to_plain_from_plain_round_trip_and_repr() -> None:
    """to_plain() is plain data that from_plain() rebuilds equal; the repr names the match."""
    replay = recorded()
    plain = replay.to_plain()
    assert Replay.from_plain(plain) == replay
    assert list(plain) == ["format", "version", "ruleset", "ruleset_version", "config", "seed", "seats",
                           "moves", "final_frame", "result", "log_hash"]
    assert msgpack.unpackb(msgpack.packb(plain)) == plain
    assert "pengo-versus" in repr(replay) and str(replay.final_frame) in repr(replay)
    assert hash(replay) == hash(Replay.from_plain(plain))


def test_config_round_trips_through_plain_data() -> None:
    """config_plain() gives every rules number; config_from_plain() rebuilds the same VersusConfig."""
    for config in (VersusConfig(), BUSY, VersusConfig(VersusRules(lives=5, skill=3), difficulty="normal")):
        plain = config_plain(config)
        assert config_from_plain(plain) == config
        assert plain["rules"]["attack"]["crush"] == list(config.rules.attack.crush)
    assert set(config_plain(VersusConfig())["rules"]["attack"]) == {
        f.name for f in dataclasses.fields(AttackTable)}


def _config_with(path: str, value: Any) -> dict[str, Any]:
    plain = config_plain(VersusConfig())
    *parents, last = path.split(".")
    node = plain
    for key in parents:
        node = node[key]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value
    return plain


_DELETE = object()


@pytest.mark.parametrize(("path", "value", "message"), [
    ("difficulty", "nightmare", "difficulty"),
    ("difficulty", 3, "config.difficulty"),
    ("rules.lives", 0, "lives"),
    ("rules.skill", 9, "skill"),
    ("rules.time_limit_frames", 0, "config.rules.time_limit_frames"),
    ("rules.time_limit_frames", True, "config.rules.time_limit_frames"),
    ("rules.time_limit_frames", 10.5, "config.rules.time_limit_frames"),
    ("rules.attack.landing_cap", 0, "config.rules.attack.landing_cap"),
    ("rules.attack.landing_cap", 10_000, "config.rules.attack.landing_cap"),
    ("rules.attack.fuse_frames", -1, "config.rules.attack.fuse_frames"),
    ("rules.attack.margin_den", 0, "config.rules.attack.margin_den"),
    ("rules.attack.crush", [], "config.rules.attack.crush"),
    ("rules.attack.crush", [1, "2"], "config.rules.attack.crush[1]"),
    ("rules.attack.round_clear_tiers", [[5000]], "config.rules.attack.round_clear_tiers[0]"),
    ("rules.attack.garbage_max", 9, "garbage_max"),
    ("rules.attack.egg", _DELETE, "config.rules.attack.egg: missing"),
    ("rules.attack.bonus", 1, "config.rules.attack.bonus: unknown field"),
    ("rules", [], "config.rules: expected a map"),
])
def test_bad_configs_are_refused_naming_the_field(path: str, value: Any, message: str) -> None:
    """config_from_plain() raises ValueError naming the bad field; verify() rejects such a replay."""
    plain = _config_with(path, value)
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        config_from_plain(plain)
    verdict = verify(dataclasses.replace(recorded(), config=plain))
    assert not verdict.ok and verdict.reason.startswith("rejected: bad config") and verdict.frames == 0


# ---- from_plain: every field checked ----------------------------------------------------------------------


def _plain_with(path: str, value: Any) -> dict[str, Any]:
    plain = recorded().to_plain()
    node: Any = plain
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split("/")]
    for key in keys[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return plain


@pytest.mark.parametrize(("path", "value", "message"), [
    ("format", "other", "format"),
    ("version", 3, "version"),
    ("version", "1", "version"),
    ("ruleset", 5, "ruleset"),
    ("ruleset", "", "ruleset"),
    ("ruleset_version", 0, "ruleset_version"),
    ("config", [], "config"),
    ("config", {"a": {1, 2}}, "config"),
    ("seed", -1, "seed"),
    ("seed", 2**32, "seed"),
    ("seed", "7", "seed"),
    ("seats", [], "seats"),
    ("seats", [f"s{i}" for i in range(17)], "seats"),
    ("seats", "ab", "seats"),
    ("seats/0", 7, r"seats\[0\]"),
    ("seats/0", "x" * 65, r"seats\[0\]"),
    ("moves", {}, "moves"),
    ("moves/0/0", [1], r"moves\[0\]\[0\]"),
    ("moves/0/0", [1, 2, 3], r"moves\[0\]\[0\]"),
    ("moves/0/0", ["1", 2], r"moves\[0\]\[0\] frame"),
    ("moves/0/0", [-1, 2], r"moves\[0\]\[0\] frame"),
    ("moves/0/0", [1, 300], r"moves\[0\]\[0\] input byte"),
    ("final_frame", None, "final_frame"),
    ("result", None, "result"),
    ("result/winner", 5, "result.winner"),
    ("result/winner", "0", "result.winner"),
    ("result/outcomes", ["won"], "result.outcomes"),
    ("result/outcomes/0", "victory", r"result.outcomes\[0\]"),
    ("result/scores", [1], "result.scores"),
    ("result/scores/1", -5, r"result.scores\[1\]"),
    ("result/reason", "", "result.reason"),
    ("result/frame", 1.5, "result.frame"),
    ("result/extra", 1, "result.extra: unknown field"),
    ("result/frame", _DELETE, "result.frame: missing"),
    ("log_hash", "ABC", "log_hash"),
    ("log_hash", "0" * 63, "log_hash"),
    ("seed", _DELETE, "replay.seed: missing"),
    ("extra", 1, "replay.extra: unknown field"),
])
def test_from_plain_names_the_bad_field(path: str, value: Any, message: str) -> None:
    """Replay.from_plain() raises ValueError naming the field for every kind of malformed field."""
    with pytest.raises(ValueError, match=message):
        Replay.from_plain(_plain_with(path, value))
    try:
        data = msgpack.packb(_plain_with(path, value))
    except TypeError:
        return  # not even msgpack (a set)
    with pytest.raises(ReplayDecodeError, match=message):
        decode_replay(data)


def test_result_from_plain_checks_the_seat_count() -> None:
    """result_from_plain() checks one outcome and one score per seat when the count is given."""
    plain = MatchResult(0, ("won", "lost"), "time", 10, (5, 3)).plain()
    assert result_from_plain(plain) == MatchResult(0, ("won", "lost"), "time", 10, (5, 3))
    with pytest.raises(ValueError, match="result.outcomes"):
        result_from_plain(plain, 3)


# ---- the codec --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("data", "message"), [
    (b"", "empty"),
    (b"\xc1", "malformed msgpack"),
    (b"\x92\x01", "malformed msgpack"),
    (msgpack.packb([1, 2, 3]), "expected a map"),
    (msgpack.packb({1: 2}, strict_types=False), "malformed msgpack"),
    (msgpack.packb({"format": b"floe-replay"}), "format"),
    (msgpack.packb(msgpack.ExtType(5, b"x")), "expected a map"),
    (msgpack.packb({"a": 1}) + b"\x00", "malformed msgpack"),
])
def test_decode_refuses_malformed_bytes(data: bytes, message: str) -> None:
    """decode_replay() raises ReplayDecodeError (a ValueError) saying what is wrong."""
    with pytest.raises(ReplayDecodeError, match=message):
        decode_replay(data)


def test_decode_refuses_oversize_input_before_parsing() -> None:
    """Input over max_bytes is refused by its length alone; the default bound is 4 MiB."""
    data = encode_replay(recorded())
    with pytest.raises(ReplayDecodeError, match="over the limit"):
        decode_replay(data, max_bytes=len(data) - 1)
    assert decode_replay(data, max_bytes=len(data)) == recorded()
    assert MAX_REPLAY_BYTES == 4 * 1024 * 1024
    with pytest.raises(ReplayDecodeError, match="over the limit"):
        decode_replay(b"\x00" * (MAX_REPLAY_BYTES + 1))
    with pytest.raises(ReplayDecodeError, match="expected bytes"):
        decode_replay("text")  # type: ignore[arg-type]


# ---- tampering --------------------------------------------------------------------------------------------


def _moves_with(replay: Replay, seat: int, moves: list[tuple[int, int]]) -> Replay:
    all_moves = list(replay.moves)
    all_moves[seat] = tuple(moves)
    return dataclasses.replace(replay, moves=tuple(all_moves))


def test_a_changed_input_is_caught() -> None:
    """Changing seat 0's inputs from a third of the match on changes the simulation: the verdict fails."""
    replay = recorded()
    moves = list(replay.moves[0])
    index = len(moves) // 3
    held = 0x03 | 0x08 if moves[index - 1][1] != 0x0B else 0x04 | 0x08  # hold a direction and kick
    changed = [*moves[:index], (moves[index][0], held)]
    verdict = verify(_moves_with(replay, 0, changed))
    assert not verdict.ok
    assert verdict.reason.startswith(("result differs", "log hash differs", "the match"))


def test_a_changed_seed_is_caught() -> None:
    """The same moves on another seed's boards give another log: the verdict fails."""
    replay = recorded()
    verdict = verify(dataclasses.replace(replay, seed=replay.seed + 1))
    assert not verdict.ok and verdict.frames > 0


def test_a_changed_result_is_caught() -> None:
    """A replay claiming another result (scores, winner) fails with 'result differs'."""
    replay = recorded()
    result = replay.result
    for forged in (dataclasses.replace(result, scores=(result.scores[0] + 10, result.scores[1])),
                   dataclasses.replace(result, winner=1 - (result.winner or 0),
                                       outcomes=tuple(reversed(result.outcomes)))):
        verdict = verify(dataclasses.replace(replay, result=forged))
        assert not verdict.ok and verdict.reason.startswith("result differs")
        assert verdict.result == result


def test_a_changed_hash_is_caught() -> None:
    """A replay whose log hash is not the simulation's fails with 'log hash differs'."""
    replay = recorded()
    forged = "0" * 64 if replay.log_hash != "0" * 64 else "1" * 64
    verdict = verify(dataclasses.replace(replay, log_hash=forged))
    assert not verdict.ok and verdict.reason.startswith("log hash differs")
    assert verdict.log_hash == replay.log_hash


def test_a_truncated_move_list_is_caught() -> None:
    """Dropping the last moves of the winner changes what it did: the verdict fails."""
    replay = recorded()
    winner = replay.result.winner
    assert winner is not None
    verdict = verify(_moves_with(replay, winner, list(replay.moves[winner][:-20])))
    assert not verdict.ok


Moves = list[tuple[int, int]]


def _swap_first_two(moves: Moves, final: int) -> Moves:
    return [(moves[1][0], moves[0][1]), (moves[0][0], moves[1][1]), *moves[2:]]


def _duplicate_a_frame(moves: Moves, final: int) -> Moves:
    other = 0x0B if moves[0][1] != 0x0B else 0x0C
    return [moves[0], (moves[0][0], other), *moves[1:]]


def _negative_frame(moves: Moves, final: int) -> Moves:
    return [(-1, 0x01), *moves]


def _frame_at_the_end(moves: Moves, final: int) -> Moves:
    return [*moves, (final, 0x01 if moves[-1][1] != 0x01 else 0x02)]


def _unknown_byte(moves: Moves, final: int) -> Moves:
    return [(moves[0][0], 0x05), *moves[1:]]


def _bool_byte(moves: Moves, final: int) -> Moves:
    return [(moves[0][0], True), *moves[1:]]


def _redundant_move(moves: Moves, final: int) -> Moves:
    index = next(i for i in range(len(moves) - 1) if moves[i + 1][0] > moves[i][0] + 1)
    return [*moves[:index + 1], (moves[index][0] + 1, moves[index][1]), *moves[index + 1:]]


def _neutral_first(moves: Moves, final: int) -> Moves:
    return [(moves[0][0], NEUTRAL), *moves[1:]]


@pytest.mark.parametrize(("tamper", "reason"), [
    (_swap_first_two, "unsorted"),
    (_duplicate_a_frame, "duplicated"),
    (_negative_frame, "outside"),
    (_frame_at_the_end, "outside"),
    (_unknown_byte, "not a valid input byte"),
    (_bool_byte, "not a valid input byte"),
    (_redundant_move, "repeats the previous input"),
    (_neutral_first, "repeats the previous input"),
])
def test_malformed_move_lists_are_rejected_before_simulating(tamper: Any, reason: str) -> None:
    """Unsorted, duplicated, out-of-range, redundant or unknown moves are rejected without simulating."""
    replay = recorded()
    moves = tamper(list(replay.moves[0]), replay.final_frame)
    verdict = verify(_moves_with(replay, 0, moves))
    assert not verdict.ok and reason in verdict.reason and verdict.reason.startswith("rejected")
    assert verdict.frames == 0 and verdict.result is None


def test_move_lists_must_match_the_seats() -> None:
    """A replay with more or fewer move lists than seats is rejected."""
    replay = recorded()
    for moves in (replay.moves[:1], (*replay.moves, ())):
        verdict = verify(dataclasses.replace(replay, moves=moves))
        assert not verdict.ok and "move lists for 2 seats" in verdict.reason


@pytest.mark.parametrize(("changes", "reason"), [
    ({"ruleset": "tetris"}, "unknown ruleset"),
    ({"ruleset_version": max(RULESET_VERSIONS) + 1}, "version"),
    ({"format_version": FORMAT_VERSION + 1}, "format version"),
    ({"final_frame": 0}, "final_frame"),
    ({"seats": ("one",)}, "seats"),
    ({"log_hash": "nothex"}, "log_hash"),
    ({"result": MatchResult(0, ("won", "lost"), "victory", 1, (0, 0))}, "not a pengo-versus end reason"),
])
def test_unknown_rulesets_and_bad_fields_are_rejected(changes: dict[str, Any], reason: str) -> None:
    """Another ruleset or version, another format, or malformed fields are rejected before simulating."""
    verdict = verify(dataclasses.replace(recorded(), **changes))
    assert not verdict.ok and reason in verdict.reason and verdict.frames == 0


def test_oversize_replays_are_rejected_before_simulating() -> None:
    """A replay longer than max_frames is rejected by its length, without simulating a frame."""
    replay = recorded()
    verdict = verify(replay, max_frames=replay.final_frame - 1)
    assert not verdict.ok and "over the limit" in verdict.reason and verdict.frames == 0
    assert verify(replay, max_frames=replay.final_frame).ok
    assert MAX_REPLAY_FRAMES == 30 * 60 * 60
    long = dataclasses.replace(replay, final_frame=MAX_REPLAY_FRAMES + 1)
    verdict = verify(long)
    assert not verdict.ok and "over the limit" in verdict.reason and verdict.frames == 0
    with pytest.raises(ValueError, match="max_frames"):
        verify(replay, max_frames=0)


def test_a_simulation_that_ends_early_or_late_fails() -> None:
    """A final frame after the real end, or before it, fails: exactly final_frame frames are simulated."""
    replay = recorded()
    late = verify(dataclasses.replace(replay, final_frame=replay.final_frame + 30))
    assert not late.ok and "ended on frame" in late.reason and late.frames == replay.final_frame
    moves = [tuple(m for m in seat if m[0] < replay.final_frame - 30) for seat in replay.moves]
    early = verify(dataclasses.replace(replay, final_frame=replay.final_frame - 30, moves=tuple(moves)))
    assert not early.ok and "had not ended" in early.reason and early.frames == replay.final_frame - 30


def test_errors_inside_become_a_failed_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception while simulating (or a nonsense replay) is a failed verdict with its reason."""
    def broken(self: VersusMatch, inputs: Any) -> Any:
        raise RuntimeError("boom")

    replay = recorded()
    monkeypatch.setattr(VersusMatch, "step", broken)
    verdict = verify(replay)
    assert not verdict.ok and "RuntimeError: boom" in verdict.reason
    monkeypatch.undo()
    nonsense = dataclasses.replace(replay, seats=None, moves=None)  # type: ignore[arg-type]
    verdict = verify(nonsense)
    assert not verdict.ok and verdict.reason.startswith("rejected")


def test_busy_config_exercises_every_landing_kind() -> None:
    """The recorded match used by these tests lands garbage, nuisance and gems (so the hash covers them)."""
    match = VersusMatch(BUSY, BUSY_SEED)
    kinds: set[str] = set()
    for row in random_inputs(BUSY_SEED, 2, 20_000):
        if match.finished:
            break
        kinds.update(r.landing for r in match.step(row) if isinstance(r, Landing))
    assert kinds == {"garbage", "nuisance", "gems"}


# ---- SyncTest ---------------------------------------------------------------------------------------------


def _plain_step(match: VersusMatch, row: list[int]) -> list[dict[str, Any]]:
    if match.finished:
        return []
    return [record_plain(r) for r in match.step(row)]


#: What each SyncTest window of the BUSY_SEED match must contain (the windows are found by a scan).
SYNC_TARGETS = ["level-start", "landing:nuisance", "landing:gems", "gem-thaw", "match-end"]


@cache
def sync_windows() -> dict[str, tuple[int, int]]:
    """Frame windows around the first occurrence of each target in the BUSY_SEED match."""
    match = VersusMatch(BUSY, BUSY_SEED)
    first: dict[str, int] = {}
    for frame, row in enumerate(random_inputs(BUSY_SEED, 2, 20_000)):
        if match.finished:
            break
        for plain in _plain_step(match, row):
            key = plain["kind"] + (":" + plain["landing"] if plain["kind"] == "landing" else "")
            first.setdefault(key, frame)
    windows = {}
    for target in SYNC_TARGETS:
        assert target in first, f"the BUSY_SEED match has no {target}"
        at = first[target]
        windows[target] = (max(0, at - 40), at + 1 if target == "match-end" else at + 60)
    return windows


@pytest.mark.parametrize("target", SYNC_TARGETS)
def test_synctest_of_a_versus_match_with_rollback_8(target: str) -> None:
    """Every frame of a window rolled back 8 frames and re-simulated gives the same checksums and records."""
    first, last = sync_windows()[target]
    kinds = {target.split(":")[0]}
    inputs = random_inputs(BUSY_SEED, 2, last)

    def make() -> VersusMatch:
        # Frames before the window are stepped here.
        match = VersusMatch(BUSY, BUSY_SEED)
        for row in inputs[:first]:
            match.step(row)
        return match

    window = inputs[first:last]
    report = run_synctest(make, _plain_step, window, rollback=8, check_outputs=True)
    assert report.frames == len(window) and report.rollbacks == len(window)
    straight = make()
    assert kinds <= {r["kind"] for row in window for r in _plain_step(straight, row)}


def test_a_rollback_to_frame_0_keeps_the_log_hash() -> None:
    """Restoring the frame-0 snapshot and re-stepping frame 0 gives the same records and log hash."""
    match = VersusMatch(seed=3)
    snap = match.snapshot()
    first = _plain_step(match, [NEUTRAL, NEUTRAL])
    hashed = match.log_hash
    match.restore(snap)
    assert _plain_step(match, [NEUTRAL, NEUTRAL]) == first
    assert match.log_hash == hashed


def test_layout_2_names_a_player_and_layout_1_still_reads() -> None:
    """A replay recorded for a player is layout 2 (`player` last) and round-trips; a match's replay stays
    layout 1, byte for byte as before (no `player` key); layout 1 with a `player` and layout 2
    without one are refused naming the field, and both layouts verify."""
    match = play(BUSY_SEED, config=BUSY)
    plain_1 = record(match, PENGO_VERSUS).to_plain()
    assert plain_1["version"] == MATCH_FORMAT_VERSION == 1 and "player" not in plain_1
    bound = record(match, PENGO_VERSUS, "g-ann")
    plain_2 = bound.to_plain()
    assert plain_2["version"] == FORMAT_VERSION == 2 and list(plain_2)[-1] == "player"
    assert decode_replay(encode_replay(bound)) == bound and verify(bound).ok
    with pytest.raises(ValueError, match="player"):
        Replay.from_plain({**plain_1, "player": "g-ann"})
    with pytest.raises(ValueError, match="player"):
        Replay.from_plain({key: value for key, value in plain_2.items() if key != "player"})
    assert verify(Replay.from_plain(plain_1)).ok
