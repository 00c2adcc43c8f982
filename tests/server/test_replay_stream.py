"""GET /api/replays/{id}/stream: a finished match's spectators' stream, re-simulated from its replay."""

from __future__ import annotations

from dataclasses import replace

import httpx
import msgpack  # type: ignore[import-untyped]
import pytest

from protocol.codec import ProtocolError, decode_server_messages
from protocol.delta import apply
from protocol.messages import Frame, Joined, Keyframe, Over, Resync, Rewind, ServerMessage
from protocol.replay_codec import decode_replay, encode_replay
from rules.replay import record, verify
from rules.versus.inputs import FORFEIT
from rules.versus.match import VersusConfig, VersusMatch
from rules.versus.ruleset import PENGO_VERSUS, config_from_plain
from rules.versus.tables import VERSUS_RULES
from tests.server.conftest import StartServer, fast_config
from tests.server.helpers import plain, replay_log
from tests.server.test_http import finished_replay_bytes
from tests.versus.helpers import random_inputs

pytestmark = pytest.mark.asyncio


def stream_number(message: ServerMessage | ProtocolError) -> int:
    """A stream record's number `n` (only the stream's records carry one)."""
    assert isinstance(message, (Frame, Rewind, Keyframe, Resync, Over)), message
    return message.n


async def test_the_replay_stream_is_the_matchs_stream_and_is_cached(start_server: StartServer) -> None:
    """The stream holds joined, a keyframe every keyframe_every frames, every frame record (the replay's
    re-simulated events, actors that rebuild each frame's) and over with the result; it is cached."""
    server = await start_server(fast_config())
    data = finished_replay_bytes(600)
    replay = decode_replay(data)
    store = server.app.state.node.stores
    await store.replays.put_replay("r1", data)
    async with httpx.AsyncClient(base_url=server.http_url, timeout=60) as http:
        answer = await http.get("/api/replays/r1/stream")
        assert answer.status_code == 200 and answer.headers["content-type"] == "application/msgpack"
        assert "r1" in server.app.state.replay_streams._streams
        again = await http.get("/api/replays/r1/stream")
        assert again.content == answer.content
        missing = await http.get("/api/replays/nope/stream")
        assert missing.status_code == 404 and missing.json()["code"] == "not-found"
    messages = decode_server_messages(answer.content, max_bytes=len(answer.content))
    joined, *stream, over = messages
    assert isinstance(joined, Joined) and joined.state == "over" and joined.tables["summary"][0] == "status"
    assert isinstance(over, Over) and over.result == replay.result.plain() and over.replay == "r1"
    frames = [m for m in stream if isinstance(m, Frame)]
    keyframes = [m for m in stream if isinstance(m, Keyframe)]
    assert [f.frame for f in frames] == list(range(replay.final_frame))
    assert [stream_number(m) for m in stream] == list(range(1, len(stream) + 1))
    assert keyframes[0].frame == 0 and len(keyframes) == replay.final_frame // joined.keyframe_every + 1
    expected = replay_log(replay)
    assert all(f.events == plain(expected[f.frame]) for f in frames)
    match = VersusMatch(config_from_plain(replay.config), replay.seed, replay.seats)
    shown = plain(match.actors())
    for body in frames:
        match.step(body.inputs)
        shown = apply(shown, body.actors)
        truth = plain(match.actors())
        for rebuilt, seat in zip(shown, truth, strict=True):
            assert rebuilt[0] == seat[0] and sorted(rebuilt[1]) == sorted(seat[1]), body.frame


async def test_bytes_that_are_not_a_replay_are_refused(start_server: StartServer) -> None:
    """A stored file that is not a replay is answered 422 bad-replay, and nothing is cached."""
    server = await start_server(fast_config())
    await server.app.state.node.stores.replays.put_replay("bad", msgpack.packb({"not": "a replay"}))
    async with httpx.AsyncClient(base_url=server.http_url, timeout=60) as http:
        answer = await http.get("/api/replays/bad/stream")
    assert answer.status_code == 422 and answer.json()["code"] == "bad-replay"
    assert "bad" not in server.app.state.replay_streams._streams


def forfeited_replay_bytes(frames: int = 90) -> bytes:
    """A match ended by seat 1's forfeit byte at `frames` - 1, recorded locally (verify knows its result)."""
    config = VersusConfig(rules=replace(VERSUS_RULES, time_limit_frames=10 * frames, lives=99))
    match = VersusMatch(config, 78, ("ann", "bob"))
    for frame, row in enumerate(random_inputs(78, 2, frames)):
        match.step([row[0], FORFEIT] if frame == frames - 1 else row)
    assert match.result is not None and match.result.outcomes == ("won", "forfeited")
    return encode_replay(record(match, PENGO_VERSUS))


async def test_a_forfeited_matchs_replay_stream_ends_with_its_result(start_server: StartServer) -> None:
    """The stream of a match ended by a forfeit ends with `over.result` = the result `floe verify` gives
    (the forfeit byte is the replay's move, re-simulated like any other)."""
    server = await start_server(fast_config())
    data = forfeited_replay_bytes()
    replay = decode_replay(data)
    assert verify(replay).ok
    await server.app.state.node.stores.replays.put_replay("ff", data)
    async with httpx.AsyncClient(base_url=server.http_url, timeout=60) as http:
        answer = await http.get("/api/replays/ff/stream")
    assert answer.status_code == 200
    over = decode_server_messages(answer.content, max_bytes=len(answer.content))[-1]
    assert isinstance(over, Over) and over.result is not None
    assert over.result == replay.result.plain() and over.result["outcomes"] == ["won", "forfeited"]
