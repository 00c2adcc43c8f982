"""The codec: every message round-trips, and every malformed frame becomes a typed ProtocolError."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import (
    ProtocolError,
    decode_client,
    decode_server,
    encode,
    encode_frame,
    encode_keyframe,
    encode_plain,
    encode_resync,
    pack_frame_body,
    to_plain,
)
from protocol.errors import ErrorCode
from protocol.examples import EXAMPLES
from protocol.limits import MAX_CLIENT_MESSAGE_BYTES
from protocol.messages import CLIENT_MESSAGES, SERVER_MESSAGES, Frame, Input, Keyframe, Resync


def pack(value: Any) -> bytes:
    packed = msgpack.packb(value, use_bin_type=True)
    assert isinstance(packed, bytes)
    return packed


@pytest.mark.parametrize("kind", sorted(CLIENT_MESSAGES))
def test_client_messages_round_trip(kind: str) -> None:
    """Every client message decodes from its encoding to an equal message."""
    message = EXAMPLES[kind]
    assert decode_client(encode(message)) == message


@pytest.mark.parametrize("kind", sorted(SERVER_MESSAGES))
def test_server_messages_round_trip(kind: str) -> None:
    """Every server message decodes (validated and trusted) from its encoding to an equal message."""
    message = EXAMPLES[kind]
    assert decode_server(encode(message)) == message
    assert decode_server(encode(message), validate=False) == message


def test_wire_map_is_kind_plus_fields() -> None:
    """On the wire a message is a map: `kind` first, then its fields by name."""
    wire = {"kind": "input", "frame": 5, "inputs": [3, 3]}
    assert msgpack.unpackb(encode(Input(frame=5, inputs=[3, 3]))) == wire
    assert list(to_plain(Input(frame=5, inputs=[3]))) == ["kind", "frame", "inputs"]


BAD_FRAMES: list[tuple[bytes, ErrorCode]] = [
    (b"", ErrorCode.MALFORMED),
    (b"\xc1", ErrorCode.MALFORMED),  # a byte msgpack never uses
    (b"\x92\x01", ErrorCode.MALFORMED),  # a truncated array
    (pack([1, 2]), ErrorCode.MALFORMED),  # not a map
    (pack({"frame": 1}), ErrorCode.MALFORMED),  # no kind
    (pack({"kind": 7}), ErrorCode.MALFORMED),  # kind not a string
    (pack({"kind": "teleport"}), ErrorCode.UNKNOWN_KIND),
    (pack({"kind": "input", "frame": 1}), ErrorCode.MALFORMED),  # missing field
    (pack({"kind": "input", "frame": 1, "inputs": [2], "seat": 1}), ErrorCode.MALFORMED),  # unknown field
    (pack({"kind": "input", "frame": 1, "input": 2}), ErrorCode.MALFORMED),  # version 1's field
    (pack({"kind": "input", "frame": "1", "inputs": [2]}), ErrorCode.MALFORMED),  # a string for an int
    (pack({"kind": "input", "frame": 1.0, "inputs": [2]}), ErrorCode.MALFORMED),  # a float for an int
    (pack({"kind": "input", "frame": True, "inputs": [2]}), ErrorCode.MALFORMED),  # a bool for an int
    (pack({"kind": "input", "frame": -1, "inputs": [2]}), ErrorCode.MALFORMED),  # a negative frame
    (pack({"kind": "input", "frame": 2**40, "inputs": [2]}), ErrorCode.MALFORMED),  # past the frame bound
    (pack({"kind": "input", "frame": 1, "inputs": [256]}), ErrorCode.MALFORMED),  # not a byte
    (pack({"kind": "input", "frame": 1, "inputs": [True]}), ErrorCode.MALFORMED),  # a bool for a byte
    (pack({"kind": "input", "frame": 1, "inputs": []}), ErrorCode.MALFORMED),  # an empty run
    (pack({"kind": "input", "frame": 1, "inputs": [1] * 17}), ErrorCode.MALFORMED),  # a run too long
    (pack({"kind": "input", "frame": 1, "inputs": 2}), ErrorCode.MALFORMED),  # a byte for a run
    (pack({"kind": "input", "frame": 1, "inputs": b"\x01"}), ErrorCode.MALFORMED),  # bin values are refused
    (pack({"kind": "join", "match": "x" * 65}), ErrorCode.MALFORMED),  # an id too long
    (pack({"kind": "hello", "version": 1, "token": ["a"] * 100}), ErrorCode.MALFORMED),  # an array for a str
    (pack({"kind": "ping", "id": 1, "t": 1}) + b"\x00", ErrorCode.MALFORMED),  # trailing bytes
    (pack({1: "input"}), ErrorCode.MALFORMED),  # a non-string key
    (b"\x91" * 3000, ErrorCode.TOO_LARGE),
]


@pytest.mark.parametrize(
    "data, code", BAD_FRAMES, ids=[f"{i}-{c.value}" for i, (_, c) in enumerate(BAD_FRAMES)]
)
def test_bad_frames_are_typed_errors(data: bytes, code: ErrorCode) -> None:
    """A malformed, unknown or oversized client frame raises ProtocolError with its code."""
    with pytest.raises(ProtocolError) as caught:
        decode_client(data)
    assert caught.value.code is code
    error = caught.value.to_message()
    assert error.code == code.value and error.message


def test_size_is_checked_before_parsing() -> None:
    """A frame over the bound is refused as too large even when it would not parse at all."""
    with pytest.raises(ProtocolError) as caught:
        decode_client(b"\xc1" * (MAX_CLIENT_MESSAGE_BYTES + 1))
    assert caught.value.code is ErrorCode.TOO_LARGE


def test_deeply_nested_frame_is_malformed() -> None:
    """A nesting bomb inside a field is a typed error, not a recursion failure."""
    head = b"\x83" + b"".join(pack(v) for v in ("kind", "hello", "version", 1, "client"))
    for depth in (100, 1500):
        with pytest.raises(ProtocolError) as caught:
            decode_client(head + b"\x91" * depth + b"\x00", max_bytes=10_000)
        assert caught.value.code is ErrorCode.MALFORMED


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_escape(data: bytes) -> None:
    """Random bytes decode to a message or raise ProtocolError, never anything else."""
    with contextlib.suppress(ProtocolError):
        decode_client(data)


plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(CLIENT_MESSAGES) + ["nope"]),
    st.dictionaries(st.text(max_size=8), plain, max_size=4),
)
def test_random_maps_never_escape(kind: str, fields: dict[str, Any]) -> None:
    """Maps with a real or fake kind and random fields decode or raise ProtocolError, never anything else."""
    with contextlib.suppress(ProtocolError):
        decode_client(pack({"kind": kind, **fields}))


@pytest.mark.parametrize("count", [0, 1, 15, 16, 300, 70_000])
def test_spliced_resync_equals_the_encoded_message(count: int) -> None:
    """A resync spliced from packed frame bodies is byte for byte the encoded Resync message."""
    message = EXAMPLES["resync"]
    assert isinstance(message, Resync)
    frames = [dict(message.frames[0], frame=message.frame + k) for k in range(count)]
    bodies = [pack_frame_body(f["frame"], f["events"], f["actors"], f["inputs"]) for f in frames]
    view = encode_plain(message.view)
    spliced = encode_resync(message.n, message.frame, view, message.checksum, bodies, message.confirmed)
    assert spliced == encode(replace(message, frames=frames))


def test_a_resync_with_state_splices_to_the_encoded_message_and_decodes() -> None:
    """A resync's optional `state` (for a player that rebuilds its replica) spliced in is byte for byte
    the encoded Resync carrying it, and it decodes back intact."""
    message = EXAMPLES["resync"]
    assert isinstance(message, Resync)
    state = {"frame": message.frame, "snapshot": "AAEC" * 30_000, "held": [0, 5]}
    bodies = [pack_frame_body(f["frame"], f["events"], f["actors"], f["inputs"]) for f in message.frames]
    spliced = encode_resync(message.n, message.frame, encode_plain(message.view), message.checksum, bodies,
                            message.confirmed, encode_plain(state))
    with_state = replace(message, state=state)
    assert spliced == encode(with_state)
    assert decode_server(spliced) == with_state
    assert decode_server(encode(message)) == message and b"state" not in encode(message)


def test_spliced_keyframe_equals_the_encoded_message() -> None:
    """A keyframe spliced from its packed view is byte for byte the encoded Keyframe message."""
    message = EXAMPLES["keyframe"]
    assert isinstance(message, Keyframe)
    spliced = encode_keyframe(message.n, message.frame, encode_plain(message.view), message.checksum)
    assert spliced == encode(message)


def test_spliced_frame_equals_the_encoded_message() -> None:
    """A frame record spliced from its shared body is byte for byte the encoded Frame message."""
    message = EXAMPLES["frame"]
    assert isinstance(message, Frame)
    body = pack_frame_body(message.frame, message.events, message.actors, message.inputs)
    assert encode_frame(message.n, message.confirmed, message.frame, body) == encode(message)
