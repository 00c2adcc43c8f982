"""SoloMatch: one Pengo board, one seat, stepped in frames of 1/60 s until game over or the time limit.

The board is a versus seat's (the same per-level deal from a 32-bit seed, the same input byte:
rules/versus/inputs.py), without the attack exchange. A run ends when the last life is lost
(`game-over`), at the time limit (`time`, default 10 minutes) or by a forfeit byte (`forfeit`); its
result has one seat: outcome `won` when the run lasted to the time limit, `lost` at game over,
`forfeited`, and the score. The event log is the board's events (each with `seat` 0) and a
`run-end` record, hashed in a chain like versus's (rules/versus/log.py) from its own genesis.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rules.kick.config import KickConfig, KickDifficultyName
from rules.kick.events import to_plain
from rules.kick.game import KickGame
from rules.kick.presets import PengoOptions, pengo_preset
from rules.result import MatchResult, Outcome
from rules.synctest import state_checksum
from rules.versus.events import BoardRecord
from rules.versus.inputs import IllegalInputError, decode_input, is_valid_input
from rules.versus.log import chain_plain
from rules.versus.seat import SeatState
from rules.versus.tables import FRAME_HZ
from rules.versus.view import (
    SeatShown,
    SeatView,
    board_note,
    frame_actors,
    frame_changes,
    remember_shown,
    seat_keyframe,
    stream_tables,
)
from rules.versus.wire import BOARD_EVENT_KINDS, plain_wire

__all__ = ["GENESIS_DIGEST", "SOLO_TIME_LIMIT", "RunEnd", "SoloConfig", "SoloEnd", "SoloMatch"]

#: A run lasts at most 10 minutes.
SOLO_TIME_LIMIT = 10 * 60 * FRAME_HZ
GENESIS_DIGEST = hashlib.sha256(b"floe-solo-log").digest()


class SoloEnd(enum.StrEnum):
    """Why a run ended."""

    GAME_OVER = "game-over"
    """The last life was lost."""
    TIME = "time"
    """The time limit was reached with lives left."""
    FORFEIT = "forfeit"
    """The player gave up (the forfeit byte)."""


@dataclass(frozen=True)
class SoloConfig:
    """What a run is played with: the time limit, lives, Pengo's skill DIP and the difficulty."""

    time_limit_frames: int = SOLO_TIME_LIMIT
    lives: int = 3
    skill: int = 1
    difficulty: KickDifficultyName = "arcade"

    def board_config(self, seed: int) -> KickConfig:
        """The board: Pengo with the per-level deal of the 32-bit seed (a versus seat's, no gems)."""
        base = pengo_preset(
            PengoOptions(seed=seed & 0xFFFF, lives=self.lives, skill=self.skill, difficulty=self.difficulty)
        )
        return replace(base, seed=seed, deal="per-level", name="pengo-solo")


@dataclass(frozen=True, slots=True)
class RunEnd:
    """The run is over."""

    kind: ClassVar[str] = "run-end"
    reason: SoloEnd
    frame: int
    score: int


Record = BoardRecord | RunEnd

#: The stream's event kinds for a run: the board's, then the end (rules/versus/wire.py's layout).
SOLO_EVENT_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    *BOARD_EVENT_KINDS,
    (RunEnd.kind, ("reason", "frame", "score")),
)
_SOLO_CODES = {kind: index for index, (kind, _) in enumerate(SOLO_EVENT_KINDS)}
#: What `joined.tables` carries for a run.
SOLO_TABLES: dict[str, Any] = stream_tables(SOLO_EVENT_KINDS)
#: A run starts its board anew in these statuses (a level, a life after a death): the stream's board note.
_NEW_BOARD = ("ready", "drawing")


def record_plain(record: Record) -> dict[str, Any]:
    """One log record as plain data (a board event with its seat, or the end)."""
    if isinstance(record, BoardRecord):
        out = to_plain(record.event)
        out["seat"] = record.seat
        return out
    return {"kind": record.kind, "reason": record.reason.value, "frame": record.frame, "score": record.score}


class SoloMatch:
    """One run of pengo-solo (rules/ruleset.py's `Match`)."""

    def __init__(
        self, config: SoloConfig | None = None, seed: int = 1, seats: Sequence[str] = ("player",)
    ) -> None:
        self.config = config or SoloConfig()
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 0xFFFFFFFF:
            raise ValueError(f"seed: must be an integer from 0 to 2**32 - 1, got {seed!r}")
        if len(seats) != 1:
            raise ValueError(f"seats: a solo run has 1 seat, got {len(seats)}")
        self.seed = seed
        self.names = tuple(seats)
        self.seat = SeatState(0, KickGame(self.config.board_config(seed)), 0)
        self.seat_states = (self.seat,)
        #: What the last step showed beyond its records, and the summary memo (rules/versus/view.py).
        self.notes: list[Any] = [()]
        self.summaries: list[tuple[tuple[bool, int, int], list[Any]] | None] = [None]
        self.summary_stale = [True]
        self.frame = 0
        self.shown_actors: list[SeatShown] = []
        self.shown_summaries: list[list[Any]] = []
        self.result: MatchResult | None = None
        self.log_digest = GENESIS_DIGEST
        remember_shown(self)

    @property
    def log_hash(self) -> str:
        """The chained SHA-256 of the run's canonical event log so far, in hex (rules/versus/log.py)."""
        return self.log_digest.hex()

    @property
    def seats(self) -> int:
        """One."""
        return 1

    @property
    def moves(self) -> list[list[list[int]]]:
        """The seat's move list as [frame, input byte] pairs (a copy)."""
        return [[[frame, value] for frame, value in self.seat.all_moves()]]

    def check_inputs(self, inputs: Sequence[int]) -> None:
        """Raise IllegalInputError unless `inputs` is one valid byte."""
        if len(inputs) != 1:
            raise IllegalInputError(f"inputs: expected 1 input byte, got {len(inputs)}")
        if type(inputs[0]) is not int or not is_valid_input(inputs[0]):
            decode_input(inputs[0])  # raises, naming the byte
            raise IllegalInputError(f"inputs: {inputs[0]!r} is not an input byte")

    def step(self, inputs: Sequence[int]) -> list[Record]:
        """Advance one frame; the frame's log."""
        if self.result is not None:
            raise RuntimeError("the run has ended")
        self.check_inputs(inputs)
        value = inputs[0]
        seat, frame = self.seat, self.frame
        if value != seat.last_input:
            seat.last_input = value
            seat.moves_tail.append((frame, value))
        decoded = decode_input(value)
        game = seat.game
        records: list[Record] = []
        end: SoloEnd | None = None
        self.notes = [()]
        if decoded.forfeit:
            seat.forfeited, end = True, SoloEnd.FORFEIT
        else:
            game.control(decoded.direction)
            if decoded.kick:
                game.kick()
            status = game.status
            game.step_frame()
            if game.status != status:
                self.summary_stale[0] = True
                if game.status in _NEW_BOARD:
                    self.notes = [[board_note(game)]]
            records.extend(BoardRecord(0, event) for event in game.drain())
            if game.status == "lost":
                end = SoloEnd.GAME_OVER
        self.frame = frame + 1
        if end is None and self.frame >= self.config.time_limit_frames:
            end = SoloEnd.TIME
        if records or end is not None:
            self.summary_stale[0] = True
        if end is not None:
            seat.alive = False
            records.append(RunEnd(end, self.frame, game.score))
            outcome = {SoloEnd.TIME: Outcome.WON, SoloEnd.GAME_OVER: Outcome.LOST}.get(end, Outcome.FORFEITED)
            winner = 0 if end is SoloEnd.TIME else None
            self.result = MatchResult(winner, (outcome,), end.value, self.frame, (game.score,))
        self.log_digest = chain_plain(self.log_digest, frame, self.records_plain(records))
        return records

    def records_plain(self, records: Sequence[Record]) -> list[dict[str, Any]]:
        """A frame's records as plain maps."""
        return [record_plain(record) for record in records]

    def records_wire(self, records: Sequence[Record]) -> list[Any]:
        """A frame's records as the stream sends them (SOLO_EVENT_KINDS' codes)."""
        return [plain_wire(record_plain(record), _SOLO_CODES) for record in records]

    def snapshot(self) -> dict[str, Any]:
        """Plain data for restore()."""
        return {
            "frame": self.frame,
            "seat": self.seat.snapshot(),
            "result": None if self.result is None else self.result.plain(),
            "log_hash": self.log_hash,
        }

    def restore(self, snap: dict[str, Any]) -> None:
        """Restore a snapshot of this run."""
        self.frame = snap["frame"]
        self.seat.restore(snap["seat"])
        self.result = None if snap["result"] is None else MatchResult.from_plain(snap["result"])
        self.log_digest = bytes.fromhex(snap["log_hash"])
        self.notes = [()]
        remember_shown(self)

    def checksum(self, snapshot: dict[str, Any]) -> str:
        """The canonical SHA-256 of a snapshot."""
        return state_checksum(snapshot)

    def actors(self) -> list[Any]:
        """The one seat's `[summary, records, notes]`, as a list of seats (rules/versus/view.py's layout)."""
        return frame_actors(self)

    def changes(self) -> list[Any]:
        """The one seat's change since the last call or restore (rules/versus/view.py's `frame_changes`)."""
        return frame_changes(self)

    def keyframe_view(self) -> dict[str, Any]:
        """The whole visible state, laid out as a versus keyframe of one seat."""
        return {
            "frame": self.frame,
            "time_left": max(0, self.config.time_limit_frames - self.frame),
            "seats": [seat_keyframe(self.seat, self.names[0], self.frame)],
        }

    def seat_view(self, seat: int) -> SeatView:
        """What the player sees (a bot's input)."""
        if seat != 0:
            raise IndexError(f"seat {seat}: a solo run has seat 0 only")
        return self.seat.view
