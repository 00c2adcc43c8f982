"""PayloadMatch: Payload runs stepped in frames, one input byte per seat per frame (inputs.py).

One seat is a solo run (ruleset `payload`); two seats are Payload versus (`payload-versus`): both
runs dealt from one seed (every draw keyed by round, slot and purpose: rng.py), racing through the
same rounds, a round's surplus sent through the exchange (exchange.py).

The log is plain records: the run's events with their seat (events.py), `refused` (a move the phase
did not allow), `attack` (versus: units sent, cancelled and queued), `forfeit` and `end`. It is
hashed in a chain (rules/versus/log.py's `chain_plain`) from its own genesis.

Ends and outcomes:
- solo: the run's end (`cleared` won, `missed` lost), a forfeit, or the time limit (`time`, lost);
- versus: a forfeit (`forfeit`), a seat out behind the other for good (`out`: its run ended having
  cleared fewer rounds than the other has), both runs over (`finished`) or the time limit (`time`);
  unless a forfeit decides it, the seat with more rounds cleared wins, then more total score; equal
  is a draw.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rules.changes import seat_change
from rules.errors import IllegalInputError
from rules.plain import copy_plain
from rules.result import MatchResult, Outcome
from rules.synctest import state_checksum
from rules.versus.log import chain_plain

from .content import PARTS
from .events import OffersDealt, RoundCleared, event_plain
from .exchange import ExchangeRules, exchange, land, surplus_units
from .inputs import FORFEIT, NEUTRAL, decode_move, is_valid_input
from .moves import apply_move
from .plain import run_from_plain, run_plain
from .run import IllegalMoveError, RunState, quota_for, start_run
from .types import COLS, ROWS, Blueprints, DifficultyKey, Draft, Dropping, RunOver, VariantKey

GENESIS_DIGEST = hashlib.sha256(b"floe-payload-log").digest()
#: A run lasts at most 30 minutes of 60 Hz frames by default.
PAYLOAD_TIME_LIMIT = 30 * 60 * 60
_PART_CODES = {key: index for index, key in enumerate(PARTS)}
#: The summary's fields, in order (what `actors()` shows per seat and the stream compares by index).
SUMMARY_FIELDS = ("round", "phase", "round_score", "quota", "drops_left", "total_score",
                  "rounds_cleared", "queue", "out")
_PHASE_CODES = {Draft: 0, Blueprints: 1, Dropping: 2, RunOver: 3}


@dataclass(frozen=True)
class PayloadConfig:
    """What a match is played with: difficulty, variant, time limit, and versus's exchange."""

    difficulty: DifficultyKey = "easy"
    variant: VariantKey = "standard"
    time_limit_frames: int = PAYLOAD_TIME_LIMIT
    exchange: ExchangeRules = ExchangeRules()


@dataclass(frozen=True, slots=True)
class PayloadView:
    """What one seat sees (a bot's input): its run, the byte it holds, its queue, the opponent's run."""

    run: RunState
    last_input: int
    queue: int
    opponent: RunState | None
    out: bool


def _shown_run(run: RunState) -> dict[str, Any]:
    """A run as a viewer sees it: run_plain without the seed and the deal."""
    shown = run_plain(run)
    del shown["seed"], shown["deal"]
    return shown


class PayloadMatch:
    """One Payload match of 1 (solo) or 2 (versus) seats (rules/ruleset.py's `Match`)."""

    def __init__(self, config: PayloadConfig, seed: int, seats: Sequence[str]) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 0xFFFFFFFF:
            raise ValueError(f"seed: must be an integer from 0 to 2**32 - 1, got {seed!r}")
        if len(seats) not in (1, 2):
            raise ValueError(f"seats: a Payload match has 1 or 2 seats, got {len(seats)}")
        self.config = config
        self.seed = seed
        self.names = tuple(seats)
        first, dealt = start_run(config.difficulty, seed, config.variant)
        self.runs: list[RunState] = [first for _ in seats]
        self.last: list[int] = [NEUTRAL for _ in seats]
        self.move_lists: list[list[list[int]]] = [[] for _ in seats]
        self.forfeited: list[bool] = [False for _ in seats]
        self.queues: list[int] = [0 for _ in seats]
        self.frame = 0
        self.result: MatchResult | None = None
        self.log_digest = chain_plain(GENESIS_DIGEST, -1, [
            {**event_plain(event), "seat": seat} for seat in range(len(seats)) for event in dealt
        ])
        self._shown = self.actors()

    # -- the Match protocol's plain properties --

    @property
    def seats(self) -> int:
        """How many seats."""
        return len(self.names)

    @property
    def log_hash(self) -> str:
        """The chained SHA-256 of the log so far, in hex (genesis folded with the first deal as frame −1)."""
        return self.log_digest.hex()

    @property
    def moves(self) -> list[list[list[int]]]:
        """Each seat's move list: [frame, byte] wherever its byte changed (a copy)."""
        return [[list(move) for move in seat] for seat in self.move_lists]

    def out(self, seat: int) -> bool:
        """Is the seat done (its run over, or forfeited)?"""
        return self.forfeited[seat] or self.runs[seat].over

    def check_inputs(self, inputs: Sequence[int]) -> None:
        """IllegalInputError unless `inputs` is one well-formed byte per seat."""
        if len(inputs) != self.seats:
            raise IllegalInputError(f"inputs: expected {self.seats} input bytes, got {len(inputs)}")
        for seat, value in enumerate(inputs):
            if not is_valid_input(value):
                raise IllegalInputError(f"inputs[{seat}]: {value!r} is not a Payload input byte")

    # -- stepping --

    def step(self, inputs: Sequence[int]) -> list[dict[str, Any]]:
        """Advance one frame: each seat's new byte is a move (its edge); the frame's records."""
        if self.result is not None:
            raise RuntimeError("the match has ended")
        self.check_inputs(inputs)
        frame = self.frame
        records: list[dict[str, Any]] = []
        made: list[tuple[Any, ...]] = []
        for seat, value in enumerate(inputs):
            made.append(())
            if value == self.last[seat]:
                continue
            self.last[seat] = value
            self.move_lists[seat].append([frame, value])
            if self.out(seat) or value == NEUTRAL:
                continue
            if value == FORFEIT:
                self.forfeited[seat] = True
                records.append({"kind": "forfeit", "seat": seat})
                continue
            move = decode_move(value)
            assert move is not None
            try:
                run, events = apply_move(self.runs[seat], move)
            except IllegalMoveError as error:
                records.append({"kind": "refused", "seat": seat, "input": value, "reason": str(error)})
                continue
            records += [{**event_plain(event), "seat": seat} for event in events]
            self.runs[seat] = run
            made[seat] = events
        if self.seats == 2:
            records += self._exchange(made)
        self.frame = frame + 1
        records += self._end()
        self.log_digest = chain_plain(self.log_digest, frame, records)
        return records

    def _exchange(self, made: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        """Versus, after both seats moved (so neither seat's order matters): each cleared round's
        surplus is sent, cancelling the sender's own queue first; then a seat whose new round began
        this frame takes its queue's landing."""
        records: list[dict[str, Any]] = []
        rules = self.config.exchange
        sent = [0, 0]
        for seat in range(2):
            for event in made[seat]:
                if isinstance(event, RoundCleared):
                    units = surplus_units(event.score, event.quota, rules)
                    if not units:
                        continue
                    cancelled, rest = exchange(units, self.queues[seat])
                    self.queues[seat] -= cancelled
                    sent[seat] += rest
                    records.append({"kind": "attack", "seat": seat, "units": units, "cancelled": cancelled,
                                    "sent": rest})
        for seat in range(2):
            other = 1 - seat
            if sent[seat] and not self.out(other):
                held = self.queues[other]
                self.queues[other] = min(rules.queue_cap, held + sent[seat])
                records.append({"kind": "queued", "seat": other, "units": self.queues[other] - held,
                                "queue": self.queues[other]})
        for seat in range(2):
            if self.queues[seat] and any(isinstance(event, OffersDealt) for event in made[seat]):
                run, landed = land(self.runs[seat], self.queues[seat])
                self.queues[seat] = 0
                self.runs[seat] = run
                records += [{**event_plain(item), "seat": seat} for item in landed]
        return records

    def _end(self) -> list[dict[str, Any]]:
        """The end record, when this frame decided the match."""
        decided = self._decide()
        if decided is None:
            return []
        reason, winner = decided
        scores = tuple(run.total_score for run in self.runs)
        if self.seats == 1:
            outcome = Outcome.FORFEITED if self.forfeited[0] else Outcome.WON if winner == 0 else Outcome.LOST
            outcomes: tuple[Outcome, ...] = (outcome,)
        else:
            outcomes = tuple(
                Outcome.FORFEITED if self.forfeited[seat] else Outcome.DRAWN if winner is None
                else Outcome.WON if winner == seat else Outcome.LOST
                for seat in range(self.seats)
            )
        self.result = MatchResult(winner, outcomes, reason, self.frame, scores)
        return [{"kind": "end", "reason": reason, "winner": winner, "frame": self.frame}]

    def _standing(self, seat: int) -> tuple[int, int]:
        run = self.runs[seat]
        return run.rounds_cleared, run.total_score

    def _decide(self) -> tuple[str, int | None] | None:
        timed_out = self.frame >= self.config.time_limit_frames
        if self.seats == 1:
            run = self.runs[0]
            if self.forfeited[0]:
                return "forfeit", None
            if run.over:
                return ("cleared", 0) if run.won else ("missed", None)
            return ("time", None) if timed_out else None
        if any(self.forfeited):
            alive = [seat for seat in range(2) if not self.forfeited[seat]]
            return "forfeit", alive[0] if alive else None
        for seat in range(2):
            other = 1 - seat
            if self.runs[seat].over and not self.runs[seat].won and not self.runs[other].over \
                    and self.runs[other].rounds_cleared > self.runs[seat].rounds_cleared:
                return "out", other
        if all(run.over for run in self.runs) or timed_out:
            first, second = self._standing(0), self._standing(1)
            winner = None if first == second else 0 if first > second else 1
            return ("time" if not all(run.over for run in self.runs) else "finished"), winner
        return None

    # -- records, snapshots, views --

    def records_plain(self, records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """A frame's records as plain maps (they are plain already: copies)."""
        return [copy_plain(record) for record in records]

    def records_wire(self, records: Sequence[dict[str, Any]]) -> list[Any]:
        """A frame's records as the stream sends them (the plain maps)."""
        return self.records_plain(records)

    def snapshot(self) -> dict[str, Any]:
        """The whole match as plain data."""
        return {
            "frame": self.frame,
            "runs": [run_plain(run) for run in self.runs],
            "last": list(self.last),
            "moves": self.moves,
            "forfeited": list(self.forfeited),
            "queues": list(self.queues),
            "result": None if self.result is None else self.result.plain(),
            "log_hash": self.log_hash,
        }

    def restore(self, snap: dict[str, Any]) -> None:
        """Go back to a snapshot of this match."""
        self.frame = snap["frame"]
        self.runs = [run_from_plain(run) for run in snap["runs"]]
        self.last = list(snap["last"])
        self.move_lists = [[list(move) for move in seat] for seat in snap["moves"]]
        self.forfeited = list(snap["forfeited"])
        self.queues = list(snap["queues"])
        self.result = None if snap["result"] is None else MatchResult.from_plain(snap["result"])
        self.log_digest = bytes.fromhex(snap["log_hash"])
        self._shown = self.actors()

    def checksum(self, snapshot: dict[str, Any]) -> str:
        """The canonical SHA-256 of a snapshot."""
        return state_checksum(snapshot)

    def _summary(self, seat: int) -> list[Any]:
        run = self.runs[seat]
        phase = run.phase
        drops = phase.drops_left if isinstance(phase, Dropping) else 0
        return [run.round, _PHASE_CODES[type(phase)], run.round_score, quota_for(run), drops,
                run.total_score, run.rounds_cleared, self.queues[seat], self.out(seat)]

    def _records(self, seat: int) -> list[list[int]]:
        """The board's parts: [cell, px, py, part code] (16 px a cell)."""
        board = self.runs[seat].board
        return [[cell, (cell % COLS) * 16, (cell // COLS) * 16, _PART_CODES[part]]
                for cell, part in enumerate(board) if part is not None]

    def actors(self) -> list[Any]:
        """Per seat `[summary, records, notes]` (SUMMARY_FIELDS; the board's parts; no notes)."""
        return [[self._summary(seat), self._records(seat), []] for seat in range(self.seats)]

    def changes(self) -> list[Any]:
        """Per seat, the change from what `actors()` showed at the last call (protocol/delta.py's form:
        parts never move, so a changed part is sent whole)."""
        now = self.actors()
        out: list[Any] = []
        for (old_summary, old_records, _), (summary, records, notes) in zip(self._shown, now, strict=True):
            changes: list[Any] = []
            for index, value in enumerate(summary):
                if index >= len(old_summary) or old_summary[index] != value:
                    changes += (index, value)
            old = {record[0]: record for record in old_records}
            whole = [record for record in records if old.pop(record[0], None) != record]
            keys = {record[0] for record in records}
            gone = [key for key in old if key not in keys]
            out.append(seat_change(changes, [], whole, gone, notes))
        self._shown = now
        return out

    def keyframe_view(self) -> dict[str, Any]:
        """The whole visible state: per seat its name, board size, summary, parts and run — without the
        run's seed and deal, from which every later offer could be computed (a view shows the present)."""
        return {
            "frame": self.frame,
            "time_left": max(0, self.config.time_limit_frames - self.frame),
            "seats": [
                {"name": self.names[seat], "cols": COLS, "rows": ROWS, "summary": self._summary(seat),
                 "records": self._records(seat), "run": _shown_run(self.runs[seat])}
                for seat in range(self.seats)
            ],
        }

    def seat_view(self, seat: int) -> PayloadView:
        """What seat `seat` sees (a bot's input)."""
        if not 0 <= seat < self.seats:
            raise IndexError(f"seat {seat}: this match has seats 0 to {self.seats - 1}")
        opponent = self.runs[1 - seat] if self.seats == 2 else None
        return PayloadView(self.runs[seat], self.last[seat], self.queues[seat], opponent, self.out(seat))
