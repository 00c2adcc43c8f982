"""The client's clock advice (protocol/README.md, "Late inputs"; `ping`): what `input-late` asks a client
to move, followed by protocol/client.py exactly, and a ping whose clock is Unix milliseconds.

A client whose estimate of the server's frame is behind sends an input every frame to a modelled
server: each input arrives `LATENCY` frames after it is sent and is late when it is stamped below
the server's rollback floor then (the frame `now − window`, the earliest a seat can still change);
the `input-late` answer comes back `LATENCY` frames later. Inputs sent before the first answer came
are all late by the same amount: applied literally ("move ahead by the lateness" at each answer),
the corrections stack; the page says to move relative to the lean the input was stamped with.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocol.client import ClientSession
from protocol.codec import ProtocolError, decode_client, encode
from protocol.examples import EXAMPLES
from protocol.limits import MAX_PING_VALUE
from protocol.messages import Input, InputLate, Ping, Pong, Welcome


def example_welcome() -> Welcome:
    """The page's `welcome` example (EXAMPLES holds every kind under the union `Message`)."""
    welcome = EXAMPLES["welcome"]
    assert isinstance(welcome, Welcome)
    return welcome


WELCOME = example_welcome()
RATE = WELCOME.frame_rate
#: Frames the client's estimate is behind the server's (an asymmetric path the round trip cannot see).
BEHIND = 14
#: Frames a message takes each way.
LATENCY = 3
#: Seconds of play modelled.
SECONDS = 20


def lateness_needed() -> int:
    """Frames of lean after which the client's inputs stop arriving late (they reach the floor)."""
    stamp_offset = -BEHIND + WELCOME.input_delay  # a stamp, against the server's frame when it is sent
    floor_offset = LATENCY - WELCOME.rollback_window  # the floor when it arrives, against the same
    return floor_offset - stamp_offset


def test_input_late_moves_the_clock_once_and_never_stacks() -> None:
    """Every input the client sends before the first `input-late` reaches it is late by the same amount;
    the client leans ahead by that amount once (not once per answer), never further than the lateness
    it measured (and the frame a whole-frame stamp rounds off), and once it leans, inputs are late by
    at most a frame as the lean fades and is renewed."""
    session = ClientSession("t")
    session.receive(encode(replace(WELCOME, input_batch=1)), 0.0)
    start = RATE  # the first second: the server at frame RATE when the pong comes, at once
    ping = decode_client(session.ping(start / RATE))
    assert isinstance(ping, Ping)
    session.receive(encode(Pong(id=ping.id, t=ping.t, frame=start - BEHIND)), start / RATE)
    needed = lateness_needed()
    assert needed > 4

    answers: list[tuple[int, InputLate]] = []  # (tick the answer arrives, the answer)
    leans: list[float] = []
    late_after_first_answer: list[int] = []
    first_answer: int | None = None
    for tick in range(start, SECONDS * RATE):
        now = tick / RATE
        while answers and answers[0][0] <= tick:
            _, answer = answers.pop(0)
            session.receive(encode(answer), now)
            first_answer = tick if first_answer is None else first_answer
        estimate = session.server_frame(now)
        assert estimate is not None
        leans.append(estimate - (tick - BEHIND))  # what the estimate leans past the pong's
        for payload in session.input(1 + tick % 4, now):
            sent = decode_client(payload)
            assert isinstance(sent, Input)
            floor = tick + LATENCY - WELCOME.rollback_window  # the server's floor when it arrives
            if sent.frame < floor:
                answers.append((tick + 2 * LATENCY, InputLate(frame=sent.frame, applied=floor)))
                if first_answer is not None and tick > first_answer + 2 * LATENCY:
                    late_after_first_answer.append(floor - sent.frame)
    assert session.late and session.late[0].applied - session.late[0].frame == needed
    # The inputs in flight when the first answer came were late alike: moved by each answer's lateness
    # (the page's old advice, read literally) the clock would have leaned by their sum.
    in_flight = [late for late in session.late if late.frame < session.late[0].frame + 2 * LATENCY]
    assert sum(late.applied - late.frame for late in in_flight) >= 4 * needed
    # The answers to the inputs in flight all said `needed`: the lean is `needed` (and a frame more, as
    # stamps are whole frames), never their sum.
    assert max(leans) <= needed + 1, f"the lean stacked to {max(leans):.1f} frames (lateness {needed})"
    late = max(late_after_first_answer, default=0)
    assert late <= 1, f"inputs still {late} frames late once the client leaned"


def test_a_ping_takes_a_unix_millisecond_clock() -> None:
    """`ping` takes `id` and `t` up to 2⁵³ − 1 (a Unix-millisecond clock fits; before, 2³¹ − 1 was the
    bound) and refuses more; the client's own pings carry its clock in milliseconds unmasked."""
    unix_ms = 1_796_000_000_000
    assert decode_client(encode(Ping(id=MAX_PING_VALUE, t=unix_ms))) == Ping(id=MAX_PING_VALUE, t=unix_ms)
    with pytest.raises(ProtocolError, match="ping.t"):
        decode_client(encode(Ping(id=1, t=MAX_PING_VALUE + 1)))
    session = ClientSession("t")
    ping = decode_client(session.ping(unix_ms / 1000))
    assert isinstance(ping, Ping) and ping.t == unix_ms
