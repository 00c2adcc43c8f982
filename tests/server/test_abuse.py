"""No one client can hurt the others: each attack of issue 10, reproduced against a real server.

The attacker speaks from its own loopback address (127.0.0.2: all of 127/8 is loopback) while a
bystander's match runs on the same server; each test asserts the limit's answer (status, code,
count) and prints the bystander's frame lateness meanwhile (no timed assertion). The server runs
the lobby's default limits here (`ServerConfig().lobby.limits`), not the tests' raised ones.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import httpx
import msgpack  # type: ignore[import-untyped]
import pytest
import pytest_asyncio

from protocol.codec import decode_server
from protocol.messages import Error
from protocol.replay_codec import encode_replay
from server.config import ConfigError, ServerConfig
from server.embed import RunningServer
from server.match.settings import LimitSettings
from server.node import Node
from server.store.memory import MemoryStore
from tests.server.bystander import bystander_match
from tests.server.conftest import StartServer, fast_config
from tests.server.helpers import UNIT, until
from tests.server.test_http import finished_replay_bytes

pytestmark = pytest.mark.asyncio

ATTACKER = "127.0.0.2"
MSGPACK = {"content-type": "application/msgpack"}


def abuse_config(**overrides: object) -> ServerConfig:
    """The tests' fast server with the lobby's default (production) limits."""
    return fast_config().override(limits=LimitSettings(), **overrides)


@pytest_asyncio.fixture
async def served(start_server: StartServer) -> AsyncIterator[RunningServer]:
    """A server on the default limits with a bystander's match (two server bots) running on it."""
    server = await start_server(abuse_config())
    async with bystander_match(server):
        yield server


def attacker(server: RunningServer, **kwargs: Any) -> httpx.AsyncClient:
    """An HTTP client whose connections come from 127.0.0.2 (at most 32 at once: under the listener's
    cap of open connections per address, which has a test of its own)."""
    limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER, limits=limits)
    return httpx.AsyncClient(base_url=server.http_url, transport=transport, timeout=30 * UNIT, **kwargs)


def bystander(server: RunningServer) -> httpx.AsyncClient:
    """An HTTP client on 127.0.0.1."""
    return httpx.AsyncClient(base_url=server.http_url, timeout=30 * UNIT)


async def guest(http: httpx.AsyncClient, name: str) -> dict[str, str]:
    """A new guest's Authorization header."""
    answer = await http.post("/api/guests", json={"name": name})
    assert answer.status_code == 200, answer.text
    return {"Authorization": f"Bearer {answer.json()['token']}"}


async def test_one_guest_cannot_fill_the_match_table(served: RunningServer) -> None:
    """2,000 room requests from one token in a burst: 3 open rooms, then too-many-rooms and 429s; the
    process holds 3 matches of that guest, not 2,000, and a bystander still makes a room."""
    node: Node = served.app.state.node
    async with attacker(served) as http:
        answer = await http.post("/api/guests", json={"name": "mallory"})
        mallory = answer.json()["guest"]
        token = {"Authorization": f"Bearer {answer.json()['token']}"}
        answers = await asyncio.gather(*(http.post("/api/rooms", headers=token) for _ in range(2000)))
    statuses = [answer.status_code for answer in answers]
    codes = {answer.json()["code"] for answer in answers if answer.status_code != 200}
    assert statuses.count(200) == 3 and codes == {"too-many-rooms", "rate-limited"}
    limited = next(answer for answer in answers if answer.status_code == 429)
    assert int(limited.headers["retry-after"]) >= 1
    # counted by guest, not as a total: the bystander's match may end and be forgotten meanwhile on a
    # slow machine
    assert len([live for live in node.hub.matches.values() if live.seat_of(mallory) is not None]) == 3
    async with bystander(served) as http:
        room = await http.post("/api/rooms", headers=await guest(http, "ann"))
    assert room.status_code == 200


async def test_one_live_match_per_guest(served: RunningServer) -> None:
    """A guest with a live bot match cannot start a second one (already-playing), even by dropping the
    first one's socket; joining someone's room is refused the same way."""
    async with attacker(served) as http:
        token = await guest(http, "mallory")
        first = await http.post("/api/bot-matches", json={"bot": "lazy"}, headers=token)
        assert first.status_code == 200
        second = await http.post("/api/bot-matches", json={"bot": "lazy"}, headers=token)
        assert second.status_code == 409 and second.json()["code"] == "already-playing"
        async with bystander(served) as other:
            room = (await other.post("/api/rooms", headers=await guest(other, "ann"))).json()
        joined = await http.post("/api/rooms/join", json={"invite": room["invite"]}, headers=token)
        assert joined.status_code == 409 and joined.json()["code"] == "already-playing"


async def test_guest_creation_is_rate_limited_per_address(served: RunningServer) -> None:
    """Guests from one address: a burst of 10, then 429 with Retry-After; another address is not affected."""
    async with attacker(served) as http:
        answers = [await http.post("/api/guests") for _ in range(30)]
    statuses = [answer.status_code for answer in answers]
    assert statuses[:10] == [200] * 10 and statuses.count(429) >= 19
    assert all(answer.json()["code"] == "rate-limited" for answer in answers if answer.status_code == 429)
    async with bystander(served) as http:
        assert (await http.post("/api/guests")).status_code == 200


async def test_rooms_are_joined_by_invitation_not_by_id(served: RunningServer) -> None:
    """A stranger sees no waiting room in the live list and cannot join (or cancel) one by its id."""
    async with bystander(served) as http:
        owner = await guest(http, "ann")
        room = (await http.post("/api/rooms", headers=owner)).json()
    async with attacker(served) as http:
        listed = (await http.get("/api/matches")).json()["matches"]
        assert room["match"] not in [entry["id"] for entry in listed]
        assert all(entry["state"] == "running" for entry in listed)
        stranger = await guest(http, "mallory")
        by_id = await http.post("/api/rooms/join", json={"invite": room["match"]}, headers=stranger)
        assert by_id.status_code == 404 and by_id.json()["code"] == "no-such-match"
        old_route = await http.post(f"/api/rooms/{room['match']}/join", headers=stranger)
        assert old_route.status_code in (404, 405) and old_route.json()["kind"] == "error"
    assert served.app.state.node.hub.matches[room["match"]].state == "waiting"


async def raw_request(server: RunningServer, head: bytes, body: bytes = b"") -> bytes:
    """Send a raw HTTP request head (and part of a body) from 127.0.0.2; the answer, read to its end."""
    reader, writer = await asyncio.open_connection(server.host, server.port, local_addr=(ATTACKER, 0))
    try:
        writer.write(head + body)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), 10 * UNIT)
    finally:
        writer.close()


#: A plain health request that closes its connection after the answer.
HEALTH = b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

#: The head of a 5,000-byte replay upload (its body is sent, or not, by the test).
UPLOAD_HEAD = (b"POST /api/replays/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/msgpack\r\n"
               b"Content-Length: 5000\r\nConnection: close\r\n\r\n")


def status_of(answer: bytes) -> tuple[int, dict[str, Any]]:
    """The status and JSON body of a raw HTTP answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body.decode() or "{}")


async def test_a_declared_huge_body_is_refused_before_it_is_read(served: RunningServer) -> None:
    """A JSON route answers 413 to a body declared 128 MiB at once, having read none of it."""
    head = (b"POST /api/guests HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 134217728\r\nConnection: close\r\n\r\n")
    status, body = status_of(await raw_request(served, head, b'{"name": "'))
    assert status == 413 and body["code"] == "too-large"


async def test_a_chunked_body_is_cut_off_at_its_bound(served: RunningServer) -> None:
    """A body without a length is read only up to the route's bound (16 KiB), then refused with 413."""
    head = (b"POST /api/guests HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    chunk = b"%x\r\n%s\r\n" % (4096, b" " * 4096)
    status, body = status_of(await raw_request(served, head, chunk * 8))
    assert status == 413 and body["code"] == "too-large"


def nested_body(depth: int = 990) -> bytes:
    """A 1,001-byte msgpack body nested `depth` deep (it used to make the worker recurse)."""
    data: bytes = msgpack.packb({"format": msgpack.unpackb(b"\x91" * depth + b"\xc0")})
    return data


async def test_a_nested_body_cannot_break_verification(start_server: StartServer) -> None:
    """Deeply nested bodies get 422 bad-replay, four at once too, and an honest replay verifies right
    after: the pool is never torn down (the process pool, as in production)."""
    server = await start_server(abuse_config(verify_pool="process", verify_per_client=2))
    body = nested_body()
    assert len(body) <= 1001
    async with attacker(server) as http:
        answers = await asyncio.gather(
            *(http.post("/api/replays/verify", content=body, headers=MSGPACK) for _ in range(2))
        )
        for answer in answers:
            assert answer.status_code == 422 and answer.json()["code"] == "bad-replay"
            assert "nested" in answer.json()["message"]
    async with bystander(server) as http:
        honest = await http.post("/api/replays/verify", content=finished_replay_bytes(), headers=MSGPACK)
    assert honest.status_code == 200 and honest.json()["ok"] is True


def stuck_worker(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Verification jobs (on the thread pool) wait for the returned event, then verify as ever."""
    from server.http import verify as verify_module

    release = threading.Event()
    real = verify_module.verify_bytes

    def held(data: bytes, max_frames: int) -> dict[str, Any]:
        release.wait(60 * UNIT)
        return real(data, max_frames)

    monkeypatch.setattr(verify_module, "verify_bytes", held)
    return release


async def test_one_client_cannot_take_every_verification_slot(
    start_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With two slots, a share of one per client and no queue, the attacker's second concurrent
    verification is 429 with Retry-After before its body is sent; a bystander gets the other slot."""
    release = stuck_worker(monkeypatch)
    server = await start_server(abuse_config(verify_pool="thread", verify_concurrency=2, verify_per_client=1,
                                             verify_queue_per_client=0))
    verifier = server.app.state.verifier
    try:
        async with attacker(server) as http:
            replay = finished_replay_bytes()
            first = asyncio.create_task(http.post("/api/replays/verify", content=replay, headers=MSGPACK))
            await until(lambda: verifier.busy == 1, 10 * UNIT, "the first verification running")
            answer = await raw_request(server, UPLOAD_HEAD)  # no body is sent: the answer cannot need it
            status, body = status_of(answer)
            assert status == 429 and body["code"] == "rate-limited" and b"retry-after: " in answer.lower()
            async with bystander(server) as other:
                honest = asyncio.create_task(
                    other.post("/api/replays/verify", content=replay, headers=MSGPACK)
                )
                await until(lambda: verifier.busy == 2, 10 * UNIT, "the bystander's verification running")
                release.set()
                assert (await honest).json()["ok"] is True
            assert (await first).json()["ok"] is True
    finally:
        release.set()


async def test_a_trickled_body_holds_no_slot(start_server: StartServer) -> None:
    """An upload whose body never finishes arriving is answered 408 at the body deadline, and its slot
    is free again."""
    server = await start_server(abuse_config(http_body_seconds=0.5))
    verifier = server.app.state.verifier
    reader, writer = await asyncio.open_connection(server.host, server.port, local_addr=(ATTACKER, 0))
    try:
        writer.write(UPLOAD_HEAD + b"\x00" * 10)
        await writer.drain()
        await until(lambda: verifier.busy == 1, 10 * UNIT, "the upload holding a slot")
        answer = await asyncio.wait_for(reader.read(), 30 * UNIT)
    finally:
        writer.close()
    status, body = status_of(answer)
    assert status == 408 and body["code"] == "timeout" and verifier.busy == 0


async def test_a_timed_out_job_keeps_its_slot_until_its_worker_is_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A verification past its time bound is answered 504 at once, but its slot stays taken until the
    worker finishes, so the next one (with no queue to wait in) is told busy instead of queueing behind a
    busy worker."""
    from server.errors import ServerError
    from server.http import verify as verify_module

    release = threading.Event()

    def stuck(data: bytes, max_frames: int) -> dict[str, Any]:
        release.wait(30 * UNIT)
        return {"decoded": True, "ok": True, "reason": "ok", "result": None, "frames": 0, "frame": None,
                "log_hash": None}

    monkeypatch.setattr(verify_module, "verify_bytes", stuck)
    config = abuse_config(verify_pool="thread", verify_concurrency=1, verify_timeout=0.05,
                          verify_queue_total=0)
    verifier = verify_module.Verifier(config.verify)
    try:
        async with verifier.slot("127.0.0.2") as held:
            with pytest.raises(ServerError) as timed_out:
                await verifier.run(held, b"\x80")
        assert timed_out.value.status == 504 and verifier.busy == 1
        with pytest.raises(ServerError) as busy:
            async with verifier.slot("127.0.0.3"):
                pass
        assert busy.value.status == 503 and busy.value.retry_after
        release.set()
        await until(lambda: verifier.busy == 0, 10 * UNIT, "the worker finishing its job")
        async with verifier.slot("127.0.0.3") as held:
            assert (await verifier.run(held, b"\x80"))["ok"] is True
    finally:
        release.set()
        verifier.close()


async def test_health_costs_the_loop_a_constant(served: RunningServer) -> None:
    """600 /health requests from the attacker are all answered from running figures; the bystander's
    match keeps ticking (its lateness is printed)."""
    node: Node = served.app.state.node
    before = node.stats()["tick"]
    async with attacker(served) as http:
        answers = await asyncio.gather(*(http.get("/health") for _ in range(600)))
    assert all(answer.status_code == 200 and answer.json()["ok"] for answer in answers)
    assert node.stats()["tick"] > before and node.stats()["lateness_ms"]["samples"] > 0


async def test_smaller_ones(served: RunningServer) -> None:
    """Verify takes only msgpack; 404 and 405 answer the one error shape; the schema lists every status."""
    async with attacker(served) as http:
        form = await http.post("/api/replays/verify", content=b"x=1",
                               headers={"content-type": "application/x-www-form-urlencoded"})
        assert form.status_code == 415 and form.json()["code"] == "malformed"
        missing = await http.get("/no/such/route")
        assert missing.status_code == 404 and missing.json()["code"] == "not-found"
        wrong = await http.get("/api/rooms")
        assert wrong.status_code == 405 and set(wrong.json()) == {"kind", "code", "message", "ref", "fatal"}
        schema = (await http.get("/openapi.json")).json()
    rooms = schema["paths"]["/api/rooms"]["post"]["responses"]
    assert {"200", "401", "409", "429", "503"} <= set(rooms)
    bots = schema["paths"]["/api/bot-matches"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert bots["properties"]["bot"]["enum"] == list(served.app.state.node.config.match.ruleset.bot_names)
    verify = schema["paths"]["/api/replays/verify"]["post"]
    assert "application/msgpack" in verify["requestBody"]["content"]
    assert {"200", "413", "415", "422", "429", "503", "504"} <= set(verify["responses"])


class SharedMemoryStore(MemoryStore):
    """The embedded store, claiming to be shared (as a Redis store is)."""

    shared = True


async def test_the_token_secret_is_never_silently_random(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shared store without a configured secret refuses to start; FLOE_SECRET empty or short is refused;
    a random secret is made only for the embedded store."""
    from server.tokens import secret_from_env

    config = fast_config().override(secret=None)
    with pytest.raises(ConfigError, match="FLOE_SECRET"):
        Node(config, SharedMemoryStore())
    assert Node(config, MemoryStore()).secret_source == "random"
    assert Node(fast_config(), SharedMemoryStore()).secret_source == "configured"
    for value in ("", "short"):
        monkeypatch.setenv("FLOE_SECRET", value)
        with pytest.raises(ConfigError, match="at least 16 bytes"):
            secret_from_env()
    monkeypatch.setenv("FLOE_SECRET", "a-long-enough-secret")
    assert secret_from_env() == b"a-long-enough-secret"


async def test_a_replay_that_decodes_but_does_not_reproduce_is_a_verdict(served: RunningServer) -> None:
    """The verify answers decided once: not a replay is 422 bad-replay; a replay that does not reproduce
    is 200 with ok false, its reason and the first frame it concerns."""
    from protocol.replay_codec import decode_replay

    replay = decode_replay(finished_replay_bytes())
    late = replace(replay, final_frame=replay.final_frame + 30)
    async with attacker(served) as http:
        answer = await http.post("/api/replays/verify", content=encode_replay(late), headers=MSGPACK)
        verdict = answer.json()
        assert answer.status_code == 200 and verdict["ok"] is False
        assert verdict["frame"] == replay.final_frame and "ended on frame" in verdict["reason"]
        text = await http.post("/api/replays/verify", content=json.dumps({"a": 1}).encode(), headers=MSGPACK)
        assert text.status_code == 422 and text.json()["code"] == "bad-replay"


async def test_connections_per_address_are_capped(start_server: StartServer) -> None:
    """2,000 idle connections from one address: the first 64 are held, each later one is answered 429
    and closed; a bystander's address still connects; once the idle ones go, the address may again."""
    server = await start_server(abuse_config(head_timeout=60.0))
    listener = server.listener
    streams = [await asyncio.open_connection(server.host, server.port, local_addr=(ATTACKER, 0))
               for _ in range(2000)]
    try:
        reads = (asyncio.wait_for(reader.read(), 30 * UNIT) for reader, _ in streams[64:])
        answers = [status_of(answer) for answer in await asyncio.gather(*reads)]
        assert {(status, body["code"]) for status, body in answers} == {(429, "rate-limited")}
        assert listener.per_address[ATTACKER] == 64
        async with bystander(server) as http:
            assert (await http.get("/health")).status_code == 200
    finally:
        for _, writer in streams:
            writer.close()
    await until(lambda: listener.per_address[ATTACKER] == 0, 10 * UNIT, "the idle connections closing")
    assert status_of(await raw_request(server, HEALTH))[0] == 200


async def unanswered_close(reader: asyncio.StreamReader) -> bytes:
    """What a dropped connection gave before it closed: a reset (the server closed it with our half
    head unread, as a loaded kernel may report it) counts as closed with nothing answered."""
    try:
        return await reader.read()
    except ConnectionResetError:
        return b""


async def test_slowloris_heads_are_dropped_at_the_deadline(start_server: StartServer) -> None:
    """300 connections that send half a request head each are dropped at the head deadline; the
    server answers a bystander meanwhile."""
    server = await start_server(abuse_config(head_timeout=0.5))
    listener = server.listener
    streams = []
    for _ in range(50):
        reader, writer = await asyncio.open_connection(server.host, server.port, local_addr=(ATTACKER, 0))
        writer.write(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        streams.append((reader, writer))
    async with bystander(server) as http:
        assert (await http.get("/health")).status_code == 200
    for reader, writer in streams:
        assert await asyncio.wait_for(unanswered_close(reader), 10 * UNIT) == b""  # closed, nothing answered
        writer.close()
    await until(lambda: listener.per_address[ATTACKER] == 0, 10 * UNIT, "every slow socket gone")


async def test_a_huge_request_head_is_refused(served: RunningServer) -> None:
    """A 64 MiB header gets 431 after the first 8 KiB; the process does not read the rest."""
    head = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (9 * 1024)
    status, body = status_of(await raw_request(served, head))
    assert status == 431 and body["code"] == "too-large"


async def test_a_websocket_that_never_says_hello_is_closed(start_server: StartServer) -> None:
    """A websocket that answers pings but never says hello is closed at the hello deadline (1008)."""
    import websockets
    from websockets.exceptions import ConnectionClosed

    server = await start_server(abuse_config(hello_timeout=0.3))
    async with websockets.connect(server.ws_url, compression=None, proxy=None,
                                  local_addr=(ATTACKER, 0)) as ws:
        data = await asyncio.wait_for(ws.recv(), 10 * UNIT)
        assert isinstance(data, bytes)
        last = decode_server(data)
        assert isinstance(last, Error) and last.code == "hello-first" and last.fatal
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10 * UNIT)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008


async def test_only_a_trusted_proxy_names_the_client(start_server: StartServer) -> None:
    """A client's X-Forwarded-For is ignored; behind a trusted proxy the forwarded address counts (its
    guests are rate-limited as that address, not as the proxy)."""
    server = await start_server(abuse_config(trusted_proxies=("127.0.0.3",)))
    spoof = (b"POST /api/guests HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.9.9.9\r\nContent-Length: 0\r\n"
             b"Connection: close\r\n\r\n")
    for _ in range(10):
        assert status_of(await raw_request(server, spoof))[0] == 200
    assert status_of(await raw_request(server, spoof))[0] == 429  # counted as 127.0.0.2 all along

    async def via_proxy(client: str) -> int:
        head = (b"POST /api/guests HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: " + client.encode() +
                b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        reader, writer = await asyncio.open_connection(server.host, server.port, local_addr=("127.0.0.3", 0))
        try:
            writer.write(head)
            return status_of(await asyncio.wait_for(reader.read(), 10 * UNIT))[0]
        finally:
            writer.close()

    assert [await via_proxy("10.1.1.1") for _ in range(10)] == [200] * 10
    assert await via_proxy("10.1.1.1") == 429
    assert await via_proxy("10.2.2.2") == 200
