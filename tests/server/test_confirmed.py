"""`confirmed` means what the page says: no later `rewind` on the players' stream goes below a
`confirmed` already sent (issue 18: a record published just before a rewind, in the same websocket
message, counted the late input that caused the rewind).

A real live match (a guest's seat against a server bot) runs on a fixed clock and is ticked by hand;
the guest's inputs arrive late by 0 to 14 frames (inside the rollback window and beyond it), between
the ticks of one publication (the streams go out every `send_every` ticks), and every stream record
the guest's connection gets is read in order.
"""

from __future__ import annotations

import random

import pytest

from protocol.codec import decode_server_messages, encode
from protocol.messages import Frame, Input, Join, Keyframe, Resync, Rewind
from server.match.live import Seat
from server.tokens import Guest
from tests.server.helpers import UNIT, until
from tests.server.test_session import hello, make

#: Ticks the match is run for (fast_config's matches last longer).
TICKS = 400
#: Input lateness, frames: the window is 8 (fast_config), so 9 and more are applied at its edge.
MOST_LATE = 14


@pytest.mark.asyncio
async def test_no_rewind_goes_below_a_confirmed_frame_already_sent() -> None:
    """Late inputs (within and beyond the window) roll the match back; on every record of the players'
    stream, each `rewind` targets a frame at or above every `confirmed` sent before it, and every
    frame's `lag` is within the range the page gives."""
    node, session, out, clock = make()
    assert node.config.match.send_every > 1  # publications gather several advances: the case that went wrong
    guest = Guest("g_ann", "ann")
    live = node.hub.new_match([Seat("ann", guest=guest.id), Seat("bot", bot="lazy")])
    session.receive(hello(node.signer.issue(guest, clock.wall())), clock.now)
    session.receive(encode(Join(match=live.id)), clock.now)
    await until(lambda: session.held is None, 10 * UNIT, "the token checked")
    live.tick(0, clock.now)
    assert live.runner is not None
    rng = random.Random(18)
    for tick in range(1, TICKS):
        clock.now += 1 / node.config.match.pace
        live.tick(tick, clock.now)
        if live.runner.result is not None:
            break
        now = live.runner.now
        frame = max(0, now - rng.randint(0, MOST_LATE))
        session.receive(encode(Input(frame=frame, inputs=[rng.randint(1, 4)])), clock.now)

    confirmed_sent = 0
    rewinds = 0
    lags: list[int] = []
    for data in out.messages:
        if not isinstance(data, bytes):
            continue
        for message in decode_server_messages(data):
            match message:
                case Frame():
                    confirmed_sent = max(confirmed_sent, message.confirmed)
                    lags.append(message.frame + 1 - message.confirmed)
                case Resync():
                    confirmed_sent = max(confirmed_sent, message.confirmed)
                case Rewind():
                    rewinds += 1
                    assert message.frame >= confirmed_sent, (
                        f"rewind to {message.frame} after confirmed {confirmed_sent} was sent"
                    )
                case Keyframe():
                    pass
    assert rewinds > 10 and live.runner.late_inputs > 0
    # The range the page gives `lag` on the players' stream.
    window = node.config.match.runner.rollback_window
    assert 1 - window - node.config.match.max_catch_up <= min(lags) and max(lags) <= window
    assert min(lags) <= 0  # frames already final when sent (re-simulated after a rewind) say so
