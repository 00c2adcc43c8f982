"""The ranked queue, the live list and rooms across nodes: two real servers (in this process, each its own
node, its own store client) on one store, embedded or Redis. Players who reached different nodes are
paired, exactly one match per pair (also with many racing at once), the pair's match is played (on the
node that made it: the one HAProxy pins `/ws?match=<id>` to) and rated once; B's live list shows A's
matches; a room made on A is joined with its invitation at B."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import httpx
import pytest
import pytest_asyncio
import websockets
from redis.asyncio.cluster import RedisCluster

from protocol.client import ClientSession
from server import botclient
from server.app import create_app
from server.config import ServerConfig
from server.embed import RunningServer, running_server
from server.node import Node
from server.store.base import Stores
from server.store.memory import MemoryStore
from server.store.players import LEGACY_RULESET
from server.store.redis import RedisStore
from tests.cluster_helpers import RunningCluster
from tests.redis_helpers import REDIS_URL, drop_prefix, redis_or_skip, unique_prefix
from tests.server.helpers import UNIT, until, until_awaited
from tests.server.test_ranked import queue_on, ranked_config, read_until, read_until_session

#: The ruleset these ranked matches play (the node's default).
PV = LEGACY_RULESET

pytestmark = pytest.mark.asyncio


@dataclass
class TwoNodes:
    """Two running servers on one store: each node's own server and its store client."""

    a: RunningServer
    b: RunningServer
    stores: tuple[Stores, Stores]

    @property
    def nodes(self) -> tuple[Node, Node]:
        return self.a.app.state.node, self.b.app.state.node

    def owner_url(self, match_id: str) -> str:
        """The websocket URL of the node that hosts the match (HAProxy's pinning, done by hand)."""
        node_a, node_b = self.nodes
        if match_id in node_a.hub.matches:
            return self.a.ws_url
        assert match_id in node_b.hub.matches, f"no node hosts {match_id}"
        return self.b.ws_url


@contextlib.asynccontextmanager
async def two_nodes(kind: str, config: ServerConfig | None = None,
                    cluster: RunningCluster | None = None,
                    config_a: ServerConfig | None = None) -> AsyncIterator[TwoNodes]:
    """Two servers on one fresh store of `kind` (Redis, or the Redis Cluster `cluster`: one prefix, a
    client per node, deleted after); A runs with `config_a` when given."""
    config = config or ranked_config()
    if kind == "memory":
        shared = MemoryStore()
        stores: tuple[Stores, Stores] = (shared, shared)
        prefix = ""
    elif cluster is not None:
        prefix = unique_prefix()
        url = f"redis+cluster://127.0.0.1:{cluster.ports[0]}"
        stores = (RedisStore.from_url(url, prefix), RedisStore.from_url(url, prefix))
    else:
        probe = await redis_or_skip()
        await probe.aclose()
        prefix = unique_prefix()
        stores = (RedisStore.from_url(REDIS_URL, prefix), RedisStore.from_url(REDIS_URL, prefix))
    try:
        async with running_server(create_app(config_a or config, stores[0])) as a, \
                running_server(create_app(config, stores[1])) as b:
            yield TwoNodes(a, b, stores)
    finally:
        if cluster is not None:
            client = RedisCluster.from_url(cluster.url)
            for key in [key async for key in client.scan_iter(match=f"{prefix}*", count=500)]:
                await client.delete(key)
            await client.aclose()
        elif kind == "redis":
            cleaner = await redis_or_skip()
            await drop_prefix(cleaner, prefix)
            await cleaner.aclose()


#: The stores two nodes share in these tests: embedded, Redis, the session's three-master Redis Cluster.
KINDS = ("memory", "redis", "cluster")


def on_cluster(kind: str, request: pytest.FixtureRequest) -> RunningCluster | None:
    """The session's cluster for the kind "cluster", else None."""
    return request.getfixturevalue("cluster") if kind == "cluster" else None


@pytest_asyncio.fixture(params=KINDS)
async def nodes(request: pytest.FixtureRequest) -> AsyncIterator[TwoNodes]:
    """Two nodes on each kind of store."""
    kind = str(request.param)
    async with two_nodes(kind, cluster=on_cluster(kind, request)) as made:
        yield made


async def test_players_on_two_nodes_are_paired_play_and_are_rated_once(nodes: TwoNodes) -> None:
    """Ann queues on A, Bob on B: one of the nodes pairs them (exactly one match), both hear `matched`
    with the same match id, play it on the node that hosts it, and each is rated once."""
    ann, ann_token = await botclient.new_guest(nodes.a.http_url, "ann")
    bob, bob_token = await botclient.new_guest(nodes.b.http_url, "bob")
    runs = await asyncio.wait_for(asyncio.gather(
        botclient.play(nodes.a.ws_url, ann_token, None, "competent", seed=1, until_rated=True,
                       join_at=nodes.owner_url),
        botclient.play(nodes.b.ws_url, bob_token, None, "lazy", seed=2, until_rated=True,
                       join_at=nodes.owner_url),
    ), 60 * UNIT)
    matched = [run.session.matched for run in runs]
    assert matched[0] is not None and matched[1] is not None
    match_id = matched[0].match
    assert matched[1].match == match_id and {m.seat for m in matched if m is not None} == {0, 1}
    assert (matched[0].opponent, matched[1].opponent) == ("bob", "ann")
    node_a, node_b = nodes.nodes
    assert node_a.ranked.paired + node_b.ranked.paired == 1
    record = await nodes.stores[0].matches.get_match(match_id)
    assert record is not None and record.ranked and set(record.guests) == {ann, bob}
    for guest, run in zip((ann, bob), runs, strict=True):
        player = await nodes.stores[1].players.get_player(guest)
        assert player is not None
        standing = player.standing(PV)
        assert standing.played == 1 and standing.games[0].match == match_id
        assert [rated.match for rated in run.session.rated] == [match_id]
    assert node_a.ranked.applied + node_b.ranked.applied == 2


async def test_many_racing_guests_on_two_nodes_are_each_paired_once(nodes: TwoNodes) -> None:
    """Twenty guests, half on each node, queue at once at one rating: every guest hears `matched` once,
    each match has exactly its two guests in seats 0 and 1, and the nodes made ten matches in all."""
    count = 20
    servers = [nodes.a if i % 2 == 0 else nodes.b for i in range(count)]
    guests = [await botclient.new_guest(server.http_url, f"g{i}") for i, server in enumerate(servers)]
    sessions = [ClientSession(token) for _, token in guests]
    async with contextlib.AsyncExitStack() as stack:
        sockets = [await stack.enter_async_context(websockets.connect(server.ws_url)) for server in servers]
        await asyncio.gather(*(queue_on(ws, session) for ws, session in zip(sockets, sessions, strict=True)))

        async def matched(ws: websockets.ClientConnection, session: ClientSession) -> None:
            while session.matched is None:
                data = await asyncio.wait_for(ws.recv(), 30 * UNIT)
                assert isinstance(data, bytes)
                session.receive(data, time.monotonic())
            assert not session.errors

        await asyncio.gather(*(matched(ws, session) for ws, session in zip(sockets, sessions, strict=True)))
    by_match: dict[str, list[tuple[int, str]]] = {}
    for (guest, _), session in zip(guests, sessions, strict=True):
        assert session.matched is not None
        by_match.setdefault(session.matched.match, []).append((session.matched.seat, guest))
    assert len(by_match) == count // 2
    assert all(sorted(seat for seat, _ in seated) == [0, 1] for seated in by_match.values())
    node_a, node_b = nodes.nodes
    assert node_a.ranked.paired + node_b.ranked.paired == count // 2
    hosted = {m for node in nodes.nodes for m, live in node.hub.matches.items() if live.ranked}
    assert hosted == set(by_match)
    emptied = lambda: node_a.ranked.waiting() == node_b.ranked.waiting() == 0  # noqa: E731
    await until(emptied, 10 * UNIT, "the queues emptied")


@pytest.mark.parametrize("kind", KINDS)
async def test_the_live_list_on_b_shows_the_matches_of_a(kind: str, request: pytest.FixtureRequest) -> None:
    """A bot duel on A is listed by B (its `/api/matches`, as A summarised it, naming A) and leaves B's
    list when it is over; a match on B is listed by A; B answers `/api/matches/{id}` of A's match with
    its summary naming A, and A its own naming itself."""
    async with two_nodes(kind, ranked_config().with_time_limit(600), on_cluster(kind, request)) as nodes:
        node_a, node_b = nodes.nodes
        live = node_a.hub.create_bot_duel("lazy", "lazy")
        other = node_b.hub.create_bot_duel("lazy", "lazy")

        def listing(node: Node, match_id: str, present: bool) -> Callable[[], Awaitable[bool]]:
            async def check() -> bool:
                return (match_id in [entry["id"] for entry in await node.lobby.live_list()]) == present
            return check

        await until_awaited(listing(node_b, live.id, True), 10 * UNIT, "B lists A's match")
        await until_awaited(listing(node_a, other.id, True), 10 * UNIT, "A lists B's match")
        async with httpx.AsyncClient(base_url=nodes.b.http_url) as http:
            listed = (await http.get("/api/matches")).json()["matches"]
            one = await http.get(f"/api/matches/{live.id}")
        async with httpx.AsyncClient(base_url=nodes.a.http_url) as http:
            own = (await http.get(f"/api/matches/{live.id}")).json()
        entry = next(entry for entry in listed if entry["id"] == live.id)
        assert entry["seats"] == ["lazy-bot", "lazy-bot"] and entry["state"] == "running"
        assert entry["node"] == node_a.name and one.status_code == 200
        summary = one.json()
        assert summary["live"] and summary["node"] == node_a.name and summary["seats"] == entry["seats"]
        assert own["live"] and own["node"] == node_a.name and own["id"] == live.id
        assert [e["created"] for e in listed] == sorted((e["created"] for e in listed), reverse=True)
        live.cancel(node_a.hub.now(), "the test is done with it")
        await until_awaited(listing(node_b, live.id, False), 10 * UNIT, "B no longer lists A's match")


@pytest.mark.parametrize("kind", KINDS)
async def test_a_room_made_on_a_is_joined_with_its_invitation_at_b(
    kind: str, request: pytest.FixtureRequest
) -> None:
    """Ann makes a room on A; Bob brings its invitation to B and gets A's seat 1 (B asked A); Cyd, at B
    too, is refused as A would refuse her (the room is full), and a wrong invitation opens nothing;
    both play the room's match at A to its end."""
    async with two_nodes(kind, cluster=on_cluster(kind, request)) as nodes:
        node_a, node_b = nodes.nodes
        tokens = []
        async with httpx.AsyncClient(base_url=nodes.a.http_url) as at_a, \
                httpx.AsyncClient(base_url=nodes.b.http_url) as at_b:
            for name in ("ann", "bob", "cyd"):
                answer = (await at_a.post("/api/guests", json={"name": name})).json()
                tokens.append(answer["token"])
            headers = [{"Authorization": f"Bearer {token}"} for token in tokens]
            room = (await at_a.post("/api/rooms", headers=headers[0])).json()
            invite = {"invite": room["invite"]}
            joined = await at_b.post("/api/rooms/join", json=invite, headers=headers[1])
            assert joined.json() == {"match": room["match"], "seat": 1}
            assert node_b.lobby.joined_elsewhere == 1 and room["match"] not in node_b.hub.matches
            live = node_a.hub.matches[room["match"]]
            assert [seat.name for seat in live.seats] == ["ann", "bob"]
            full = await at_b.post("/api/rooms/join", json=invite, headers=headers[2])
            assert full.status_code == 409 and full.json()["code"] == "room-full"
            wrong = await at_b.post("/api/rooms/join", json={"invite": "x" * 24}, headers=headers[2])
            assert wrong.status_code == 404 and wrong.json()["code"] == "no-such-match"
        runs = await asyncio.wait_for(asyncio.gather(
            botclient.play(nodes.owner_url(room["match"]), tokens[0], room["match"], "competent", seed=1),
            botclient.play(nodes.owner_url(room["match"]), tokens[1], room["match"], "lazy", seed=2),
        ), 60 * UNIT)
        assert all(run.session.over is not None for run in runs)

        async def recorded() -> bool:
            return await nodes.stores[1].matches.get_match(room["match"]) is not None

        await until_awaited(recorded, 10 * UNIT, "the room's match is recorded")
        record = await nodes.stores[1].matches.get_match(room["match"])
        assert record is not None and record.private and record.seats == ("ann", "bob")


async def test_a_pair_refused_by_the_seats_tells_both_nodes_players(nodes: TwoNodes) -> None:
    """Bob waits on B; the store then shows him seated in another live match (as another node's room
    would); Ann queues on A: whichever node takes the pair is refused the seats, and both players hear
    `already-playing` (the other node's through the refusal noted in the store), neither `matched`."""
    _, ann_token = await botclient.new_guest(nodes.a.http_url, "ann")
    bob, bob_token = await botclient.new_guest(nodes.b.http_url, "bob")
    ann, bob_session = ClientSession(ann_token), ClientSession(bob_token)
    node_a, node_b = nodes.nodes
    async with websockets.connect(nodes.b.ws_url) as bob_ws, websockets.connect(nodes.a.ws_url) as ann_ws:
        await queue_on(bob_ws, bob_session)
        await read_until(bob_ws, bob_session, lambda: bob_session.queued is not None)
        assert await nodes.stores[1].limits.add_member(f"live:{bob}", "m-elsewhere", 1, 60.0,
                                                       node_b.clock.wall())
        await queue_on(ann_ws, ann)
        await read_until(ann_ws, ann, lambda: bool(ann.errors))
        await read_until(bob_ws, bob_session, lambda: bool(bob_session.errors))
    assert [e.code for e in ann.errors] == [e.code for e in bob_session.errors] == ["already-playing"]
    assert ann.matched is None and bob_session.matched is None
    assert node_a.ranked.paired + node_b.ranked.paired == 1
    assert not [live for node in nodes.nodes for live in node.hub.matches.values() if live.ranked]


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_a_full_node_leaves_the_pair_to_the_other(kind: str) -> None:
    """A has no room for a match (its budget is one board-frame a second): Bob waits on B, then Ann
    queues on A, whose arrival completes the pair; A does not take it (it would be refused `busy`),
    B's next pass does, and B hosts the match."""
    async with two_nodes(kind, config_a=ranked_config(capacity_board_frames=1)) as nodes:
        sessions: list[ClientSession] = []
        async with contextlib.AsyncExitStack() as stack:
            sockets = []
            for server, name in ((nodes.b, "bob"), (nodes.a, "ann")):
                _, token = await botclient.new_guest(server.http_url, name)
                sessions.append(ClientSession(token))
                sockets.append(await stack.enter_async_context(websockets.connect(server.ws_url)))
                await queue_on(sockets[-1], sessions[-1])
                await read_until_session(sockets[-1], sessions[-1], lambda s: s.queued is not None)
            for ws, session in zip(sockets, sessions, strict=True):
                await read_until_session(ws, session, lambda s: s.matched is not None or s.errors)
        matched = [session.matched for session in sessions]
        assert matched[0] is not None and matched[1] is not None and matched[0].match == matched[1].match
        node_a, node_b = nodes.nodes
        assert (node_a.ranked.paired, node_b.ranked.paired) == (0, 1)
        assert matched[0].match in node_b.hub.matches and not node_a.hub.matches
