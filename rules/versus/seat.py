"""One seat of a match: its board and everything the attack exchange and the replay keep for it.

`VersusMatch.seat_states` holds one `SeatState` per seat, in seat order. The match changes them
only inside `step()` and `restore()`; `snapshot()`/`restore()` of a seat are exact and plain (lists,
tuples, ints, strings, None: what msgpack, `marshal` and `rules.synctest` take).
"""

from __future__ import annotations

from typing import Any

from rules.kick.game import KickGame
from rules.kick.rng import KickRandom

from .attack import Packet
from .gems import COUNTER_GEM, NO_GEM_DUE, Gem, next_gem_due
from .inputs import NEUTRAL
from .view import SeatView

#: A move: (frame, input byte), recorded whenever a seat's byte changes.
Move = tuple[int, int]


class SeatState:
    """One seat's state (read it freely; only the match changes it)."""

    __slots__ = (
        "index",
        "game",
        "view",
        "alive",
        "forfeited",
        "pending",
        "last_attack",
        "garbage",
        "_gems",
        "gems_due",
        "board_level",
        "round_slots",
        "hurry_until",
        "moves",
        "moves_tail",
        "last_input",
    )

    def __init__(self, index: int, game: KickGame, garbage_seed: int) -> None:
        #: The seat's number (its place in the input row and in every record that names a seat).
        self.index = index
        #: The seat's board.
        self.game = game
        #: What the seat's player (or bot) sees of the board: read-only.
        self.view = SeatView(game, self)
        #: Still in the match (not out of lives, not forfeited).
        self.alive = True
        #: Left the match for good with a forfeit byte.
        self.forfeited = False
        #: Attack packets on their way to this seat, oldest first (the telegraph).
        self.pending: tuple[Packet, ...] = ()
        #: The frame of the seat's last attack (for the chain bonus), None before its first.
        self.last_attack: int | None = None
        #: The state of the seat's garbage stream (Pengo's generator), which picks where landings go.
        self.garbage = KickRandom(garbage_seed).state
        self._gems: tuple[Gem, ...] = ()
        #: The frame the first of the gems is due on (gems.next_gem_due), kept by the `gems` setter so
        #: that step() tests one int on the frames (most of them) when no gem steps.
        self.gems_due = NO_GEM_DUE
        #: The level the gems belong to: a change of level clears them.
        self.board_level = game.level
        #: The Sno-Bee slots the level opened (landed eggs may add `extra_slots` to them for the round).
        self.round_slots = len(game.slots)
        #: The frame a landing's hurry ends on (`KickGame.hurry`), or -1 while none lasts.
        self.hurry_until = -1
        #: The move list, in two parts: the frozen part is an immutable tuple that snapshots share
        #: instead of copying (and restore() adopts as is); step() only appends to the tail, so
        #: recording a move costs O(1) rather than a copy of the whole list. snapshot() folds the
        #: tail in (freeze_moves).
        self.moves: tuple[Move, ...] = ()
        self.moves_tail: list[Move] = []
        #: The input byte of the last frame (a move is recorded when it changes).
        self.last_input = NEUTRAL

    @property
    def gems(self) -> tuple[Gem, ...]:
        """The counter gems on the seat's board, in landing order (a new level's board has none)."""
        return self._gems

    @gems.setter
    def gems(self, gems: tuple[Gem, ...]) -> None:
        self._gems = gems
        self.gems_due = next_gem_due(gems)

    def gem_standing(self, block: int) -> bool:
        """Is block `block` still a counter gem on the board (not gone, not thawed)?"""
        found = self.game.board.blocks.get(block)
        return found is not None and found.material == COUNTER_GEM.id

    def all_moves(self) -> tuple[Move, ...]:
        """The whole move list (frozen part and tail)."""
        return (*self.moves, *self.moves_tail)

    def freeze_moves(self) -> tuple[Move, ...]:
        """Fold the tail of new moves into the frozen tuple; returns the frozen tuple."""
        if self.moves_tail:
            self.moves = (*self.moves, *self.moves_tail)
            self.moves_tail.clear()
        return self.moves

    def snapshot(self) -> dict[str, Any]:
        """The seat as plain data, for restore()."""
        return {
            "game": self.game.snapshot(),
            "alive": self.alive,
            "forfeited": self.forfeited,
            "pending": [list(packet) for packet in self.pending],
            "last_attack": self.last_attack,
            "garbage": self.garbage,
            "gems": [list(gem) for gem in self.gems],
            "board_level": self.board_level,
            "round_slots": self.round_slots,
            "hurry_until": self.hurry_until,
            "moves": self.freeze_moves(),
            "last_input": self.last_input,
        }

    def restore(self, snap: dict[str, Any]) -> None:
        """Put back a snapshot() of this seat (or its msgpack round trip, where tuples became lists)."""
        self.game.restore(snap["game"])
        self.alive = snap["alive"]
        self.forfeited = snap["forfeited"]
        self.pending = tuple(Packet(*packet) for packet in snap["pending"])
        self.last_attack = snap["last_attack"]
        self.garbage = KickRandom(state=snap["garbage"]).state
        self.gems = tuple(Gem(*gem) for gem in snap["gems"])
        self.board_level = snap["board_level"]
        self.round_slots = snap["round_slots"]
        self.hurry_until = snap["hurry_until"]
        moves = snap["moves"]
        self.moves = moves if isinstance(moves, tuple) else tuple((frame, value) for frame, value in moves)
        self.moves_tail = []
        self.last_input = snap["last_input"]
