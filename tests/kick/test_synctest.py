"""SyncTest over KickGame (STYLE item 6), determinism of the event log, and the harness itself.

Every frame of a SyncTest snapshots the game, steps it, restores the snapshot from N frames back and
re-simulates to the present, comparing checksums with a straight run (rules/synctest.py). Inputs are one
frame each: the held direction (or None) and whether the kick button is down, as versus sends them.
"""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import msgpack  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.kick import (
    DIRECTIONS,
    ICE_SLIDE_ROOMS,
    PASSES_PER_FRAME,
    Direction,
    IceSlideOptions,
    KickConfig,
    KickGame,
    KickState,
    PengoOptions,
    ice_slide_preset,
    pengo_preset,
)
from rules.kick.events import to_plain
from rules.kick.tables import GAME_MINUTE_PASSES
from rules.synctest import (
    DesyncError,
    canonical_encoding,
    describe_difference,
    run_synctest,
    state_checksum,
)

Input = tuple[Direction | None, bool]
Segment = tuple[Direction | None, int, int]
Event = dict[str, Any]

#: Frames per game-second (versus frames are 1/60 s of 13 main-loop passes).
FPS = 60
PENGO_SEEDS = (0x365A, 0x0001, 0xBEEF)

SLOW = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---- helpers ----------------------------------------------------------------------------------------


def kick_step(game: KickGame, frame_input: Input) -> list[Event]:
    """One versus frame: hold the direction, press kick if asked, advance 1/60 s, drain the events."""
    direction, kick = frame_input
    game.control(direction)
    if kick:
        game.kick()
    game.step_frame()
    return [to_plain(event) for event in game.drain()]


def maker(config: KickConfig) -> Callable[[], KickGame]:
    """A factory of fresh games whose constructor events (level-start) are drained before frame 0."""
    def make() -> KickGame:
        game = KickGame(config)
        game.drain()
        return game
    return make


def pengo(seed: int, lives: int = 99) -> KickConfig:
    """The Pengo preset (arcade act 1) with many lives, so a long random run keeps playing."""
    return pengo_preset(PengoOptions(seed=seed, lives=lives))


def ice_slide(room: int, seed: int = 1) -> KickConfig:
    """The Ice Slide preset starting at a room (1-based)."""
    return ice_slide_preset(IceSlideOptions(level=room, seed=seed, lives=99))


def random_inputs(seed: int, frames: int, kick_rate: float = 0.12) -> list[Input]:
    """A reproducible stream: a direction (or none) held for 2–12 frames, kick taps now and then."""
    rng = random.Random(seed)
    out: list[Input] = []
    while len(out) < frames:
        direction = rng.choice((None, *DIRECTIONS))
        for _ in range(rng.randint(2, 12)):
            out.append((direction, rng.random() < kick_rate))
    return out[:frames]


segments = st.lists(
    st.tuples(st.sampled_from((None, *DIRECTIONS)), st.integers(0, 3), st.integers(1, 12)),
    min_size=1, max_size=60,
)


def expand(parts: Sequence[Segment]) -> list[Input]:
    """Segments (direction, frames the kick is held, length) as per-frame inputs."""
    out: list[Input] = []
    for direction, kick_frames, length in parts:
        out.extend((direction, index < kick_frames) for index in range(length))
    return out


def play(config: KickConfig, inputs: Sequence[Input]) -> tuple[list[Event], list[str]]:
    """The event log and the per-frame state checksums of a fresh game fed the inputs."""
    game = maker(config)()
    log: list[Event] = []
    checksums = [state_checksum(game.snapshot())]
    for frame_input in inputs:
        log.extend(kick_step(game, frame_input))
        checksums.append(state_checksum(game.snapshot()))
    return log, checksums


def continue_identically(game: KickGame, inputs: Sequence[Input], log: Sequence[list[Event]],
                         checksums: Sequence[str]) -> None:
    """Feed inputs to a game and require, frame by frame, the events and checksums of a reference run."""
    for index, frame_input in enumerate(inputs):
        events = kick_step(game, frame_input)
        assert events == log[index], f"frame +{index + 1}: events differ"
        assert state_checksum(game.snapshot()) == checksums[index], f"frame +{index + 1}: state differs"


# ---- SyncTest over Pengo ---------------------------------------------------------------------------


def test_pengo_two_minutes_rollback_8_every_frame() -> None:
    """Two game-minutes of Pengo with a rollback of 8 frames on every frame never desync (events included)."""
    seen: Counter[str] = Counter()
    statuses: Counter[str] = Counter()

    def step(game: KickGame, frame_input: Input) -> list[Event]:
        events = kick_step(game, frame_input)
        seen.update(event["kind"] for event in events)
        statuses[game.status] += 1
        return events

    frames = 2 * GAME_MINUTE_PASSES // PASSES_PER_FRAME  # 7440: Pengo's game-second is 62 vblanks
    inputs = random_inputs(1, frames, kick_rate=0.1)
    report = run_synctest(maker(pengo(0x365A)), step, inputs, rollback=8, every=1, check_outputs=True)
    assert report.frames == report.rollbacks == frames == 7440
    assert report.resimulated == frames * 8 - sum(range(1, 8))  # frames 1-7 roll back to frame 0
    # The run did exercise the rules it claims to check.
    wanted = {"kick", "slide-start", "slide-stop", "break-start", "broken", "hatch", "death"}
    assert wanted <= set(seen), f"the run no longer shows {wanted - set(seen)}: choose another input seed"
    assert {"playing", "dying", "ready"} <= set(statuses), f"statuses seen: {sorted(statuses)}"


@pytest.mark.parametrize("seed", PENGO_SEEDS, ids=hex)
@settings(SLOW, max_examples=3)
@given(parts=segments, rollback=st.integers(1, 10), every=st.integers(1, 3))
def test_pengo_synctest_random_streams(seed: int, parts: list[Segment],
                                       rollback: int, every: int) -> None:
    """Hypothesis input streams on several Pengo seeds survive rollbacks of 1–10 frames."""
    inputs = expand(parts)
    report = run_synctest(maker(pengo(seed)), kick_step, inputs, rollback=rollback, every=every,
                          check_outputs=True)
    assert report.frames == len(inputs) and len(report.checksums) == len(inputs) + 1


def test_pengo_synctest_losing_every_life() -> None:
    """A two-life game played to game over (a death, a respawn, the last death, lost) survives rollbacks."""
    config = pengo(0x365A, lives=2)
    inputs = random_inputs(5, 1500, kick_rate=0.15)  # deaths at frames 732 and 1295, then game over
    log, _ = play(config, inputs)
    kinds = [event["kind"] for event in log]
    assert kinds.count("death") == 2 and "game-over" in kinds, "the run no longer ends the game: change it"
    run_synctest(maker(config), kick_step, inputs, rollback=8, every=2, check_outputs=True)


# ---- SyncTest over Ice Slide ------------------------------------------------------------------------


@pytest.mark.parametrize("room", range(1, len(ICE_SLIDE_ROOMS) + 1))
def test_ice_slide_room_synctest(room: int) -> None:
    """Every Ice Slide room survives 8 s of random play with a rollback of 8 frames on every frame."""
    inputs = random_inputs(100 + room, 8 * FPS, kick_rate=0.2)
    run_synctest(maker(ice_slide(room)), kick_step, inputs, rollback=8, check_outputs=True)


@settings(SLOW, max_examples=6)
@given(room=st.integers(1, len(ICE_SLIDE_ROOMS)), seed=st.integers(0, 0xFFFF), parts=segments,
       rollback=st.integers(1, 10))
def test_ice_slide_synctest_random_streams(room: int, seed: int, parts: list[Segment],
                                           rollback: int) -> None:
    """Hypothesis input streams in random Ice Slide rooms survive rollbacks of 1–10 frames."""
    inputs = expand(parts)
    run_synctest(maker(ice_slide(room, seed)), kick_step, inputs, rollback=rollback, check_outputs=True)


# ---- determinism of the event log ------------------------------------------------------------------


@settings(SLOW, max_examples=5)
@given(seed=st.integers(0, 0xFFFF), parts=segments)
def test_same_inputs_same_event_log(seed: int, parts: list[Segment]) -> None:
    """The same config, seed and inputs in two fresh games give identical event logs and states."""
    inputs = expand(parts)
    first_log, first_states = play(pengo(seed), inputs)
    second_log, second_states = play(pengo(seed), inputs)
    assert first_log == second_log
    assert first_states == second_states


def test_same_inputs_same_event_log_ice_slide() -> None:
    """Ice Slide too: two fresh games fed the same inputs log the same events."""
    inputs = random_inputs(3, 20 * FPS, kick_rate=0.2)
    assert play(ice_slide(1), inputs) == play(ice_slide(1), inputs)


_CHILD = """
import hashlib, json, random
from rules.kick import KickGame, PengoOptions, pengo_preset
from rules.kick.events import to_plain
from rules.kick.tables import GAME_MINUTE_PASSES
from rules.synctest import state_checksum
rng = random.Random(11)
game = KickGame(pengo_preset(PengoOptions(seed=0x365A, lives=99)))
game.drain()
log = []
for frame in range(900):
    if frame % 6 == 0:
        direction = rng.choice((None, "up", "down", "left", "right"))
        kick = rng.random() < 0.3
    game.control(direction)
    if kick:
        game.kick()
    game.step_frame()
    log.extend(to_plain(event) for event in game.drain())
print(hashlib.sha256(json.dumps(log, sort_keys=True).encode()).hexdigest(), state_checksum(game.snapshot()))
"""


def test_event_log_is_the_same_in_other_processes() -> None:
    """Processes with different string-hash salts (PYTHONHASHSEED) log the same events and end states."""
    root = str(Path(__file__).resolve().parents[2])
    results = set()
    for salt in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": salt, "PYTHONPATH": root}
        child = subprocess.run([sys.executable, "-c", _CHILD], env=env, cwd=root, capture_output=True,
                               text=True, timeout=120, check=False)
        assert child.returncode == 0, child.stderr
        results.add(child.stdout.strip())
    assert len(results) == 1


# ---- snapshots through msgpack, and mid-action snapshots --------------------------------------------


@pytest.mark.parametrize("frame", [0, 1, 150, 777, 1500])
def test_snapshot_survives_msgpack_and_continues(frame: int) -> None:
    """A snapshot packed and unpacked by msgpack has the same checksum and restores into a fresh game."""
    config = pengo(0xBEEF)
    inputs = random_inputs(21, frame + 600)
    log: list[list[Event]] = []
    checksums: list[str] = []
    game = maker(config)()
    snap: Any = None
    for index, frame_input in enumerate(inputs):
        if index == frame:
            snap = game.snapshot()
        events = kick_step(game, frame_input)
        if index >= frame:
            log.append(events)
            checksums.append(state_checksum(game.snapshot()))
    back = msgpack.unpackb(msgpack.packb(snap), strict_map_key=False)
    assert state_checksum(back) == state_checksum(snap)
    fresh = maker(config)()
    fresh.restore(back)
    assert state_checksum(fresh.snapshot()) == state_checksum(snap)
    continue_identically(fresh, inputs[frame:], log, checksums)


Condition = Callable[[KickState], bool]
CONDITIONS: dict[str, Condition] = {
    "mid-slide": lambda s: any(b.motion is not None for b in s.blocks),
    "mid-shatter": lambda s: any(b.breaking is not None for b in s.blocks),
    "mid-hatch": lambda s: any(e.phase == "hatching" for e in s.enemies),
    "mid-death": lambda s: s.status == "dying",
}


#: Frames a restored game is followed after a mid-action snapshot (enough to finish any action).
HORIZON = 6 * FPS


class Scan(NamedTuple):
    """A reference run: inputs, per-frame events and checksums, and frames found for each condition."""

    inputs: list[Input]
    events: list[list[Event]]
    checksums: list[str]
    found: dict[str, int]


@pytest.fixture(scope="module")
def scan() -> Scan:
    """Play Pengo once, recording every frame, and note a frame inside each condition (not its first)."""
    config = pengo(0x365A)
    inputs = random_inputs(7, 60 * FPS)
    game = maker(config)()
    events: list[list[Event]] = []
    checksums: list[str] = []
    found: dict[str, int] = {}
    held: dict[str, int] = {}
    for index, frame_input in enumerate(inputs):
        events.append(kick_step(game, frame_input))
        checksums.append(state_checksum(game.snapshot()))
        if len(found) == len(CONDITIONS):
            if index >= max(found.values()) + HORIZON:
                break
            continue
        state = game.state
        for name, condition in CONDITIONS.items():
            held[name] = held.get(name, 0) + 1 if condition(state) else 0
            if held[name] == 2 and name not in found:
                found[name] = index + 1  # the state after this frame: two frames into the condition
    return Scan(inputs[: len(events)], events, checksums, found)


@pytest.mark.parametrize("name", list(CONDITIONS))
def test_snapshot_mid_action_continues_identically(scan: Scan, name: str) -> None:
    """A snapshot taken mid-slide, mid-shatter, mid-hatch or mid-death restores and plays on identically."""
    assert name in scan.found, f"the reference run never reached {name}"
    frame = scan.found[name]
    game = maker(pengo(0x365A))()
    for frame_input in scan.inputs[:frame]:
        kick_step(game, frame_input)
    assert CONDITIONS[name](game.state)
    snap = msgpack.unpackb(msgpack.packb(game.snapshot()), strict_map_key=False)
    fresh = maker(pengo(0x365A))()
    fresh.restore(snap)
    assert CONDITIONS[name](fresh.state), f"the restored game is not {name}"
    assert fresh.state == game.state
    horizon = min(len(scan.inputs), frame + HORIZON)
    continue_identically(fresh, scan.inputs[frame:horizon], scan.events[frame:horizon],
                         scan.checksums[frame:horizon])


def test_restore_discards_the_future(scan: Scan) -> None:
    """Restoring an earlier snapshot into a game that has played on rewinds it completely."""
    game = maker(pengo(0x365A))()
    for frame_input in scan.inputs[:300]:
        kick_step(game, frame_input)
    snap = game.snapshot()
    for frame_input in scan.inputs[300:900]:
        kick_step(game, frame_input)
    game.restore(snap)
    assert state_checksum(game.snapshot()) == scan.checksums[299]
    continue_identically(game, scan.inputs[300:600], scan.events[300:600], scan.checksums[300:600])


# ---- the harness itself -------------------------------------------------------------------------------


class Toy:
    """A tiny simulation: a running total, a frame counter, a mark set by input 99, and a history."""

    def __init__(self) -> None:
        self.total = 0
        self.frame = 0
        self.mark = 0
        self.history: list[int] = []

    def snapshot(self) -> dict[str, Any]:
        """Every field, copied."""
        return {"total": self.total, "frame": self.frame, "mark": self.mark, "history": list(self.history)}

    def restore(self, snap: dict[str, Any]) -> None:
        """Every field, copied back."""
        self.total, self.frame, self.mark = snap["total"], snap["frame"], snap["mark"]
        self.history = list(snap["history"])


def toy_step(toy: Toy, value: int) -> list[int]:
    """Add the value; input 99 marks the frame it arrives on; returns [frame, value]."""
    toy.frame += 1
    toy.total += value
    if value == 99:
        toy.mark = toy.frame
    toy.history.append(value)
    return [toy.frame, value]


class ForgetfulToy(Toy):
    """restore() forgets the mark."""

    def restore(self, snap: dict[str, Any]) -> None:
        """Every field but mark."""
        mark = self.mark
        super().restore(snap)
        self.mark = mark


class AliasingSnapshotToy(Toy):
    """snapshot() hands out the live history list."""

    def snapshot(self) -> dict[str, Any]:
        """The live list, not a copy."""
        return {**super().snapshot(), "history": self.history}


class AliasingRestoreToy(Toy):
    """restore() keeps the snapshot's history list as its own."""

    def restore(self, snap: dict[str, Any]) -> None:
        """The snapshot's list itself."""
        super().restore(snap)
        self.history = snap["history"]


class HiddenStateToy(Toy):
    """A counter the step reads is missing from the snapshot."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0


def hidden_step(toy: HiddenStateToy, value: int) -> list[int]:
    """Like toy_step, but every other call adds one more."""
    toy.calls += 1
    return toy_step(toy, value + toy.calls % 2)


TOY_INPUTS = [1] * 20 + [99] + [2] * 19  # 99 is inputs[20]: the mark is set in frame 21


def test_harness_passes_an_exact_simulation() -> None:
    """An exact toy passes; the report counts rollbacks and re-simulated frames and holds the checksums."""
    report = run_synctest(Toy, toy_step, TOY_INPUTS, rollback=8, check_outputs=True)
    assert (report.frames, report.rollback, report.every) == (40, 8, 1)
    assert report.rollbacks == 40 and report.resimulated == sum(min(p, 8) for p in range(1, 41))
    straight = Toy()
    for value in TOY_INPUTS:
        toy_step(straight, value)
    assert report.final_checksum == state_checksum(straight.snapshot()) and len(report.checksums) == 41
    sparse = run_synctest(Toy, toy_step, TOY_INPUTS, rollback=3, every=5)
    assert sparse.rollbacks == 8 and sparse.resimulated == 8 * 3
    assert run_synctest(Toy, toy_step, TOY_INPUTS, rollback=0).resimulated == 0


def test_harness_catches_a_restore_that_forgets_a_field() -> None:
    """A restore() that forgets one field raises DesyncError at the first restored frame that differs."""
    with pytest.raises(DesyncError) as caught:
        run_synctest(ForgetfulToy, toy_step, TOY_INPUTS, rollback=8)
    error = caught.value
    # The mark appears in frame 21; the first rollback across it is from frame 21 to frame 13, where the
    # restored game keeps mark = 21 instead of 0.
    assert (error.phase, error.frame, error.present, error.restored) == ("restore", 13, 21, 13)
    assert error.difference == "snapshot['mark']: 0 != 21"
    assert "desync at frame 13 (rolled back from frame 21 to frame 13)" in str(error)
    with pytest.raises(DesyncError) as sparse:
        run_synctest(ForgetfulToy, toy_step, TOY_INPUTS, rollback=8, every=4)
    assert (sparse.value.frame, sparse.value.present) == (16, 24)


def test_harness_catches_state_missing_from_the_snapshot() -> None:
    """A step that reads a field the snapshot lacks diverges on the first re-simulated frame."""
    with pytest.raises(DesyncError) as caught:
        run_synctest(HiddenStateToy, hidden_step, TOY_INPUTS, rollback=4)
    error = caught.value
    assert (error.phase, error.frame, error.present, error.restored) == ("resimulate", 1, 1, 0)
    assert error.difference == "snapshot['total']: 2 != 1"


def test_harness_catches_a_step_that_is_not_deterministic() -> None:
    """A step reading global state makes a fresh object diverge from the straight run ('advance')."""
    calls = [0]

    def leaky_step(toy: Toy, value: int) -> list[int]:
        calls[0] += 1
        return toy_step(toy, value + (calls[0] > len(TOY_INPUTS)))

    with pytest.raises(DesyncError) as caught:
        run_synctest(Toy, leaky_step, TOY_INPUTS, rollback=2)
    assert (caught.value.phase, caught.value.frame, caught.value.restored) == ("advance", 1, None)
    assert caught.value.difference is not None and "does not reproduce itself" in caught.value.difference


def test_harness_catches_aliased_snapshots() -> None:
    """A snapshot that shares a list with the live object, or a restore that adopts one, is caught."""
    with pytest.raises(DesyncError) as caught:
        run_synctest(AliasingSnapshotToy, toy_step, TOY_INPUTS, rollback=3)
    assert (caught.value.phase, caught.value.frame) == ("snapshot-mutated", 0)
    with pytest.raises(DesyncError) as adopted:
        run_synctest(AliasingRestoreToy, toy_step, TOY_INPUTS, rollback=3)
    assert (adopted.value.phase, adopted.value.frame, adopted.value.present) == ("snapshot-mutated", 0, 2)


def test_harness_catches_outputs_that_differ() -> None:
    """With check_outputs, a step whose output depends on unsnapshotted state is caught ('output')."""
    def noisy_step(toy: HiddenStateToy, value: int) -> list[int]:
        toy.calls += 1
        return [*toy_step(toy, value), toy.calls]

    run_synctest(HiddenStateToy, noisy_step, TOY_INPUTS, rollback=2)  # outputs are ignored by default
    with pytest.raises(DesyncError) as caught:
        run_synctest(HiddenStateToy, noisy_step, TOY_INPUTS, rollback=2, check_outputs=True)
    error = caught.value
    assert (error.phase, error.frame, error.present, error.restored) == ("output", 1, 1, 0)
    assert error.difference == "output[2]: 1 != 2"


def test_harness_refuses_non_plain_snapshots_and_bad_arguments() -> None:
    """A snapshot holding a set raises TypeError naming the path; bad rollback/every raise ValueError."""
    class SetToy(Toy):
        def snapshot(self) -> dict[str, Any]:
            return {**super().snapshot(), "seen": {self.total}}

    with pytest.raises(TypeError, match=r"snapshot\['seen'\]: set"):
        run_synctest(SetToy, toy_step, TOY_INPUTS)
    for bad in ({"rollback": -1}, {"every": 0}, {"rollback": True}, {"every": 1.5}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            run_synctest(Toy, toy_step, TOY_INPUTS, **bad)


# ---- the checksum ----------------------------------------------------------------------------------


def test_canonical_encoding_rules() -> None:
    """Keys sort, tuples are lists, 1/1.0/True/"1" differ, floats go by repr, and str keys give JSON."""
    assert canonical_encoding({"b": 1, "a": (1, 2.5, None, True)}) == b'{"a":[1,2.5,null,true],"b":1}'
    assert canonical_encoding({"b": 1, "a": 2}) == canonical_encoding({"a": 2, "b": 1})
    assert canonical_encoding((1, [2])) == canonical_encoding([1, (2,)])
    texts = {canonical_encoding(v) for v in (1, 1.0, True, "1", [1], {"1": 1}, {1: 1}, None, 0.1 + 0.2)}
    assert len(texts) == 9
    assert canonical_encoding(0.1 + 0.2) == repr(0.1 + 0.2).encode()
    assert canonical_encoding({2: "x", 1: "y", None: 0}) == b'#{1:"y",2:"x",null:0}'
    assert canonical_encoding([math.nan, -math.inf, -0.0, "é\n"]) == b'[NaN,-Infinity,-0.0,"\\u00e9\\n"]'
    assert state_checksum({"a": 1}) == state_checksum({"a": 1}) != state_checksum({"a": 2})
    assert len(state_checksum([])) == 64


@pytest.mark.parametrize("bad", [{1, 2}, b"bytes", object(), 1 + 2j, frozenset(), {(1, 2): 3}])
def test_canonical_encoding_refuses_what_is_not_plain(bad: object) -> None:
    """Sets, bytes, objects, complex numbers and tuple keys raise TypeError naming where they sit."""
    with pytest.raises(TypeError, match=r"not plain data at snapshot\['x'\]\[1\]"):
        canonical_encoding({"x": [0, bad]})


def test_canonical_encoding_refuses_enums_and_cycles() -> None:
    """Enum members (subclasses of int or str) and cyclic lists are not plain data."""
    import enum

    class Colour(enum.IntEnum):
        RED = 1

    with pytest.raises(TypeError, match="Colour"):
        canonical_encoding([Colour.RED])
    loop: list[Any] = [1]
    loop.append(loop)
    with pytest.raises(TypeError, match="a cycle"):
        canonical_encoding(loop)


plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    | st.dictionaries(st.integers(-3, 3) | st.text(max_size=2), inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None)
@given(value=plain)
def test_checksum_survives_msgpack_and_dict_order(value: Any) -> None:
    """Plain data keeps its checksum through msgpack and through reversing every dict's order."""
    def reverse(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: reverse(v[k]) for k in reversed(list(v))}
        if isinstance(v, list | tuple):
            return [reverse(x) for x in v]
        return v

    back = msgpack.unpackb(msgpack.packb(value), strict_map_key=False)
    assert state_checksum(back) == state_checksum(value) == state_checksum(reverse(value))
    assert describe_difference(value, back) is None


def test_describe_difference_names_the_first_path() -> None:
    """describe_difference names the first differing path, and treats 1 and 1.0 as different."""
    assert describe_difference({"a": [1, 2]}, {"a": [1, 3]}) == "snapshot['a'][1]: 2 != 3"
    assert describe_difference([1], [1.0]) == "snapshot[0]: 1 != 1.0"
    assert describe_difference([1], [1, 2]) == "snapshot: length 1 != 2"
    assert describe_difference({"a": 1}, {"b": 1}) == "snapshot: key 'a' missing from the second"
    assert describe_difference((1, 2), [1, 2]) is None
