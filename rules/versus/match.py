"""VersusMatch: 2–4 Pengo boards dealt from one seed, advanced in lockstep frames of 1/60 s.

`step(inputs)` is the only thing that changes a match: it applies one input byte per seat, steps
every board 13 main-loop passes, then exchanges attacks and checks for the end.
`snapshot()`/`restore()` round-trip exactly. The rules of the exchange are pure functions in their
own modules, which `step` composes: units, chain, margin, offset and targeting in attack.py, which
packets land and as what in landing.py, putting a landing on a board in placement.py, counter gems
in gems.py, and the end in ending.py. Each seat's state is one `SeatState` (seat.py).

Choices the design left open, made here:
- targeting with 3–4 seats: an attack goes to the live opponent with the highest score, ties to
  the first such seat after the sender in seat order (the leader is pressed, deterministically);
- a landing waits while its receiver's board is not in play (READY, a death, the clear), so
  nothing lands on a board that is about to be replaced;
- a nuisance landing is garbage_max garbage blocks plus NUISANCE_EGGS_PER_UNIT eggs per unit over
  it, hidden in the receiver's ice (eggs hatch in the board's hatch order, waking an idle Sno-Bee slot);
- the garbage stream is per seat, every seat's seeded from the match seed, so the k-th landing
  draws the same numbers on every board;
- seats that go out on the same frame as the last survivors: the highest score among them wins,
  equal scores draw; at the time limit the highest score among the seats still in wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rules.kick.config import Fidelity, KickConfig, KickDifficultyName, SlotTimers
from rules.kick.deal import mix_seed
from rules.kick.game import KickGame
from rules.kick.presets import PengoOptions, pengo_preset
from rules.result import MatchResult
from rules.synctest import state_checksum

from .attack import Packet, attack_units, boost, offset, target
from .ending import EndReason, OutReason, match_end
from .events import (
    Attack,
    BoardRecord,
    GemCount,
    GemThaw,
    MatchEnd,
    Offset,
    Queued,
    Record,
    SeatOut,
    record_plain,
)
from .gems import COUNTER_GEM, ICE, count_gems
from .inputs import IllegalInputError, SeatInput, decode_input, is_valid_input
from .landing import landing_units
from .log import GENESIS_DIGEST, chain_hash
from .placement import place_landing
from .seat import SeatState
from .tables import (
    FIDELITY,
    GARBAGE_SALT,
    MAX_SEATS,
    MIN_SEATS,
    RULES_BY_VERSION,
    SLOT_TIMERS,
    VERSUS_RULES_V1,
    VersusRules,
)
from .view import (
    LANDED_NOTE,
    OFFSET_NOTE,
    SeatShown,
    SeatView,
    board_note,
    frame_actors,
    frame_changes,
    keyframe_view,
    remember_shown,
)
from .wire import records_wire

__all__ = [
    "MAX_SEATS",
    "MIN_SEATS",
    "MatchOverError",
    "VersusConfig",
    "VersusMatch",
    "versus_config",
]

#: Every well-formed byte decoded once: step() looks a plain int up here and leaves anything else
#: (a bool, an int subclass, a malformed byte) to decode_input, which accepts or refuses it as ever.
_DECODED: dict[int, SeatInput] = {value: decode_input(value) for value in range(256) if is_valid_input(value)}


#: Statuses a board starts in anew (a level, or a life after a death: the respawn clears ice silently).
_NEW_BOARD = ("ready", "drawing")


def _taken(before: tuple[Packet, ...], after: tuple[Packet, ...]) -> list[int]:
    """The ids of the packets an offset or a landing took units from (in queue order)."""
    kept = set(after)
    return [packet.id for packet in before if packet not in kept]


class MatchOverError(RuntimeError):
    """step() after the match has ended."""


@dataclass(frozen=True)
class VersusConfig:
    """What a match is played with: the versus rules and the board preset's options.

    The defaults are pengo-versus 1's (every replay recorded before the bump was played by them);
    `versus_config(version)` is a version's default config, and new matches take the current
    version's (`rules.versus.ruleset.PENGO_VERSUS.default_config()`).
    """

    rules: VersusRules = field(default_factory=lambda: VERSUS_RULES_V1)
    difficulty: KickDifficultyName = "arcade"
    #: The Sno-Bee decision of every board (rules/kick/config.py `KickConfig.fidelity`).
    fidelity: Fidelity = "first-port"
    #: Whether every board's Sno-Bee slots keep the listing's stale bytes (`KickConfig.slot_timers`).
    slot_timers: SlotTimers = "first-port"

    def board_config(self, seed: int) -> KickConfig:
        """Every seat's board: Pengo with a per-level shared deal and the counter-gem material."""
        base = pengo_preset(
            PengoOptions(
                seed=seed & 0xFFFF, lives=self.rules.lives, skill=self.rules.skill, difficulty=self.difficulty
            )
        )
        return replace(
            base,
            seed=seed,
            deal="per-level",
            materials=(*base.materials, COUNTER_GEM),
            name="pengo-versus",
            fidelity=self.fidelity,
            slot_timers=self.slot_timers,
        )


def versus_config(version: int) -> VersusConfig:
    """The default config of a pengo-versus version (rules/versus/tables.py RULES_BY_VERSION, FIDELITY,
    SLOT_TIMERS)."""
    return VersusConfig(
        rules=RULES_BY_VERSION[version], fidelity=FIDELITY[version], slot_timers=SLOT_TIMERS[version]
    )


class VersusMatch:
    """A versus match of 2–4 seats."""

    def __init__(
        self, config: VersusConfig | None = None, seed: int = 1, seats: int | Sequence[str] = 2
    ) -> None:
        self.config = config or VersusConfig()
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 0xFFFFFFFF:
            raise ValueError(f"seed: must be an integer from 0 to 2**32 - 1, got {seed!r}")
        names = [f"seat{i}" for i in range(seats)] if isinstance(seats, int) else list(seats)
        if not MIN_SEATS <= len(names) <= MAX_SEATS:
            raise ValueError(f"seats: a match has {MIN_SEATS} to {MAX_SEATS} seats, got {len(names)}")
        self.seed = seed
        self.names = tuple(names)
        self.rules = self.config.rules
        board_config = self.config.board_config(seed)
        garbage_seed = mix_seed(seed, GARBAGE_SALT)
        #: Each seat's state, in seat order.
        self.seat_states = [
            SeatState(index, KickGame(board_config), garbage_seed) for index in range(len(names))
        ]
        #: Each seat's board, in seat order (the same objects for the match's life: restore() is in place).
        self.games = tuple(seat.game for seat in self.seat_states)
        self.frame = 0
        #: The id of the next packet sent (packets are numbered across the match).
        self.next_packet = 1
        self.result: MatchResult | None = None
        #: The chained SHA-256 of the canonical event log so far, as digest bytes (see log_hash).
        self.log_digest = GENESIS_DIGEST
        #: Per seat, what the last step showed beyond its records (view.py's notes: a new board, a landing's
        #: block ids and packets, an offset's packets). Not state: step() makes it anew, restore() clears it.
        self._no_notes: list[Any] = [() for _ in names]
        self.notes: list[Any] = self._no_notes
        self._noted = False
        #: Per seat, the last summary shown (view.py's memo, not state) and whether a step may have changed
        #: it since (its status changed, a record named the seat, its gems were counted).
        self.summaries: list[tuple[tuple[bool, int, int], list[Any]] | None] = [None for _ in names]
        self.summary_stale = [True for _ in names]
        #: What each seat showed after the last frame (view.py's `frame_changes` base; not state).
        self.shown_actors: list[SeatShown] = []
        self.shown_summaries: list[list[Any]] = []
        remember_shown(self)

    @property
    def log_hash(self) -> str:
        """The chained SHA-256 of the canonical event log so far, in hex (rules/versus/log.py)."""
        return self.log_digest.hex()

    @property
    def seats(self) -> int:
        """The number of seats."""
        return len(self.names)

    @property
    def moves(self) -> list[list[list[int]]]:
        """Each seat's move list as [frame, input byte] pairs (a copy)."""
        return [[[frame, value] for frame, value in seat.all_moves()] for seat in self.seat_states]

    def seat_view(self, seat: int) -> SeatView:
        """What seat `seat`'s player sees of its board (read-only: a bot's input)."""
        return self.seat_states[seat].view

    @property
    def finished(self) -> bool:
        """Has the match ended?"""
        return self.result is not None

    # ---- the step --------------------------------------------------------------------------------

    def check_inputs(self, inputs: Sequence[int]) -> None:
        """Raise IllegalInputError unless `inputs` is one valid byte per seat."""
        self._decode(inputs)

    def _decode(self, inputs: Sequence[int]) -> list[SeatInput]:
        """Every seat's decoded input; raises IllegalInputError (before anything changes) if one is bad."""
        if len(inputs) != len(self.names):
            raise IllegalInputError(f"inputs: expected {self.seats} input bytes, got {len(inputs)}")
        decoded: list[SeatInput] = []
        for value in inputs:
            # type() is int, not isinstance: True and 1.0 hash like 1 but are not input bytes.
            seat_input = _DECODED.get(value) if type(value) is int else None
            decoded.append(decode_input(value) if seat_input is None else seat_input)
        return decoded

    def step(self, inputs: Sequence[int]) -> list[Record]:
        """Advance one frame: inputs, boards, attacks, landings, gems, the end. Returns the frame's log."""
        if self.result is not None:
            raise MatchOverError("the match has ended")
        decoded = self._decode(inputs)
        if self._noted:
            self.notes, self._noted = self._no_notes, False
        records: list[Record] = []
        frame = self.frame
        seat_states = self.seat_states
        just_out: list[int] = []
        for seat, value, seat_input in zip(seat_states, inputs, decoded, strict=True):
            if value != seat.last_input:
                seat.last_input = value
                seat.moves_tail.append((frame, value))
            if not seat.alive:
                continue
            if seat_input.forfeit:
                seat.forfeited = True
                self._out(seat, OutReason.FORFEIT, records, just_out)
                continue
            game = seat.game
            game.control(seat_input.direction)
            if seat_input.kick:
                game.kick()
        # Version 2 sends every seat's attack of the frame after all of them were offset (see _send).
        simultaneous = self.rules.attack.exchange == "simultaneous"
        sends: list[tuple[SeatState, int]] = []
        for seat in seat_states:
            if not seat.alive:
                continue
            game = seat.game
            status = game.status
            game.step_frame()
            if game.status != status:
                self.summary_stale[seat.index] = True
                if game.status in _NEW_BOARD:
                    self._note(seat.index, board_note(game))
            events = game.drain()
            if events:  # most frames are quiet: no records, no attack units
                index = seat.index
                records.extend(BoardRecord(index, event) for event in events)
                units, reasons = attack_units(events, self.rules.attack)
                if units:
                    left = self._attack(seat, units, reasons, frame, records)
                    if left:
                        if simultaneous:
                            sends.append((seat, left))
                        else:
                            self._send(seat, left, frame, records)
            if game.level != seat.board_level:
                seat.board_level = game.level
                seat.round_slots = len(game.slots)
                if seat.gems:
                    seat.gems = ()
        for seat, units in sends:
            self._send(seat, units, frame, records)
        for seat in seat_states:
            if seat.alive:
                pending = seat.pending
                # A due packet waits while the board is not in play (READY, a death, the clear).
                if pending and pending[0].lands_at <= frame and seat.game.status == "playing":
                    self._land(seat, frame, records)
                if seat.hurry_until >= 0:
                    self._hurry(seat, frame)
                if seat.gems_due <= frame:
                    self.summary_stale[seat.index] = True
                    self._count_gems(seat, frame, records)
        for seat in seat_states:
            if seat.alive and seat.game.status == "lost":
                self._out(seat, OutReason.LIVES, records, just_out)
        self.frame = frame + 1
        if records:
            self._stale_after(records)
        # A seat goes out only through _out, so the match can end only on a frame that noted one, or at
        # the time limit: every other frame skips the decision.
        if just_out or self.frame >= self.rules.time_limit_frames:
            self._end(just_out, records)
        self.log_digest = chain_hash(self.log_digest, frame, records)
        return records

    def _out(self, seat: SeatState, reason: OutReason, records: list[Record], just_out: list[int]) -> None:
        """Take a seat out of the match: its pending attacks vanish and its board stops."""
        seat.alive = False
        seat.pending = ()
        records.append(SeatOut(seat.index, reason))
        just_out.append(seat.index)

    def _attack(
        self, seat: SeatState, units: int, reasons: tuple[str, ...], frame: int, records: list[Record]
    ) -> int:
        """The units a seat earned this frame, boosted (chain, margin) and offset against its own pending
        attacks: the units left to send."""
        table = self.rules.attack
        index = seat.index
        units, chained, in_margin = boost(units, seat.last_attack, frame, table)
        seat.last_attack = frame
        records.append(Attack(index, units, reasons, chained, in_margin))
        if seat.pending:
            before = seat.pending
            cancelled, seat.pending = offset(units, seat.pending)
            if cancelled:
                records.append(Offset(index, cancelled))
                self._note(index, [OFFSET_NOTE, _taken(before, seat.pending)])
                units -= cancelled
        return units

    def _send(self, seat: SeatState, units: int, frame: int, records: list[Record]) -> None:
        """Send a packet of `units` from a seat to its target, landing `fuse_frames` later.

        In seat order (version 1) each seat sends as soon as its board has stepped, so a seat later in
        the order may offset a packet sent on the same frame and an earlier one may not; with the
        simultaneous exchange (version 2) every seat's units are offset first and sent after."""
        table = self.rules.attack
        index = seat.index
        seat_states = self.seat_states
        receiver = target(index, [s.alive for s in seat_states], [s.game.score for s in seat_states])
        if receiver is None:
            return
        packet = Packet(self.next_packet, index, units, frame + table.fuse_frames)
        self.next_packet += 1
        queue = seat_states[receiver]
        queue.pending = (*queue.pending, packet)
        records.append(Queued(receiver, index, packet.id, units, packet.lands_at))

    def _land(self, seat: SeatState, frame: int, records: list[Record]) -> None:
        """Land what is due on a seat's board (at most the cap) and note the gems it drops."""
        table = self.rules.attack
        before = seat.pending
        units, seat.pending = landing_units(seat.pending, frame, table)
        if units:
            max_slots = seat.round_slots + table.extra_slots
            placed = place_landing(seat.game, seat.index, units, seat.garbage, frame, table, max_slots)
            hurry_frames = table.landing_hurry_frames + units * table.landing_hurry_unit_frames
            if hurry_frames:
                seat.hurry_until = min(max(seat.hurry_until, frame) + hurry_frames,
                                       frame + table.landing_hurry_max_frames)
            seat.garbage = placed.stream
            if placed.gems:
                seat.gems = (*seat.gems, *placed.gems)
            records.append(placed.record)
            board = seat.game.board
            landed = placed.record
            ids = [board.grid[cell.y * board.cols + cell.x] for cell in (*landed.blocks, *landed.gems)]
            self._note(seat.index, [LANDED_NOTE, _taken(before, seat.pending), ids])

    def _hurry(self, seat: SeatState, frame: int) -> None:
        """A landing's hurry: on every frame of it (a Sno-Bee hatched meanwhile hurries too), then calm."""
        minutes = self.rules.attack.landing_hurry_minutes
        if frame < seat.hurry_until:
            seat.game.hurry(minutes)
        else:
            seat.game.calm(minutes)
            seat.hurry_until = -1
            self.summary_stale[seat.index] = True

    def _stale_after(self, records: list[Record]) -> None:
        """Every seat a record names may show a new summary (score, lives, eggs, pending, gems, out)."""
        stale = self.summary_stale
        for record in records:
            if isinstance(record, MatchEnd):
                stale[:] = [True] * len(stale)
                return
            stale[record.seat] = True

    def _note(self, seat: int, note: list[Any]) -> None:
        """Show `note` on seat `seat`'s board with this step (outside the log: see `notes`)."""
        if not self._noted:
            self.notes, self._noted = [[] for _ in self.names], True
        self.notes[seat].append(note)

    def _count_gems(self, seat: SeatState, frame: int, records: list[Record]) -> None:
        """Count a seat's due counter gems down; thaw the ones that reach 0 into ice."""
        counting = count_gems(seat.gems, frame, seat.gem_standing, self.rules.attack)
        seat.gems = counting.gems
        if not counting.steps:
            return
        game = seat.game
        blocks = game.board.blocks
        index = seat.index
        for gem in counting.steps:
            at = blocks[gem.block].cell
            if gem.countdown > 0:
                records.append(GemCount(index, at, gem.countdown))
            else:
                game.transmute(gem.block, ICE)
                records.append(GemThaw(index, at))

    def _end(self, just_out: list[int], records: list[Record]) -> None:
        """End the match if this frame decides it (ending.match_end)."""
        seat_states = self.seat_states
        result = match_end(
            [seat.alive for seat in seat_states],
            [seat.forfeited for seat in seat_states],
            just_out,
            [seat.game.score for seat in seat_states],
            self.frame,
            self.rules.time_limit_frames,
        )
        if result is not None:
            self.result = result
            records.append(MatchEnd(result.winner, result.outcomes, EndReason(result.reason), result.frame))

    # ---- snapshots -------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Plain data for restore() (msgpack can encode it)."""
        return {
            "frame": self.frame,
            "seats": [seat.snapshot() for seat in self.seat_states],
            "next_packet": self.next_packet,
            "result": None if self.result is None else self.result.plain(),
            "log_hash": self.log_hash,
        }

    def restore(self, snap: dict[str, Any]) -> None:
        """Restore a snapshot taken from a match of the same config, seed and seats."""
        if len(snap["seats"]) != self.seats:
            raise ValueError("snapshot: seat count differs")
        self.frame = snap["frame"]
        for seat, data in zip(self.seat_states, snap["seats"], strict=True):
            seat.restore(data)
        self.next_packet = snap["next_packet"]
        self.result = None if snap["result"] is None else MatchResult.from_plain(snap["result"])
        self.log_digest = bytes.fromhex(snap["log_hash"])
        self.notes, self._noted = self._no_notes, False
        remember_shown(self)

    # ---- the seam (rules/ruleset.py's Match) -------------------------------------------------------

    def records_plain(self, records: Sequence[Record]) -> list[dict[str, Any]]:
        """A frame's records as plain maps (the canonical log's form)."""
        return [record_plain(record) for record in records]

    def records_wire(self, records: Sequence[Record]) -> list[Any]:
        """A frame's records as the stream sends them (rules/versus/wire.py)."""
        return records_wire(records)

    def checksum(self, snapshot: dict[str, Any]) -> str:
        """The canonical SHA-256 of a snapshot of this match."""
        return state_checksum(snapshot)

    def actors(self) -> list[Any]:
        """What every seat shows, whole (rules/versus/view.py)."""
        return frame_actors(self)

    def changes(self) -> list[Any]:
        """What every seat shows, as the change since the last call or restore (rules/versus/view.py)."""
        return frame_changes(self)

    def keyframe_view(self) -> dict[str, Any]:
        """The whole visible state (rules/versus/view.py)."""
        return keyframe_view(self)
