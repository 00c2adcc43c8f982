"""The browser engine's Python side: floe's own pure `rules/` package, run by Pyodide in a Web Worker
(clients/web/src/engine/worker.ts calls these functions; values cross as JSON text).

Only `rules/` is imported (and the standard library's `json` and `marshal`): the browser runs the
server's rules unchanged, never its network code. Two uses:

- `verify_replay(text)`: re-simulate a replay file's plain data (rules/replay.py `verify`), as the
  server's verifier does; the log hash it reaches comes back (the golden replays' test compares it
  with the server's).
- `Replica`: one live match rebuilt from what the stream carries (ruleset, config, seed, seats, each
  confirmed frame's inputs), with a prediction of the frames past the confirmed one (GGPO's shape):
  the seat's own inputs as stamped, the other seats holding their last confirmed input. The confirmed
  state is kept as a snapshot; every prediction restores it and re-simulates forward, so a confirmed
  frame that disagrees with an earlier prediction simply re-simulates (the rollback). What was drawn
  of each predicted frame is fingerprinted per seat and compared with the authority's frame when it is
  confirmed: a difference in what moves on a board (its records) is a correction, counted per seat.
  A keyframe's checksum is compared with the replica's own state at that frame: a difference is a
  desync.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from typing import Any

from rules.registry import lookup
from rules.replay import Replay, input_rows, record, verify
from rules.ruleset import seat_seed
from rules.synctest import canonical_encoding

#: Drawn frames remembered for the correction check (older ones are forgotten unchecked).
DRAWN_KEPT = 240
#: The part of a seat's actors (`[summary, records, notes]`, rules/ruleset.py) a correction is counted
#: on: its records, what moves on the board (Pengo, the Sno-Bees, sliding blocks). The summary's
#: incoming-attack telegraph follows the other seats' guessed inputs, and is not your board moving.
SPRITES = 1


def verify_replay(text: str) -> str:
    """Verify a replay given as its plain data in JSON; the verdict as JSON."""
    replay = Replay.from_plain(json.loads(text))
    verdict = verify(replay)
    return json.dumps({"ok": verdict.ok, "reason": verdict.reason, "log_hash": verdict.log_hash,
                       "frames": verdict.frames})


def _fingerprint(value: Any) -> str:
    return hashlib.sha256(canonical_encoding(value)).hexdigest()[:16]


class Replica:
    """One match's replica: the confirmed state and predictions past it (see the module docstring)."""

    def __init__(self, ruleset: str, version: int, config: str, seed: int, seats: str) -> None:
        rules = lookup(ruleset, version)
        names = json.loads(seats)
        self.match = rules.new_match(rules.config_from_plain(json.loads(config)), seed, names)
        self.inputs = rules.inputs
        self.seats = len(names)
        self.base_frame = 0
        self.base = marshal.dumps(self.match.snapshot())
        self.last = [self.inputs.neutral] * self.seats
        #: frame → per-seat fingerprints of what a prediction drew of that frame (the state after it).
        self.drawn: dict[int, list[str]] = {}
        self.corrections = [0] * self.seats
        self.wrong = [False] * self.seats
        #: keyframe checksums waiting for the confirmed state to reach their frame.
        self.pending: dict[int, str] = {}
        self.desyncs: list[int] = []

    def _restore(self) -> None:
        if self.match.frame != self.base_frame or self._dirty:
            self.match.restore(marshal.loads(self.base))
            self._dirty = False

    _dirty = False

    def keyframe(self, frame: int, checksum: str) -> None:
        """The server's checksum of the state at the start of `frame` (checked once confirmed there)."""
        if frame == self.base_frame:
            self._check(frame, checksum)
        elif frame > self.base_frame:
            self.pending[frame] = checksum

    def _check(self, frame: int, checksum: str) -> None:
        state = marshal.loads(self.base)
        if self.match.checksum(state) != checksum:
            self.desyncs.append(frame)

    def confirm(self, rows: str) -> int:
        """Frames whose every seat's input is final, `[[frame, [byte per seat]], …]` from the confirmed
        frame on (older ones are ignored; a gap stops there). Returns the confirmed frame reached."""
        todo = [(frame, inputs) for frame, inputs in json.loads(rows) if frame >= self.base_frame]
        if not todo:
            return self.base_frame
        self._restore()
        match = self.match
        for frame, inputs in todo:
            if frame != self.base_frame:
                break
            match.step(inputs)
            self.last = list(inputs)
            self.base_frame = frame + 1
            drawn = self.drawn.pop(frame + 1, None)
            if drawn is not None:
                actors = match.actors()
                for seat in range(self.seats):
                    differs = _fingerprint(actors[seat][SPRITES]) != drawn[seat]
                    if differs and not self.wrong[seat]:
                        self.corrections[seat] += 1
                    self.wrong[seat] = differs
            checksum = self.pending.pop(self.base_frame, None)
            if checksum is not None and match.checksum(match.snapshot()) != checksum:
                self.desyncs.append(self.base_frame)
        self.base = marshal.dumps(match.snapshot())
        self._dirty = False
        for frame in [f for f in self.drawn if f <= self.base_frame - DRAWN_KEPT]:
            del self.drawn[frame]
        return self.base_frame

    def predict(self, seat: int, own: str, target: int) -> str:
        """Frames confirmed … `target` − 1 predicted: seat `seat` plays `own` (`{frame: byte}`; a frame
        not in it holds the last byte's held part), the others hold their last confirmed input. The
        frame bodies as the stream sends them (`{frame, inputs, events, actors}`, actors delta-coded from
        the confirmed state), as JSON; the last one is remembered as drawn."""
        self._restore()
        match = self.match
        played = {int(frame): value for frame, value in json.loads(own).items()}
        held = self.inputs.held
        row = [held(value) for value in self.last]
        bodies: list[dict[str, Any]] = []
        for frame in range(self.base_frame, target):
            if match.result is not None:
                break
            mine = played.get(frame)
            row[seat] = held(row[seat]) if mine is None else mine
            if frame == self.base_frame and mine is None:
                row[seat] = held(self.last[seat])
            inputs = list(row)
            records = match.step(inputs)
            bodies.append({"frame": frame, "inputs": inputs, "events": match.records_wire(records),
                           "actors": match.changes()})
            for other in range(self.seats):
                row[other] = held(row[other])
            self._dirty = True
        if bodies:
            self.drawn[match.frame] = [_fingerprint(actors[SPRITES]) for actors in match.actors()]
        return json.dumps(bodies)

    def counters(self) -> str:
        """The corrections per seat and the desynced keyframe frames, as JSON."""
        return json.dumps({"corrections": self.corrections, "desyncs": self.desyncs,
                           "confirmed": self.base_frame})


#: Keyframes of a replay played in the browser: every this many frames (the server's default runner
#: setting, server/netcode/runner.py `keyframe_every`) offset by the seed as the server's are, so that
#: each of them falls on a frame where the server's replay stream has one to compare with.
KEYFRAME_EVERY = 120


def replay_stream(text: str) -> str:
    """A replay file's plain data (JSON) played into what the server's replay stream carries, as JSON:
    `{joined, keyframes: [{frame, view, checksum}], bodies: [{frame, inputs, events, actors}], result,
    log_hash, ok, reason}`; `ok` is whether the run reached the file's result and log hash."""
    replay = Replay.from_plain(json.loads(text))
    rules = lookup(replay.ruleset, replay.ruleset_version)
    config = rules.config_from_plain(replay.config)
    match = rules.new_match(config, replay.seed, list(replay.seats))
    phase = replay.seed % KEYFRAME_EVERY
    keyframes: list[dict[str, Any]] = []
    bodies: list[dict[str, Any]] = []
    for frame, row in enumerate(input_rows(replay, rules.inputs.neutral)):
        if match.result is not None:
            break
        if frame == 0 or (frame + phase) % KEYFRAME_EVERY == 0:
            keyframes.append({"frame": frame, "view": match.keyframe_view(),
                              "checksum": match.checksum(match.snapshot())})
        records = match.step(row)
        bodies.append({"frame": frame, "inputs": list(row), "events": match.records_wire(records),
                       "actors": match.changes()})
    result = match.result.plain() if match.result is not None else None
    ok = result == replay.result.plain() and match.log_hash == replay.log_hash
    joined = {
        "kind": "joined", "match": "", "role": "spectator", "seat": None, "seats": list(replay.seats),
        "bots": [None] * len(replay.seats), "seed": replay.seed, "config": rules.config_plain(config),
        "ruleset": rules.name, "ruleset_version": rules.version, "state": "over", "head": 0,
        "keyframe_every": KEYFRAME_EVERY, "tables": rules.stream_tables,
    }
    return json.dumps({"joined": joined, "keyframes": keyframes, "bodies": bodies, "result": result,
                       "log_hash": match.log_hash, "ok": ok,
                       "reason": "" if ok else "the replay's moves did not reach its result and log hash"})


class Practice:
    """A board played in the browser alone: a match started fresh or from a replay's frame (`start`, the
    replay's plain data as JSON, played to `frame`; its config, seed and seats are the ones given), one seat
    played by the page (its input byte each frame), every other seat by the ruleset's bot (or holding
    its last input when the ruleset has none). Each step answers the frame's body as the stream sends it;
    at the end, the run as a replay's plain data (a daily run is submitted as it)."""

    def __init__(self, ruleset: str, version: int, config: str, seed: int, seats: str, seat: int,
                 bot: str, start: str, frame: int, player: str) -> None:
        self.rules = lookup(ruleset, version)
        names = json.loads(seats)
        self.match = self.rules.new_match(self.rules.config_from_plain(json.loads(config)), seed, names)
        self.seat = seat
        self.player = player or None
        self.last = [self.rules.inputs.neutral] * len(names)
        if start:  # a replay file's plain data (JSON): its frames before `frame` are played first
            replay = Replay.from_plain(json.loads(start))
            for row in input_rows(replay, self.rules.inputs.neutral):
                if self.match.frame >= frame or self.match.result is not None:
                    break
                self.match.step(row)
                self.last = list(row)
        self.match.changes()  # the bodies from here on are changes from here
        self.bots: dict[int, Any] = {}
        if bot and bot in self.rules.bot_names:
            self.bots = {other: self.rules.make_bot(bot, seat_seed(seed, other))
                         for other in range(len(names)) if other != seat}

    def view(self) -> str:
        """The keyframe of the present (`{frame, view, checksum}`) and the ruleset's stream tables (what
        `joined` carries) as JSON: where the page starts drawing."""
        match = self.match
        return json.dumps({"frame": match.frame, "view": match.keyframe_view(),
                           "checksum": match.checksum(match.snapshot()), "tables": self.rules.stream_tables})

    def step(self, inputs: str) -> str:
        """Play the page's seat's bytes, one a frame (fewer when the match ends); the bodies as JSON."""
        match = self.match
        held = self.rules.inputs.held
        bodies: list[dict[str, Any]] = []
        for value in json.loads(inputs):
            if match.result is not None:
                break
            row = [held(byte) for byte in self.last]
            row[self.seat] = value
            for other, bot in self.bots.items():
                row[other] = bot.decide(match.seat_view(other), match.frame)
            match.check_inputs(row)
            records = match.step(row)
            self.last = row
            bodies.append({"frame": match.frame - 1, "inputs": row, "events": match.records_wire(records),
                           "actors": match.changes()})
        return json.dumps(bodies)

    def finish(self) -> str:
        """`{result, replay}` as JSON: the result (null while playing) and, once over, the run's replay
        as plain data (bound to the player when one is named)."""
        if self.match.result is None:
            return json.dumps({"result": None, "replay": None})
        replay = record(self.match, self.rules, self.player)
        return json.dumps({"result": self.match.result.plain(), "replay": replay.to_plain()})
