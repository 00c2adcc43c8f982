"""MatchRunner: the netcode of one match, sans-I/O. Inputs in, frames out; no clock, no awaits.

It runs any ruleset's match through rules/ruleset.py's `Match` seam (step, snapshot, restore,
checksum, actors, keyframe view, seat views for bots) and predicts silent seats by the ruleset's
`InputRules`; nothing here knows one game.

Frames are counted from the match's start. `advance(now)` is told the frame the schedule is on and
simulates up to it; `tell_input(seat, frame, byte)` records a seat's input whenever it arrives
(`tell_inputs` a run of them for consecutive frames, as the `input` message carries them):

- a frame not yet simulated just records it (up to `max_ahead` frames ahead of `now`; further is
  refused);
- a frame already simulated inside the rollback window marks the match dirty: the next `advance`
  restores the newest snapshot at or before that frame, re-simulates the unchanged frames up to it
  quietly and the rest to the present (the players are told which frame the stream rewinds to);
- a frame older than the window (or one the seat already spoke for) is applied at the earliest frame
  still open for that seat, and the answer says so.

A seat that has not spoken for a frame is predicted (held direction, kick dropped; see timeline.py).
The runner snapshots the state before a frame simulated on a prediction unless it holds one of the
last `snapshot_every` frames (and before keyframes): a snapshot costs more than a step, and a
rollback, which is rare, re-simulates the few frames between the snapshot and its target. Clients
that stamp their inputs ahead by the input delay make most frames known before they are simulated,
so most frames cost a step and nothing more.

A frame is confirmed once every seat's input for it is known or the window has passed it
(`now - window`); confirmed frames never change. Spectators get only those, with a keyframe (a view
of the boards and the state checksum) at frame 0 and then every `keyframe_every` frames (offset by
a per-match phase). The result is final when the frame that ended the match is confirmed.

SyncTest mode (`synctest_every > 0`, GGPO's and GGRS's idea) makes every `synctest_every`-th frame
roll back `rollback_window` frames through the same restore-and-re-simulate path a late input takes,
and checks every re-simulated frame's state checksum and records against the first pass; a
difference raises `rules.synctest.DesyncError`.

A journal (`journal=True`; server/cluster/journal.py keeps it in the shared store): the runner notes
every input entry its timelines record (`take_log`, drained by the match's owner before it publishes
records that carry them), and keeps the state at the start of its newest confirmed keyframe
(`checkpoint`: the keyframe's own snapshot, so it costs nothing more) with each seat's inputs from
that frame on. Another node rebuilds the runner with `resume`: the checkpoint's state, its inputs,
then every later logged entry; the next `advance` re-simulates from the keyframe (determinism makes
those frames the same records again) and re-confirms them from the keyframe on.
"""

from __future__ import annotations

import marshal
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rules.result import MatchResult
from rules.ruleset import Bot, InputRules, Match
from rules.synctest import DesyncError, describe_difference, state_checksum

from .timeline import InputTimeline

#: marshal's version 2 writes equal values as equal bytes (no back-references that depend on which
#: objects happen to be shared), so held snapshots compare by their bytes in SyncTest.
MARSHAL_VERSION = 2

#: The input timelines are pruned once the final frames have moved this far (a bisect and a list cut).
TIMELINE_PRUNE_EVERY = 32

#: With a journal, the states of this many newest confirmed keyframes are kept: a checkpoint may have
#: to be older than the newest (at most what the spectators were sent, `checkpoint(at_most)`).
KEPT_KEYFRAME_STATES = 8


@dataclass(frozen=True)
class RunnerSettings:
    """The netcode's numbers."""

    #: How many frames back an input may still rewrite (and how long spectators trail the present).
    rollback_window: int = 8
    #: How many frames ahead of the schedule an input may be stamped.
    max_ahead: int = 120
    #: A keyframe every this many frames (frame 0 included).
    keyframe_every: int = 120
    #: SyncTest: roll back and re-check every this many frames (0: off).
    synctest_every: int = 0
    #: Predicted frames snapshot at most once in this many frames (1: every predicted frame).
    snapshot_every: int = 4

    def __post_init__(self) -> None:
        if (
            self.rollback_window < 0
            or self.max_ahead < 1
            or self.keyframe_every < 1
            or self.synctest_every < 0
            or self.snapshot_every < 1
        ):
            raise ValueError(f"runner settings out of range: {self!r}")


@dataclass(frozen=True, slots=True)
class FrameRecord:
    """One simulated frame as the stream shows it: its events (the ruleset's wire form), what the
    seats show after it as the change from the frame before (`Match.changes`), and its inputs."""

    frame: int
    events: list[Any]
    actors: list[Any]
    inputs: tuple[int, ...]

    def body(self) -> dict[str, Any]:
        """The wire body shared by `frame` and `resync` messages."""
        return {
            "frame": self.frame,
            "events": self.events,
            "actors": self.actors,
            "inputs": list(self.inputs),
        }


@dataclass(frozen=True, slots=True)
class KeyframeRecord:
    """The state at the start of frame `frame`: a view of the boards and the state checksum."""

    frame: int
    view: dict[str, Any]
    checksum: str
    #: The state at the start of `frame` (marshal version 2 bytes of `Match.snapshot()`, the snapshot the
    #: checksum was taken of): what a resync gives a player that rebuilds its replica (no extra cost).
    state: bytes = b""


@dataclass
class Advance:
    """What one `advance` produced, in stream order."""

    #: The players' stream rewinds to this frame before `frames` (None: no rollback).
    rewind_to: int | None = None
    #: Frames simulated (re-simulated after a rewind, then new), in frame order.
    frames: list[FrameRecord] = field(default_factory=list)
    #: Newly confirmed frames, each keyframe just before the frame it starts.
    confirmed: list[FrameRecord | KeyframeRecord] = field(default_factory=list)
    #: Set once: the result, when the frame that ended the match is confirmed.
    result: MatchResult | None = None
    #: Frames below this were final when this advance ended: what its records may say is confirmed.
    #: (The runner's own `confirmed` may have moved on by the time they are published: a later
    #: advance's late input confirms frames that this advance's records still show as predicted.)
    confirmed_to: int = 0


@dataclass(frozen=True, slots=True)
class InputApplied:
    """An input was recorded at frame `applied` (not `frame` when it came too late for its own frame)."""

    frame: int
    applied: int

    @property
    def late(self) -> bool:
        """Was it moved to a later frame?"""
        return self.applied != self.frame


@dataclass(frozen=True, slots=True)
class InputRefused:
    """An input was dropped; `code` is an ErrorCode value."""

    code: str
    reason: str


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What became of a run of inputs: its first late byte (None: all on time), and the refusal that
    stopped it (None: every byte was recorded)."""

    late: InputApplied | None = None
    refused: InputRefused | None = None


@dataclass(frozen=True, slots=True)
class _Pending:
    """A keyframe taken when its frame was simulated, published once the frame is confirmed."""

    view: dict[str, Any]
    checksum: str
    #: The state at the start of the keyframe's frame (marshal bytes): what a checkpoint keeps.
    state: bytes


@dataclass(frozen=True, slots=True)
class SeatLog:
    """One seat's input entries told since the last `take_log` ([frame, byte] where its byte changed,
    in order) and the frame below which the seat is known then (`CLOSED` once it forfeited)."""

    entries: tuple[tuple[int, int], ...]
    known_until: int

    @classmethod
    def of(cls, flat: Sequence[int], known_until: int) -> SeatLog:
        """From `MatchRunner.take_log`'s form: flat entries ([frame, byte, …]) and `known_until`."""
        return cls(entry_pairs(flat), int(known_until))


def entry_pairs(flat: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Input entries from their flat form ([frame, byte, frame, byte, …]); ValueError when it is odd."""
    if len(flat) % 2:
        raise ValueError("an entry list has an odd length")
    return tuple((int(flat[i]), int(flat[i + 1])) for i in range(0, len(flat), 2))


@dataclass(frozen=True, slots=True)
class SeatInputs:
    """One seat's inputs from a checkpoint's frame on: the byte held before the first entry, the
    entries ([frame, byte], ascending), and the frame below which the seat is known."""

    held_before: int
    entries: tuple[tuple[int, int], ...]
    known_until: int


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """What a takeover restores: the state at the start of confirmed keyframe `frame` (marshal
    version 2 bytes of `Match.snapshot()`), each seat's inputs from there, and the schedule's frame."""

    frame: int
    state: bytes
    seats: tuple[SeatInputs, ...]
    now: int


class MatchRunner:
    """Advances one match (any ruleset's) with prediction, rollback and confirmation."""

    def __init__(
        self,
        match: Match[Any],
        inputs: InputRules,
        settings: RunnerSettings | None = None,
        bots: Mapping[int, Bot[Any]] | None = None,
        keyframe_phase: int = 0,
        journal: bool = False,
    ) -> None:
        if match.frame != 0:
            raise ValueError("a runner starts from a fresh match")
        self.match = match
        self.inputs = inputs
        self.settings = settings or RunnerSettings()
        self.window = self.settings.rollback_window
        self.bots = dict(bots or {})
        self.timelines = [InputTimeline(inputs, journal) for _ in range(match.seats)]
        self.journal = journal
        #: The frame the schedule is on: frames below it should have been simulated.
        self.now = 0
        #: Frames below this are final.
        self.confirmed = 0
        self.result: MatchResult | None = None
        self._dirty: int | None = None
        #: Frame → the state before it, as marshal bytes: a snapshot is a few thousand small containers,
        #: and held as objects for the rollback window they would make every young garbage collection
        #: scan them (pauses of tens of milliseconds under load); bytes are not scanned.
        self._snapshots: dict[int, bytes] = {}
        self._frames: dict[int, FrameRecord] = {}
        self._keyframes: dict[int, _Pending] = {}
        self._keyframed = -1
        #: Records below this frame were pruned; the input timelines below the second.
        self._pruned = 0
        self._timelines_pruned = 0
        #: The frames of the snapshots held, ascending (snapshots are taken in frame order).
        self._snapshot_frames: list[int] = []
        #: Keyframes fall on frames ≡ −phase (mod keyframe_every), plus frame 0: a server gives each
        #: match its own phase so that matches started together do not all checksum on one tick.
        self._keyframe_phase = keyframe_phase % self.settings.keyframe_every
        #: The newest confirmed keyframes' states, oldest first (what `checkpoint` gives; empty: none yet).
        self._bases: dict[int, bytes] = {}
        #: The oldest of them (0: none yet): the inputs a checkpoint exports start there, so the
        #: timelines keep them (`_prune`, every frame, reads it here rather than off `_bases`).
        self._oldest_base = 0
        #: Counters for stats and tests.
        self.rollbacks = 0
        self.resimulated = 0
        #: The players' stream's records beyond one a frame simulated (each rewind, and the frames
        #: simulated again after it) and the keyframes confirmed: with the match's frame and
        #: `confirmed`, what a journaled match counts its streams' records by, with no count over its
        #: advances (server/match/live.py `_seal`).
        self.rewind_records = 0
        self.keyframes_emitted = 0
        self.predicted = 0
        self.late_inputs = 0

    @property
    def frame(self) -> int:
        """The next frame to simulate (the speculative present)."""
        return self.match.frame

    @property
    def finished(self) -> bool:
        """Is the result final (the last frame confirmed)?"""
        return self.result is not None

    def speculative_frames(self) -> list[FrameRecord]:
        """The simulated frames that are not confirmed yet, in order."""
        return [self._frames[f] for f in range(self.confirmed, self.match.frame)]

    # ---- inputs ------------------------------------------------------------------------------------

    def tell_input(self, seat: int, frame: int, value: int) -> InputApplied | InputRefused:
        """Record `seat`'s input byte for `frame`; see the module docstring for late and early ones."""
        outcome = self.tell_inputs(seat, frame, (value,))
        return outcome.refused or outcome.late or InputApplied(frame, frame)

    def tell_inputs(self, seat: int, frame: int, values: Sequence[int]) -> RunOutcome:
        """Record a run of `seat`'s input bytes for frames `frame`, `frame + 1`, … in order.

        Each byte is taken as `tell_input` takes it; the run stops at the first byte refused. Once one
        byte is late, the rest follow it to consecutive frames (a seat's frames only move forward).
        """
        if not 0 <= seat < self.match.seats:
            return RunOutcome(refused=InputRefused("not-seated", f"seat {seat} is not in this match"))
        timeline = self.timelines[seat]
        if self.result is not None:
            return RunOutcome(refused=InputRefused("match-over", "the match has ended"))
        if timeline.closed:
            return RunOutcome(refused=InputRefused("seat-out", f"seat {seat} has left the match"))
        late: InputApplied | None = None
        floor = max(self.now - self.window, self.confirmed, 0)
        ahead = self.now + self.settings.max_ahead
        for offset, value in enumerate(values):
            stamped = frame + offset
            if not self.inputs.is_valid(value) or value == self.inputs.forfeit:
                refused = InputRefused("bad-input", f"input {value!r} is not a seat input byte")
                return RunOutcome(late, refused)
            if stamped > ahead:
                refused = InputRefused(
                    "frame-ahead",
                    f"frame {stamped} is more than {self.settings.max_ahead} frames "
                    f"ahead of the server's frame {self.now}",
                )
                return RunOutcome(late, refused)
            applied = max(stamped, timeline.known_until, floor)
            if applied != stamped:
                self.late_inputs += 1
                if late is None:
                    late = InputApplied(stamped, applied)
            self._tell(seat, applied, value)
        return RunOutcome(late)

    def hold_neutral(self, seat: int) -> None:
        """The seat's player dropped: from the present on it holds nothing (no rollback)."""
        timeline = self.timelines[seat]
        if not timeline.closed and self.result is None:
            self._tell(seat, max(timeline.known_until, self.now, self.confirmed), self.inputs.neutral)

    def forfeit(self, seat: int) -> None:
        """The seat leaves for good: the forfeit byte goes through the match's own step, at the present."""
        timeline = self.timelines[seat]
        if timeline.closed or self.result is not None:
            return
        self._tell(seat, max(timeline.known_until, self.now, self.confirmed), self.inputs.forfeit)
        timeline.close()

    def tell_recorded(self, seat: int, frame: int, value: int) -> bool:
        """A replay's recorded byte for a frame not simulated yet, taken as the replay holds it: the
        forfeit byte included (a replay records a seat's leave as its move, which `tell_input` refuses
        from a client), so the re-simulation ends as the match did (server/http/replaystream.py).
        False (nothing recorded) for a seat, frame or byte that cannot be one."""
        if not 0 <= seat < self.match.seats or frame < self.match.frame or not self.inputs.is_valid(value):
            return False
        self._tell(seat, frame, value)
        return True

    def _tell(self, seat: int, frame: int, value: int) -> None:
        previous = self.timelines[seat].tell(frame, value)
        if frame < self.match.frame and value != previous:
            self._dirty = frame if self._dirty is None else min(self._dirty, frame)

    # ---- advancing ---------------------------------------------------------------------------------

    def advance(self, now: int) -> Advance:
        """Simulate up to frame `now` (rolling back first when a late input changed the past)."""
        out = Advance()
        self.now = max(self.now, now)
        if self._dirty is not None:
            target, self._dirty = self._dirty, None
            self.rewind_records += self.match.frame - target + 1
            self._rollback(target)
            out.rewind_to = target
        while self.match.frame < self.now and self.match.result is None:
            out.frames.append(self._step())
            if self.settings.synctest_every and self.match.frame % self.settings.synctest_every == 0:
                self._synctest_check()
        self._confirm(out)
        out.confirmed_to = self.confirmed
        return out

    def _step(self) -> FrameRecord:
        match = self.match
        frame = match.frame
        timelines = self.timelines
        for seat, bot in self.bots.items():
            timeline = timelines[seat]
            if timeline.known_until <= frame:
                timeline.tell(frame, bot.decide(match.seat_view(seat), frame))
        inputs = tuple(timeline.byte_at(frame) for timeline in timelines)
        predicted = any(timeline.known_until <= frame for timeline in timelines)
        if predicted:
            self.predicted += 1
        keyframe = frame > self._keyframed and self._keyframe_due(frame)
        settings = self.settings
        if keyframe:
            self._keyframes[frame] = self._pending_keyframe(frame)
        elif frame not in self._snapshots and (
            settings.synctest_every
            or (predicted and frame - self._newest_snapshot() >= settings.snapshot_every)
        ):
            self._take_snapshot(frame)
        records = match.step(inputs)
        record = FrameRecord(frame, match.records_wire(records), match.changes(), inputs)
        self._frames[frame] = record
        return record

    def _newest_snapshot(self) -> int:
        return self._snapshot_frames[-1] if self._snapshot_frames else -1

    def _pending_keyframe(self, frame: int) -> _Pending:
        """The keyframe of the present (frame `frame`): its view, and the checksum of its snapshot.

        A snapshot already held for this frame is of this very state (later ones die in a rollback).
        """
        held = self._snapshots.get(frame)
        state = self._take_snapshot(frame) if held is None else marshal.loads(held)
        return _Pending(self.match.keyframe_view(), self.match.checksum(state), self._snapshots[frame])

    def _take_snapshot(self, frame: int) -> dict[str, Any]:
        """Snapshot the present (frame `frame`, newer than every snapshot held); returns the plain state."""
        assert not self._snapshot_frames or frame > self._snapshot_frames[-1]
        state = self.match.snapshot()
        self._snapshots[frame] = marshal.dumps(state, MARSHAL_VERSION)
        self._snapshot_frames.append(frame)
        return state

    def _rollback(self, target: int) -> None:
        """Restore the newest snapshot at or before `target`; re-simulate quietly up to `target`."""
        index = bisect_right(self._snapshot_frames, target)
        if index == 0:  # pragma: no cover - an invariant: a predicted frame has a snapshot at or before it
            raise RuntimeError(f"no snapshot at or before frame {target} (confirmed {self.confirmed})")
        start = self._snapshot_frames[index - 1]
        present = self.match.frame
        self.match.restore(marshal.loads(self._snapshots[start]))
        for frame in self._snapshot_frames[index:]:
            del self._snapshots[frame]
        del self._snapshot_frames[index:]
        for frame in range(start + 1, present + 1):
            self._keyframes.pop(frame, None)
        for frame in range(start, present):
            self._frames.pop(frame, None)
        # Frames before the target kept their inputs: the same states and the same records again.
        while self.match.frame < target:
            record = self._step()
            if record.frame < self._pruned:
                del self._frames[record.frame]
        self.rollbacks += 1
        self.resimulated += present - start

    def _confirm(self, out: Advance) -> None:
        known = min(timeline.known_until for timeline in self.timelines)
        present = self.match.frame
        confirmed = min(present, max(known, self.now - self.window, self.confirmed))
        if confirmed > self.confirmed:
            frames = self._frames
            for frame in range(self.confirmed, confirmed):
                self._emit_keyframe(frame, out)
                out.confirmed.append(frames[frame])
            self.confirmed = confirmed
            self._prune(confirmed, present)
        self._emit_keyframe(confirmed, out)
        if self.match.result is not None and confirmed == present and self.result is None:
            self.result = self.match.result
            out.result = self.result

    def _prune(self, confirmed: int, present: int) -> None:
        """Forget what no rollback can reach any more.

        Rollbacks target confirmed frames or later, and start from the newest snapshot at or before
        their target: that snapshot, the inputs after it, and everything newer are kept.
        """
        floor = confirmed
        if self.settings.synctest_every:
            floor = max(0, min(confirmed, present - self.window))  # SyncTest rolls back that far
        for frame in range(self._pruned, floor):
            self._frames.pop(frame, None)
            self._keyframes.pop(frame, None)
        self._pruned = max(self._pruned, floor)
        frames = self._snapshot_frames
        keep = bisect_right(frames, floor) - 1  # the newest snapshot at or before the floor stays
        base = frames[keep] if keep >= 0 else floor
        if self.journal:  # a checkpoint exports the inputs from its keyframe (the oldest kept: the first)
            base = min(base, self._oldest_base)
        if keep > 0:
            for frame in frames[:keep]:
                del self._snapshots[frame]
            del frames[:keep]
        if base >= self._timelines_pruned + TIMELINE_PRUNE_EVERY:
            self._timelines_pruned = base
            for timeline in self.timelines:
                timeline.prune(base)

    def _emit_keyframe(self, frame: int, out: Advance) -> None:
        """The keyframe starting confirmed frame `frame`, once, if one is due there."""
        if frame <= self._keyframed or not self._keyframe_due(frame):
            return
        pending = self._keyframes.pop(frame, None)
        if pending is None:
            if frame != self.match.frame:
                return  # the match ended before this frame: there is no state to show
            pending = self._pending_keyframe(frame)
        self._keyframed = frame
        if self.journal:
            self._bases[frame] = pending.state
            if len(self._bases) > KEPT_KEYFRAME_STATES:
                del self._bases[next(iter(self._bases))]
            self._oldest_base = next(iter(self._bases))
        out.confirmed.append(KeyframeRecord(frame, pending.view, pending.checksum, pending.state))
        self.keyframes_emitted += 1

    def _keyframe_due(self, frame: int) -> bool:
        return frame == 0 or (frame + self._keyframe_phase) % self.settings.keyframe_every == 0

    # ---- the journal ---------------------------------------------------------------------------------

    def take_log(self) -> list[tuple[list[int], int]]:
        """Each seat's entries told since the last call, flat ([frame, byte, frame, byte, …]), and the
        frame below which it is known: what the owner logs before it sends any record carrying them (a
        journal batch's seats: server/cluster/journal.py `encode_logged`; `SeatLog.of` reads them back).
        Empty entries without a journal."""
        logs = []
        for timeline in self.timelines:
            entries = timeline.unlogged
            if entries:
                timeline.unlogged = []
            logs.append((entries or [], timeline.known_until))
        return logs

    def checkpoint(self, at_most: int | None = None) -> Checkpoint:
        """The newest confirmed keyframe's state (at frame `at_most` or before, when it is given and such
        a keyframe is still kept; else the oldest kept) and every seat's inputs from it (a journal's
        snapshot)."""
        if not self.journal:
            raise RuntimeError("checkpoints need a runner made with journal=True")
        if not self._bases:
            raise RuntimeError("no keyframe confirmed yet: advance(0) first")
        frames = list(self._bases)
        fitting = [f for f in frames if at_most is None or f <= at_most]
        frame = fitting[-1] if fitting else frames[0]
        seats = tuple(SeatInputs(*timeline.export(frame)) for timeline in self.timelines)
        return Checkpoint(frame, self._bases[frame], seats, self.now)

    def resume(self, checkpoint: Checkpoint, logs: Iterable[Sequence[SeatLog]], now: int) -> None:
        """Take over a match from its journal: this runner (fresh, journal on, same ruleset, config,
        seed, seats, settings and keyframe phase) restores the checkpoint, re-tells every entry logged
        after it (in order) and stands at frame `now` (at least the checkpoint's). The next `advance`
        re-simulates from the checkpoint's keyframe and confirms from there again."""
        if not self.journal or self.match.frame != 0 or self._bases:
            raise RuntimeError("resume needs a fresh runner made with journal=True")
        if self.settings.synctest_every:
            raise RuntimeError("a SyncTest runner does not resume")
        if len(checkpoint.seats) != len(self.timelines):
            raise ValueError(f"the checkpoint has {len(checkpoint.seats)} seats, not {len(self.timelines)}")
        frame = checkpoint.frame
        self.match.restore(marshal.loads(checkpoint.state))
        if self.match.frame != frame:
            raise ValueError(f"the checkpoint's state is at frame {self.match.frame}, not {frame}")
        for timeline, seat in zip(self.timelines, checkpoint.seats, strict=True):
            timeline.load(seat.held_before, seat.entries, seat.known_until)
        for batch in logs:
            if len(batch) != len(self.timelines):
                raise ValueError(f"a logged batch has {len(batch)} seats, the match {len(self.timelines)}")
            for timeline, log in zip(self.timelines, batch, strict=True):
                for entry_frame, value in log.entries:
                    timeline.replay_entry(entry_frame, value)
                timeline.known_until = max(timeline.known_until, log.known_until)
        for timeline in self.timelines:
            timeline.unlogged = []
        self._snapshots = {frame: checkpoint.state}
        self._snapshot_frames = [frame]
        self._bases = {frame: checkpoint.state}
        self._oldest_base = frame
        self.confirmed = self._pruned = self._timelines_pruned = frame
        self._keyframed = frame - 1
        self.now = max(checkpoint.now, now, frame)

    # ---- SyncTest ------------------------------------------------------------------------------------

    def _synctest_check(self) -> None:
        """Roll back `window` frames with the same inputs and require the same states and records."""
        present = self.match.frame
        target = max(0, present - self.window, min(self._snapshots, default=present))
        if target >= present:
            return
        states = {frame: self._snapshots[frame] for frame in range(target + 1, present)}
        states[present] = marshal.dumps(self.match.snapshot(), MARSHAL_VERSION)
        records = {frame: self._frames[frame] for frame in range(target, present)}
        self._rollback(target)
        while self.match.frame < present:
            frame = self.match.frame
            record = self._step()  # snapshots the re-simulated state of `frame` before stepping it
            if frame > target:
                self._synctest_compare(frame, self._snapshots[frame], states, present, target)
            if record != records[frame]:
                expected, actual = records[frame].body(), record.body()
                raise DesyncError("output", frame + 1, present, target, state_checksum(expected),
                                  state_checksum(actual), describe_difference(expected, actual, "record"))
        now = marshal.dumps(self.match.snapshot(), MARSHAL_VERSION)
        self._synctest_compare(present, now, states, present, target)

    @staticmethod
    def _synctest_compare(
        frame: int, state: bytes, states: dict[int, bytes], present: int, target: int
    ) -> None:
        # Equal marshal (version 2) bytes exactly when the snapshots are equal (rules/synctest.py).
        if state != states[frame]:
            expected, actual = marshal.loads(states[frame]), marshal.loads(state)
            raise DesyncError("resimulate", frame, present, target, state_checksum(expected),
                              state_checksum(actual), describe_difference(expected, actual))
