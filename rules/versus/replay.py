"""Replays: a finished match as plain data, and a verifier that re-simulates it from the move lists alone.

A replay holds the format version, the ruleset's name and version (tables.py), the config as plain
data, the seed, the seat names, each seat's move list (`[frame, input byte]` whenever the byte
changes), the final frame, the result and the chained SHA-256 of the canonical event log (log.py).

    replay = record(match)                  # a finished VersusMatch
    data = replay.to_plain()                # plain data; protocol/replay_codec.py packs it (msgpack)
    verdict = verify(Replay.from_plain(data))
    assert verdict.ok, verdict.reason

`from_plain` checks every field's type and shape and raises ValueError naming the field; it accepts
any ruleset version, so an old or future replay can still be read and shown. `verify` decides
whether *this* build's rules reproduce it: before simulating it rejects an unknown format, ruleset
or version, a bad config, a replay longer than `max_frames`, move lists that are not one per seat,
unsorted, duplicated or redundant move frames, frames outside [0, final_frame) and unknown input
bytes; then it re-simulates exactly `final_frame` frames and compares the end frame, the result and
the log hash. Any error inside becomes a failed Verdict with its reason: a replay is never
half-verified.

Choice made here: a move list is canonical, as `VersusMatch` writes it (an entry only where the byte
changes, so the first entry is never the neutral byte); a redundant entry is rejected, so one match
has exactly one replay.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rules.synctest import canonical_encoding

from .inputs import NEUTRAL, is_valid_input
from .match import MAX_SEATS, MIN_SEATS, OUTCOMES, MatchResult, VersusConfig, VersusMatch
from .tables import RULESET_NAME, RULESET_VERSION

__all__ = [
    "FORMAT_VERSION",
    "MAX_REPLAY_FRAMES",
    "Move",
    "Replay",
    "Verdict",
    "config_from_plain",
    "config_plain",
    "record",
    "result_from_plain",
    "verify",
]

#: The layout of `Replay.to_plain()`; a change to the layout bumps it.
FORMAT_VERSION = 1
#: The tag `to_plain()` writes first, so a replay file says what it is.
FORMAT_TAG = "floe-replay"
#: The default bound of `verify`: 30 minutes of frames.
MAX_REPLAY_FRAMES = 30 * 60 * 60
#: Longest seat name, ruleset name and result reason a replay may carry.
MAX_NAME = 64
#: Upper bound of every integer in a config (numbers beyond it are never meaningful rules).
MAX_CONFIG_INT = 1_000_000_000
#: Numbers that bound the work of one landing or of the table itself (see `_CONFIG_BOUNDS`).
MAX_LANDING_UNITS = 64

_HASH = re.compile(r"[0-9a-f]{64}")

#: One change of a seat's input: (frame, input byte).
Move = tuple[int, int]


# ---- plain-data checks --------------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(name: str, value: object, low: int, high: int | None = None) -> int:
    if not _is_int(value):
        raise ValueError(f"{name}: expected an integer, got {_show(value)}")
    assert isinstance(value, int)
    if value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"≥ {low}"
        raise ValueError(f"{name}: must be an integer {span}, got {value}")
    return value


def _str(name: str, value: object, longest: int = MAX_NAME) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name}: expected a string, got {_show(value)}")
    if not value or len(value) > longest:
        raise ValueError(f"{name}: must be 1 to {longest} characters, got {len(value)}")
    return value


def _list(name: str, value: object) -> list[Any] | tuple[Any, ...]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"{name}: expected a list, got {_show(value)}")
    return value


def _map(name: str, value: object) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{name}: expected a map, got {_show(value)}")
    for key in value:
        if not isinstance(key, str):
            raise ValueError(f"{name}: keys must be strings, got {_show(key)}")
    return value


def _show(value: object) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def _exact_keys(name: str, data: Mapping[str, Any], expected: Sequence[str]) -> None:
    missing = [key for key in expected if key not in data]
    if missing:
        raise ValueError(f"{name}.{missing[0]}: missing")
    extra = [key for key in data if key not in expected]
    if extra:
        raise ValueError(f"{name}.{extra[0]}: unknown field")


# ---- config ---------------------------------------------------------------------------------------------

#: Bounds beyond "an integer from 0 to MAX_CONFIG_INT", by dotted path in the config's plain data.
_CONFIG_BOUNDS: dict[str, tuple[int, int]] = {
    "rules.time_limit_frames": (1, MAX_CONFIG_INT),
    "rules.attack.landing_cap": (1, MAX_LANDING_UNITS),
    "rules.attack.garbage_max": (0, MAX_LANDING_UNITS),
    "rules.attack.nuisance_max": (0, MAX_LANDING_UNITS),
    "rules.attack.gem_offset": (0, MAX_LANDING_UNITS),
    "rules.attack.gem_count": (1, 99),
    "rules.attack.gem_step_frames": (1, MAX_CONFIG_INT),
    "rules.attack.fuse_frames": (1, MAX_CONFIG_INT),
    "rules.attack.margin_num": (1, 1000),
    "rules.attack.margin_den": (1, 1000),
}


def _plain_value(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain_value(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_plain_value(v) for v in value]
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(
            f"config_plain: a config holds only ints, strings, tuples and dataclasses, got {_show(value)}"
        )
    return value


def config_plain(config: VersusConfig) -> dict[str, Any]:
    """The config as plain data: the difficulty and every VersusRules and AttackTable number."""
    plain = _plain_value(config)
    assert isinstance(plain, dict)
    return plain


def _rebuild(name: str, data: object, template: Any) -> Any:
    """Rebuild a value shaped like `template` (a default instance) from plain data, strictly."""
    if dataclasses.is_dataclass(template) and not isinstance(template, type):
        mapping = _map(name, data)
        fields = dataclasses.fields(template)
        _exact_keys(name, mapping, [f.name for f in fields])
        values = {
            f.name: _rebuild(f"{name}.{f.name}", mapping[f.name], getattr(template, f.name)) for f in fields
        }
        return type(template)(**values)
    if isinstance(template, tuple):
        items = _list(name, data)
        if template and isinstance(template[0], tuple):
            width = len(template[0])
            rows = []
            for index, row in enumerate(items):
                cells = _list(f"{name}[{index}]", row)
                if len(cells) != width:
                    raise ValueError(f"{name}[{index}]: expected {width} numbers, got {len(cells)}")
                rows.append(
                    tuple(_int(f"{name}[{index}][{k}]", c, 0, MAX_CONFIG_INT) for k, c in enumerate(cells))
                )
            return tuple(rows)
        if not items:
            raise ValueError(f"{name}: must not be empty")
        return tuple(_int(f"{name}[{index}]", v, 0, MAX_CONFIG_INT) for index, v in enumerate(items))
    if isinstance(template, str):
        return _str(name, data)
    if _is_int(template):
        low, high = _CONFIG_BOUNDS.get(name.removeprefix("config."), (0, MAX_CONFIG_INT))
        return _int(name, data, low, high)
    raise TypeError(f"{name}: cannot rebuild a {type(template).__name__}")  # pragma: no cover


def config_from_plain(data: object) -> VersusConfig:
    """Rebuild a VersusConfig from `config_plain()` data; raises ValueError naming the bad field.

    Every field must be present and no other; integers are bounded; the difficulty, lives and skill
    must make a board (the preset's own checks), and the landing kinds must be ordered
    (garbage_max ≤ nuisance_max).
    """
    config = _rebuild("config", data, VersusConfig())
    assert isinstance(config, VersusConfig)
    attack = config.rules.attack
    if attack.garbage_max > attack.nuisance_max:
        raise ValueError(
            f"config.rules.attack.garbage_max: {attack.garbage_max} exceeds nuisance_max "
            f"{attack.nuisance_max}"
        )
    try:
        config.board_config(0)
    except ValueError as error:
        raise ValueError(f"config: {error}") from None
    return config


# ---- the result -----------------------------------------------------------------------------------------

_RESULT_FIELDS = ("winner", "outcomes", "reason", "frame", "scores")


def result_from_plain(data: object, seats: int | None = None) -> MatchResult:
    """Rebuild a MatchResult from `MatchResult.plain()`, checking every field (ValueError names it)."""
    mapping = _map("result", data)
    _exact_keys("result", mapping, _RESULT_FIELDS)
    outcomes = _list("result.outcomes", mapping["outcomes"])
    count = len(outcomes) if seats is None else seats
    if len(outcomes) != count:
        raise ValueError(f"result.outcomes: expected {count} outcomes (one per seat), got {len(outcomes)}")
    for index, outcome in enumerate(outcomes):
        if outcome not in OUTCOMES:
            raise ValueError(f"result.outcomes[{index}]: expected one of {OUTCOMES}, got {_show(outcome)}")
    winner = mapping["winner"]
    if winner is not None:
        _int("result.winner", winner, 0, max(0, count - 1))
    reason = _str("result.reason", mapping["reason"])
    frame = _int("result.frame", mapping["frame"], 0)
    scores = _list("result.scores", mapping["scores"])
    if len(scores) != count:
        raise ValueError(f"result.scores: expected {count} scores (one per seat), got {len(scores)}")
    for index, score in enumerate(scores):
        _int(f"result.scores[{index}]", score, 0)
    return MatchResult(winner, tuple(outcomes), reason, frame, tuple(scores))


# ---- the replay -----------------------------------------------------------------------------------------

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

    `config` is plain data (`config_plain`), so a replay of another ruleset version still reads;
    treat it as read-only. `moves[seat]` lists `(frame, input byte)` wherever the seat's byte changed.
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

    def to_plain(self) -> dict[str, Any]:
        """Plain data (str keys, lists, ints, strings, None), in a fixed key order."""
        return {
            "format": FORMAT_TAG,
            "version": self.format_version,
            "ruleset": self.ruleset,
            "ruleset_version": self.ruleset_version,
            "config": _copy_plain(self.config),
            "seed": self.seed,
            "seats": list(self.seats),
            "moves": [[[frame, value] for frame, value in seat] for seat in self.moves],
            "final_frame": self.final_frame,
            "result": self.result.plain(),
            "log_hash": self.log_hash,
        }

    @classmethod
    def from_plain(cls, data: object) -> Replay:
        """Rebuild from `to_plain()` data, checking every field's type and shape.

        Raises ValueError naming the first bad field. Whether the rules reproduce the replay (and
        whether this build knows its ruleset) is `verify`'s question, not this one's.
        """
        mapping = _map("replay", data)
        if mapping.get("format") != FORMAT_TAG:
            raise ValueError(f"format: expected {FORMAT_TAG!r}, got {_show(mapping.get('format'))}")
        version = _int("version", mapping.get("version"), 1)
        if version != FORMAT_VERSION:
            raise ValueError(f"version: replay format {version} is not this build's ({FORMAT_VERSION})")
        _exact_keys("replay", mapping, _PLAIN_FIELDS)
        ruleset = _str("ruleset", mapping["ruleset"])
        ruleset_version = _int("ruleset_version", mapping["ruleset_version"], 1)
        config = _map("config", mapping["config"])
        try:
            canonical_encoding(config)
        except TypeError as error:
            raise ValueError(f"config: {error}") from None
        seed = _int("seed", mapping["seed"], 0, 0xFFFFFFFF)
        names = _list("seats", mapping["seats"])
        if not MIN_SEATS <= len(names) <= MAX_SEATS:
            raise ValueError(f"seats: a match has {MIN_SEATS} to {MAX_SEATS} seats, got {len(names)}")
        seats = tuple(_str(f"seats[{index}]", name) for index, name in enumerate(names))
        move_lists = _list("moves", mapping["moves"])
        moves = tuple(_moves_from_plain(f"moves[{index}]", seat) for index, seat in enumerate(move_lists))
        final_frame = _int("final_frame", mapping["final_frame"], 0)
        result = result_from_plain(mapping["result"], len(seats))
        log_hash = mapping["log_hash"]
        if not isinstance(log_hash, str) or not _HASH.fullmatch(log_hash):
            raise ValueError(f"log_hash: expected 64 lowercase hex digits, got {_show(log_hash)}")
        return cls(
            FORMAT_VERSION,
            ruleset,
            ruleset_version,
            _copy_plain(config),
            seed,
            seats,
            moves,
            final_frame,
            result,
            log_hash,
        )

    def __repr__(self) -> str:
        counts = ", ".join(str(len(m)) for m in self.moves)
        return (
            f"<Replay {self.ruleset} v{self.ruleset_version} seed={self.seed:#x} seats={self.seats!r} "
            f"moves=[{counts}] final_frame={self.final_frame} log_hash={self.log_hash[:12]}…>"
        )


def _moves_from_plain(name: str, data: object) -> tuple[Move, ...]:
    items = _list(name, data)
    moves: list[Move] = []
    for index, item in enumerate(items):
        pair = _list(f"{name}[{index}]", item)
        if len(pair) != 2:
            raise ValueError(f"{name}[{index}]: expected [frame, input byte], got {len(pair)} items")
        frame = _int(f"{name}[{index}] frame", pair[0], 0)
        value = _int(f"{name}[{index}] input byte", pair[1], 0, 255)
        moves.append((frame, value))
    return tuple(moves)


def _copy_plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy_plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_copy_plain(item) for item in value]
    return value


def record(match: VersusMatch) -> Replay:
    """The replay of a finished match; raises ValueError when the match has not ended."""
    if match.result is None:
        raise ValueError(f"record: the match has not ended (frame {match.frame})")
    return Replay(
        format_version=FORMAT_VERSION,
        ruleset=RULESET_NAME,
        ruleset_version=RULESET_VERSION,
        config=config_plain(match.config),
        seed=match.seed,
        seats=tuple(match.names),
        moves=tuple(tuple((frame, value) for frame, value in seat) for seat in match.moves),
        final_frame=match.frame,
        result=match.result,
        log_hash=match.log_hash,
    )


# ---- verification ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What verifying a replay found.

    `ok` is True only when the re-simulation ended on the replay's final frame with its result and
    log hash. `reason` says why not (or "ok"); `result`, `log_hash` and `frames` are what the
    re-simulation reached (None, None and 0 when the replay was rejected before simulating).
    """

    ok: bool
    reason: str
    result: MatchResult | None = None
    log_hash: str | None = None
    frames: int = 0


class _Rejected(Exception):
    """A replay refused before simulating; the message is the verdict's reason."""


def _check(replay: Replay, max_frames: int) -> VersusConfig:
    """Every check that needs no simulation; raises _Rejected with the reason. Returns the config."""
    if replay.format_version != FORMAT_VERSION:
        raise _Rejected(f"format version {replay.format_version!r} is not this build's ({FORMAT_VERSION})")
    if replay.ruleset != RULESET_NAME:
        raise _Rejected(f"unknown ruleset {replay.ruleset!r} (this build plays {RULESET_NAME!r})")
    if replay.ruleset_version != RULESET_VERSION:
        raise _Rejected(
            f"ruleset {replay.ruleset} version {replay.ruleset_version!r} is not this build's "
            f"({RULESET_VERSION})"
        )
    final = replay.final_frame
    if not _is_int(final) or final < 1:
        raise _Rejected(f"final_frame: must be a positive integer, got {final!r}")
    if final > max_frames:
        raise _Rejected(f"final_frame: the replay is {final} frames long, over the limit of {max_frames}")
    try:
        config = config_from_plain(replay.config)
    except ValueError as error:
        raise _Rejected(f"bad config: {error}") from None
    seats = len(replay.seats)
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise _Rejected(f"seats: a match has {MIN_SEATS} to {MAX_SEATS} seats, got {seats}")
    if len(replay.moves) != seats:
        raise _Rejected(f"moves: {len(replay.moves)} move lists for {seats} seats")
    for seat, moves in enumerate(replay.moves):
        previous_frame = -1
        previous_value = NEUTRAL
        for index, move in enumerate(moves):
            where = f"moves[{seat}][{index}]"
            if not isinstance(move, tuple | list) or len(move) != 2:
                raise _Rejected(f"{where}: expected (frame, input byte), got {move!r}")
            frame, value = move
            if not _is_int(frame) or not 0 <= frame < final:
                raise _Rejected(f"{where}: frame {frame!r} is outside [0, {final})")
            if frame == previous_frame:
                raise _Rejected(f"{where}: frame {frame} is duplicated")
            if frame < previous_frame:
                raise _Rejected(f"{where}: frame {frame} comes after frame {previous_frame} (unsorted)")
            if not is_valid_input(value):
                raise _Rejected(f"{where}: {value!r} is not a valid input byte")
            if value == previous_value:
                raise _Rejected(f"{where}: input {value:#04x} repeats the previous input (not a change)")
            previous_frame, previous_value = frame, value
    result = replay.result
    if not isinstance(result, MatchResult) or len(result.outcomes) != seats or len(result.scores) != seats:
        raise _Rejected(f"result: expected a MatchResult with one outcome and score per seat, got {result!r}")
    if not isinstance(replay.log_hash, str) or not _HASH.fullmatch(replay.log_hash):
        raise _Rejected(f"log_hash: expected 64 lowercase hex digits, got {replay.log_hash!r}")
    return config


def _schedule(moves: tuple[tuple[Move, ...], ...]) -> dict[int, list[tuple[int, int]]]:
    """Frame → the (seat, byte) changes applied at its start."""
    changes: dict[int, list[tuple[int, int]]] = {}
    for seat, seat_moves in enumerate(moves):
        for frame, value in seat_moves:
            changes.setdefault(frame, []).append((seat, value))
    return changes


def input_rows(replay: Replay) -> Iterator[list[int]]:
    """Each frame's input bytes, frame 0 to final_frame − 1, rebuilt from the move lists alone."""
    changes = _schedule(replay.moves)
    inputs = [NEUTRAL] * len(replay.seats)
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
    if not _is_int(max_frames) or max_frames < 1:
        raise ValueError(f"max_frames: must be a positive integer, got {max_frames!r}")
    try:
        config = _check(replay, max_frames)
    except _Rejected as error:
        return Verdict(False, f"rejected: {error}")
    except Exception as error:  # noqa: BLE001 - never half-verified: any failure is a verdict
        return Verdict(False, f"rejected: {type(error).__name__}: {error}")
    match: VersusMatch | None = None
    try:
        match = VersusMatch(config, replay.seed, replay.seats)
        step = match.step
        for inputs in input_rows(replay):
            if match.result is not None:
                reason = (
                    f"the match ended on frame {match.frame}, before the replay's final frame "
                    f"{replay.final_frame}"
                )
                return Verdict(False, reason, match.result, match.log_hash, match.frame)
            step(inputs)
    except Exception as error:  # noqa: BLE001 - never half-verified: any failure is a verdict
        frames = 0 if match is None else match.frame
        return Verdict(
            False,
            f"error while simulating frame {frames}: {type(error).__name__}: {error}",
            None,
            None,
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
        )
    if got != replay.result:
        return Verdict(
            False,
            f"result differs: the replay says {_result_text(replay.result)}, the "
            f"simulation gives {_result_text(got)}",
            got,
            match.log_hash,
            match.frame,
        )
    if match.log_hash != replay.log_hash:
        return Verdict(
            False,
            f"log hash differs: the replay says {replay.log_hash[:16]}…, the simulation "
            f"gives {match.log_hash[:16]}…",
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
