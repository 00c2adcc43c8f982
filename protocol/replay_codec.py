"""Replays on the wire and on disk: `Replay.to_plain()` packed with msgpack, and its bounded inverse.

    data = encode_replay(replay)            # bytes
    replay = decode_replay(data)            # raises ReplayDecodeError (a ValueError) for bad bytes

Decoding is bounded: input over `max_bytes` (default 4 MiB) is refused before it is parsed, so is
input nested deeper than `MAX_NESTING` (a scan of the msgpack headers, without recursion: a replay
is 5 deep, and a deeply nested body must not reach code that recurses), msgpack's own limits
(string, array and map lengths) follow from the input's length, and anything that is not a replay's
plain data (bin or ext values, non-string map keys, trailing bytes, missing or wrongly typed fields)
is refused with a message naming what is wrong. Whether the rules reproduce the replay
is `rules.replay.verify`'s question.
"""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]

from rules.replay import Replay

__all__ = ["MAX_NESTING", "MAX_REPLAY_BYTES", "ReplayDecodeError", "decode_replay", "encode_replay"]

#: The default bound of `decode_replay`: 4 MiB (a 30-minute 4-seat replay with an input change
#: every frame is about 1.5 MiB).
MAX_REPLAY_BYTES = 4 * 1024 * 1024
#: The deepest nesting of maps and arrays a replay file may have (a replay's own is 5).
MAX_NESTING = 16

#: Bytes after a msgpack type byte that hold a length (str, bin, ext) or a count (array, map), and
#: the fixed payload of the types without one (numbers, fixext).
_LENGTH_BYTES = {0xD9: 1, 0xDA: 2, 0xDB: 4, 0xC4: 1, 0xC5: 2, 0xC6: 4}
_EXT_LENGTH_BYTES = {0xC7: 1, 0xC8: 2, 0xC9: 4}
_COUNT_BYTES = {0xDC: (2, 1), 0xDD: (4, 1), 0xDE: (2, 2), 0xDF: (4, 2)}
_FIXED_BYTES = {0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8,
                0xD4: 2, 0xD5: 3, 0xD6: 5, 0xD7: 9, 0xD8: 17, 0xC0: 0, 0xC2: 0, 0xC3: 0}


class ReplayDecodeError(ValueError):
    """Bytes that are not a replay: oversized, malformed msgpack, or plain data of the wrong shape."""


def encode_replay(replay: Replay) -> bytes:
    """The replay as msgpack bytes (canonical: the same replay always gives the same bytes)."""
    packed = msgpack.packb(replay.to_plain(), use_bin_type=True)
    assert isinstance(packed, bytes)
    return packed


def check_nesting(data: bytes | bytearray | memoryview, max_depth: int = MAX_NESTING) -> None:
    """Refuse (ReplayDecodeError) msgpack nested deeper than `max_depth`, by its headers alone.

    The walk keeps a stack of the values each open map or array still holds, so it never recurses;
    it stops at the end of the bytes, so a huge declared count costs nothing.
    """
    view = memoryview(data)
    size = len(view)
    position = 0
    open_counts: list[int] = []
    while position < size:
        byte = view[position]
        position += 1
        count = 0
        if byte <= 0x7F or byte >= 0xE0:
            pass
        elif byte <= 0x8F:
            count = 2 * (byte & 0x0F)
        elif byte <= 0x9F:
            count = byte & 0x0F
        elif byte <= 0xBF:
            position += byte & 0x1F
        elif byte in _FIXED_BYTES:
            position += _FIXED_BYTES[byte]
        elif byte in _LENGTH_BYTES:
            width = _LENGTH_BYTES[byte]
            position += width + int.from_bytes(view[position:position + width], "big")
        elif byte in _EXT_LENGTH_BYTES:
            width = _EXT_LENGTH_BYTES[byte]
            position += width + 1 + int.from_bytes(view[position:position + width], "big")
        elif byte in _COUNT_BYTES:
            width, per_entry = _COUNT_BYTES[byte]
            count = per_entry * int.from_bytes(view[position:position + width], "big")
            position += width
        else:
            raise ReplayDecodeError(f"replay: malformed msgpack (byte {byte:#04x} at {position - 1})")
        if open_counts:
            open_counts[-1] -= 1
        if count:
            open_counts.append(count)
            if len(open_counts) > max_depth:
                raise ReplayDecodeError(f"replay: nested deeper than {max_depth} levels")
        while open_counts and open_counts[-1] == 0:
            open_counts.pop()


def decode_replay(data: bytes, max_bytes: int = MAX_REPLAY_BYTES) -> Replay:
    """Decode `encode_replay` bytes; raises ReplayDecodeError saying what is wrong."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ReplayDecodeError(f"replay: expected bytes, got {type(data).__name__}")
    size = len(data)
    if size > max_bytes:
        raise ReplayDecodeError(f"replay: {size} bytes is over the limit of {max_bytes} bytes")
    if size == 0:
        raise ReplayDecodeError("replay: empty input")
    check_nesting(data)
    try:
        plain: Any = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=True,
            timestamp=0,
        )
    except Exception as error:  # noqa: BLE001 - msgpack raises several unrelated types for bad bytes
        raise ReplayDecodeError(f"replay: malformed msgpack ({type(error).__name__}: {error})") from None
    try:
        return Replay.from_plain(plain)
    except ValueError as error:
        raise ReplayDecodeError(f"replay: {error}") from None
