"""The browser engine's Python side: floe's own pure `rules/` package, run by Pyodide in a Web Worker
(clients/web/src/engine/worker.ts calls these functions; values cross as JSON text).

Only `rules/` is imported (and the standard library's `json`, `marshal` and `base64`): the browser runs the
server's rules unchanged, never its network code. Two uses:

- `verify_replay(text)`: re-simulate a replay file's plain data (rules/replay.py `verify`), as the
  server's verifier does; the log hash it reaches comes back (the golden replays' test compares it
  with the server's).
- `Replica`: one live match rebuilt from what the stream carries (ruleset, config, seed, seats, each
  confirmed frame's inputs), with a prediction of the frames past the confirmed one (GGPO's shape):
  the seat's own inputs as stamped, the other seats holding their last confirmed input. The predicted
  state is kept and stepped on frame by frame (one step a frame in play); a confirmed frame that
  agrees with what was predicted only moves the confirmed pointer, and one that disagrees restores
  the nearest snapshot before it and re-simulates to the present (the rollback). What was drawn of
  each predicted frame (each seat's records) is compared with that frame's final simulation once it
  is confirmed: a difference in what moves on a board is a correction, counted per seat. A keyframe's
  checksum is compared with the replica's own state at that frame: a difference is a desync.
  `Replica.restore` starts the chain again from a server snapshot (a `resync`'s `state`): after a
  reconnect past the stream's history, or a desync, the replica goes on from there.
"""

from __future__ import annotations

import json
import marshal
from base64 import b64decode
from typing import Any

from rules.registry import lookup
from rules.replay import Replay, input_rows, record, verify
from rules.ruleset import seat_seed

#: Drawn frames remembered for the correction check (older ones are forgotten unchecked).
DRAWN_KEPT = 240
#: The part of a seat's actors (`[summary, records, notes]`, rules/ruleset.py) a correction is counted
#: on: its records, what moves on the board (Pengo, the Sno-Bees, sliding blocks). The summary's
#: incoming-attack telegraph follows the other seats' guessed inputs, and is not your board moving.
SPRITES = 1
#: Frames between the snapshots the predicted chain keeps. A snapshot (marshal of `snapshot()`, about
#: 60 KB for Pengo versus) costs about six steps, so one every frame would cost more than the steps
#: themselves; one every 8 frames costs under one step a frame, and a rollback re-simulates at most 7
#: frames more than GGPO's frame-exact ring would.
SNAPSHOT_EVERY = 8
#: The most frames one `advance` simulates (the page asks again for the rest): a catch-up after the
#: engine loaded, or after a stall, never holds the worker for long.
STEPS_PER_ADVANCE = 240


def verify_replay(text: str) -> str:
    """Verify a replay given as its plain data in JSON; the verdict as JSON."""
    replay = Replay.from_plain(json.loads(text))
    verdict = verify(replay)
    return json.dumps({"ok": verdict.ok, "reason": verdict.reason, "log_hash": verdict.log_hash,
                       "frames": verdict.frames})


class Replica:
    """One match's replica, predicted incrementally (GGPO's shape; see the module docstring).

    The chain is one match stepped frame by frame: the frames below `base` with their confirmed inputs,
    the frames from `base` to the present (`match.frame`) with a prediction (the seat's own stamped
    bytes, the other seats holding their last confirmed input). `rows` keeps the inputs each frame was
    stepped with, `snapshots` the state at every `SNAPSHOT_EVERY`th frame from the newest one at or
    below `base` on. `advance` compares the new confirmed rows and the present prediction with the rows
    stepped: when they agree (the usual case) the confirmed pointer just moves and the chain steps on to
    the target; at the first frame that differs, the chain restores the snapshot at or before it and
    re-simulates to the present (the rollback)."""

    def __init__(self, ruleset: str, version: int, config: str, seed: int, seats: str) -> None:
        rules = lookup(ruleset, version)
        names = json.loads(seats)
        self.match = rules.new_match(rules.config_from_plain(json.loads(config)), seed, names)
        self.held = rules.inputs.held
        self.neutral = rules.inputs.neutral
        self.seats = len(names)
        self.seat = 0
        #: Frames below this are confirmed (their rows are final).
        self.base = 0
        #: The last confirmed row (the frame before `base`).
        self.last = [rules.inputs.neutral] * self.seats
        #: frame → the row the chain stepped that frame with.
        self.rows: dict[int, list[int]] = {}
        #: frame → the chain's state at the start of that frame (marshal of `snapshot()`).
        self.snapshots: dict[int, bytes] = {0: marshal.dumps(self.match.snapshot())}
        #: The seat's own stamped bytes, frame → byte, from `base` on (the page's latest).
        self.own: dict[int, int] = {}
        #: The page holds no state of this chain: the next answer starts again from `base`.
        self.fresh = True
        #: frame → per seat, what the page drew of that frame (its records), and what the chain's latest
        #: simulation of that frame shows (compared once the frame is confirmed).
        self.drawn: dict[int, list[Any]] = {}
        self.latest: dict[int, list[Any]] = {}
        self.corrections = [0] * self.seats
        self.wrong = [False] * self.seats
        #: keyframe checksums by frame, and the chain's own checksum at that frame once it passed it.
        self.pending: dict[int, str] = {}
        self.reached: dict[int, str] = {}
        self.desyncs: list[int] = []
        #: Counters for the bench: advances answered, rollbacks, frames stepped, frames re-simulated.
        self.advances = 0
        self.rollbacks = 0
        self.stepped = 0
        self.resimulated = 0

    def restore(self, state: str) -> None:
        """Start the chain again from the server's state at a frame (a `resync`'s `state` as JSON:
        `{frame, snapshot, held}`, the snapshot marshal bytes in base64, `held` each seat's input on the
        frame before, or null): that frame is the new confirmed pointer, and everything the chain held
        (rows, snapshots, drawn frames, keyframes waiting) is forgotten; the next `advance` takes the
        confirmed rows from that frame on. The counters and the desyncs already reported stay."""
        plain = json.loads(state)
        frame = plain["frame"]
        raw = b64decode(plain["snapshot"])
        self.match.restore(marshal.loads(raw))
        if self.match.frame != frame:
            raise ValueError(f"the snapshot is of frame {self.match.frame}, not {frame}")
        held = plain.get("held")
        self.base = frame
        self.last = [self.neutral] * self.seats if held is None else [int(value) for value in held]
        self.rows = {}
        self.snapshots = {frame: raw}
        self.own = {}
        self.fresh = True
        self.drawn, self.latest = {}, {}
        self.wrong = [False] * self.seats
        self.pending, self.reached = {}, {}

    def keyframe(self, frame: int, checksum: str) -> None:
        """The server's checksum of the state at the start of `frame` (compared once confirmed there;
        a frame older than the oldest snapshot can no longer be reached, and is not checked)."""
        if frame >= min(self.snapshots):
            self.pending[frame] = checksum
            self.reached.pop(frame, None)

    def _predicted(self, frame: int) -> list[int]:
        """The row a frame at or past `base` is predicted with: the own byte stamped for it (else the
        own byte before it, held), the other seats holding their last confirmed input."""
        held = self.held
        row = [held(value) for value in self.last]
        mine = self.own.get(frame)
        if mine is None:
            before = self.last if frame == self.base else self.rows[frame - 1]
            mine = held(before[self.seat])
        row[self.seat] = mine
        return row

    def _sprites(self) -> list[Any]:
        return [actors[SPRITES] for actors in self.match.actors()]

    def advance(self, seat: int, rows: str, own: str, target: int, fresh: bool) -> str:
        """Confirm `rows` (`[[frame, [byte per seat]], …]` from `base` on; older ones are ignored, a gap
        stops there), take `own` (`{frame: byte}`, the seat's stamped bytes from `base` on) and step the
        chain to `target` (at most `STEPS_PER_ADVANCE` frames). The answer, as JSON: `{base, present,
        from, restart, bodies, …counters}`: the frame bodies the page applies (as the stream sends
        them, actors delta-coded), from frame `from`: onto the stream's state at `from` (= `base`) when
        `restart`, else onto the page's present state (its frame is `from`); `from` is −1 when there is
        nothing new to apply. `fresh`: the page has no state of the chain (start again from `base`)."""
        self.advances += 1
        self.seat = seat
        match = self.match
        present = match.frame
        rollback: int | None = None
        restart = fresh or self.fresh
        for frame, inputs in json.loads(rows):
            if frame < self.base:
                continue
            if frame != self.base:
                break
            if frame < present and self.rows[frame] != inputs and rollback is None:
                rollback = frame
            self.rows[frame] = list(inputs)
            self.last = list(inputs)
            self.base = frame + 1
        base = self.base
        self.own = {int(frame): value for frame, value in json.loads(own).items()}
        if rollback is None:  # the prediction past `base` as it stands now (a newly held input, a byte)
            for frame in range(base, present):
                if self._predicted(frame) != self.rows[frame]:
                    rollback = frame
                    break
        restart = restart or rollback is not None or base > present
        # a keyframe whose frame the chain passed before it came: simulated again, silently, to reach it
        unreached = [frame for frame in self.pending if frame not in self.reached and frame < present]
        resimulate = min([frame for frame in (rollback, *unreached) if frame is not None], default=None)
        if restart and base < present:
            resimulate = base if resimulate is None else min(resimulate, base)
        start = present
        if resimulate is not None:
            start = max(frame for frame in self.snapshots if frame <= resimulate)
            for frame in [f for f in self.snapshots if f > start]:
                if frame > (rollback if rollback is not None else present):
                    del self.snapshots[frame]
            for frame in [f for f in self.reached if f > start]:
                del self.reached[frame]  # reached again on the way (this chain may differ)
            match.restore(marshal.loads(self.snapshots[start]))
            if rollback is not None:
                self.rollbacks += 1
                self.resimulated += max(0, present - start)
        emit_from = base if restart else present
        end = min(max(target, base), start + STEPS_PER_ADVANCE)
        bodies = self._run(start, end, emit_from)
        emitted = match.frame >= emit_from and (bodies or restart or match.frame != present)
        if emitted and match.frame > base:
            self.drawn[match.frame] = self.latest[match.frame] = self._sprites()
        self.fresh = restart and not emitted
        self._settle()
        return json.dumps({
            "base": base, "present": match.frame, "from": emit_from if emitted else -1, "restart": restart,
            "bodies": bodies if emitted else [], "corrections": self.corrections, "desyncs": self.desyncs,
            "advances": self.advances, "rollbacks": self.rollbacks, "stepped": self.stepped,
            "resimulated": self.resimulated,
        })

    def _run(self, start: int, end: int, emit_from: int) -> list[dict[str, Any]]:
        """Step the chain from `start` (its frame now) to `end`; the bodies of the frames from
        `emit_from` on (the changes before it are taken as the base of the first one)."""
        match = self.match
        base = self.base
        bodies: list[dict[str, Any]] = []
        for frame in [f for f in self.rows if f >= end and f >= base]:
            del self.rows[frame]
        frame = start
        while True:
            self._reach(frame)
            if frame == emit_from and frame != start:
                match.changes()  # what the page holds at `emit_from` is the base of the next change
            if frame >= end or match.result is not None:
                break
            row = self.rows[frame] if frame < base else self._predicted(frame)
            self.rows[frame] = row
            records = match.step(row)
            self.stepped += 1
            if frame >= emit_from:
                bodies.append({"frame": frame, "inputs": list(row), "events": match.records_wire(records),
                               "actors": match.changes()})
            frame += 1
            if frame in self.drawn:
                self.latest[frame] = self._sprites()
        return bodies

    def _reach(self, frame: int) -> None:
        """The chain is at the start of `frame`: a keyframe's checksum, a snapshot when one is due."""
        match = self.match
        if frame in self.pending:
            self.reached[frame] = match.checksum(match.snapshot())
        if frame % SNAPSHOT_EVERY == 0 and frame not in self.snapshots and frame + SNAPSHOT_EVERY > self.base:
            self.snapshots[frame] = marshal.dumps(match.snapshot())

    def _settle(self) -> None:
        """Frames now confirmed: what was drawn of them compared with their final simulation (a
        correction), keyframes compared (a desync); what no rollback can reach forgotten."""
        base = self.base
        for frame in sorted(f for f in self.drawn if f <= base):
            drawn = self.drawn.pop(frame)
            final = self.latest.pop(frame, drawn)
            if frame <= base - DRAWN_KEPT:
                continue
            for seat in range(self.seats):
                differs = final[seat] != drawn[seat]
                if differs and not self.wrong[seat]:
                    self.corrections[seat] += 1
                self.wrong[seat] = differs
        for frame in sorted(f for f in self.pending if f <= base and f in self.reached):
            if self.reached.pop(frame) != self.pending.pop(frame):
                self.desyncs.append(frame)
        anchor = max(frame for frame in self.snapshots if frame <= base)
        for frame in [f for f in self.snapshots if f < anchor]:
            del self.snapshots[frame]
        for frame in [f for f in self.rows if f < anchor]:
            del self.rows[frame]
        for frame in [f for f in self.pending if f < anchor]:
            del self.pending[frame]
            self.reached.pop(frame, None)


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
