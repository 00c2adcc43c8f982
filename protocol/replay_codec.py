"""Replays on the wire and on disk: `Replay.to_plain()` packed with msgpack, and its bounded inverse.

    data = encode_replay(replay)            # bytes
    replay = decode_replay(data)            # raises ReplayDecodeError (a ValueError) for bad bytes

Decoding is bounded: input over `max_bytes` (default 4 MiB) is refused before it is parsed, msgpack's
own limits (string, array and map lengths) follow from the input's length, and anything that is not
a replay's plain data (bin or ext values, non-string map keys, trailing bytes, missing or wrongly
typed fields) is refused with a message naming what is wrong. Whether the rules reproduce the replay
is `rules.replay.verify`'s question.
"""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]

from rules.replay import Replay

__all__ = ["MAX_REPLAY_BYTES", "ReplayDecodeError", "decode_replay", "encode_replay"]

#: The default bound of `decode_replay`: 4 MiB (a 30-minute 4-seat replay with an input change
#: every frame is about 1.5 MiB).
MAX_REPLAY_BYTES = 4 * 1024 * 1024


class ReplayDecodeError(ValueError):
    """Bytes that are not a replay: oversized, malformed msgpack, or plain data of the wrong shape."""


def encode_replay(replay: Replay) -> bytes:
    """The replay as msgpack bytes (canonical: the same replay always gives the same bytes)."""
    packed = msgpack.packb(replay.to_plain(), use_bin_type=True)
    assert isinstance(packed, bytes)
    return packed


def decode_replay(data: bytes, max_bytes: int = MAX_REPLAY_BYTES) -> Replay:
    """Decode `encode_replay` bytes; raises ReplayDecodeError saying what is wrong."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ReplayDecodeError(f"replay: expected bytes, got {type(data).__name__}")
    size = len(data)
    if size > max_bytes:
        raise ReplayDecodeError(f"replay: {size} bytes is over the limit of {max_bytes} bytes")
    if size == 0:
        raise ReplayDecodeError("replay: empty input")
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
