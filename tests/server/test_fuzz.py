"""Hostile frames at a live server while a real match runs beside them: errors answer, nothing else moves.

The server runs in its own thread, two bot clients play a room match in another, and hypothesis
throws at least 10,000 generated frames from this thread over fresh websockets: random bytes, wrong
types, huge or truncated arrays, unknown kinds, text, inputs far in the past and the future (as a
real player of its own bot match), attempts on the real match (joining it, inputs while watching),
handshake abuse and floods. Afterwards the server is up, nothing crashed or logged an error, and
the real match's replay holds exactly the inputs its two players sent.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import replace
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from protocol.codec import ProtocolError, decode_server_messages, encode
from protocol.messages import Hello, Input, Join, Ping, Pong, Watch
from protocol.version import PROTOCOL_VERSION
from rules.replay import verify
from rules.versus.match import VersusConfig
from rules.versus.tables import VERSUS_RULES
from server import botclient
from server.app import create_app
from server.botclient import BotRun
from server.embed import RunningServer, server_in_thread
from tests.server.conftest import fast_config
from tests.server.helpers import UNIT, applied_inputs, bytes_per_frame, moves_of
from tests.server.test_match_network import fetch_replay, open_room

#: Frames the fuzz must send at least.
TARGET_FRAMES = 10_000
#: Seconds a flooding connection waits before its closing ping: the bucket (4,000 a second in this
#: test) refills its burst of 600 in 0.15 s.
FLOOD_PAUSE = 0.2


def pack(value: Any) -> bytes:
    packed = msgpack.packb(value, use_bin_type=True)
    assert isinstance(packed, bytes)
    return packed


scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats() | st.text(max_size=12)
plain = st.recursive(
    scalars | st.binary(max_size=8),
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=6)
    ),
    max_leaves=20,
)
kinds = st.sampled_from(
    ["hello", "join", "watch", "input", "ping", "leave", "frame", "welcome", "error"]
) | st.text(max_size=20)
frame_numbers = st.sampled_from([0, 1, -1, 2**31 - 1, 2**31, 2**63 - 1, -(2**63)]) | st.integers(
    -(2**40), 2**40
)


def hostile_frames(match_id: str) -> st.SearchStrategy[bytes | str]:
    """Every family of bad frame, plus a few valid ones aimed where they must not land."""
    return st.one_of(
        st.binary(max_size=200),
        plain.map(pack),
        st.builds(
            lambda kind, fields: pack({"kind": kind, **fields}),
            kinds,
            st.dictionaries(st.text(max_size=8), plain, max_size=5),
        ),
        st.builds(lambda f, i: pack({"kind": "input", "frame": f, "inputs": i}), frame_numbers, plain),
        st.builds(
            lambda f, i: pack({"kind": "input", "frame": f, "inputs": i}),
            frame_numbers,
            st.lists(frame_numbers, max_size=40),
        ),
        st.builds(
            lambda f, i: encode(Input(frame=f, inputs=i)),
            st.integers(0, 2**31 - 1),
            st.lists(st.integers(0, 255), min_size=1, max_size=16),
        ),
        st.integers(0, 3000).map(lambda n: pack([None] * n)),  # big arrays, some past the size bound
        st.sampled_from([b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff"]),  # lies
        st.integers(1, 3000).map(lambda depth: b"\x91" * depth + b"\xc0"),  # nesting bombs
        st.text(max_size=50),  # text frames
        st.just(encode(Join(match=match_id))),  # the real match, with a token holding no seat in it
        st.just(encode(Watch(match=match_id))),
        st.just(encode(Hello(version=1))),
        st.just(encode(Hello(version=PROTOCOL_VERSION))),
        st.just(pack({"kind": "leave"})),
    )


class Fuzzer:
    """Sends frames over fresh connections and reads what comes back."""

    def __init__(self, server: RunningServer, token: str, own_match: str) -> None:
        self.server = server
        self.token = token
        self.own_match = own_match
        self.sent = 0
        self.errors = 0
        self.closed = 0
        self.pongs = 0

    def _drain(self, ws: ClientConnection, until_pong: int) -> None:
        """Read answers until the pong with id `until_pong` (or the server closes the connection).

        A connection that joined or watched a match hears its stream all along, so a pong that never
        comes (its ping dropped by the rate limiter) must not keep this loop reading: it gives up at
        a deadline.
        """
        deadline = time.monotonic() + 10 * UNIT
        while True:
            data = ws.recv(timeout=max(0.0, deadline - time.monotonic()))
            assert isinstance(data, bytes)
            for message in decode_server_messages(data):
                assert not isinstance(message, ProtocolError), message
                if message.KIND == "error":
                    self.errors += 1
                if isinstance(message, Pong) and message.id == until_pong:
                    self.pongs += 1
                    return

    def attack(self, frames: list[bytes | str], as_player: bool, flood: bool) -> None:
        """One connection: hello, maybe join its own match as a player, the frames, then a ping to sync."""
        with connect(self.server.ws_url, compression=None, proxy=None, max_size=2**22) as ws:
            try:
                ws.send(encode(Hello(version=PROTOCOL_VERSION, token=self.token)))
                if as_player:
                    ws.send(encode(Join(match=self.own_match, since=0)))
                for frame in frames * (8 if flood else 1):
                    ws.send(frame)
                    self.sent += 1
                if flood:
                    time.sleep(FLOOD_PAUSE)  # the flood emptied the token bucket: let it refill for the ping
                ws.send(encode(Ping(id=len(frames), t=0)))
                self._drain(ws, len(frames))
            except (ConnectionClosed, TimeoutError):
                self.closed += 1  # a fatal error (version, hostile) closed it, or no pong came: reconnect


# websockets' keepalive pings (the players' clients and the server, in other threads) draw from the
# global `random` while hypothesis generates examples in this one; hypothesis warns about that, but the
# examples do not depend on it.
@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisDeprecationWarning")
def test_hostile_frames_leave_the_real_match_alone() -> None:
    """≥10,000 hostile frames get errors, the server stays up, and the real match's log is unaffected."""
    # A long match with many lives, so it is still running when the fuzz ends (the second bot then leaves).
    rules = replace(VERSUS_RULES, lives=50, time_limit_frames=600 * 60)
    config = fast_config(
        rate_per_second=4000,
        rate_burst=600,
        ws_frame_rate=16000,  # the fuzz's frames are paid for like any client's: 4 frames a message
        ws_frame_burst=2400,
        max_strikes=5000,
        match_config=VersusConfig(rules=rules),
    )
    with server_in_thread(create_app(config)) as server:
        outcome: dict[str, Any] = {}

        async def setup_and_play(ready: threading.Event) -> None:
            try:
                await play_match(ready)
            except BaseException as error:  # kept for the assertion's message, then raised in the thread
                outcome["error"] = repr(error)
                raise

        async def play_match(ready: threading.Event) -> None:
            match_id, first, second = await open_room(server)
            _, fuzz_token = await botclient.new_guest(server.http_url, "mallory")
            bot_match = await botclient.http_json(
                f"{server.http_url}/api/bot-matches", "POST", {"bot": "lazy"}, fuzz_token
            )
            outcome.update(match=match_id, token=fuzz_token, own=bot_match["match"])
            ready.set()
            outcome["runs"] = await asyncio.gather(
                botclient.play(server.ws_url, first, match_id, "competent", seed=21),
                botclient.play(
                    server.ws_url, second, match_id, "competent", seed=22, leave=lambda _: fuzz_done.is_set()
                ),
            )
            outcome["replay"] = await fetch_replay(server, match_id)

        ready, fuzz_done = threading.Event(), threading.Event()
        players = threading.Thread(target=asyncio.run, args=(setup_and_play(ready),), daemon=True)
        players.start()
        assert ready.wait(30 * UNIT)
        fuzzer = Fuzzer(server, outcome["token"], outcome["own"])

        @settings(
            max_examples=100,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(
            st.lists(hostile_frames(outcome["match"]), min_size=40, max_size=90),
            st.booleans(),
            st.integers(0, 19),
        )
        def fuzz(frames: list[bytes | str], as_player: bool, flood_roll: int) -> None:
            fuzzer.attack(frames, as_player, flood=flood_roll == 0)

        while fuzzer.sent < TARGET_FRAMES:
            fuzz()
        fuzzed_while_playing = players.is_alive()
        fuzz_done.set()  # the second player leaves: the match ends by forfeit
        players.join(60 * UNIT)
        assert not players.is_alive()

        health = asyncio.run(botclient.http_json(f"{server.http_url}/health"))
        assert health["ok"] is True and health["crashed"] == 0
        assert fuzzer.sent >= TARGET_FRAMES and fuzzer.errors > TARGET_FRAMES // 2 and fuzzer.pongs > 0
        # The match was still running when the last hostile frame went out.
        assert fuzzed_while_playing, outcome.get("error") or f"the match ended first: {outcome.get('runs')!r}"
        replay = outcome["replay"]
        assert verify(replay).ok and replay.result.outcomes == ("won", "forfeited")
        forfeit = replay.final_frame - 1
        assert replay.moves[1][-1] == (forfeit, 0x80)
        # Inputs in flight when the end was confirmed are refused after the players stopped reading:
        # the players' inputs must be the match's moves up to a few windows before the end.
        cutoff = forfeit - 3 * config.match.runner.rollback_window
        runs: list[BotRun] = outcome["runs"]
        for run in runs:
            assert run.seat is not None and run.mirror is not None and run.mirror.mismatches == 0
            told = applied_inputs(run.sent, run.session.late)
            assert moves_of(bytes_per_frame(told, cutoff)) == [
                list(m) for m in replay.moves[run.seat] if m[0] < cutoff
            ]
