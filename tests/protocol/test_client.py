"""The client's sans-I/O session: the stream state, the clock estimate and input stamping."""

from __future__ import annotations

from dataclasses import replace

import msgpack  # type: ignore[import-untyped]

from protocol.client import ClientSession
from protocol.codec import decode_client, encode
from protocol.examples import EXAMPLES
from protocol.limits import MAX_INPUT_RUN
from protocol.messages import Error, Frame, Input, InputLate, Keyframe, Over, Pong, Resync, Rewind, Welcome
from rules.versus.inputs import KICK_BIT


def example_welcome() -> Welcome:
    """The page's `welcome` example (EXAMPLES holds every kind under the union `Message`)."""
    welcome = EXAMPLES["welcome"]
    assert isinstance(welcome, Welcome)
    return welcome


WELCOME = example_welcome()


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
    assert session.input(3, now=0.0) == []  # no clock yet
    session.receive(encode(WELCOME), 0.0)
    ping = msgpack.unpackb(session.ping(now=10.0))
    session.receive(encode(Pong(id=ping["id"], t=ping["t"], frame=600)), now=10.1)
    estimate = session.server_frame(10.1)
    assert estimate is not None and abs(estimate - 603.0) < 1e-6  # 600 + 0.05 s × 60
    sent = session.input(0x03, now=10.1)  # the first byte is a change: it goes at once
    assert [decode_client(data) for data in sent] == [Input(frame=605, inputs=[0x03])]
    assert session.input(0x03, now=10.1) == []  # held: gathered
    again = session.input(0x03, now=10.1)
    assert [decode_client(data) for data in again] == [Input(frame=606, inputs=[0x03, 0x03])]  # never reused


def started_session(batch: int = 2) -> ClientSession:
    """A session whose clock says the server is on frame 100 at time 0 (input delay 2)."""
    session = ClientSession("t")
    session.receive(encode(replace(WELCOME, input_batch=batch)), 0.0)
    session.receive(frame(1, 99), 0.0)
    return session


def decoded(sent: list[bytes]) -> list[tuple[int, list[int]]]:
    out = []
    for data in sent:
        message = decode_client(data)
        assert isinstance(message, Input)
        out.append((message.frame, message.inputs))
    return out


def test_inputs_go_in_runs_and_a_change_goes_at_once() -> None:
    """Held bytes are gathered `input_batch` frames to a message; a turn or a kick is not held back."""
    session = started_session(batch=3)
    tick = 1 / 60
    assert decoded(session.input(0x01, 0.0)) == [(102, [0x01])]  # the first byte is a change
    assert session.input(0x01, tick) == [] and session.input(0x01, 2 * tick) == []
    assert decoded(session.input(0x01, 3 * tick)) == [(103, [0x01, 0x01, 0x01])]
    assert session.input(0x01, 4 * tick) == []
    assert decoded(session.input(0x02, 5 * tick)) == [(106, [0x01, 0x02])]  # a turn flushes the run
    kick = 0x02 | KICK_BIT
    assert decoded(session.input(kick, 6 * tick)) == [(108, [kick])]
    assert session.input(0x02, 7 * tick) == []  # the kick released: the held direction again
    assert decoded(session.flush()) == [(109, [0x02])] and session.flush() == []


def test_skipped_frames_hold_the_byte_and_the_kick_only_once() -> None:
    """A call after several frames fills the frames still ahead of the server, the kick on the first only;
    frames the server has simulated meanwhile are left to its prediction (the held byte)."""
    session = started_session(batch=2)
    assert decoded(session.input(0x03, 0.0)) == [(102, [0x03])]
    kick = 0x01 | KICK_BIT
    assert decoded(session.input(kick, 4 / 60)) == [(105, [kick, 0x01])]  # the server is on frame 104
    assert decoded(session.input(0x01, 5 / 60)) == []
    assert decoded(session.input(0x01, 6 / 60)) == [(107, [0x01, 0x01])]


def test_a_run_never_passes_the_limit() -> None:
    """A long run (a large input delay) goes out in messages of at most MAX_INPUT_RUN bytes, in order."""
    session = ClientSession("t")
    session.receive(encode(replace(WELCOME, input_delay=60, max_ahead=120)), 0.0)
    session.receive(frame(1, 99), 0.0)
    assert decoded(session.input(0x01, 0.0)) == [(160, [0x01])]
    sent = decoded(session.input(0x02, 40 / 60))  # 40 frames later, a turn
    assert [len(values) for _, values in sent] == [MAX_INPUT_RUN, MAX_INPUT_RUN, 8]
    assert [start for start, _ in sent] == [161, 161 + MAX_INPUT_RUN, 161 + 2 * MAX_INPUT_RUN]
    assert [value for _, values in sent for value in values] == [0x02] * 40


def test_several_messages_in_one_websocket_message() -> None:
    """The server joins stream records into one websocket message; the session reads them in order."""
    session = ClientSession("t")
    data = frame(1, 0) + frame(2, 1) + encode(Rewind(n=3, frame=1)) + frame(4, 1)
    kinds = [message.KIND for message in session.receive(data, 0.0)]
    assert kinds == ["frame", "frame", "rewind", "frame"]
    assert session.last_n == 4 and session.gaps == 0 and sorted(session.frames) == [0, 1]
    broken = session.receive(frame(5, 2) + b"\x92\x01", 0.0)  # a value cut short after a good one
    assert [m.KIND for m in broken] == ["frame", "error"] and session.last_n == 5


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


def test_a_lean_never_stamps_past_what_the_server_takes() -> None:
    """`input-late` answers far behind the server's floor (a stalled client, a match taken over) build a
    lean of hundreds of frames; stamps still stay within `max_ahead` of the server's frame (the estimate
    without the lean), which the server would refuse past (`frame-ahead`)."""
    session = started_session(batch=1)
    present = session.server_frame(0.0)
    assert present is not None and session.lean(0.0) == 0.0
    for frame in range(100, 104):  # each stamped at the estimate, each applied 300 frames later
        session.receive(encode(InputLate(frame=frame, applied=frame + 300)), 0.0)
    assert session.lean(0.0) >= 300
    stamps = [message.frame for message in map(decode_client, session.input(0x03, 0.0))
              if isinstance(message, Input)]
    assert stamps and max(stamps) <= int(present) + WELCOME.max_ahead - 1
