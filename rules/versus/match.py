"""VersusMatch: 2–4 Pengo boards dealt from one seed, advanced in lockstep frames of 1/60 s.

`step(inputs)` is the only thing that changes a match: it applies one input byte per seat, steps
every board 13 main-loop passes, then exchanges attacks (units, offset, the pending queue, the
landings, counter gems) and checks for the end. `snapshot()`/`restore()` round-trip exactly.

Choices the design left open, made here:
- targeting with 3–4 seats: an attack goes to the live opponent with the highest score, ties to
  the first such seat after the sender in seat order (the leader is pressed, deterministically);
- a landing waits while its receiver's board is not in play (READY, a death, the clear), so
  nothing lands on a board that is about to be replaced;
- a nuisance landing is three garbage blocks plus one egg per unit over three, hidden in the
  receiver's ice (eggs hatch in the board's hatch order, waking an idle Sno-Bee slot);
- the garbage stream is per seat, every seat's seeded from the match seed, so the k-th landing
  draws the same numbers on every board;
- seats that go out on the same frame as the last survivors: the highest score among them wins,
  equal scores draw; at the time limit the highest score among the seats still in wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rules.kick.config import KickConfig, KickDifficultyName, KickMaterial
from rules.kick.deal import mix_seed
from rules.kick.events import Crush, EggBroken, KickEvent, Line, RoundClear
from rules.kick.events import Eat as EatEvent
from rules.kick.game import KickGame
from rules.kick.geometry import Cell
from rules.kick.presets import PengoOptions, pengo_preset
from rules.kick.rng import KickRandom
from rules.result import MatchResult
from rules.synctest import state_checksum

from .events import (
    Attack,
    BoardRecord,
    GemCount,
    GemThaw,
    Landing,
    MatchEnd,
    Offset,
    Queued,
    Record,
    SeatOut,
    record_plain,
)
from .inputs import NEUTRAL, IllegalInputError, SeatInput, decode_input, is_valid_input
from .log import GENESIS_HASH, chain_hash
from .tables import VERSUS_RULES, VersusRules
from .view import SeatView, frame_actors, keyframe_view

#: Counter gems: immovable, unbreakable, unchewable, hold no egg; they thaw into ice.
COUNTER_GEM = KickMaterial(
    "counter-gem", slides=False, breaks_when_blocked=False, enemy_breakable=False, holds_eggs=False
)
#: The salt of the garbage stream's seed (levels use salts 1, 2, …).
GARBAGE_SALT = 0
MIN_SEATS = 2
MAX_SEATS = 4
#: Every well-formed byte decoded once: step() looks a plain int up here and leaves anything else
#: (a bool, an int subclass, a malformed byte) to decode_input, which accepts or refuses it as ever.
_DECODED: dict[int, SeatInput] = {value: decode_input(value) for value in range(256) if is_valid_input(value)}


class MatchOverError(RuntimeError):
    """step() after the match has ended."""


@dataclass(frozen=True)
class VersusConfig:
    """What a match is played with: the versus rules and the board preset's options."""

    rules: VersusRules = field(default_factory=lambda: VERSUS_RULES)
    difficulty: KickDifficultyName = "arcade"

    def board_config(self, seed: int) -> KickConfig:
        """Every seat's board: Pengo with a per-level shared deal and the counter-gem material."""
        base = pengo_preset(
            PengoOptions(
                seed=seed & 0xFFFF, lives=self.rules.lives, skill=self.rules.skill, difficulty=self.difficulty
            )
        )
        return replace(
            base, seed=seed, deal="per-level", materials=(*base.materials, COUNTER_GEM), name="pengo-versus"
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
        self.games = [KickGame(board_config) for _ in self.names]
        self._views = [SeatView(game) for game in self.games]
        count = len(self.names)
        self.frame = 0
        self.alive = [True] * count
        self.forfeited = [False] * count
        self.pending: list[list[list[int]]] = [[] for _ in range(count)]
        self.next_packet = 1
        self.last_attack: list[int | None] = [None] * count
        garbage_seed = mix_seed(seed, GARBAGE_SALT)
        self.garbage = [KickRandom(garbage_seed) for _ in range(count)]
        self.gems: list[list[list[int]]] = [[] for _ in range(count)]
        self.board_levels = [game.level for game in self.games]
        self.result: MatchResult | None = None
        self._just_out: list[int] = []
        #: Each seat's move list, (frame, input byte) whenever the byte changes: the replay's moves,
        #: kept in two parts. The frozen part is an immutable tuple that snapshots share instead of
        #: copying (and restore() adopts as is); step() only appends to the tail, so recording a move
        #: costs O(1) rather than a copy of the whole list. snapshot() folds the tail in (_freeze_moves).
        self._moves: list[tuple[tuple[int, int], ...]] = [() for _ in range(count)]
        self._moves_tail: list[list[tuple[int, int]]] = [[] for _ in range(count)]
        self._last_input = [NEUTRAL] * count
        #: The chained SHA-256 of the canonical event log so far (see log_hash).
        self.log_hash = GENESIS_HASH

    @property
    def seats(self) -> int:
        """The number of seats."""
        return len(self.names)

    @property
    def moves(self) -> list[list[list[int]]]:
        """Each seat's move list as [frame, input byte] pairs (a copy)."""
        return [
            [[frame, value] for frame, value in (*frozen, *tail)]
            for frozen, tail in zip(self._moves, self._moves_tail, strict=True)
        ]

    def _freeze_moves(self) -> list[tuple[tuple[int, int], ...]]:
        """Fold each seat's tail of new moves into its frozen tuple; returns the frozen tuples."""
        for seat, tail in enumerate(self._moves_tail):
            if tail:
                self._moves[seat] = (*self._moves[seat], *tail)
                tail.clear()
        return self._moves

    def seat_view(self, seat: int) -> SeatView:
        """What seat `seat`'s player sees of its board (read-only: a bot's input)."""
        return self._views[seat]

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
        records: list[Record] = []
        frame = self.frame
        alive = self.alive
        games = self.games
        last_input = self._last_input
        for seat, seat_input in enumerate(decoded):
            value = inputs[seat]
            if value != last_input[seat]:
                last_input[seat] = value
                self._moves_tail[seat].append((frame, value))
            if not alive[seat]:
                continue
            if seat_input.forfeit:
                self.forfeited[seat] = True
                self._out(seat, "forfeit", records)
                continue
            game = games[seat]
            game.control(seat_input.direction)
            if seat_input.kick:
                game.kick()
        board_levels = self.board_levels
        for seat, game in enumerate(games):
            if not alive[seat]:
                continue
            game.step_frame()
            events = game.drain()
            if events:  # most frames are quiet: no records, no attack units
                records.extend(BoardRecord(seat, event) for event in events)
                units, reasons = self._units(events)
                if units:
                    self._attack(seat, units, reasons, frame, records)
            if game.level != board_levels[seat]:
                board_levels[seat] = game.level
                self.gems[seat] = []
        # The same tests _land and _count_gems open with, hoisted so a seat with nothing due costs no call.
        pending = self.pending
        gems = self.gems
        for seat, queue in enumerate(pending):
            if alive[seat]:
                if queue and queue[0][3] <= frame:
                    self._land(seat, frame, records)
                if gems[seat]:
                    self._count_gems(seat, frame, records)
        for seat, game in enumerate(games):
            if alive[seat] and game.status == "lost":
                self._out(seat, "lives", records)
        self.frame = frame + 1
        self._check_end(records)
        self.log_hash = chain_hash(self.log_hash, frame, records)
        return records

    def _out(self, seat: int, reason: str, records: list[Record]) -> None:
        self.alive[seat] = False
        self.pending[seat] = []
        records.append(SeatOut(seat, "forfeit" if reason == "forfeit" else "lives"))
        self._just_out.append(seat)

    # ---- attacks ---------------------------------------------------------------------------------

    def _units(self, events: list[KickEvent]) -> tuple[int, list[str]]:
        table = self.rules.attack
        units = 0
        reasons: list[str] = []
        for event in events:
            if isinstance(event, Crush):
                count = len(event.ids)
                units += table.crush[min(count, len(table.crush)) - 1]
                reasons.append(f"crush{count}")
            elif isinstance(event, Line):
                units += table.line_wall if event.along_wall else table.line
                reasons.append("line")
            elif isinstance(event, EatEvent):
                units += table.eat
                reasons.append("eat")
            elif isinstance(event, EggBroken):
                units += table.egg
                reasons.append("egg")
            elif isinstance(event, RoundClear):
                units += table.round_clear + next(
                    (extra for points, extra in table.round_clear_tiers if event.bonus >= points), 0
                )
                reasons.append("round-clear")
        return units, reasons

    def _attack(self, seat: int, units: int, reasons: list[str], frame: int, records: list[Record]) -> None:
        table = self.rules.attack
        last = self.last_attack[seat]
        chain = last is not None and frame - last <= table.chain_frames
        if chain:
            units += table.chain_bonus
        self.last_attack[seat] = frame
        margin = frame >= table.margin_from_frame
        if margin:
            units = max(1, units * table.margin_num // table.margin_den)
        records.append(Attack(seat, units, tuple(reasons), chain, margin))
        cancelled = 0
        own = self.pending[seat]
        while units and own:
            packet = own[0]
            take = min(units, packet[2])
            packet[2] -= take
            units -= take
            cancelled += take
            if packet[2] == 0:
                own.pop(0)
        if cancelled:
            records.append(Offset(seat, cancelled))
        if not units:
            return
        target = self._target(seat)
        if target is None:
            return
        lands_at = frame + table.fuse_frames
        packet_id = self.next_packet
        self.next_packet += 1
        self.pending[target].append([packet_id, seat, units, lands_at])
        records.append(Queued(target, seat, packet_id, units, lands_at))

    def _target(self, seat: int) -> int | None:
        """The live opponent with the highest score; ties to the first after the sender."""
        best: int | None = None
        for step in range(1, self.seats):
            other = (seat + step) % self.seats
            if not self.alive[other]:
                continue
            if best is None or self.games[other].score > self.games[best].score:
                best = other
        return best

    # ---- landings --------------------------------------------------------------------------------

    def _land(self, seat: int, frame: int, records: list[Record]) -> None:
        queue = self.pending[seat]
        if not queue or queue[0][3] > frame:
            return
        game = self.games[seat]
        if game.status != "playing":
            return
        table = self.rules.attack
        units = 0
        while queue and queue[0][3] <= frame and units < table.landing_cap:
            packet = queue[0]
            take = min(packet[2], table.landing_cap - units)
            packet[2] -= take
            units += take
            if packet[2] == 0:
                queue.pop(0)
        if units:
            self._place(seat, units, frame, records)

    def _pick(self, seat: int, cells: list[Cell]) -> Cell:
        return cells.pop(self.garbage[seat].below(len(cells)))

    def _place(self, seat: int, units: int, frame: int, records: list[Record]) -> None:
        table = self.rules.attack
        game = self.games[seat]
        cells = game.landing_cells(table.garbage_min_distance)
        blocks: list[Cell] = []
        eggs: list[Cell] = []
        gems: list[Cell] = []
        if units > table.nuisance_max:
            for _ in range(units - table.gem_offset):
                if not cells:
                    break
                cell = self._pick(seat, cells)
                block_id = game.drop_block(cell, COUNTER_GEM.id)
                self.gems[seat].append([block_id, table.gem_count, frame + table.gem_step_frames])
                gems.append(cell)
            kind = "gems"
        else:
            for _ in range(min(units, table.garbage_max)):
                if not cells:
                    break
                cell = self._pick(seat, cells)
                game.drop_block(cell, "ice")
                blocks.append(cell)
            kind = "garbage"
            if units > table.garbage_max:
                kind = "nuisance"
                for _ in range(units - table.garbage_max):
                    holders = sorted(
                        (
                            b
                            for b in game.board.blocks.values()
                            if b.material == "ice"
                            and b.egg is None
                            and b.motion is None
                            and b.breaking is None
                        ),
                        key=lambda b: (b.cy, b.cx),
                    )
                    if not holders:
                        break
                    block = holders[self.garbage[seat].below(len(holders))]
                    game.hide_egg(block.id)
                    eggs.append(block.cell)
        records.append(Landing(seat, kind, units, tuple(blocks), tuple(eggs), tuple(gems)))  # type: ignore[arg-type]

    def _count_gems(self, seat: int, frame: int, records: list[Record]) -> None:
        gems = self.gems[seat]
        if not gems:
            return
        game = self.games[seat]
        for gem in list(gems):
            if gem[2] > frame:
                continue
            block = game.board.blocks.get(gem[0])
            if block is None or block.material != COUNTER_GEM.id:
                gems.remove(gem)
                continue
            gem[1] -= 1
            gem[2] = frame + self.rules.attack.gem_step_frames
            if gem[1] > 0:
                records.append(GemCount(seat, block.cell, gem[1]))
            else:
                game.transmute(block.id, "ice")
                gems.remove(gem)
                records.append(GemThaw(seat, block.cell))

    # ---- the end ---------------------------------------------------------------------------------

    def _check_end(self, records: list[Record]) -> None:
        if not self._just_out and self.frame < self.rules.time_limit_frames and self.alive.count(True) > 1:
            return  # the common frame: nobody went out, two or more still in, time remains
        just_out, self._just_out = self._just_out, []
        live = [seat for seat in range(self.seats) if self.alive[seat]]
        scores = tuple(game.score for game in self.games)
        if len(live) <= 1:
            if live:
                winner: int | None = live[0]
                reason = (
                    "forfeit"
                    if all(self.forfeited[s] for s in range(self.seats) if s != live[0])
                    else "elimination"
                )
                outcomes = self._outcomes(winner, ())
            else:
                contenders = just_out or list(range(self.seats))
                winner, drawn = self._best(contenders, scores)
                reason = "elimination"
                outcomes = self._outcomes(winner, drawn)
            self._finish(winner, outcomes, reason, scores, records)
        elif self.frame >= self.rules.time_limit_frames:
            winner, drawn = self._best(live, scores)
            self._finish(winner, self._outcomes(winner, drawn), "time", scores, records)

    @staticmethod
    def _best(seats: list[int], scores: tuple[int, ...]) -> tuple[int | None, tuple[int, ...]]:
        top = max(scores[s] for s in seats)
        leaders = tuple(s for s in seats if scores[s] == top)
        if len(leaders) == 1:
            return leaders[0], ()
        return None, leaders

    def _outcomes(self, winner: int | None, drawn: tuple[int, ...]) -> tuple[str, ...]:
        outcomes = []
        for seat in range(self.seats):
            if self.forfeited[seat]:
                outcomes.append("forfeited")
            elif seat == winner:
                outcomes.append("won")
            elif seat in drawn:
                outcomes.append("drawn")
            else:
                outcomes.append("lost")
        return tuple(outcomes)

    def _finish(
        self,
        winner: int | None,
        outcomes: tuple[str, ...],
        reason: str,
        scores: tuple[int, ...],
        records: list[Record],
    ) -> None:
        self.result = MatchResult(winner, outcomes, reason, self.frame, scores)
        records.append(MatchEnd(winner, outcomes, reason, self.frame))

    # ---- snapshots -------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Plain data for restore() (msgpack can encode it)."""
        return {
            "frame": self.frame,
            "games": [game.snapshot() for game in self.games],
            "alive": list(self.alive),
            "forfeited": list(self.forfeited),
            "pending": [[list(p) for p in queue] for queue in self.pending],
            "next_packet": self.next_packet,
            "last_attack": list(self.last_attack),
            "garbage": [rng.state for rng in self.garbage],
            "gems": [[list(g) for g in gems] for gems in self.gems],
            "board_levels": list(self.board_levels),
            "result": None if self.result is None else self.result.plain(),
            "moves": list(self._freeze_moves()),
            "last_input": list(self._last_input),
            "log_hash": self.log_hash,
        }

    def restore(self, snap: dict[str, Any]) -> None:
        """Restore a snapshot taken from a match of the same config, seed and seats."""
        if len(snap["games"]) != self.seats:
            raise ValueError("snapshot: seat count differs")
        self.frame = snap["frame"]
        for game, data in zip(self.games, snap["games"], strict=True):
            game.restore(data)
        self.alive = list(snap["alive"])
        self.forfeited = list(snap["forfeited"])
        self.pending = [[list(p) for p in queue] for queue in snap["pending"]]
        self.next_packet = snap["next_packet"]
        self.last_attack = list(snap["last_attack"])
        for rng, state in zip(self.garbage, snap["garbage"], strict=True):
            rng.state = state
        self.gems = [[list(g) for g in gems] for gems in snap["gems"]]
        self.board_levels = list(snap["board_levels"])
        self.result = None if snap["result"] is None else MatchResult.from_plain(snap["result"])
        self._just_out = []
        self._moves = [
            seat if isinstance(seat, tuple) else tuple((frame, value) for frame, value in seat)
            for seat in snap["moves"]
        ]
        self._moves_tail = [[] for _ in self._moves]
        self._last_input = list(snap["last_input"])
        self.log_hash = snap["log_hash"]

    # ---- the seam (rules/ruleset.py's Match) -------------------------------------------------------

    def records_plain(self, records: Sequence[Record]) -> list[dict[str, Any]]:
        """A frame's records as plain maps (the stream's events)."""
        return [record_plain(record) for record in records]

    def checksum(self, snapshot: dict[str, Any]) -> str:
        """The canonical SHA-256 of a snapshot of this match."""
        return state_checksum(snapshot)

    def actors(self) -> list[Any]:
        """Every seat's moving things (rules/versus/view.py)."""
        return frame_actors(self)

    def keyframe_view(self) -> dict[str, Any]:
        """The whole visible state (rules/versus/view.py)."""
        return keyframe_view(self)
