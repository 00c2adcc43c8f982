"""One example of every message: protocol/README.md shows them and the tests round-trip each one.

A kind added to messages.py without an example here fails tests/protocol/test_exhaustive.py.
"""

from __future__ import annotations

from .messages import (
    Desync,
    Error,
    Frame,
    Hello,
    Input,
    InputLate,
    Join,
    Joined,
    Keyframe,
    Leave,
    Matched,
    MatchState,
    Message,
    Over,
    Ping,
    Pong,
    Queue,
    Queued,
    Rated,
    Rematch,
    RematchAnswer,
    RematchOffer,
    RematchReady,
    RematchRefused,
    Resync,
    Rewind,
    Status,
    Unqueue,
    Unqueued,
    Watch,
    Welcome,
)
from .version import PROTOCOL_VERSION

_TOKEN = "v1.eyJnIjoiZ19hYmMiLCJuIjoiYW5uIiwiZSI6MTcwMDAwMDAwMH0.c2lnbmF0dXJl"
#: Seat 0: Pengo stepped one pixel left, Sno-Bee slot 1 one down; seat 1: its lives went to 2 (summary
#: field 2), Pengo pushed (a whole record) and block 25 (key 41) slides. Words are joined.tables' codes.
_ACTORS = [
    [[], [0, 31, 1, 41]],
    [[2, 2], [17 + 24, 58], [[0, 96, 112, 0, 24]]],
]
#: A hatch on seat 1: [kind code 12 ("hatch"), id 2 (sno-bee-2), at [1, 9], seat 1].
_EVENTS = [[12, 2, [1, 9], 1]]
_VIEW = {
    "frame": 240,
    "time_left": 10560,
    "seats": [
        {
            "name": "ann",
            "cols": 13,
            "rows": 15,
            "summary": [6, -1, 3, 1, 1, 400, 2, 3, -1, [], 0, [6, 6], [[2, 1, 3, 270]], []],
            "records": [[0, 96, 128, 2, 23], [2, 48, 16, 1, 30, 13, 1, 0]],
            "blocks": [5, 5, 1, 27, 0, 9, 8, 2, 28, 0],
        }
    ],
}

#: kind → an example message of that kind.
EXAMPLES: dict[str, Message] = {
    message.KIND: message
    for message in (
        Hello(version=PROTOCOL_VERSION, token=_TOKEN, client="web-0.1"),
        Join(match="Wqzulj7f0Nw", since=None),
        Watch(match="Wqzulj7f0Nw", since=0),
        Input(frame=1234, inputs=[0x0B, 0x03]),
        Ping(id=7, t=51230),
        Leave(),
        Desync(frame=240),
        Welcome(
            version=PROTOCOL_VERSION,
            guest="g_abc",
            name="ann",
            frame_rate=60,
            input_delay=2,
            rollback_window=8,
            max_ahead=120,
            max_message_bytes=2048,
            rate_per_second=120,
            rate_burst=240,
            input_batch=2,
            send_every=2,
            reconnect_grace=30.0,
            rematch_offer_seconds=20.0,
        ),
        Joined(
            match="Wqzulj7f0Nw",
            role="player",
            seat=0,
            seats=["ann", "competent-bot"],
            bots=[None, "competent"],
            seed=3141592653,
            config={
                "rules": {"time_limit_frames": 10800, "lives": 4, "skill": 1, "attack": {"...": "..."}},
                "difficulty": "arcade",
                "fidelity": "arcade",
                "slot_timers": "arcade",
            },
            ruleset="pengo-versus",
            ruleset_version=3,
            state=MatchState.WAITING,
            head=0,
            keyframe_every=120,
            tables={
                "words": ["up", "down", "left", "right", "..."],
                "events": [["slide-start", ["block", "at", "dir", "by", "seat"]], ["..."]],
                "summary": ["status", "status_end", "lives", "..."],
            },
            spectators=0,
            delay=0.0,
        ),
        Status(match="Wqzulj7f0Nw", state=MatchState.RUNNING, connected=[True, False], lag=[48, None],
               grace=[None, 23], spectators=3),
        Frame(n=245, frame=239, events=_EVENTS, actors=_ACTORS, inputs=[0x03, 0x00], confirmed=238),
        Rewind(n=246, frame=236),
        Keyframe(n=250, frame=240, view=_VIEW, checksum="9f2c" + "0" * 60),
        Resync(
            n=612,
            frame=240,
            view=_VIEW,
            checksum="9f2c" + "0" * 60,
            frames=[{"frame": 240, "events": [], "actors": _ACTORS, "inputs": [0, 4]}],
            confirmed=241,
        ),
        Over(
            n=10843,
            result={
                "winner": 0,
                "outcomes": ["won", "lost"],
                "reason": "time",
                "frame": 10800,
                "scores": [5200, 3100],
            },
            replay="Wqzulj7f0Nw",
        ),
        Pong(id=7, t=51230, frame=1231),
        InputLate(frame=1180, applied=1223),
        Error(code="read-only", message="spectators cannot send inputs", ref="input", fatal=False),
        Queue(ruleset="payload-versus"),
        Unqueue(),
        Queued(rating=1500.0, rd=500.0, provisional=True, window=100.0, max_wait=600.0,
               ruleset="payload-versus"),
        Unqueued(reason="timeout"),
        Matched(match="Hh3kq0_pXvA", seat=1, opponent="bob", opponent_rating=1562.4, join_within=15.0,
                opponent_provisional=True, min_play=10.0, abort_cooldown=300.0, ruleset="payload-versus"),
        Rated(match="Hh3kq0_pXvA", change=-11.8, rating=1488.2, rd=191.3, provisional=True, games=4,
              ruleset="payload-versus"),
        Rematch(match="Wqzulj7f0Nw"),
        RematchAnswer(match="Wqzulj7f0Nw", accept=True),
        RematchOffer(match="Wqzulj7f0Nw", seat=0, name="ann", expires=20.0),
        RematchRefused(match="Wqzulj7f0Nw", reason="refused", code="too-many-matches",
                       message="your address already has a seat in 8 live matches"),
        RematchReady(match="Wqzulj7f0Nw", rematch="Zp8sdq1LmQe", seat=1, ranked=False),
    )
}
