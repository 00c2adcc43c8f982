"""The browser engine's replica (clients/web/src/engine/floe_engine.py `Replica`) under CPython, driven as
the page drives it (src/net/predict.ts): the seat's own bytes stamped ahead, the frames confirmed a
network delay later, each answer's bodies applied to the page's state (the stream's state at `from` on a
restart). What the page holds is always the chain's present exactly; a prediction that holds costs one
step a frame (no frame simulated twice); a wrong one is rolled back and counted where it showed; the
keyframes are checked. (tests/web/test_prediction.py runs the same module in Pyodide, in Chromium.)"""

from __future__ import annotations

import importlib.util
import json
import marshal
import random
from base64 import b64encode
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from protocol.delta import apply
from rules.kick.geometry import DIRECTIONS
from rules.registry import known, lookup
from rules.ruleset import Match, Ruleset
from rules.versus.inputs import encode_input

MODULE = Path(__file__).resolve().parents[2] / "clients" / "web" / "src" / "engine" / "floe_engine.py"
RULESET = "pengo-versus"
SEED = 7
SEATS = ["ann", "bot"]
#: The page's seat, frames its bytes are stamped ahead, frames its confirmations trail by.
SEAT = 0
LEAD = 8
DELAY = 14


@pytest.fixture
def engine() -> ModuleType:
    spec = importlib.util.spec_from_file_location("floe_engine", MODULE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rules() -> Ruleset[Any, Any]:
    return lookup(RULESET, max(version for name, version in known() if name == RULESET))


def fresh_match() -> Match[Any]:
    ruleset = rules()
    return ruleset.new_match(ruleset.default_config(), SEED, SEATS)


def script(seed: int, frames: int, every: int) -> list[int]:
    """A seat's bytes: a direction held for a while, then another (or none), at random."""
    rng = random.Random(seed)
    choices = [encode_input(None), *(encode_input(direction) for direction in DIRECTIONS)]
    out: list[int] = []
    value = choices[0]
    for _ in range(frames):
        if rng.randrange(every) == 0:
            value = rng.choice(choices)
        out.append(value)
    return out


def seen(actors: list[Any]) -> list[Any]:
    """What a page shows of every seat: its summary and records (in key order)."""
    return [[list(seat[0]), sorted(list(record) for record in seat[1])] for seat in actors]


class Page:
    """The page's side of src/net/predict.ts, with the authority's stream state at every frame."""

    def __init__(self, engine: ModuleType, own: list[int], other: list[int]) -> None:
        ruleset = rules()
        self.replica = engine.Replica(RULESET, ruleset.version, json.dumps(ruleset.config_plain(
            ruleset.default_config())), SEED, json.dumps(SEATS))
        self.own = own
        self.truth = [[own[frame], other[frame]] for frame in range(len(own))]
        authority = fresh_match()
        self.stream = [authority.actors()]
        for row in self.truth:
            authority.step(row)
            self.stream.append(authority.actors())
        self.state: list[Any] | None = None
        self.frame = -1
        self.sent = 0
        self.answer: dict[str, Any] = {}

    def advance(self, confirmed: int, target: int) -> dict[str, Any]:
        rows = [[frame, self.truth[frame]] for frame in range(self.sent, confirmed)]
        self.sent = max(self.sent, confirmed)
        own = {frame: self.own[frame] for frame in range(self.answer.get("base", 0), target)}
        answer: dict[str, Any] = json.loads(
            self.replica.advance(SEAT, json.dumps(rows), json.dumps(own), target, False))
        if answer["from"] >= 0:
            if answer["restart"]:
                self.state = self.stream[answer["from"]]
            else:
                assert answer["from"] == self.frame, "an increment onto another frame than the page's"
            assert self.state is not None
            for body in answer["bodies"]:
                self.state = apply(self.state, body["actors"])
            self.frame = answer["present"]
        self.answer = answer
        return answer

    def expected(self) -> list[Any]:
        """The chain's present simulated straight: confirmed rows, then the prediction (own bytes,
        the other seat holding its last confirmed input)."""
        match = fresh_match()
        base = self.answer["base"]
        held = rules().inputs.held
        other = held(self.truth[base - 1][1]) if base else 0
        for frame in range(self.frame):
            match.step(self.truth[frame] if frame < base else [self.own[frame], other])
        return seen(match.actors())


def play(engine: ModuleType, own: list[int], other: list[int], check_every: int = 0) -> Page:
    page = Page(engine, own, other)
    frames = len(own)
    for now in range(frames - LEAD):
        page.advance(max(0, now - DELAY), now + LEAD)
        if check_every and now % check_every == 0 and page.state is not None:
            assert seen(page.state) == page.expected(), f"the page's state at {page.frame} is not the chain's"
    page.advance(frames, frames)
    assert page.state is not None and page.frame == frames
    assert seen(page.state) == seen(page.stream[frames]), "the confirmed end is not the authority's"
    return page


def test_a_prediction_that_holds_steps_each_frame_once(engine: ModuleType) -> None:
    """The other seat never changes its input: every confirmation agrees, nothing is re-simulated, each
    frame is stepped exactly once, and nothing drawn is corrected."""
    frames = 400
    page = play(engine, script(1, frames, 9), [encode_input(None)] * frames, check_every=25)
    answer = page.answer
    assert answer["rollbacks"] == 0 and answer["resimulated"] == 0, answer
    assert answer["stepped"] == frames, answer
    assert answer["corrections"] == [0, 0] and answer["desyncs"] == [], answer


def test_a_wrong_guess_is_rolled_back_and_counted_on_the_board_it_showed(engine: ModuleType) -> None:
    """The other seat changes its input often: each change confirmed rolls the chain back; the page's
    state is the chain's present throughout; the other board's drawn frames were corrected, your own
    never (its bytes are known when they are predicted); the work stays bounded per frame."""
    frames = 600
    page = play(engine, script(2, frames, 7), script(3, frames, 5), check_every=20)
    answer = page.answer
    assert answer["rollbacks"] > 10, answer
    assert answer["corrections"][1] > 0 and answer["corrections"][SEAT] == 0, answer
    # a rollback re-simulates at most the span predicted past the confirmed frame and a snapshot's spacing
    assert answer["resimulated"] <= answer["rollbacks"] * (LEAD + DELAY + engine.SNAPSHOT_EVERY), answer
    assert answer["desyncs"] == [], answer


def authority_checksums(rows: list[list[int]]) -> list[str]:
    """The authority's checksum at the start of each frame of `rows` (what its keyframes carry)."""
    authority = fresh_match()
    checksums = []
    for row in rows:
        checksums.append(authority.checksum(authority.snapshot()))
        authority.step(row)
    return checksums


def test_keyframes_are_checked_even_when_they_come_after_the_chain_passed_them(engine: ModuleType) -> None:
    """A keyframe's checksum is compared with the chain's state at its frame once that frame is
    confirmed, the chain reaching it again if it had passed it; a wrong checksum is a desync."""
    frames = 300
    own, other = script(4, frames, 9), script(5, frames, 6)
    page = Page(engine, own, other)
    checksums = authority_checksums(page.truth)
    for now in range(frames - LEAD):
        page.advance(max(0, now - DELAY), now + LEAD)
        if now == 100:
            page.replica.keyframe(now - 4, checksums[now - 4])  # passed: the chain is at now + LEAD
        if now == 150:
            page.replica.keyframe(now - 2, "0" * 64)
        if now == 200:
            page.replica.keyframe(now + 20, checksums[now + 20])  # not yet reached
    page.advance(frames, frames)
    assert page.answer["desyncs"] == [148], page.answer


def server_state(rows: list[list[int]], frame: int) -> str:
    """A resync's `state` for `frame` as the server sends it (JSON here, as the page passes it on): the
    authority's snapshot there (marshal, base64) and the row of the frame before."""
    authority = fresh_match()
    for row in rows[:frame]:
        authority.step(row)
    snapshot = b64encode(marshal.dumps(authority.snapshot(), 2)).decode()
    held = rows[frame - 1] if frame else None
    return json.dumps({"frame": frame, "snapshot": snapshot, "held": held})


@pytest.mark.parametrize("skip_to", [150, 244])
def test_a_replica_restored_from_a_server_snapshot_goes_on_to_the_servers_keyframes(
        engine: ModuleType, skip_to: int) -> None:
    """A replica that played to frame 100, then missed frames (a reconnect past the history), restored
    from the server's snapshot at `skip_to` and fed the frame records after it: the page's state is the
    chain's throughout, every keyframe after it agrees with the server's (no desync), the frames before
    it are never simulated again, and the end is the authority's."""
    frames = 400
    own, other = script(6, frames, 9), script(7, frames, 6)
    page = Page(engine, own, other)
    checksums = authority_checksums(page.truth)
    for now in range(100):
        page.advance(max(0, now - DELAY), now + LEAD)
    stepped = page.answer["stepped"]
    page.replica.restore(server_state(page.truth, skip_to))
    page.sent = skip_to  # the resync's frames start there: the rows before it never come
    page.answer = {"base": skip_to}
    for now in range(skip_to + DELAY, frames - LEAD):
        if (now - skip_to) % 40 == 0:
            keyframe = now - DELAY
            page.replica.keyframe(keyframe, checksums[keyframe])
        answer = page.advance(max(skip_to, now - DELAY), now + LEAD)
        if now == skip_to + DELAY:
            assert answer["restart"] and answer["from"] == skip_to, answer
        if now % 25 == 0 and page.state is not None:
            assert seen(page.state) == page.expected(), f"the page's state at {page.frame} is not the chain's"
    page.advance(frames, frames)
    assert page.frame == frames and page.state is not None
    assert seen(page.state) == seen(page.stream[frames]), "the confirmed end is not the authority's"
    answer = page.answer
    assert answer["desyncs"] == [], answer
    # from the snapshot on only: nothing before `skip_to` stepped again (rollbacks re-step a few frames)
    assert answer["stepped"] - stepped <= frames - skip_to + answer["resimulated"] + LEAD, answer

