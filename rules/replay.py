"""Replays of every ruleset: a finished match as plain data, and a verifier that re-simulates it.

A replay holds the format version, the ruleset's name and version, its config as plain data, the
seed, the seat names, each seat's move list (`[frame, input byte]` whenever the byte changes), the
final frame, the result and the chained SHA-256 of the canonical event log. Layout 2 adds `player`:
the id of the player whose run it is (a daily run: the server checks it against the submitter);
a match's replay is layout 1, which every build still reads and verifies.

    replay = record(match, PENGO_VERSUS)    # a finished match of that ruleset
    data = replay.to_plain()                # plain data; protocol/replay_codec.py packs it (msgpack)
    verdict = verify(Replay.from_plain(data))
    assert verdict.ok, verdict.reason

`from_plain` checks every field's type and shape and raises ValueError naming the field; it accepts
any ruleset and version, so an old or future replay can still be read and shown. `verify` decides
whether this build reproduces it: it finds the ruleset in the registry (rules/registry.py) by name
and version — so a replay of an older version verifies under that version's rules for as long as
they are registered — and before simulating it rejects an unknown format, ruleset or version, a bad
config, a seat count the ruleset does not play, a replay longer than `max_frames`, move lists that
are not one per seat, unsorted, duplicated or redundant move frames, frames outside
[0, final_frame) and input bytes the ruleset does not know; then it re-simulates exactly
`final_frame` frames and compares the end frame, the result and the log hash. Any error inside
becomes a failed Verdict with its reason and the first frame it concerns: a replay is never
half-verified.

A move list is canonical, as matches write it: an entry only where the byte changes, so the first
entry is never the neutral byte; a redundant entry is rejected, so one match has exactly one replay.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .plain import check_int, check_list, check_map, check_str, copy_plain, exact_keys, is_int, show
from .registry import UnknownRulesetError, lookup
from .result import MatchResult, result_from_plain
from .ruleset import Match, Ruleset
from .synctest import canonical_encoding

__all__ = [
    "FORMAT_VERSION",
    "FORMAT_VERSIONS",
    "MATCH_FORMAT_VERSION",
    "MAX_REPLAY_FRAMES",
    "MAX_SEATS",
    "Move",
    "Replay",
    "Verdict",
    "input_rows",
    "record",
    "verify",
]

#: The newest layout of `Replay.to_plain()`; a change to the layout bumps it. 2: layout 1 and `player`.
FORMAT_VERSION = 2
#: The layout a match's replay is written in (no player: its seats are named).
MATCH_FORMAT_VERSION = 1
#: The layouts this build reads and verifies.
FORMAT_VERSIONS = (1, 2)
#: The longest player id a replay may name.
MAX_PLAYER_CHARS = 64
#: The tag `to_plain()` writes first, so a replay file says what it is.
FORMAT_TAG = "floe-replay"
#: The default bound of `verify`: 30 minutes of frames.
MAX_REPLAY_FRAMES = 30 * 60 * 60
#: The most seats a replay file may name (any ruleset's own bound is checked by `verify`).
MAX_SEATS = 16

_HASH = re.compile(r"[0-9a-f]{64}")

#: One change of a seat's input: (frame, input byte).
Move = tuple[int, int]

_PLAIN_FIELDS = (
    "format",
    "version",
    "ruleset",
    "ruleset_version",
    "config",
    "seed",
    "seats",
    "moves",
    "final_frame",
    "result",
    "log_hash",
)


@dataclass(frozen=True)
class Replay:
    """A finished match: enough to re-simulate it and to check the simulation against what it claims.

    `config` is plain data (the ruleset's `config_plain`), so a replay of another ruleset or version
    still reads; treat it as read-only. `moves[seat]` lists `(frame, input byte)` wherever the seat's
    byte changed.
    """

    format_version: int
    ruleset: str
    ruleset_version: int
    config: dict[str, Any] = field(hash=False)
    seed: int
    seats: tuple[str, ...]
    moves: tuple[tuple[Move, ...], ...]
    final_frame: int
    result: MatchResult
    log_hash: str
    #: Layout 2: whose run this is (a player id), or None; layout 1 has no such field.
    player: str | None = None

    def to_plain(self) -> dict[str, Any]:
        """Plain data (str keys, lists, ints, strings, None), in a fixed key order (`player` last, in
        layout 2 only)."""
        plain = {
            "format": FORMAT_TAG,
            "version": self.format_version,
            "ruleset": self.ruleset,
            "ruleset_version": self.ruleset_version,
            "config": copy_plain(self.config),
            "seed": self.seed,
            "seats": list(self.seats),
            "moves": [[[frame, value] for frame, value in seat] for seat in self.moves],
            "final_frame": self.final_frame,
            "result": self.result.plain(),
            "log_hash": self.log_hash,
        }
        if self.format_version >= 2:
            plain["player"] = self.player
        return plain

    @classmethod
    def from_plain(cls, data: object) -> Replay:
        """Rebuild from `to_plain()` data, checking every field's type and shape.

        Raises ValueError naming the first bad field. Whether the rules reproduce the replay (and
        whether this build knows its ruleset) is `verify`'s question, not this one's.
        """
        mapping = check_map("replay", data)
        if mapping.get("format") != FORMAT_TAG:
            raise ValueError(f"format: expected {FORMAT_TAG!r}, got {show(mapping.get('format'))}")
        version = check_int("version", mapping.get("version"), 1)
        if version not in FORMAT_VERSIONS:
            raise ValueError(f"version: replay format {version} is not one this build reads")
        exact_keys("replay", mapping, _PLAIN_FIELDS + (("player",) if version >= 2 else ()))
        player = mapping.get("player")
        if player is not None:
            player = check_str("player", player, MAX_PLAYER_CHARS)
        ruleset = check_str("ruleset", mapping["ruleset"])
        ruleset_version = check_int("ruleset_version", mapping["ruleset_version"], 1)
        config = check_map("config", mapping["config"])
        try:
            canonical_encoding(config)
        except TypeError as error:
            raise ValueError(f"config: {error}") from None
        seed = check_int("seed", mapping["seed"], 0, 0xFFFFFFFF)
        names = check_list("seats", mapping["seats"])
        if not 1 <= len(names) <= MAX_SEATS:
            raise ValueError(f"seats: a replay has 1 to {MAX_SEATS} seats, got {len(names)}")
        seats = tuple(check_str(f"seats[{index}]", name) for index, name in enumerate(names))
        move_lists = check_list("moves", mapping["moves"])
        moves = tuple(_moves_from_plain(f"moves[{index}]", seat) for index, seat in enumerate(move_lists))
        final_frame = check_int("final_frame", mapping["final_frame"], 0)
        result = result_from_plain(mapping["result"], len(seats))
        log_hash = mapping["log_hash"]
        if not isinstance(log_hash, str) or not _HASH.fullmatch(log_hash):
            raise ValueError(f"log_hash: expected 64 lowercase hex digits, got {show(log_hash)}")
        return cls(
            version,
            ruleset,
            ruleset_version,
            copy_plain(config),
            seed,
            seats,
            moves,
            final_frame,
            result,
            log_hash,
            player,
        )

    def __repr__(self) -> str:
        counts = ", ".join(str(len(m)) for m in self.moves)
        return (
            f"<Replay {self.ruleset} v{self.ruleset_version} seed={self.seed:#x} seats={self.seats!r} "
            f"moves=[{counts}] final_frame={self.final_frame} log_hash={self.log_hash[:12]}…>"
        )


def _moves_from_plain(name: str, data: object) -> tuple[Move, ...]:
    items = check_list(name, data)
    moves: list[Move] = []
    for index, item in enumerate(items):
        pair = check_list(f"{name}[{index}]", item)
        if len(pair) != 2:
            raise ValueError(f"{name}[{index}]: expected [frame, input byte], got {len(pair)} items")
        frame = check_int(f"{name}[{index}] frame", pair[0], 0)
        value = check_int(f"{name}[{index}] input byte", pair[1], 0, 255)
        moves.append((frame, value))
    return tuple(moves)


def record(match: Match[Any], ruleset: Ruleset[Any, Any], player: str | None = None) -> Replay:
    """The replay of a finished match of `ruleset` (layout 1; layout 2 naming `player` when one is
    given: a run bound to that player); ValueError when the match has not ended."""
    result = match.result
    if result is None:
        raise ValueError(f"record: the match has not ended (frame {match.frame})")
    return Replay(
        format_version=MATCH_FORMAT_VERSION if player is None else FORMAT_VERSION,
        ruleset=ruleset.name,
        ruleset_version=ruleset.version,
        config=ruleset.config_plain(match.config),
        seed=match.seed,
        seats=tuple(match.names),
        moves=tuple(tuple((frame, value) for frame, value in seat) for seat in match.moves),
        final_frame=match.frame,
        result=result,
        log_hash=match.log_hash,
        player=player,
    )


# ---- verification ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What verifying a replay found.

    `ok` is True only when the re-simulation ended on the replay's final frame with its result and
    log hash. `reason` says why not (or "ok"); `result`, `log_hash` and `frames` are what the
    re-simulation reached (None, None and 0 when the replay was rejected before simulating), and
    `frame` the first frame the failure concerns (None when it is not about one frame).
    """

    ok: bool
    reason: str
    result: MatchResult | None = None
    log_hash: str | None = None
    frames: int = 0
    frame: int | None = None


class _Rejected(Exception):
    """A replay refused before simulating; the message is the verdict's reason."""


def _check(replay: Replay, max_frames: int) -> tuple[Ruleset[Any, Any], Any]:
    """Every check that needs no simulation; raises _Rejected with the reason. The ruleset and config."""
    if replay.format_version not in FORMAT_VERSIONS:
        raise _Rejected(f"format version {replay.format_version!r} is not one this build reads")
    if replay.format_version < 2 and replay.player is not None:
        raise _Rejected("player: layout 1 names no player (layout 2 does)")
    try:
        ruleset = lookup(replay.ruleset, replay.ruleset_version)
    except UnknownRulesetError as error:
        raise _Rejected(str(error)) from None
    final = replay.final_frame
    if not is_int(final) or final < 1:
        raise _Rejected(f"final_frame: must be a positive integer, got {final!r}")
    if final > max_frames:
        raise _Rejected(f"final_frame: the replay is {final} frames long, over the limit of {max_frames}")
    try:
        config = ruleset.config_from_plain(replay.config)
    except ValueError as error:
        raise _Rejected(f"bad config: {error}") from None
    seats = len(replay.seats)
    if not ruleset.min_seats <= seats <= ruleset.max_seats:
        raise _Rejected(f"seats: a match has {ruleset.min_seats} to {ruleset.max_seats} seats, got {seats}")
    if len(replay.moves) != seats:
        raise _Rejected(f"moves: {len(replay.moves)} move lists for {seats} seats")
    inputs = ruleset.inputs
    for seat, moves in enumerate(replay.moves):
        previous_frame = -1
        previous_value = inputs.neutral
        for index, move in enumerate(moves):
            where = f"moves[{seat}][{index}]"
            if not isinstance(move, tuple | list) or len(move) != 2:
                raise _Rejected(f"{where}: expected (frame, input byte), got {move!r}")
            frame, value = move
            if not is_int(frame) or not 0 <= frame < final:
                raise _Rejected(f"{where}: frame {frame!r} is outside [0, {final})")
            if frame == previous_frame:
                raise _Rejected(f"{where}: frame {frame} is duplicated")
            if frame < previous_frame:
                raise _Rejected(f"{where}: frame {frame} comes after frame {previous_frame} (unsorted)")
            if not inputs.is_valid(value):
                raise _Rejected(f"{where}: {value!r} is not a valid input byte")
            if value == previous_value:
                raise _Rejected(f"{where}: input {value:#04x} repeats the previous input (not a change)")
            previous_frame, previous_value = frame, value
    result = replay.result
    if not isinstance(result, MatchResult) or len(result.outcomes) != seats or len(result.scores) != seats:
        raise _Rejected(f"result: expected a MatchResult with one outcome and score per seat, got {result!r}")
    if result.reason not in ruleset.end_reasons:
        known = ", ".join(ruleset.end_reasons)
        raise _Rejected(f"result.reason: {result.reason!r} is not a {ruleset.name} end reason ({known})")
    if not isinstance(replay.log_hash, str) or not _HASH.fullmatch(replay.log_hash):
        raise _Rejected(f"log_hash: expected 64 lowercase hex digits, got {replay.log_hash!r}")
    return ruleset, config


def input_rows(replay: Replay, neutral: int | None = None) -> Iterator[list[int]]:
    """Each frame's input bytes, frame 0 to final_frame − 1, rebuilt from the move lists alone.

    `neutral` is the byte a seat holds before its first move (its ruleset's; looked up if not given).
    """
    if neutral is None:
        neutral = lookup(replay.ruleset, replay.ruleset_version).inputs.neutral
    changes: dict[int, list[tuple[int, int]]] = {}
    for seat, seat_moves in enumerate(replay.moves):
        for frame, value in seat_moves:
            changes.setdefault(frame, []).append((seat, value))
    inputs = [neutral] * len(replay.seats)
    for frame in range(replay.final_frame):
        for seat, value in changes.get(frame, ()):
            inputs[seat] = value
        yield list(inputs)


def verify(replay: Replay, max_frames: int = MAX_REPLAY_FRAMES) -> Verdict:
    """Re-simulate `replay` from its move lists and compare its end frame, result and log hash.

    Bounded: a replay longer than `max_frames` (or otherwise malformed) is rejected before any frame
    is simulated, and the simulation never runs past the replay's final frame. Never raises for a bad
    replay: every error becomes `Verdict(ok=False, reason=...)`.
    """
    if not is_int(max_frames) or max_frames < 1:
        raise ValueError(f"max_frames: must be a positive integer, got {max_frames!r}")
    try:
        ruleset, config = _check(replay, max_frames)
    except _Rejected as error:
        return Verdict(False, f"rejected: {error}")
    except Exception as error:  # noqa: BLE001 - never half-verified: any failure is a verdict
        return Verdict(False, f"rejected: {type(error).__name__}: {error}")
    match: Match[Any] | None = None
    try:
        match = ruleset.new_match(config, replay.seed, replay.seats)
        step = match.step
        for inputs in input_rows(replay, ruleset.inputs.neutral):
            if match.result is not None:
                reason = (
                    f"the match ended on frame {match.frame}, before the replay's final frame "
                    f"{replay.final_frame}"
                )
                return Verdict(False, reason, match.result, match.log_hash, match.frame, match.frame)
            step(inputs)
    except Exception as error:  # noqa: BLE001 - never half-verified: any failure is a verdict
        frames = 0 if match is None else match.frame
        return Verdict(
            False,
            f"error while simulating frame {frames}: {type(error).__name__}: {error}",
            None,
            None,
            frames,
            frames,
        )
    got = match.result
    if got is None:
        return Verdict(
            False,
            f"the match had not ended by the replay's final frame {replay.final_frame}",
            None,
            match.log_hash,
            match.frame,
            match.frame,
        )
    if got != replay.result:
        return Verdict(
            False,
            f"result differs: the replay says {_result_text(replay.result)}, the "
            f"simulation gives {_result_text(got)}",
            got,
            match.log_hash,
            match.frame,
            got.frame,
        )
    if match.log_hash != replay.log_hash:
        return Verdict(
            False,
            f"log hash differs: the replay says {replay.log_hash}, the simulation gives {match.log_hash}",
            got,
            match.log_hash,
            match.frame,
        )
    return Verdict(True, "ok", got, match.log_hash, match.frame)


def _result_text(result: MatchResult) -> str:
    return (
        f"winner={result.winner} outcomes={list(result.outcomes)} reason={result.reason} "
        f"frame={result.frame} scores={list(result.scores)}"
    )
