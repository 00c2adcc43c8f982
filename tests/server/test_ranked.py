"""Ranked over real websockets, on both stores: queue, pair, play, rate once; dodges; a restart on Redis."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
import websockets

from protocol.client import ClientSession
from server import botclient
from server.app import create_app
from server.config import ServerConfig
from server.embed import RunningServer, running_server
from server.match.ranked import QUEUE_KEY
from server.node import Node
from server.store.base import Stores
from server.store.memory import MemoryStore
from server.store.players import LEGACY_RULESET
from server.store.redis import RedisStore
from tests.redis_helpers import REDIS_URL, drop_prefix, redis_or_skip, unique_prefix
from tests.server.conftest import StartServer, fast_config
from tests.server.helpers import UNIT, until

#: The ruleset these ranked matches play (the node's default).
PV = LEGACY_RULESET

pytestmark = pytest.mark.asyncio


def ranked_config(**overrides: object) -> ServerConfig:
    """Short ranked matches (every result rated: the minimum of play is tests/server/test_abuse_ranked.py's),
    a short join timeout and cooldown, frequent pairing."""
    config = fast_config().with_time_limit(4).override(ranked_join_timeout=1.0, ranked_dodge_cooldown=60.0,
                     ranked_pair_every=0.05, ranked_min_play_seconds=0.0)
    return config.override(**overrides)


@asynccontextmanager
async def a_store(kind: str, prefix: str | None = None) -> AsyncIterator[Stores]:
    """A fresh store of `kind` (Redis: on its own prefix, deleted afterwards; not closed here)."""
    if kind == "memory":
        yield MemoryStore()
        return
    client = await redis_or_skip()
    prefix = prefix or unique_prefix()
    try:
        yield RedisStore.from_url(REDIS_URL, prefix)
    finally:
        await drop_prefix(client, prefix)
        await client.aclose()


async def two_guests(server: RunningServer) -> tuple[tuple[str, str], tuple[str, str]]:
    """(id, token) of ann and bob."""
    first = await botclient.new_guest(server.http_url, "ann")
    return first, await botclient.new_guest(server.http_url, "bob")


async def ranked_pair(server: RunningServer, first: str, second: str) -> list[botclient.BotRun]:
    """Both guests queue; bots play the match they are paired into, each reading on to its `rated`."""
    return list(await asyncio.wait_for(asyncio.gather(
        botclient.play(server.ws_url, first, None, "competent", seed=1, until_rated=True),
        botclient.play(server.ws_url, second, None, "lazy", seed=2, until_rated=True),
    ), 60 * UNIT))


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_two_guests_queue_play_and_are_rated_once(start_server: StartServer, kind: str) -> None:
    """Paired from the queue, two bots play; each hears `rated` after `over`; ratings moved once, and a
    retry or a second node's attempt changes nothing; the leaderboard and player pages show them."""
    async with a_store(kind) as store:
        server = await start_server(ranked_config(), store)
        (ann, ann_token), (bob, bob_token) = await two_guests(server)
        runs = await ranked_pair(server, ann_token, bob_token)
        node: Node = server.app.state.node
        match_id = runs[0].session.matched.match if runs[0].session.matched else ""
        assert runs[1].session.matched is not None and runs[1].session.matched.match == match_id
        for run in runs:
            assert run.session.over is not None and run.session.over.replay == match_id
            assert [r.match for r in run.session.rated] == [match_id]
        assert node.ranked.applied == 2 and node.ranked.notified == 2
        record = await store.matches.get_match(match_id)
        assert record is not None and record.ranked
        before = [await store.players.get_player(ann), await store.players.get_player(bob)]
        for guest, player, run in zip((ann, bob), before, runs, strict=True):
            assert player is not None
            standing = player.standing(PV)
            assert standing.played == 1 and standing.games[0].match == match_id
            rated = run.session.rated[0]
            assert rated.rating == player.standing(PV).glicko.rating and rated.games == 1
            assert rated.change == pytest.approx(player.standing(PV).glicko.rating - 1500.0)
            assert player.id == guest
        ann_before = before[0]
        assert ann_before is not None
        outcomes = record.result["outcomes"] if record.result else []
        if "drawn" not in outcomes:
            assert (ann_before.standing(PV).glicko.rating > 1500) == (outcomes[0] == "won")
        await node.ranked.rate(record)  # a retry
        await Node(node.config, store).ranked.rate(record)  # a second node's attempt
        assert [await store.players.get_player(ann), await store.players.get_player(bob)] == before
        assert node.ranked.applied == 2
        board = await botclient.http_json(f"{server.http_url}/api/leaderboard?provisional=true")
        assert {entry["id"] for entry in board["players"]} == {ann, bob} and board["total"] == 2
        page = await botclient.http_json(f"{server.http_url}/api/players/{ann}")
        assert page["games"] == 1 and page["recent"][0]["replay"] == match_id
        assert page["rating"] == ann_before.standing(PV).glicko.rating


async def test_after_a_restart_on_redis_the_leaderboard_still_shows_them() -> None:
    """A server on Redis rates a ranked match and stops; a new server on the same Redis lists both."""
    async with a_store("redis") as first_store:
        assert isinstance(first_store, RedisStore)
        prefix = first_store.prefix
        async with running_server(create_app(ranked_config(), first_store)) as server:
            (ann, ann_token), (bob, bob_token) = await two_guests(server)
            await ranked_pair(server, ann_token, bob_token)
            board, _ = await first_store.players.leaderboard(PV, True, 0, 10)
            ratings = {p.id: p.standing(PV).glicko.rating for p in board}
        assert set(ratings) == {ann, bob}
        second_store = RedisStore.from_url(REDIS_URL, prefix)
        async with running_server(create_app(ranked_config(), second_store)) as again:
            board = await botclient.http_json(f"{again.http_url}/api/leaderboard?provisional=true")
            assert {entry["id"]: entry["rating"] for entry in board["players"]} == ratings


async def queue_on(ws: websockets.ClientConnection, session: ClientSession) -> None:
    """Say hello and queue on an open connection."""
    await ws.send(session.hello())
    await ws.send(session.queue())


async def read_until(
    ws: websockets.ClientConnection, session: ClientSession, done: Callable[[], object]
) -> None:
    """Read the connection until `done()` holds."""
    while not done():
        data = await asyncio.wait_for(ws.recv(), 10 * UNIT)
        assert isinstance(data, bytes)
        session.receive(data, time.monotonic())


async def read_until_session(
    ws: websockets.ClientConnection, session: ClientSession, done: Callable[[ClientSession], object]
) -> None:
    """Read the connection until `done(session)` holds (a test made in a loop need not bind the session)."""
    await read_until(ws, session, lambda: done(session))


async def test_a_dodge_costs_the_cooldown(start_server: StartServer) -> None:
    """Paired, ann joins and bob never does: the match is cancelled and only bob is refused the queue."""
    store = MemoryStore()
    server = await start_server(ranked_config(), store)
    (ann, ann_token), (bob, bob_token) = await two_guests(server)
    node: Node = server.app.state.node
    ann_session, bob_session = ClientSession(ann_token), ClientSession(bob_token)
    async with websockets.connect(server.ws_url) as ann_ws, websockets.connect(server.ws_url) as bob_ws:
        await queue_on(ann_ws, ann_session)
        await queue_on(bob_ws, bob_session)
        await read_until(ann_ws, ann_session, lambda: ann_session.matched is not None)
        await read_until(bob_ws, bob_session, lambda: bob_session.matched is not None)
        assert ann_session.matched is not None
        match_id = ann_session.matched.match
        await ann_ws.send(ann_session.join(match_id))
        await read_until(ann_ws, ann_session, lambda: ann_session.over is not None)
        assert ann_session.over is not None and ann_session.over.result is None
    await until(lambda: not node.background, 10 * UNIT, "the cancelled match settled")
    dodger, stayer = await store.players.get_player(bob), await store.players.get_player(ann)
    assert dodger is not None
    standing = dodger.standing(PV)
    assert dodger.cooldown_until > node.clock.wall() + 30 and standing.played == 0
    assert stayer is None or stayer.cooldown_until == 0.0
    assert await store.ranked.pending_ranked(10) == []
    for token, refused in ((bob_token, True), (ann_token, False)):
        session = ClientSession(token)
        async with websockets.connect(server.ws_url) as ws:
            await queue_on(ws, session)
            await read_until_session(ws, session, lambda s: s.errors or s.queued)
        assert ([e.code for e in session.errors] == ["cooldown"]) == refused
        assert (session.queued is not None) != refused


async def test_a_socket_closed_while_waiting_just_leaves_the_queue(start_server: StartServer) -> None:
    """A guest alone in the queue closes its socket: it is out of the queue (here and in the store),
    at no cost, and may queue again at once; `unqueue` answers `unqueued`."""
    store = MemoryStore()
    server = await start_server(ranked_config(), store)
    (ann, ann_token), _ = await two_guests(server)
    node: Node = server.app.state.node
    session = ClientSession(ann_token)
    async with websockets.connect(server.ws_url) as ws:
        await queue_on(ws, session)
        await read_until(ws, session, lambda: session.queued is not None)
        assert node.ranked.waiting() == 1
    await until(lambda: node.ranked.waiting() == 0 and not node.background, 10 * UNIT, "the queue emptied")
    # not held there any more
    assert await store.limits.add_member(QUEUE_KEY, ann, 10, 60.0, node.clock.wall())
    await store.limits.remove_member(QUEUE_KEY, ann)
    again = ClientSession(ann_token)
    async with websockets.connect(server.ws_url) as ws:
        await queue_on(ws, again)
        await read_until(ws, again, lambda: again.queued is not None)
        await ws.send(again.unqueue())
        await read_until(ws, again, lambda: again.unqueued is not None)
    assert again.unqueued is not None and again.unqueued.reason == "asked" and not again.errors
    assert (await store.players.get_player(ann)) is None


async def test_matched_states_the_abort_rule_and_the_provisional_mark(start_server: StartServer) -> None:
    """`matched` tells each player its opponent's provisional mark and this server's abort rule: the
    minimum of play (`ranked_min_play_seconds`) and the cooldown an abort costs (`ranked_dodge_cooldown`),
    the numbers the browser's card states before the match."""
    server = await start_server(ranked_config(ranked_min_play_seconds=7.0, ranked_dodge_cooldown=90.0))
    (_, ann_token), (_, bob_token) = await two_guests(server)
    ann_session, bob_session = ClientSession(ann_token), ClientSession(bob_token)
    async with websockets.connect(server.ws_url) as ann_ws, websockets.connect(server.ws_url) as bob_ws:
        await queue_on(ann_ws, ann_session)
        await queue_on(bob_ws, bob_session)
        await read_until(ann_ws, ann_session, lambda: ann_session.matched is not None)
        await read_until(bob_ws, bob_session, lambda: bob_session.matched is not None)
    for matched in (ann_session.matched, bob_session.matched):
        assert matched is not None
        assert (matched.opponent_provisional, matched.min_play, matched.abort_cooldown) == (True, 7.0, 90.0)
