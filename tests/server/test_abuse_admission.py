"""Admission: no client address runs more matches than its share, the node refuses matches past its
budget, an address's websockets share one message budget, and a room's invited guest can neither
cancel it nor hold its seat (issue 18).

As in tests/server/test_abuse.py: the attacker speaks from 127.0.0.2 while a bystander's match (two
server bots) runs; each test asserts the bound's answer and prints the bystander's frame lateness
(no timed assertion). The budgets are counts (matches, seats × frame rate, tokens), never measured
load, so nothing here depends on the machine's speed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import replace

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from protocol.client import ClientSession
from protocol.codec import ProtocolError, decode_server_messages
from protocol.messages import Error, MatchState, ServerMessage, Unqueued, Welcome
from server import botclient
from server.embed import RunningServer
from server.errors import ServerError
from server.match.budget import AddressBudgets
from server.match.settings import LimitSettings
from server.node import Node
from server.store.memory import MemoryStore
from tests.server.bystander import bystander_match
from tests.server.conftest import TEST_FRAME_RATE, StartServer
from tests.server.helpers import UNIT, until
from tests.server.test_abuse import ATTACKER, abuse_config, attacker, bystander, guest
from tests.server.test_session import CountingIds, FixedClock

pytestmark = pytest.mark.asyncio

#: A third address: an honest client other than the bystander's.
NEIGHBOUR = "127.0.0.3"


@contextlib.asynccontextmanager
async def with_bystander(start_server: StartServer, **overrides: object) -> AsyncIterator[RunningServer]:
    """A server on the default limits (and `overrides`) with a bystander's match of two server bots
    running, which cannot end during the test (99 lives, 10 minutes: the budgets the tests count must
    not change when a slow machine makes the test outlast a short match); its frame lateness is printed
    at the end."""
    config = abuse_config().override(**overrides)
    endless = replace(config.match.match_config, rules=replace(config.match.match_config.rules, lives=99))
    server = await start_server(config.override(match_config=endless).with_time_limit(600))
    async with bystander_match(server):
        yield server


def from_address(server: RunningServer, address: str) -> httpx.AsyncClient:
    """An HTTP client whose connections come from `address`."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=server.http_url, transport=transport, timeout=30 * UNIT)


async def guests(http: httpx.AsyncClient, count: int, name: str) -> list[dict[str, str]]:
    """`count` guests made in advance, one after another (the address's burst allows 10)."""
    return [await guest(http, f"{name}{i}") for i in range(count)]


async def bot_match(http: httpx.AsyncClient, token: dict[str, str]) -> httpx.Response:
    """Ask for a bot match."""
    return await http.post("/api/bot-matches", json={"bot": "lazy"}, headers=token)


def matches_of(node: Node, address: str) -> list[str]:
    """The live (waiting or running) matches with a seat taken from `address`."""
    live = (MatchState.WAITING, MatchState.RUNNING)
    return [m.id for m in node.hub.matches.values() if m.state in live and address in m.addresses()]


async def test_one_address_cannot_run_more_matches_than_its_share(start_server: StartServer) -> None:
    """Ten guests made in advance on one address ask for ten bot matches at once: eight (the bound) are
    made, two are refused with 429 too-many-matches and hold nothing; another address still plays."""
    async with with_bystander(start_server) as server:
        node: Node = server.app.state.node
        bound = LimitSettings().live_matches_per_address
        async with attacker(server) as http:
            tokens = await guests(http, 10, "mallory")
            answers = await asyncio.gather(*(bot_match(http, token) for token in tokens))
        made = [answer for answer in answers if answer.status_code == 200]
        refused = [answer for answer in answers if answer.status_code != 200]
        assert len(made) == bound == 8
        assert {(answer.status_code, answer.json()["code"]) for answer in refused} == {
            (429, "too-many-matches")}
        assert sorted(matches_of(node, ATTACKER)) == sorted(answer.json()["match"] for answer in made)
        async with bystander(server) as http:
            assert (await bot_match(http, await guest(http, "ann"))).status_code == 200
        # a match that ends gives its place back
        node.hub.matches[made[0].json()["match"]].cancel(node.hub.now(), "test")
        await until(lambda: not node.background, 10 * UNIT, "the seats given back")
        async with attacker(server) as http:
            again = [await bot_match(http, token) for token in tokens]
        assert [answer.status_code for answer in again].count(200) == 1


async def test_the_node_refuses_matches_past_its_budget(start_server: StartServer) -> None:
    """With a budget of 6 matches' work (seats × frame rate), the bystander's match and the attacker's
    4 (its address's bound, set to 4) leave room for one match from another address; the next match,
    from anyone, is 503 busy with Retry-After and changes nothing; a match that ends makes room."""
    budget = 6 * 2 * TEST_FRAME_RATE
    limits = LimitSettings(live_matches_per_address=4)
    async with with_bystander(start_server, capacity_board_frames=budget, limits=limits) as server:
        node: Node = server.app.state.node
        async with attacker(server) as http:
            tokens = await guests(http, 6, "mallory")
            answers = await asyncio.gather(*(bot_match(http, token) for token in tokens))
        assert sorted(answer.status_code for answer in answers) == [200] * 4 + [429] * 2
        async with from_address(server, NEIGHBOUR) as http:
            honest = await guests(http, 3, "bob")
            assert (await bot_match(http, honest[0])).status_code == 200
            assert node.hub.work() == budget
            before = set(node.hub.matches)
            full = [await bot_match(http, honest[1]), await http.post("/api/rooms", headers=honest[2])]
            for answer in full:
                assert answer.status_code == 503 and answer.json()["code"] == "busy"
                assert int(answer.headers["retry-after"]) >= 1
            assert set(node.hub.matches) == before
            ended = matches_of(node, ATTACKER)[0]
            node.hub.matches[ended].cancel(node.hub.now(), "test")
            await until(lambda: not node.background, 10 * UNIT, "the seats given back")
            assert (await bot_match(http, honest[1])).status_code == 200


async def test_a_room_refused_by_a_full_node_keeps_no_slot(start_server: StartServer) -> None:
    """A guest refused a room four times by a full match table (503 busy, with Retry-After) still has
    its three room slots once the table has room."""
    async with with_bystander(start_server, max_matches=2) as server:
        node: Node = server.app.state.node
        async with attacker(server) as http:
            assert (await bot_match(http, await guest(http, "mallory"))).status_code == 200
        async with bystander(server) as http:
            ann = await guest(http, "ann")
            for _ in range(4):
                refused = await http.post("/api/rooms", headers=ann)
                assert refused.status_code == 503 and refused.json()["code"] == "busy"
                assert int(refused.headers["retry-after"]) >= 1
            taken = matches_of(node, ATTACKER)[0]
            node.hub.matches[taken].cancel(node.hub.now(), "test")
            await until(lambda: not node.background, 10 * UNIT, "the seats given back")
            node.hub._forget(taken)
            assert (await http.post("/api/rooms", headers=ann)).status_code == 200


async def hello(ws: websockets.ClientConnection, session: ClientSession) -> None:
    """Say hello and read the welcome."""
    await ws.send(session.hello())
    data = await asyncio.wait_for(ws.recv(), 10 * UNIT)
    assert isinstance(data, bytes)
    answers = decode_server_messages(data)
    assert isinstance(answers[0], Welcome), answers


async def test_an_addresss_websockets_share_one_message_budget(start_server: StartServer) -> None:
    """32 websockets from one address, each well within its own budget, send 30 `unqueue` each: the
    address's shared bucket (40 tokens, 1 a second) answers only what it holds, the rest is refused
    with rate-limited, and sockets that keep overspending are closed (1008); another address is served."""
    sockets, rate, burst = 32, 1.0, 40.0
    async with with_bystander(start_server, message_rate_per_address=rate, message_burst_per_address=burst,
                              max_strikes=10) as server:
        started = time.monotonic()
        async with contextlib.AsyncExitStack() as stack:
            connections = [
                await stack.enter_async_context(websockets.connect(
                    server.ws_url, compression=None, proxy=None, local_addr=(ATTACKER, 0)))
                for _ in range(sockets)
            ]
            for ws in connections:
                await hello(ws, ClientSession(None))
            spam = ClientSession(None).unqueue()
            for ws in connections:
                for _ in range(30):
                    await ws.send(spam)

            async def answers(
                ws: websockets.ClientConnection,
            ) -> tuple[list[ServerMessage | ProtocolError], int | None]:
                seen: list[ServerMessage | ProtocolError] = []
                try:
                    while True:
                        data = await asyncio.wait_for(ws.recv(), 3 * UNIT)
                        assert isinstance(data, bytes)
                        seen += decode_server_messages(data)
                except TimeoutError:
                    return seen, None
                except ConnectionClosed as closed:
                    return seen, closed.rcvd.code if closed.rcvd is not None else None

            results = await asyncio.gather(*(answers(ws) for ws in connections))
        elapsed = time.monotonic() - started
        served = sum(isinstance(m, Unqueued) for seen, _ in results for m in seen)
        limited = sum(isinstance(m, Error) and m.code == "rate-limited" for seen, _ in results for m in seen)
        closed = [code for _, code in results if code is not None]
        print(f"\n{served} of {sockets * 30} unqueue answered in {elapsed:.1f} s; {limited} rate-limited "
              f"errors; {len(closed)} sockets closed")
        assert served <= burst - sockets + rate * elapsed + 1  # the hellos took 32 of the 40 tokens
        assert limited >= 1 and closed and set(closed) == {1008}
        async with websockets.connect(server.ws_url, compression=None, proxy=None) as ws:
            await hello(ws, ClientSession(None))
            await ws.send(ClientSession(None).unqueue())
            data = await asyncio.wait_for(ws.recv(), 10 * UNIT)
            assert isinstance(data, bytes)
            reply = decode_server_messages(data)
            assert isinstance(reply[0], Unqueued)


async def test_the_invited_guest_cannot_cancel_the_room(start_server: StartServer) -> None:
    """The guest who took a room's seat by its invitation and leaves before the start gives the seat
    back: the room still waits (only its creator cancels it) and another guest joins by the invitation."""
    async with with_bystander(start_server) as server:
        node: Node = server.app.state.node
        async with bystander(server) as http:
            ann = await guest(http, "ann")
            room = (await http.post("/api/rooms", headers=ann)).json()
        async with attacker(server) as http:
            answer = await http.post("/api/guests", json={"name": "mallory"})
            token = answer.json()["token"]
            joined = await http.post("/api/rooms/join", json={"invite": room["invite"]},
                                     headers={"Authorization": f"Bearer {token}"})
            assert joined.json() == {"match": room["match"], "seat": 1}
        live = node.hub.matches[room["match"]]
        session = ClientSession(token)
        async with websockets.connect(server.ws_url, compression=None, proxy=None,
                                      local_addr=(ATTACKER, 0)) as ws:
            await hello(ws, session)
            await ws.send(session.join(room["match"]))
            await until(lambda: live.seats[1].connection is not None, 10 * UNIT, "mallory connected")
            await ws.send(session.leave())
            await until(lambda: live.seats[1].guest is None, 10 * UNIT, "mallory's seat given back")
        assert live.state == MatchState.WAITING and live.has_free_seat()
        async with bystander(server) as http:
            bob = await guest(http, "bob")
            again = await http.post("/api/rooms/join", json={"invite": room["invite"]}, headers=bob)
        assert again.json() == {"match": room["match"], "seat": 1}


async def test_an_invited_seat_not_connected_is_given_back(start_server: StartServer) -> None:
    """A guest who takes a room's seat and never connects holds it invite_connect_timeout seconds, not
    the room's 300: then the seat is free again and the creator may play elsewhere."""
    async with with_bystander(start_server, invite_connect_timeout=0.5) as server:
        node: Node = server.app.state.node
        async with bystander(server) as http:
            ann = await guest(http, "ann")
            room = (await http.post("/api/rooms", headers=ann)).json()
        async with attacker(server) as http:
            mallory = await guest(http, "mallory")
            assert (await http.post("/api/rooms/join", json={"invite": room["invite"]},
                                    headers=mallory)).status_code == 200
        live = node.hub.matches[room["match"]]
        async with bystander(server) as http:
            # until then ann counts as playing (the join seated both): a bot match would be already-playing
            await until(lambda: live.has_free_seat(), 10 * UNIT, "the unconnected seat given back")
            await until(lambda: not node.background, 10 * UNIT, "its counts given back")
            assert live.state == MatchState.WAITING
            assert (await bot_match(http, ann)).status_code == 200


async def test_a_private_match_is_not_listed(start_server: StartServer) -> None:
    """A match played from a room is watched by its id but not in the live list; its replay is served by
    its id but not in the recent replays; a public (bot) match is listed in both."""
    server = await start_server(abuse_config().with_time_limit(3))
    node: Node = server.app.state.node
    url = server.http_url
    _, first = await botclient.new_guest(url, "ann")
    _, second = await botclient.new_guest(url, "bob")
    room = await botclient.http_json(f"{url}/api/rooms", "POST", None, first)
    await botclient.http_json(f"{url}/api/rooms/join", "POST", {"invite": room["invite"]}, second)
    private = node.hub.matches[room["match"]]
    plays = [asyncio.create_task(botclient.play(server.ws_url, token, room["match"], "lazy"))
             for token in (first, second)]
    await until(lambda: private.state == MatchState.RUNNING, 10 * UNIT, "the private match running")
    # no await since it was seen running
    assert private.id not in [entry["id"] for entry in node.hub.live_list()]
    public = node.hub.create_bot_duel("lazy", "lazy")
    await until(lambda: public.state == MatchState.RUNNING, 10 * UNIT, "the public match running")
    assert public.id in [entry["id"] for entry in node.hub.live_list()]
    async with bystander(server) as http:
        assert private.id not in [entry["id"] for entry in (await http.get("/api/matches")).json()["matches"]]
        assert (await http.get(f"/api/matches/{private.id}")).json()["private"] is True
        await asyncio.gather(*plays)
        await until(lambda: public.state == MatchState.OVER, 30 * UNIT, "the public match over")
        await until(lambda: not node.background, 10 * UNIT, "the records written")
        replays = [entry["id"] for entry in (await http.get("/api/replays")).json()["replays"]]
        assert public.id in replays and private.id not in replays
        assert (await http.get(f"/api/replays/{private.id}")).status_code == 200


async def test_a_ranked_pair_counts_against_both_addresses() -> None:
    """A ranked pair whose address already has its share of live matches is refused with
    too-many-matches and neither guest nor address is counted; the same guests pair from others."""
    limits = LimitSettings(live_matches_per_address=1)
    node = Node(abuse_config().override(limits=limits), MemoryStore(), FixedClock(), CountingIds())
    await node.lobby.seat_pair("g_a", "g_b", "m1", ("10.0.0.1", "10.0.0.2"))
    with pytest.raises(ServerError) as refused:
        await node.lobby.seat_pair("g_c", "g_d", "m2", ("10.0.0.3", "10.0.0.1"))
    assert refused.value.code == "too-many-matches" and refused.value.status == 429
    await node.lobby.seat_pair("g_c", "g_d", "m3", ("10.0.0.3", "10.0.0.4"))  # 10.0.0.3 was not counted


async def test_an_address_at_its_share_is_refused_at_queue(start_server: StartServer) -> None:
    """A guest whose address already has its share (a room waiting, with the share set to 1) is refused
    at `queue` with too-many-matches, so no pairing fails on its side; another address queues."""
    async with with_bystander(start_server, limits=LimitSettings(live_matches_per_address=1)) as server:
        async with attacker(server) as http:
            assert (await http.post("/api/rooms", headers=await guest(http, "mallory"))).status_code == 200
            token = (await http.post("/api/guests", json={"name": "alt"})).json()["token"]
        async with bystander(server) as http:
            honest = (await http.post("/api/guests", json={"name": "ann"})).json()["token"]
        tries = ((ATTACKER, token, "too-many-matches"), ("127.0.0.1", honest, "queued"))
        for address, bearer, expected in tries:
            session = ClientSession(bearer)
            async with websockets.connect(server.ws_url, compression=None, proxy=None,
                                          local_addr=(address, 0)) as ws:
                await hello(ws, session)
                await ws.send(session.queue())
                data = await asyncio.wait_for(ws.recv(), 10 * UNIT)
            assert isinstance(data, bytes)
            reply = decode_server_messages(data)[0]
            assert not isinstance(reply, ProtocolError), reply
            assert (reply.code if isinstance(reply, Error) else reply.KIND) == expected, reply


async def test_an_address_budget_outlives_its_sockets_until_refilled() -> None:
    """Closing every socket and reconnecting gets the same (empty) shared bucket back; an address's
    bucket is forgotten only once it would be full again."""
    budgets = AddressBudgets(rate=1.0, burst=2.0)
    bucket = budgets.acquire("10.0.0.1", 0.0)
    assert [bucket.take(0.0) for _ in range(3)] == [True, True, False]
    budgets.release("10.0.0.1", 0.0)
    again = budgets.acquire("10.0.0.1", 0.5)
    assert again is bucket and not again.take(0.5)
    budgets.release("10.0.0.1", 0.5)
    budgets.acquire("10.0.0.2", 2.4)
    assert len(budgets) == 2  # 1.9 s after its last socket: not refilled yet
    budgets.acquire("10.0.0.3", 2.5)
    assert len(budgets) == 2  # 10.0.0.1's is gone: a fresh one would be the same


async def test_the_operator_sets_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """`floe serve --capacity` or FLOE_CAPACITY sets the node's budget; a malformed one is refused."""
    from server.cli import serve_config
    from server.config import ConfigError

    monkeypatch.delenv("FLOE_CAPACITY", raising=False)
    assert serve_config([]).match.capacity_board_frames == 6000
    assert serve_config(["--capacity", "2400"]).match.capacity_board_frames == 2400
    monkeypatch.setenv("FLOE_CAPACITY", "3600")
    assert serve_config([]).match.capacity_board_frames == 3600
    for bad in ("lots", "-5", "0"):
        monkeypatch.setenv("FLOE_CAPACITY", bad)
        with pytest.raises(ConfigError, match="FLOE_CAPACITY"):
            serve_config([])


async def test_behind_a_trusted_proxy_each_client_has_its_share(start_server: StartServer) -> None:
    """Through a trusted proxy, the share of live matches is the forwarded client's: a second match of
    one client is too-many-matches (share set to 1) while another client behind the same proxy plays."""
    limits = LimitSettings(live_matches_per_address=1)
    async with with_bystander(start_server, limits=limits, trusted_proxies=(NEIGHBOUR,)) as server:
        async with from_address(server, NEIGHBOUR) as proxy:

            async def via(client: str) -> httpx.Response:
                forwarded = {"X-Forwarded-For": client}
                made = await proxy.post("/api/guests", json={"name": "p"}, headers=forwarded)
                token = {"Authorization": f"Bearer {made.json()['token']}", **forwarded}
                return await proxy.post("/api/bot-matches", json={"bot": "lazy"}, headers=token)

            first, second, other = await via("10.1.1.1"), await via("10.1.1.1"), await via("10.2.2.2")
        assert first.status_code == 200 and other.status_code == 200
        assert second.status_code == 429 and second.json()["code"] == "too-many-matches"
