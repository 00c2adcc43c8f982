"""toy-race: a second, tiny ruleset that proves the `Ruleset` seam (rules/ruleset.py) holds.

Each seat runs a token along a track of `track` steps. Holding right moves it one step a frame,
holding left one step back (never below 0); a kick is a boost of `boost` steps once every
`boost_every` frames. The first token at the end of the track wins; at the time limit the token
furthest along wins (a tie is a draw); a seat that forfeits is out, and the last seat in wins. It
uses floe's input byte (rules/versus/inputs.py) and nothing else of Pengo: the runner, the streams,
reconnects, replays and verification must serve it without knowing it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from protocol.delta import encode
from rules.errors import IllegalInputError
from rules.plain import check_int, check_map, exact_keys
from rules.result import MatchResult
from rules.ruleset import Bot
from rules.synctest import canonical_encoding, state_checksum
from rules.versus.inputs import FORFEIT, INPUTS, KICK_BIT, NEUTRAL, PengoInputs

RIGHT = 4
LEFT = 3
GENESIS = hashlib.sha256(b"toy-race-log").hexdigest()


@dataclass(frozen=True)
class RaceConfig:
    """The track's length, the boost, and the time limit."""

    track: int = 240
    boost: int = 3
    boost_every: int = 20
    time_limit_frames: int = 1200


class RaceView(NamedTuple):
    """What one seat sees: its token, the others', the track, and whether a boost is ready."""

    position: int
    others: tuple[int, ...]
    track: int
    boost_ready: bool


class RaceMatch:
    """One race (see the module docstring)."""

    def __init__(self, config: RaceConfig, seed: int, seats: Sequence[str]) -> None:
        if not 2 <= len(seats) <= 4:
            raise ValueError(f"seats: a race has 2 to 4 seats, got {len(seats)}")
        self.config = config
        self.seed = seed
        self.names = tuple(seats)
        self.frame = 0
        self.positions = [0] * len(seats)
        self.ready_at = [0] * len(seats)
        self.out = [False] * len(seats)
        self.forfeited = [False] * len(seats)
        self.last = [NEUTRAL] * len(seats)
        self.move_lists: list[list[list[int]]] = [[] for _ in seats]
        self.result: MatchResult | None = None
        self.log_hash = GENESIS
        self._shown = self.actors()

    @property
    def seats(self) -> int:
        """How many seats."""
        return len(self.names)

    @property
    def moves(self) -> list[list[list[int]]]:
        """Each seat's move list (a copy)."""
        return [[list(move) for move in seat] for seat in self.move_lists]

    def check_inputs(self, inputs: Sequence[int]) -> None:
        """One valid byte per seat, else IllegalInputError."""
        if len(inputs) != self.seats or not all(INPUTS.is_valid(value) for value in inputs):
            raise IllegalInputError(f"inputs: expected {self.seats} valid input bytes, got {list(inputs)!r}")

    def step(self, inputs: Sequence[int]) -> list[dict[str, Any]]:
        """One frame: moves, boosts, forfeits, the finish, the time limit."""
        if self.result is not None:
            raise RuntimeError("the race is over")
        self.check_inputs(inputs)
        frame, config, records = self.frame, self.config, []
        for seat, value in enumerate(inputs):
            if value != self.last[seat]:
                self.last[seat] = value
                self.move_lists[seat].append([frame, value])
            if self.out[seat]:
                continue
            if value == FORFEIT:
                self.out[seat] = self.forfeited[seat] = True
                records.append({"kind": "out", "seat": seat})
                continue
            direction = value & 0x07
            if direction == RIGHT:
                self.positions[seat] += 1
            elif direction == LEFT:
                self.positions[seat] = max(0, self.positions[seat] - 1)
            if value & KICK_BIT and frame >= self.ready_at[seat]:
                self.positions[seat] += config.boost
                self.ready_at[seat] = frame + config.boost_every
                records.append({"kind": "boost", "seat": seat, "at": self.positions[seat]})
        self.frame = frame + 1
        self._check_end(records)
        self.log_hash = hashlib.sha256(
            bytes.fromhex(self.log_hash) + canonical_encoding([frame, records])
        ).hexdigest()
        return records

    def _check_end(self, records: list[dict[str, Any]]) -> None:
        live = [seat for seat in range(self.seats) if not self.out[seat]]
        finished = [seat for seat in live if self.positions[seat] >= self.config.track]
        if finished:
            self._finish(finished, "finish", records)
        elif len(live) <= 1:
            self._finish(live, "forfeit", records)
        elif self.frame >= self.config.time_limit_frames:
            self._finish(live, "time", records)

    def _finish(self, contenders: list[int], reason: str, records: list[dict[str, Any]]) -> None:
        best = max((self.positions[seat] for seat in contenders), default=0)
        leaders = [seat for seat in contenders if self.positions[seat] == best]
        winner = leaders[0] if len(leaders) == 1 else None
        outcomes = tuple(
            "forfeited" if self.forfeited[seat]
            else "won" if seat == winner
            else "drawn" if seat in leaders
            else "lost"
            for seat in range(self.seats)
        )
        self.result = MatchResult(winner, outcomes, reason, self.frame, tuple(self.positions))
        records.append({"kind": "end", "winner": winner, "reason": reason})

    def records_plain(self, records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The records are plain already."""
        return list(records)

    def snapshot(self) -> dict[str, Any]:
        """Plain data."""
        return {
            "frame": self.frame,
            "positions": list(self.positions),
            "ready_at": list(self.ready_at),
            "out": list(self.out),
            "forfeited": list(self.forfeited),
            "last": list(self.last),
            "moves": self.moves,
            "result": None if self.result is None else self.result.plain(),
            "log_hash": self.log_hash,
        }

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Back to a snapshot."""
        self.frame = snapshot["frame"]
        self.positions = list(snapshot["positions"])
        self.ready_at = list(snapshot["ready_at"])
        self.out = list(snapshot["out"])
        self.forfeited = list(snapshot["forfeited"])
        self.last = list(snapshot["last"])
        self.move_lists = [[list(move) for move in seat] for seat in snapshot["moves"]]
        result = snapshot["result"]
        self.result = None if result is None else MatchResult.from_plain(result)
        self.log_hash = snapshot["log_hash"]
        self._shown = self.actors()

    def checksum(self, snapshot: dict[str, Any]) -> str:
        """The canonical digest."""
        return state_checksum(snapshot)

    def records_wire(self, records: Sequence[dict[str, Any]]) -> list[Any]:
        """The records as they are (a toy needs no compact form)."""
        return list(records)

    def actors(self) -> list[Any]:
        """Per seat `[summary, records, notes]`: whether it is out, and its token at its position."""
        return [[[self.out[seat]], [[0, position, 0]], []] for seat, position in enumerate(self.positions)]

    def changes(self) -> list[Any]:
        """The change since the last call or restore (protocol/delta.py's form, made by its encoder)."""
        now = self.actors()
        change = encode(self._shown, now)
        self._shown = now
        return change

    def keyframe_view(self) -> dict[str, Any]:
        """The names, positions and who is out."""
        return {
            "frame": self.frame,
            "time_left": max(0, self.config.time_limit_frames - self.frame),
            "seats": [
                {"name": name, "position": self.positions[seat], "out": self.out[seat]}
                for seat, name in enumerate(self.names)
            ],
        }

    def seat_view(self, seat: int) -> RaceView:
        """What seat `seat` sees."""
        others = tuple(p for other, p in enumerate(self.positions) if other != seat)
        return RaceView(self.positions[seat], others, self.config.track, self.frame >= self.ready_at[seat])


class Sprinter:
    """Holds right and boosts whenever it can."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def decide(self, view: RaceView, frame: int) -> int:
        """Right, with a kick when the boost is ready (and every other frame, so the edge is seen)."""
        return RIGHT | (KICK_BIT if view.boost_ready and frame % 2 == 0 else 0)


class Dawdler:
    """Walks right most of the time, steps back now and then (its own seeded pattern)."""

    def __init__(self, seed: int) -> None:
        self.period = 5 + seed % 7

    def decide(self, view: RaceView, frame: int) -> int:
        """Right, except two frames in `2 * period`: by frame pairs, so a bot client that decides on
        the frames it is sent (every `send_every` = 2 frames, odd or even ones as the node's tick slice
        has it) steps back as often as one deciding every frame."""
        return LEFT if (frame // 2) % self.period == 0 else RIGHT


_BOTS: dict[str, Callable[[int], Bot[RaceView]]] = {"sprinter": Sprinter, "dawdler": Dawdler}


class RaceRuleset:
    """toy-race v1."""

    name = "toy-race"
    version = 1
    min_seats = 2
    max_seats = 4
    inputs: PengoInputs = INPUTS
    bot_names = tuple(_BOTS)
    end_reasons = ("finish", "forfeit", "time")
    frame_hz = 60

    @property
    def rule_tables(self) -> tuple[tuple[str, Any], ...]:
        """The track (RaceConfig)."""
        return (("The race (RaceConfig)", RaceConfig()),)

    def default_config(self) -> RaceConfig:
        """The default track."""
        return RaceConfig()

    def config_plain(self, config: RaceConfig) -> dict[str, Any]:
        """Plain data."""
        return {
            "track": config.track,
            "boost": config.boost,
            "boost_every": config.boost_every,
            "time_limit_frames": config.time_limit_frames,
        }

    def config_from_plain(self, data: object) -> RaceConfig:
        """Strictly."""
        mapping = check_map("config", data)
        exact_keys("config", mapping, ("track", "boost", "boost_every", "time_limit_frames"))
        return RaceConfig(
            check_int("config.track", mapping["track"], 1, 10_000),
            check_int("config.boost", mapping["boost"], 0, 100),
            check_int("config.boost_every", mapping["boost_every"], 1, 10_000),
            check_int("config.time_limit_frames", mapping["time_limit_frames"], 1, 10**6),
        )

    def with_time_limit(self, config: RaceConfig, frames: int) -> RaceConfig:
        """The same track, a new limit."""
        return replace(config, time_limit_frames=frames)

    def new_match(self, config: RaceConfig, seed: int, seats: Sequence[str]) -> RaceMatch:
        """A fresh race."""
        return RaceMatch(config, seed, seats)

    @property
    def stream_tables(self) -> dict[str, Any]:
        """The toy's stream: one summary field, one record per seat."""
        return {"summary": ["out"], "records": {"token": ["key", "px", "py"]}}

    def make_bot(self, name: str, seed: int) -> Bot[RaceView]:
        """A bot by name."""
        factory = _BOTS.get(name)
        if factory is None:
            raise ValueError(f"bot: unknown bot {name!r}; one of {self.bot_names}")
        bot: Bot[RaceView] = factory(seed)
        return bot


TOY_RACE = RaceRuleset()
