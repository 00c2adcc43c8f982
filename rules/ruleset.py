"""The seam between the netcode and a game: what every ruleset gives the runner, the streams and replays.

GGRS's save/load/advance, for floe: the match runner (server/netcode), the live match and its
streams (server/match), replay recording and verification (rules/replay.py) and the bot client are
written against these Protocols, never against one game. A ruleset is found in the registry
(rules/registry.py) by its name and version, so an older version stays verifiable when a newer one
ships.

- `Match` is one running match: `step(inputs)` advances one frame (one input byte per seat) and
  returns the frame's records; `snapshot()`/`restore()` round-trip exactly and `checksum(snapshot)`
  pins a state; `actors()` (what each seat shows, every frame), `keyframe_view()` (the whole visible
  state), `records_wire()` (the frame's records as the stream sends them) and `seat_view(seat)` (the
  read-only view a bot plays from) are what viewers and bots see.
- `Ruleset` makes matches from a config (and reads and writes the config as plain data), names its
  input byte convention (`InputRules`) and its bots.
- `Bot` plays one seat from that seat's view.

Everything that crosses the seam is plain data (msgpack-able): inputs, snapshots, records as plain
maps, views, results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from .result import MatchResult

#: A state as plain data: a ruleset's snapshot.
Snapshot = dict[str, Any]

V = TypeVar("V")
V_co = TypeVar("V_co", covariant=True)
V_contra = TypeVar("V_contra", contravariant=True)
C = TypeVar("C")


class Bot(Protocol[V_contra]):
    """Plays one seat: called once before every frame with what that seat shows (its ruleset's view)."""

    def decide(self, view: V_contra, frame: int) -> int:
        """The input byte for this frame."""
        ...


def seat_seed(seed: int, seat: int) -> int:
    """A seat's bot seed, from the match seed and the seat (every seat plays differently): the one
    formula the server, `floe match`, the benches and the golden regeneration all use."""
    return (seed * 0x9E3779B1 + (seat + 1) * 0x7F4A7C15) & 0xFFFFFFFF


class InputRules(Protocol):
    """A ruleset's input byte: which bytes are valid, the neutral and forfeit bytes, and what a byte
    leaves held on the frames after it (how the runner predicts a seat that has not spoken)."""

    @property
    def neutral(self) -> int:
        """The byte of a seat that holds nothing (also what a move list starts from)."""
        ...

    @property
    def forfeit(self) -> int:
        """The byte that takes a seat out of the match for good."""
        ...

    def is_valid(self, value: object) -> bool:
        """Is `value` a well-formed input byte?"""
        ...

    def held(self, value: int) -> int:
        """What `value` leaves held on the frames after the one it was told for."""
        ...


class Match(Protocol[V_co]):
    """One running match of some ruleset (see the module docstring)."""

    @property
    def frame(self) -> int:
        """The next frame to simulate (frames 0 … frame − 1 are done)."""
        ...

    @property
    def result(self) -> MatchResult | None:
        """How the match ended, once it has."""
        ...

    @property
    def seed(self) -> int:
        """The seed it was dealt from."""
        ...

    @property
    def config(self) -> Any:
        """The config it is played with (its ruleset's config type)."""
        ...

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' names, in seat order."""
        ...

    @property
    def seats(self) -> int:
        """How many seats."""
        ...

    @property
    def log_hash(self) -> str:
        """The chained SHA-256 of the canonical event log so far (a replay pins it)."""
        ...

    @property
    def moves(self) -> list[list[list[int]]]:
        """Each seat's move list: [frame, input byte] wherever the seat's byte changed."""
        ...

    def check_inputs(self, inputs: Sequence[int]) -> None:
        """Raise rules.errors.IllegalInputError unless `inputs` is one valid byte per seat."""
        ...

    def step(self, inputs: Sequence[int]) -> Sequence[Any]:
        """Advance one frame; the frame's records (its event log)."""
        ...

    def records_plain(self, records: Sequence[Any]) -> list[dict[str, Any]]:
        """A frame's records as plain maps (what the stream sends and the log hashes)."""
        ...

    def snapshot(self) -> Snapshot:
        """The whole state as plain data, for `restore`."""
        ...

    def restore(self, snapshot: Snapshot) -> None:
        """Go back to a snapshot of this match."""
        ...

    def checksum(self, snapshot: Snapshot) -> str:
        """A digest of a snapshot of this match (equal states, equal checksums)."""
        ...

    def records_wire(self, records: Sequence[Any]) -> list[Any]:
        """A frame's records as the stream sends them (compact; the ruleset's `stream_tables` read them)."""
        ...

    def actors(self) -> list[Any]:
        """What each seat shows after the frame just stepped: per seat `[summary, records, notes]`.

        `summary` is a list of plain values compared by index frame to frame, `records` one list of
        integers `[key, px, py, …]` per thing that moves (keys unique in the seat), `notes` plain values
        this step alone shows. The stream sends what changed (`changes`).
        """
        ...

    def changes(self) -> list[Any]:
        """What each seat shows after the frame just stepped, as the change from what it showed after
        the frame before (protocol/delta.py's form: `protocol.delta.apply` on the `actors()` of then
        gives the `actors()` of now); the base is the last call's, or the state at construction or at
        the last `restore`. The stream's per-frame actors."""
        ...

    def keyframe_view(self) -> dict[str, Any]:
        """The whole visible state as plain data: what a viewer starts drawing from."""
        ...

    def seat_view(self, seat: int) -> V_co:
        """What seat `seat`'s player sees (read-only): a bot's input."""
        ...


class Ruleset(Protocol[C, V]):
    """A game floe can serve: how to make, configure and play its matches."""

    @property
    def name(self) -> str:
        """The name pinned in replays and announced to clients (e.g. "pengo-versus")."""
        ...

    @property
    def version(self) -> int:
        """The version pinned in replays: a change that alters outcomes ships as a new version."""
        ...

    @property
    def min_seats(self) -> int:
        """The fewest seats a match has."""
        ...

    @property
    def max_seats(self) -> int:
        """The most seats a match has."""
        ...

    @property
    def inputs(self) -> InputRules:
        """The input byte convention."""
        ...

    @property
    def frame_hz(self) -> int:
        """The game's frames a second: what its frame counts mean in seconds (a time limit, a rated
        minimum of play) and the pace a server plays its matches at unless told otherwise."""
        ...

    @property
    def rule_tables(self) -> tuple[tuple[str, Any], ...]:
        """What its rules page shows, in order: (title, table), a table being a dataclass instance (its
        fields with their `#:` comments), a module of tables (its UPPER number and tuple constants with
        theirs) or rows already written (a tuple of (name, value, comment) strings). The server renders
        them (server/compendium.py): reading the comments is I/O, which rules/ does not do."""
        ...

    @property
    def bot_names(self) -> tuple[str, ...]:
        """The bots `make_bot` knows."""
        ...

    @property
    def stream_tables(self) -> dict[str, Any]:
        """Everything a client needs to read this ruleset's stream (its words, event and record layouts)."""
        ...

    @property
    def end_reasons(self) -> tuple[str, ...]:
        """Every reason a match of this ruleset can end for (a result's `reason`)."""
        ...

    def default_config(self) -> C:
        """The config matches are played with unless told otherwise."""
        ...

    def config_plain(self, config: C) -> dict[str, Any]:
        """A config as plain data (a replay carries it)."""
        ...

    def config_from_plain(self, data: object) -> C:
        """Rebuild a config from plain data, strictly; ValueError names the first bad field."""
        ...

    def with_time_limit(self, config: C, frames: int) -> C:
        """The same config with matches ending at frame `frames` at the latest."""
        ...

    def new_match(self, config: C, seed: int, seats: Sequence[str]) -> Match[V]:
        """A fresh match (frame 0) with these seats; ValueError for a bad seed or seat count."""
        ...

    def make_bot(self, name: str, seed: int) -> Bot[V]:
        """A bot by name with its own seeded choices; ValueError for an unknown name."""
        ...


@runtime_checkable
class DailyBoards(Protocol):
    """A ruleset that deals its own daily (optional; a server checks with isinstance): the day's boards
    from the day's seed, the server's (server/http/daily.py: the HMAC day seed, secret until the day).
    Each board is one config played from that seed by one seat (its name, e.g. a difficulty, names
    the board); none for a ruleset of more seats."""

    def daily_boards(self, seed: int) -> Mapping[str, Any]:
        """The day's boards: name → config (the ruleset's config type), in the order to show them."""
        ...
