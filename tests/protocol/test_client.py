"""The client's sans-I/O session: the stream state, the clock estimate and input stamping."""

from __future__ import annotations

import msgpack  # type: ignore[import-untyped]

from protocol.client import ClientSession
from protocol.codec import decode_client, encode
from protocol.examples import EXAMPLES
from protocol.messages import Error, Frame, Input, InputLate, Keyframe, Over, Pong, Resync, Rewind, Welcome

WELCOME = EXAMPLES["welcome"]
assert isinstance(WELCOME, Welcome)


def frame(n: int, number: int, confirmed: int = 0) -> bytes:
    return encode(
        Frame(
            n=n,
            frame=number,
            events=[{"kind": "x", "n": number}],
            actors=[],
            inputs=[0, 0],
            confirmed=confirmed,
        )
    )


def test_stream_follows_rewinds_and_counts_gaps() -> None:
    """Frames are kept as they stand after a rewind; a skipped stream number counts as a gap."""
    session = ClientSession("t")
    session.receive(encode(WELCOME), 0.0)
    for n in range(1, 6):
        session.receive(frame(n, n - 1), 0.0)
    session.receive(encode(Rewind(n=6, frame=3)), 0.0)
    assert sorted(session.frames) == [0, 1, 2]
    session.receive(frame(7, 3, confirmed=3), 0.0)
    session.receive(frame(9, 4), 0.0)
    assert sorted(session.frames) == [0, 1, 2, 3, 4]
    assert session.last_n == 9 and session.gaps == 1 and session.rewinds == 1 and session.confirmed == 3


def test_resync_replaces_frames_from_its_keyframe() -> None:
    """A resync installs its keyframe and frames and sets the stream number; the over message ends it."""
    session = ClientSession()
    for n in range(1, 4):
        session.receive(frame(n, n - 1), 0.0)
    resync = Resync(
        n=40,
        frame=1,
        view={"frame": 1},
        checksum="c" * 64,
        frames=[{"frame": f, "events": [], "actors": [], "inputs": [0, 0]} for f in (1, 2, 3)],
        confirmed=3,
    )
    session.receive(encode(resync), 0.0)
    assert session.last_n == 40 and sorted(session.frames) == [0, 1, 2, 3]
    assert session.frames[1]["events"] == [] and session.keyframes[1].checksum == "c" * 64
    session.receive(encode(Keyframe(n=41, frame=4, view={}, checksum="d" * 64)), 0.0)
    session.receive(encode(Over(n=42, result=None, replay=None)), 0.0)
    assert session.over is not None and session.gaps == 0


def test_clock_estimate_from_pong_and_stamps() -> None:
    """A pong gives the server's frame plus half the round trip; inputs are stamped the delay ahead."""
    session = ClientSession("t")
    assert session.input(3, now=0.0) is None  # no clock yet
    session.receive(encode(WELCOME), 0.0)
    ping = msgpack.unpackb(session.ping(now=10.0))
    session.receive(encode(Pong(id=ping["id"], t=ping["t"], frame=600)), now=10.1)
    estimate = session.server_frame(10.1)
    assert estimate is not None and abs(estimate - 603.0) < 1e-6  # 600 + 0.05 s × 60
    data = session.input(0x03, now=10.1)
    assert data is not None and decode_client(data) == Input(frame=605, input=0x03)
    again = session.input(0x04, now=10.1)
    assert again is not None and decode_client(again) == Input(frame=606, input=0x04)  # never reused


def test_best_round_trip_wins() -> None:
    """Of several pongs the one with the smallest round trip sets the offset."""
    session = ClientSession()
    session.receive(encode(WELCOME), 0.0)
    slow = msgpack.unpackb(session.ping(now=0.0))
    fast = msgpack.unpackb(session.ping(now=1.0))
    session.receive(encode(Pong(id=slow["id"], t=0, frame=0)), now=0.5)  # 0.5 s round trip
    session.receive(encode(Pong(id=fast["id"], t=0, frame=60)), now=1.01)
    estimate = session.server_frame(2.0)
    assert estimate is not None and abs(estimate - (60 + 0.3 + 59.4)) < 1e-6


def test_errors_and_late_inputs_are_collected() -> None:
    """Errors, input-late notices and undecodable frames are kept for the caller to read."""
    session = ClientSession()
    session.receive(encode(Error(code="read-only", message="no")), 0.0)
    session.receive(encode(InputLate(frame=3, applied=9)), 0.0)
    session.receive(b"\xc1", 0.0)
    assert [e.code for e in session.errors] == ["read-only", "malformed"]
    assert session.late == [InputLate(frame=3, applied=9)]
