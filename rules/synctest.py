"""SyncTest: prove that a simulation's snapshot/restore/step seam is exact (GGPO's and GGRS's idea).

Rollback netcode rewinds a match to a snapshot and re-simulates it with corrected inputs. That only
works when three things hold: the step is deterministic, `snapshot()` captures *everything* the step
reads, and `restore()` puts all of it back. SyncTest checks all three on one machine, without a
network, by doing what rollback does on every frame and comparing checksums::

    report = run_synctest(make, step, inputs, rollback=8)

- `make()` builds a fresh object with `snapshot() -> plain data` and `restore(snap)`;
- `step(obj, input)` advances it by one frame with that frame's input (its return value is ignored
  unless `check_outputs=True`, see below);
- `inputs[k]` is the input of frame k.

The harness runs the inputs twice on fresh objects:

1. straight through, recording `state_checksum(obj.snapshot())` after every frame;
2. with rollbacks: after stepping to frame p it snapshots, restores the snapshot of frame
   max(0, p − rollback), checks that the restored state has frame r's checksum, re-simulates frames
   r+1 … p with the same inputs, and checks every re-simulated frame's checksum against the straight
   run (snapshots taken while re-simulating replace the first ones, so later rollbacks also restore
   snapshots that were themselves taken after a restore, as a rollback session does).

The first frame whose checksum differs raises `DesyncError`, which names the frame, the phase in
which it was found (a fresh object diverging from the straight run, a restore that does not
reproduce its snapshot, a re-simulation that diverges, or a snapshot that changed after it was
taken), and, where the harness still holds a good snapshot of that frame, the first differing path
inside the two snapshots. On success `run_synctest` returns a `SyncTestReport`.

Frames are numbered by state: frame 0 is the state `make()` returns and frame f is the state after
`inputs[0] … inputs[f−1]`, so a run of n inputs has checksums for frames 0 … n. Anything `make()`
leaves pending (events of the constructor, say) belongs before frame 0: drain it in `make()` when
`check_outputs` compares what the steps return.

Cost: the straight run checksums every frame. Every other snapshot is first compared by its
`marshal` version-2 bytes, which are equal exactly when two values have the same structure, exact
types, values and dict order: with the held snapshot of the same frame (after a restore, or when
re-simulating), or by SHA-256 of those bytes with the straight run's frame (on the first pass). It is
checksummed only when they differ, so the error names the same frame and the same checksums either
way. A rollback of N frames costs N steps, N + 1 snapshots and N + 1 byte comparisons; the snapshots
themselves usually dominate.

Checksums (`state_checksum`) are SHA-256 of a canonical text (`canonical_encoding`) of plain data:
dicts (keys sorted by their encoding), lists and tuples (both as lists), int, float (by repr), str,
bool and None. Anything else raises TypeError naming where it sits, so a snapshot that holds an
object, a set or an enum member is caught rather than checksummed by identity.

The module is pure standard library and takes no clock or randomness: the versus match runner, the
server's keyframes and the replay verifier use the same checksum.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import chain, compress
from typing import Any, Literal, Protocol, TypeVar

__all__ = [
    "MAX_DEPTH",
    "MAX_ITEMS",
    "DesyncError",
    "DesyncPhase",
    "Rollbackable",
    "SyncTestReport",
    "canonical_encoding",
    "describe_difference",
    "run_synctest",
    "state_checksum",
]

#: Containers nested deeper than this are refused (a snapshot is never that deep; a cycle would be).
MAX_DEPTH = 200
#: More values than this in one snapshot are refused (a snapshot is never that big; a cycle would be).
MAX_ITEMS = 20_000_000


class Rollbackable(Protocol):
    """What SyncTest drives: an object whose whole simulation state round-trips through plain data."""

    def snapshot(self) -> Any:
        """Plain data (see `canonical_encoding`) holding everything the step reads."""

    def restore(self, snap: Any, /) -> None:
        """Put back a state taken by `snapshot()`."""


T = TypeVar("T", bound=Rollbackable)
I = TypeVar("I")  # noqa: E741 - the input type, as GGRS names it

# ---- canonical encoding and checksum ---------------------------------------------------------------

#: JSON's own ASCII string escaper (written in C), so the Python path matches the json module's bytes.
_encode_str: Callable[[str], str] = json.encoder.encode_basestring_ascii
_NONE_TYPE = type(None)
_SCALAR_TYPES = frozenset({str, int, float, bool, _NONE_TYPE})
#: Canonical JSON of data whose dict keys are all str: sorted keys, no spaces, ASCII, NaN allowed.
_JSON = json.JSONEncoder(ensure_ascii=True, allow_nan=True, check_circular=False, separators=(",", ":"),
                         sort_keys=True)


def _float_text(value: float) -> str:
    """A float as the json module writes it (repr; NaN and ±Infinity as JSON's extensions)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


_SCALAR_TEXT: dict[type, Callable[[Any], str]] = {
    str: _encode_str,
    int: int.__repr__,
    float: _float_text,
    bool: lambda value: "true" if value else "false",
    _NONE_TYPE: lambda value: "null",
}


class _NotPlain(Exception):
    """Raised inside the encoder; turned into a TypeError with the path by `canonical_encoding`."""


def _is_sequence_type(kind: type) -> bool:
    return issubclass(kind, list | tuple)


def _check_plain(value: Any) -> bool:
    """Check that value is plain data, level by level in C-speed passes; True when every dict key is a str.

    Raises _NotPlain for anything else (the caller finds the path for the message).
    """
    level: list[Any] = [value]
    str_keys = True
    depth = 0
    seen = 0
    while level:
        seen += len(level)
        if seen > MAX_ITEMS:
            raise _NotPlain(f"more than {MAX_ITEMS} values (a cycle?)")
        kinds = list(map(type, level))
        containers = set(kinds) - _SCALAR_TYPES
        if not containers:
            return str_keys
        if depth >= MAX_DEPTH:
            raise _NotPlain(f"containers nested deeper than {MAX_DEPTH} levels (a cycle?)")
        depth += 1
        sequence_types = frozenset(t for t in containers if _is_sequence_type(t))
        dict_types = frozenset(t for t in containers if issubclass(t, dict))
        if len(sequence_types) + len(dict_types) != len(containers):
            raise _NotPlain
        next_level: list[Any] = []
        if sequence_types:
            sequences = compress(level, map(sequence_types.__contains__, kinds))
            next_level.extend(chain.from_iterable(sequences))
        if dict_types:
            for mapping in compress(level, map(dict_types.__contains__, kinds)):
                key_types = set(map(type, mapping))
                if not key_types <= _SCALAR_TYPES:
                    raise _NotPlain
                if str_keys and key_types - {str}:
                    str_keys = False
                next_level.extend(mapping.values())
        level = next_level
    return str_keys


def _encode_slow(value: Any, parts: list[str]) -> None:
    """The canonical text built in Python: the same bytes as `_JSON` except for dicts with a key that is
    not a str, written `#{key:value,…}` with each key in its own canonical text, sorted by that text
    (`#` never occurs in JSON outside a string, so {1: x} and {"1": x} differ)."""
    text = _SCALAR_TEXT.get(type(value))
    if text is not None:
        parts.append(text(value))
        return
    if isinstance(value, dict):
        if all(type(key) is str for key in value):
            # Sorted by the key itself (code points), as json's sort_keys does, then escaped.
            items = [(_encode_str(key), item)
                     for key, item in sorted(value.items(), key=lambda pair: pair[0])]
            parts.append("{")
        else:
            items = sorted(((_SCALAR_TEXT[type(key)](key), item) for key, item in value.items()),
                           key=lambda pair: pair[0])
            parts.append("#{")
        for index, (key_text, item) in enumerate(items):
            if index:
                parts.append(",")
            parts.append(key_text)
            parts.append(":")
            _encode_slow(item, parts)
        parts.append("}")
        return
    parts.append("[")
    for index, item in enumerate(value):
        if index:
            parts.append(",")
        _encode_slow(item, parts)
    parts.append("]")


def _path_text(path: Iterable[Any]) -> str:
    return "".join(f"[{step!r}]" for step in path)


def _find_not_plain(value: Any, path: tuple[Any, ...]) -> tuple[tuple[Any, ...], str] | None:
    """The first place where value is not plain data, and why (for the TypeError's message)."""
    if type(value) in _SCALAR_TYPES:
        return None
    if len(path) >= MAX_DEPTH:
        return path, f"containers nested deeper than {MAX_DEPTH} levels (a cycle?)"
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _find_not_plain(item, (*path, index))
            if found is not None:
                return found
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if type(key) not in _SCALAR_TYPES:
                return path, f"dict key {key!r} of type {type(key).__name__} (keys must be str, int, " \
                             f"float, bool or None)"
            found = _find_not_plain(item, (*path, key))
            if found is not None:
                return found
        return None
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return path, f"{type(value).__name__} {shown} (plain data is dict, list, tuple, int, float, str, " \
                 f"bool and None)"


def canonical_encoding(value: Any) -> bytes:
    """The canonical text of plain data, as ASCII bytes: equal data gives equal bytes in any process.

    Plain data is dict, list, tuple, int, float, str, bool and None (subclasses of list, tuple and dict,
    such as named tuples, count as their base; subclasses of the scalars, such as enum members, do not).
    The text is canonical JSON when every dict key is a str: keys sorted, no spaces, ASCII with JSON
    escapes, lists and tuples both as arrays, floats by repr (so 1 and 1.0 differ; NaN and ±Infinity as
    the json module writes them), true/false/null. A dict with any key that is not a str (int, float,
    bool or None keys are allowed) is written `#{key:value,…}` with its keys in their own canonical
    text, sorted by it, so {1: x} and {"1": x} stay different.

    Raises TypeError, naming the path, for anything else (sets, bytes, objects, enum members, other
    dict keys) and for containers nested deeper than MAX_DEPTH levels.
    """
    try:
        if _check_plain(value):
            return _JSON.encode(value).encode("ascii")
    except _NotPlain as error:
        found = _find_not_plain(value, ())
        where, why = found if found is not None else ((), str(error) or "not plain data")
        raise TypeError(f"not plain data at snapshot{_path_text(where)}: {why}") from None
    parts: list[str] = []
    _encode_slow(value, parts)
    return "".join(parts).encode("ascii")


def state_checksum(snapshot: Any) -> str:
    """SHA-256 (hex) of `canonical_encoding(snapshot)`; raises TypeError for data that is not plain."""
    return hashlib.sha256(canonical_encoding(snapshot)).hexdigest()


def describe_difference(expected: Any, actual: Any, name: str = "snapshot") -> str | None:
    """The first path where two plain values differ, as `snapshot['board']['blocks'][3]: 4 != 5`, or None.

    Values are compared by their canonical encoding, so 1 and 1.0 (or 1 and True) differ and two NaNs
    are equal, exactly as the checksum sees them. `name` starts the path.
    """
    found = _first_difference(expected, actual, ())
    if found is None:
        return None
    path, why = found
    return f"{name}{_path_text(path)}: {why}"


def _short(value: Any) -> str:
    try:
        text = canonical_encoding(value).decode("ascii")
    except TypeError:
        text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _first_difference(a: Any, b: Any, path: tuple[Any, ...]) -> tuple[tuple[Any, ...], str] | None:
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        for index, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _first_difference(x, y, (*path, index))
            if found is not None:
                return found
        if len(a) != len(b):
            return path, f"length {len(a)} != {len(b)}"
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            if key not in b:
                return path, f"key {key!r} missing from the second"
            found = _first_difference(a[key], b[key], (*path, key))
            if found is not None:
                return found
        for key in b:
            if key not in a:
                return path, f"key {key!r} missing from the first"
        return None
    left, right = _short(a), _short(b)
    if left != right:
        return path, f"{left} != {right}"
    return None


# ---- the harness --------------------------------------------------------------------------------------

DesyncPhase = Literal["advance", "restore", "resimulate", "snapshot-mutated", "output"]

_PHASE_TEXT: dict[str, str] = {
    "advance": "a fresh object stepped with the same inputs diverged from the straight run",
    "restore": "restore() of that frame's snapshot did not reproduce it",
    "resimulate": "re-simulating after a restore diverged from the straight run",
    "snapshot-mutated": "the snapshot changed after it was taken (snapshot() or restore() shares "
                        "mutable data with the live object)",
    "output": "the step's output differs from the straight run's for the same frame",
}


class DesyncError(AssertionError):
    """A SyncTest found a frame whose checksum differs from the straight run's.

    `frame` is the first differing frame (the state after `frame` inputs); `present` is the frame the
    run had reached when it rolled back (equal to `frame` for phase 'advance' and 'output' found on
    the first pass); `restored` is the frame restored to (None on the first pass); `expected` and
    `actual` are the two checksums; `difference` names the first differing path when the harness
    still held a good snapshot of that frame.
    """

    def __init__(self, phase: DesyncPhase, frame: int, present: int, restored: int | None,
                 expected: str, actual: str, difference: str | None = None) -> None:
        self.phase: DesyncPhase = phase
        self.frame = frame
        self.present = present
        self.restored = restored
        self.expected = expected
        self.actual = actual
        self.difference = difference
        where = f"frame {frame}"
        if restored is not None:
            where += f" (rolled back from frame {present} to frame {restored})"
        message = f"desync at {where}: {_PHASE_TEXT[phase]}; checksum {actual[:16]}… != {expected[:16]}…"
        if difference is not None:
            message += f"; first difference at {difference}"
        super().__init__(message)


@dataclass(frozen=True)
class SyncTestReport:
    """What a passing SyncTest checked.

    `checksums[f]` is the straight run's checksum of frame f (0 … frames); `rollbacks` counts the
    restores and `resimulated` the frames stepped again after them.
    """

    frames: int
    rollback: int
    every: int
    checksums: tuple[str, ...]
    rollbacks: int
    resimulated: int

    @property
    def final_checksum(self) -> str:
        """The checksum of the last frame."""
        return self.checksums[-1]


@dataclass(frozen=True)
class _Held:
    """A snapshot the harness holds: its checksum, and its exact bytes when it was taken.

    `packed` is `marshal.dumps(snap, 2)` (None when marshal refuses a value, e.g. a named tuple):
    version 2 writes no object references and no interning, so two values give equal bytes exactly
    when they have the same structure, exact types, values and dict order. Equal bytes therefore prove
    equal canonical encodings, and the harness checksums a snapshot only when the bytes differ.
    """

    snap: Any
    checksum: str
    packed: bytes | None
    out_checksum: str | None
    out_packed: bytes | None


def _pack(value: Any) -> bytes | None:
    try:
        return marshal.dumps(value, 2)
    except ValueError:
        return None


def _check_int(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name}: must be an integer ≥ {low}, got {value!r}")
    return value


def run_synctest(
    make: Callable[[], T],
    step: Callable[[T, I], object],
    inputs: Iterable[I],
    rollback: int = 8,
    every: int = 1,
    *,
    check_outputs: bool = False,
) -> SyncTestReport:
    """Run `inputs` straight and with rollbacks; raise DesyncError at the first frame that differs.

    rollback: frames to roll back (0 restores the present frame's own snapshot and re-simulates nothing,
        which still checks that restore() reproduces a snapshot). every: roll back after every this
        many frames (frames that are multiples of it). check_outputs: also checksum what `step`
        returns (e.g. the frame's events as plain data) and require the same output for the same frame
        on every pass; the output must then be plain data.

    Raises ValueError for a bad rollback or every, TypeError when a snapshot (or a checked output) is
    not plain data.
    """
    _check_int("rollback", rollback, 0)
    _check_int("every", every, 1)
    frames = tuple(inputs)
    count = len(frames)

    # Pass 1: straight through. Each frame's snapshot is checksummed (which also proves it plain), and
    # the digest of its marshal bytes lets pass 2 recognise an identical snapshot without checksumming it.
    obj = make()
    straight: list[str] = []
    digests: list[bytes | None] = []
    outputs: list[str | None] = [None]

    def record() -> None:
        snap = obj.snapshot()
        straight.append(state_checksum(snap))
        packed = _pack(snap)
        digests.append(None if packed is None else hashlib.sha256(packed).digest())

    record()
    for frame_input in frames:
        out = step(obj, frame_input)
        record()
        outputs.append(state_checksum(out) if check_outputs else None)

    # Pass 2: a fresh object, rolling back as it goes. held[f] is the last snapshot taken of frame f.
    obj = make()
    held: dict[int, _Held] = {}
    rollbacks = 0
    resimulated = 0

    def fail_state(phase: DesyncPhase, frame: int, present: int, restored: int | None, snap: Any,
                   checksum: str) -> DesyncError:
        good = held.get(frame)
        if good is not None and _pack(good.snap) == good.packed:
            difference = describe_difference(good.snap, snap)
        else:
            difference = _straight_difference(make, step, frames, frame, straight[frame], snap, "snapshot")
        return DesyncError(phase, frame, present, restored, straight[frame], checksum, difference)

    def take(frame: int, present: int, restored: int | None, out: object) -> None:
        """Snapshot the present state of `frame`, check it (and the step's output), and hold it."""
        snap = obj.snapshot()
        packed = _pack(snap)
        before = held.get(frame)
        if before is not None and packed is not None and packed == before.packed:
            checksum = before.checksum
        elif packed is not None and digests[frame] == hashlib.sha256(packed).digest():
            checksum = straight[frame]
        else:
            checksum = state_checksum(snap)
            if checksum != straight[frame]:
                raise fail_state("advance" if restored is None else "resimulate", frame, present, restored,
                                 snap, checksum)
        out_checksum: str | None = None
        out_packed: bytes | None = None
        if check_outputs and frame > 0:
            out_packed = _pack(out)
            if before is not None and out_packed is not None and out_packed == before.out_packed:
                out_checksum = before.out_checksum
            else:
                out_checksum = state_checksum(out)
                expected = outputs[frame]
                assert expected is not None
                if out_checksum != expected:
                    difference = _straight_difference(make, step, frames, frame, expected, out, "output")
                    raise DesyncError("output", frame, present, restored, expected, out_checksum, difference)
        held[frame] = _Held(snap, checksum, packed, out_checksum, out_packed)

    def check_unchanged(frame: int, present: int) -> None:
        """A held snapshot must not change after it was taken (aliasing with the live object)."""
        good = held[frame]
        packed = _pack(good.snap)
        if packed is not None and packed == good.packed:
            return
        now = state_checksum(good.snap)
        if now != good.checksum:
            raise DesyncError("snapshot-mutated", frame, present, None, good.checksum, now)

    take(0, 0, None, None)
    for present in range(1, count + 1):
        out = step(obj, frames[present - 1])
        take(present, present, None, out)
        expired = present - rollback - 1
        if expired in held:
            check_unchanged(expired, present)
            del held[expired]
        if present % every:
            continue
        target = max(0, present - rollback)
        good = held[target]
        obj.restore(good.snap)
        rollbacks += 1
        restored = obj.snapshot()
        packed = _pack(restored)
        if packed is None or packed != good.packed:
            restored_checksum = state_checksum(restored)
            if restored_checksum != straight[target]:
                check_unchanged(target, present)
                raise DesyncError("restore", target, present, target, straight[target], restored_checksum,
                                  describe_difference(good.snap, restored))
        for frame in range(target + 1, present + 1):
            out = step(obj, frames[frame - 1])
            resimulated += 1
            take(frame, present, target, out)
    for frame in sorted(held):
        check_unchanged(frame, count)
    return SyncTestReport(count, rollback, every, tuple(straight), rollbacks, resimulated)


def _straight_difference(make: Callable[[], T], step: Callable[[T, I], object], frames: tuple[I, ...],
                         frame: int, expected: str, actual: Any,
                         name: Literal["snapshot", "output"]) -> str | None:
    """Re-run the straight pass to `frame` to describe a difference the harness holds no snapshot for.

    Only called on failure. When the re-run does not reproduce the straight run's checksum either, the
    step depends on something outside the object, and the message says so instead.
    """
    obj = make()
    out: object = None
    for frame_input in frames[:frame]:
        out = step(obj, frame_input)
    reference = obj.snapshot() if name == "snapshot" else out
    if state_checksum(reference) != expected:
        return (f"{name}: the straight run does not reproduce itself either (the step reads state outside "
                f"the object: a global, a clock, randomness)")
    return describe_difference(reference, actual, name)
