"""The HTTP API over a real server: guests, rooms, the live list, health, replays and verification."""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import httpx
import pytest

from protocol.replay_codec import decode_replay, encode_replay
from rules.replay import record
from rules.versus.match import VersusConfig, VersusMatch
from rules.versus.ruleset import PENGO_VERSUS, config_plain
from rules.versus.tables import VERSUS_RULES
from tests.server.conftest import StartServer, fast_config
from tests.versus.helpers import random_inputs

pytestmark = pytest.mark.asyncio

MSGPACK = {"content-type": "application/msgpack"}


def finished_replay_bytes(frames: int = 120) -> bytes:
    """A short finished match's replay (99 lives: it lasts to the time limit), made locally."""
    config = VersusConfig(rules=replace(VERSUS_RULES, time_limit_frames=frames, lives=99))
    match = VersusMatch(config, 77, ("ann", "bob"))
    for row in random_inputs(77, 2, frames):
        match.step(row)
    assert config_plain(config)["rules"]["time_limit_frames"] == frames and match.finished
    return encode_replay(record(match, PENGO_VERSUS))


async def test_guests_rooms_and_the_live_list(start_server: StartServer) -> None:
    """Guests get tokens; a room is joined by its invitation (not its id) and is not listed while it
    waits; a third guest finds it full; a wrong invitation opens nothing."""
    server = await start_server()
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        tokens = []
        for name in ("ann", "bob", "eve"):
            answer = (await http.post("/api/guests", json={"name": name})).json()
            assert answer["name"] == name and answer["guest"].startswith("g_")
            tokens.append({"Authorization": f"Bearer {answer['token']}"})
        room = (await http.post("/api/rooms", headers=tokens[0])).json()
        assert room["seat"] == 0 and len(room["invite"]) >= 20 and room["invite"] != room["match"]
        by_id = await http.post("/api/rooms/join", json={"invite": room["match"]}, headers=tokens[1])
        assert by_id.status_code == 404 and by_id.json()["code"] == "no-such-match"
        invite = {"invite": room["invite"]}
        joined = await http.post("/api/rooms/join", json=invite, headers=tokens[1])
        assert joined.json() == {"match": room["match"], "seat": 1}
        again = await http.post("/api/rooms/join", json=invite, headers=tokens[1])
        assert again.json()["seat"] == 1  # joining twice keeps the seat
        full = await http.post("/api/rooms/join", json=invite, headers=tokens[2])
        assert full.status_code == 409 and full.json() == {
            "kind": "error",
            "code": "room-full",
            "message": "every seat is taken",
            "ref": None,
            "fatal": False,
        }
        assert (await http.get("/api/matches")).json()["matches"] == []
        missing = await http.post("/api/rooms/join", json={"invite": "nope"}, headers=tokens[2])
        assert missing.status_code == 404 and missing.json()["code"] == "no-such-match"


async def test_typed_errors_for_bad_requests(start_server: StartServer) -> None:
    """No token, a bad token, an unknown bot and a bad body are typed errors with fitting statuses."""
    server = await start_server()
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        assert (await http.post("/api/rooms")).json()["code"] == "auth"
        bad = await http.post("/api/rooms", headers={"Authorization": "Bearer v1.a.b"})
        assert bad.status_code == 401 and bad.json()["code"] == "auth"
        token = (await http.post("/api/guests")).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        unknown = await http.post("/api/bot-matches", json={"bot": "genius"}, headers=headers)
        assert unknown.status_code == 422 and unknown.json()["code"] == "malformed"
        odd = await http.post("/api/guests", json={"name": 5, "extra": True})
        assert odd.status_code == 422 and odd.json()["kind"] == "error"
        assert (await http.get("/api/replays/none")).json()["code"] == "not-found"
        assert (await http.get("/api/matches/none")).status_code == 404


async def test_health_reports_the_loop(start_server: StartServer) -> None:
    """/health answers ok with the clock's numbers."""
    server = await start_server()
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        health = (await http.get("/health")).json()
    assert health["ok"] is True and health["tick"] >= 0 and "p99" in health["lateness_ms"]


async def test_replay_verification(start_server: StartServer) -> None:
    """A true replay verifies; a tampered one does not; garbage and oversized bodies are refused."""
    server = await start_server(fast_config().override(verify_max_bytes=64 * 1024))
    data = finished_replay_bytes()
    async with httpx.AsyncClient(base_url=server.http_url, timeout=60) as http:
        good = (await http.post("/api/replays/verify", content=data, headers=MSGPACK)).json()
        assert good["ok"] is True and good["result"]["frame"] == 120
        replay = decode_replay(data)
        forged = dataclasses.replace(replay, result=dataclasses.replace(replay.result, scores=(99999, 0)))
        answer = await http.post("/api/replays/verify", content=encode_replay(forged), headers=MSGPACK)
        verdict = answer.json()
        assert answer.status_code == 200 and verdict["ok"] is False and "result differs" in verdict["reason"]
        assert verdict["frame"] == 120
        garbage = await http.post("/api/replays/verify", content=b"\xc1\xc1", headers=MSGPACK)
        assert garbage.status_code == 422 and garbage.json()["code"] == "bad-replay"
        assert garbage.json()["kind"] == "error"
        big = await http.post("/api/replays/verify", content=b"\x00" * (65 * 1024), headers=MSGPACK)
        assert big.status_code == 413 and big.json()["code"] == "too-large"
        text = await http.post("/api/replays/verify", content=data, headers={"content-type": "text/plain"})
        assert text.status_code == 415 and text.json()["code"] == "malformed"


async def test_verification_past_its_time_bound_is_a_timeout(start_server: StartServer) -> None:
    """A verification that runs past the wall-time bound is answered 504 with a typed timeout error."""
    server = await start_server(fast_config().override(verify_timeout=0.01))
    data = finished_replay_bytes(3000)  # a few hundred milliseconds to verify
    async with httpx.AsyncClient(base_url=server.http_url, timeout=60) as http:
        answer = await http.post("/api/replays/verify", content=data, headers=MSGPACK)
    assert answer.status_code == 504 and answer.json()["code"] == "timeout"
