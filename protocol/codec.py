"""The one msgpack codec: messages to bytes, and bytes to messages or a typed `ProtocolError`.

    data = encode(Input(frame=12, inputs=[0x03, 0x03]))
    message = decode_client(data)           # raises ProtocolError(code, message) for anything else
    messages = decode_server_messages(data) # a server's websocket message: one or more messages

Decoding checks, in order: the size (before parsing), msgpack itself (no bin or ext values, string
map keys, no trailing bytes), a map with a string `kind`, a known kind, and the fields (exact types,
ranges, lengths, no unknown or missing ones). Every failure is a `ProtocolError` carrying an
`ErrorCode`; nothing else escapes.

The server's `frame` record, 60 a second, is the one message that is not a map: an array whose first
element is 0 (protocol/messages.py `Frame`), and a resync's frames are arrays too.

A client sends one message per websocket message. The server may send several back to back in one
websocket message (msgpack values simply follow each other; `decode_server_messages` splits them,
as @msgpack/msgpack's `decodeMulti` does in a browser): the streams go out a few frames at a time.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

import msgpack  # type: ignore[import-untyped]
from pydantic import TypeAdapter, ValidationError

from .errors import ErrorCode
from .limits import MAX_CLIENT_MESSAGE_BYTES, MAX_FRAME, MAX_INPUT_RUN, MAX_SERVER_MESSAGE_BYTES
from .messages import (
    CLIENT_MESSAGES,
    FRAME_CODE,
    SERVER_MESSAGES,
    ClientMessage,
    Error,
    Frame,
    Input,
    Message,
    Resync,
    ServerMessage,
)

__all__ = [
    "ProtocolError",
    "decode_client",
    "decode_server",
    "decode_server_messages",
    "encode",
    "encode_frame",
    "encode_keyframe",
    "encode_resync",
    "encode_plain",
    "error_message",
    "pack_frame_body",
]

M = TypeVar("M")


class ProtocolError(ValueError):
    """Bytes that are not a valid message: `code` says which rule they broke, `kind` what they claimed."""

    def __init__(self, code: ErrorCode, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.kind = kind

    def to_message(self) -> Error:
        """The error message the peer is sent."""
        return Error(code=self.code.value, message=self.message, ref=self.kind)


def error_message(code: ErrorCode, message: str, ref: str | None = None, fatal: bool = False) -> Error:
    """An `error` message with a code from the closed vocabulary."""
    return Error(code=code.value, message=message, ref=ref, fatal=fatal)


_FIELDS: dict[type, tuple[str, ...]] = {}
_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def to_plain(message: Message) -> dict[str, Any]:
    """The wire map of a message: `kind` first, then its fields."""
    plain: dict[str, Any] = {"kind": message.KIND}
    for name in _field_names(type(message)):
        plain[name] = getattr(message, name)
    return plain


#: One reusable packer (it resets after every call, a failed one included): `msgpack.packb` builds a
#: new Packer per call, which costs more than packing a frame record.
_PACKER = msgpack.Packer(use_bin_type=True)


def encode_plain(plain: Any) -> bytes:
    """msgpack bytes of plain data (a wire map, or a part of one)."""
    packed = _PACKER.pack(plain)
    assert isinstance(packed, bytes)
    return packed


def encode(message: Message) -> bytes:
    """The message as msgpack bytes (a `frame` as its array, a resync's frames as arrays)."""
    if isinstance(message, Frame):
        body = pack_frame_body(message.frame, message.events, message.actors, message.inputs)
        return encode_frame(message.n, message.confirmed, message.frame, body)
    plain = to_plain(message)
    if isinstance(message, Resync):
        plain["frames"] = [frame_array(body) for body in message.frames]
        if message.state is None:
            del plain["state"]  # optional: absent unless the player asked (the same bytes as encode_resync)
    return encode_plain(plain)


def frame_array(body: dict[str, Any]) -> list[Any]:
    """A frame body (`{"frame", "inputs", "events", "actors"}`) as the wire's array."""
    return [body["frame"], body["inputs"], body["events"], body["actors"]]


def frame_body(values: list[Any]) -> dict[str, Any]:
    """The wire's `[frame, inputs, events, actors]` array as a frame body map."""
    if not isinstance(values, list) or len(values) != 4:
        raise ProtocolError(ErrorCode.MALFORMED, "a frame body is the array [frame, inputs, events, actors]")
    frame, inputs, events, actors = values
    return {"frame": frame, "inputs": inputs, "events": events, "actors": actors}


_FRAME_HEAD = b"\x97" + encode_plain(FRAME_CODE)


def pack_frame_body(frame: int, events: list[Any], actors: list[Any], inputs: list[int]) -> bytes:
    """The part of a `frame` record that both streams share, packed once (see encode_frame):
    `frame, inputs, events, actors`, back to back."""
    # A 4-element array packed in one call, minus its one-byte header (0x94): its values back to back.
    return encode_plain((frame, inputs, events, actors))[1:]


def encode_frame(n: int, confirmed: int, frame: int, body: bytes) -> bytes:
    """`encode(Frame(n, …, confirmed))` from a `pack_frame_body`: the same bytes, the body packed once.

    A frame record is the array `[0, n, frame + 1 − confirmed, frame, inputs, events, actors]`; the
    values both streams share (the bulk) are packed once and only `n` and the lag per stream.
    """
    return b"".join((_FRAME_HEAD, encode_plain(n), encode_plain(frame + 1 - confirmed), body))


_RESYNC_HEAD = b"\x87" + encode_plain("kind") + encode_plain("resync") + encode_plain("n")
_RESYNC_STATE_HEAD = b"\x88" + _RESYNC_HEAD[1:]
_KEYFRAME_HEAD = b"\x85" + encode_plain("kind") + encode_plain("keyframe") + encode_plain("n")


def encode_keyframe(n: int, frame: int, packed_view: bytes, checksum: str) -> bytes:
    """`encode(Keyframe(…))` with its view given packed (`encode_plain(view)`): the same bytes."""
    return b"".join((_KEYFRAME_HEAD, *_keyframe_entries(n, frame, packed_view, checksum)))


def encode_resync(
    n: int, frame: int, packed_view: bytes, checksum: str, bodies: list[bytes], confirmed: int,
    packed_state: bytes | None = None,
) -> bytes:
    """`encode(Resync(…))` with its view packed and its frames as `pack_frame_body` bytes: the same bytes.

    A match keeps its last keyframe's view and the frames since packed (bytes, which the garbage
    collector never scans) rather than as plain data, and a resync splices them: each frame is the
    array `[frame, inputs, events, actors]`. `packed_state`: the optional `state` field's value, packed.
    """
    return b"".join(
        (
            _RESYNC_HEAD if packed_state is None else _RESYNC_STATE_HEAD,
            *_keyframe_entries(n, frame, packed_view, checksum),
            encode_plain("frames"),
            _frame_array_head(len(bodies)),
            *(b"\x94" + body for body in bodies),
            encode_plain("confirmed"),
            encode_plain(confirmed),
            *(() if packed_state is None else (encode_plain("state"), packed_state)),
        )
    )


def _keyframe_entries(n: int, frame: int, packed_view: bytes, checksum: str) -> tuple[bytes, ...]:
    """The map entries a keyframe and a resync share, in field order: n, frame, view, checksum."""
    return (
        encode_plain(n),
        encode_plain("frame"),
        encode_plain(frame),
        encode_plain("view"),
        packed_view,
        encode_plain("checksum"),
        encode_plain(checksum),
    )


def _frame_array_head(count: int) -> bytes:
    """The msgpack header of an array of `count` values."""
    if count < 16:
        return bytes((0x90 | count,))
    if count < 2**16:
        return b"\xdc" + count.to_bytes(2, "big")
    return b"\xdd" + count.to_bytes(4, "big")


def _adapter(cls: type[M]) -> TypeAdapter[M]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


_UNPACK_OPTIONS: dict[str, Any] = {
    "raw": False,
    "use_list": True,
    "strict_map_key": True,
    "max_bin_len": 0,
    "max_ext_len": 0,
    "timestamp": 0,
}


def _check_size(data: bytes | bytearray | memoryview, max_bytes: int) -> None:
    size = len(data)
    if size > max_bytes:
        raise ProtocolError(ErrorCode.TOO_LARGE, f"message of {size} bytes is over the limit of {max_bytes}")
    if size == 0:
        raise ProtocolError(ErrorCode.MALFORMED, "empty message")


def _kind_of(plain: Any) -> tuple[str, dict[str, Any]]:
    if isinstance(plain, list) and plain and plain[0] == FRAME_CODE and type(plain[0]) is int:
        if len(plain) != 7:
            raise ProtocolError(ErrorCode.MALFORMED, "a frame record is an array of 7 values", "frame")
        _, n, lag, frame, inputs, events, actors = plain
        confirmed = frame + 1 - lag if type(frame) is int and type(lag) is int else None
        return "frame", {"n": n, "frame": frame, "events": events, "actors": actors, "inputs": inputs,
                         "confirmed": confirmed}
    if not isinstance(plain, dict):
        raise ProtocolError(ErrorCode.MALFORMED, f"expected a map, got {type(plain).__name__}")
    kind = plain.pop("kind", None)
    if not isinstance(kind, str):
        raise ProtocolError(ErrorCode.MALFORMED, "the map has no string `kind`")
    return kind, plain


def _unpack(data: bytes | bytearray | memoryview, max_bytes: int) -> tuple[str, dict[str, Any]]:
    _check_size(data, max_bytes)
    try:
        plain = msgpack.unpackb(data, **_UNPACK_OPTIONS)
    except Exception as error:  # noqa: BLE001 - msgpack raises several unrelated types for bad bytes
        raise ProtocolError(ErrorCode.MALFORMED, f"not msgpack: {type(error).__name__}: {error}") from None
    return _kind_of(plain)


def _validate(cls: type[M], kind: str, plain: dict[str, Any]) -> M:
    try:
        return _adapter(cls).validate_python(plain)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or kind
        raise ProtocolError(ErrorCode.MALFORMED, f"{kind}.{where}: {first['msg']}", kind) from None
    except Exception as error:  # noqa: BLE001 - validation must turn every failure into a typed error
        raise ProtocolError(ErrorCode.MALFORMED, f"{kind}: {type(error).__name__}", kind) from None


def _fast_input(plain: dict[str, Any]) -> Input | None:
    """The hot path (30–60 inputs a second per player): a well-formed input without the general validator.

    Anything that is not exactly an in-range frame and a short list of bytes returns None and goes
    through the full validation, which then names what is wrong.
    """
    if len(plain) != 2:
        return None
    frame, inputs = plain.get("frame"), plain.get("inputs")
    if (
        type(frame) is int
        and 0 <= frame <= MAX_FRAME
        and type(inputs) is list
        and 0 < len(inputs) <= MAX_INPUT_RUN
        and all(type(value) is int and 0 <= value <= 255 for value in inputs)
    ):
        return Input(frame=frame, inputs=inputs)
    return None


def decode_client(
    data: bytes | bytearray | memoryview, max_bytes: int = MAX_CLIENT_MESSAGE_BYTES
) -> ClientMessage:
    """A client's message from its bytes; raises ProtocolError (never anything else)."""
    kind, plain = _unpack(data, max_bytes)
    if kind == "input":
        fast = _fast_input(plain)
        if fast is not None:
            return fast
    cls = CLIENT_MESSAGES.get(kind)
    if cls is None:
        shown = kind if len(kind) <= 32 else kind[:29] + "..."
        raise ProtocolError(ErrorCode.UNKNOWN_KIND, f"unknown message kind {shown!r}")
    return _validate(cls, kind, plain)


def decode_server(
    data: bytes | bytearray | memoryview, max_bytes: int = MAX_SERVER_MESSAGE_BYTES, validate: bool = True
) -> ServerMessage:
    """A server's message from its bytes; raises ProtocolError. `validate=False` trusts the fields."""
    kind, plain = _unpack(data, max_bytes)
    return _server_message(kind, plain, validate)


def decode_server_messages(
    data: bytes | bytearray | memoryview, max_bytes: int = MAX_SERVER_MESSAGE_BYTES, validate: bool = True
) -> list[ServerMessage | ProtocolError]:
    """Every message of one server websocket message, in order; a bad one becomes its ProtocolError.

    Raises ProtocolError only when the bytes as a whole are unusable (too large, empty, not msgpack
    from the first byte); a value that fails after good ones ends the list with its error.
    """
    _check_size(data, max_bytes)
    unpacker = msgpack.Unpacker(max_buffer_size=max(len(data), 1), **_UNPACK_OPTIONS)
    unpacker.feed(data)
    out: list[ServerMessage | ProtocolError] = []
    while True:
        start = unpacker.tell()
        try:
            plain = unpacker.unpack()
        except msgpack.OutOfData:
            failure = None if start == len(data) else "the message ends inside a msgpack value"
        except Exception as error:  # noqa: BLE001 - msgpack raises several unrelated types for bad bytes
            failure = f"not msgpack: {type(error).__name__}: {error}"
        else:
            try:
                out.append(_server_message(*_kind_of(plain), validate))
            except ProtocolError as error:
                out.append(error)
            continue
        if failure is not None:
            if not out:
                raise ProtocolError(ErrorCode.MALFORMED, failure)
            out.append(ProtocolError(ErrorCode.MALFORMED, failure))
        return out


def _server_message(kind: str, plain: dict[str, Any], validate: bool) -> ServerMessage:
    if kind == "resync" and isinstance(plain.get("frames"), list):
        plain["frames"] = [frame_body(values) for values in plain["frames"]]
    cls = SERVER_MESSAGES.get(kind)
    if cls is None:
        raise ProtocolError(ErrorCode.UNKNOWN_KIND, f"unknown message kind {kind[:32]!r}")
    if not validate:
        try:
            return cls(**plain)
        except TypeError as error:
            raise ProtocolError(ErrorCode.MALFORMED, f"{kind}: {error}", kind) from None
    return _validate(cls, kind, plain)
