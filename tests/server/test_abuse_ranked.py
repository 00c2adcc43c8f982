"""Ranked play cannot be gamed (issue 18): no rating from a forfeit before the minimum of play, the
dodge cooldown on the dodger only and no endless dodge loop against one player, the queue open again
on the same connection after `over`, and token renewals that revoke and are bounded per address.

As in tests/server/test_abuse.py, the attacker speaks from 127.0.0.2 while a bystander's match runs
on the same server; each test asserts the bound's answer and prints the bystander's lateness.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest
import websockets

from protocol.client import ClientSession
from protocol.codec import encode
from protocol.messages import Error, Hello, MatchState, Ping, Pong
from protocol.version import PROTOCOL_VERSION
from server.config import ServerConfig
from server.embed import RunningServer
from server.match.ratings import START, dodge_cooldown, with_dodge
from server.node import Node
from server.store.base import Stores
from server.store.players import LEGACY_RULESET
from server.tokens import Guest
from tests.server.bystander import bystander_match
from tests.server.conftest import StartServer
from tests.server.helpers import UNIT, until
from tests.server.test_abuse import ATTACKER, abuse_config, attacker
from tests.server.test_ranked import a_store, queue_on, read_until, read_until_session
from tests.server.test_session import make

#: The ruleset these ranked matches play (the node's default).
PV = LEGACY_RULESET

pytestmark = pytest.mark.asyncio

STORES = ("memory", "redis")


def ranked_abuse_config(**overrides: object) -> ServerConfig:
    """The default limits, with a short join timeout and frequent pairing (the defaults otherwise:
    a rated result needs 10 s of frames, more than these 8-second matches run, unless overridden)."""
    config = abuse_config(ranked_join_timeout=0.5, ranked_pair_every=0.05)
    return config.override(**overrides)


@asynccontextmanager
async def ranked_server(
    start_server: StartServer, kind: str, config: ServerConfig
) -> AsyncIterator[RunningServer]:
    """A server on a fresh store of `kind` with a bystander's match (two server bots) running; prints
    the bystander's lateness at the end."""
    async with a_store(kind) as store:
        server = await start_server(config, store)
        async with bystander_match(server):
            yield server


def connect(server: RunningServer, address: str = "127.0.0.1") -> websockets.connect:
    """A websocket to the server from `address`."""
    return websockets.connect(server.ws_url, compression=None, proxy=None, local_addr=(address, 0))


async def new_guest(server: RunningServer, name: str, address: str = "127.0.0.1") -> tuple[str, str]:
    """(id, token) of a new guest made from `address`."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=server.http_url, transport=transport, timeout=30 * UNIT) as http:
        answer = await http.post("/api/guests", json={"name": name})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    return body["guest"], body["token"]


def bearer(token: str) -> dict[str, str]:
    """A request's Authorization header for `token`."""
    return {"Authorization": f"Bearer {token}"}


def a_move(node: Node) -> int:
    """An input byte of the server's ruleset other than neutral (and not the forfeit byte)."""
    inputs = node.config.match.ruleset.inputs
    return next(value for value in range(1, 256) if inputs.is_valid(value) and value != inputs.forfeit)


async def read_playing(ws: websockets.ClientConnection, session: ClientSession, done: Callable[[], object],
                       value: int) -> None:
    """Read the connection until `done()` holds, holding `value` as the seat's input meanwhile (so the
    server knows this seat's inputs and confirms frames without waiting for them)."""
    while not done():
        data = await asyncio.wait_for(ws.recv(), 10 * UNIT)
        assert isinstance(data, bytes)
        now = time.monotonic()
        session.receive(data, now)
        for message in session.input(value, now):
            await ws.send(message)


async def settled(node: Node) -> None:
    """Wait for the matches' store writes (records, ratings, cooldowns) to be done."""
    await until(lambda: not node.background, 10 * UNIT, "the store writes done")


async def test_a_forfeit_at_once_from_alternate_guests_gives_no_rating(start_server: StartServer) -> None:
    """A farmer is paired twice with its own fresh guests, each of which leaves at once: every match is
    aborted (cancelled, recorded as aborted), the farmer's rating does not move, and each alternate
    guest, who left, pays the cooldown (and the queue pairs the farmer with that address no more)."""
    async with ranked_server(start_server, "memory", ranked_abuse_config()) as server:
        node: Node = server.app.state.node
        store: Stores = node.stores
        farmer, farmer_token = await new_guest(server, "farmer", ATTACKER)
        alts = [await new_guest(server, f"alt{index}", ATTACKER) for index in range(2)]
        for _, alt_token in alts:
            me, alt = ClientSession(farmer_token), ClientSession(alt_token)
            async with connect(server, ATTACKER) as me_ws, connect(server, ATTACKER) as alt_ws:
                await queue_on(me_ws, me)
                await queue_on(alt_ws, alt)
                await read_until_session(me_ws, me, lambda s: s.matched)
                await read_until_session(alt_ws, alt, lambda s: s.matched)
                assert me.matched is not None
                match_id = me.matched.match
                await me_ws.send(me.join(match_id))
                await alt_ws.send(alt.join(match_id))
                await read_until_session(alt_ws, alt, lambda s: s.frames)
                await alt_ws.send(alt.leave())
                await read_until_session(me_ws, me, lambda s: s.over)
                assert me.over is not None and me.over.result is None and me.over.replay is None
            await settled(node)
            record = await store.matches.get_match(match_id)
            assert record is not None and record.aborted and record.outcome is MatchState.CANCELLED
        player = await store.players.get_player(farmer)
        rating = player.standing(PV).glicko.rating if player else START.rating
        print(f"farmer's rating after 2 forfeits: {rating}")
        assert player is None or (player.standing(PV).played == 0 and player.standing(PV).glicko == START)
        assert player is None or player.cooldown_until == 0
        for alt_id, _ in alts:
            dodger = await store.players.get_player(alt_id)
            assert dodger is not None
            standing = dodger.standing(PV)
            assert standing.played == 0 and dodger.cooldown_until > node.clock.wall()
        assert node.ranked.applied == 0


async def test_a_match_played_past_the_minimum_is_rated_once(start_server: StartServer) -> None:
    """Both players move and the match runs past the minimum of play before one leaves: the forfeit is
    rated, once (a retry changes nothing), the leaver pays no cooldown, and the winner queues again on
    `over` at once on the same connection, where its `rated` still arrives."""
    config = ranked_abuse_config(ranked_min_play_seconds=0.5)
    async with ranked_server(start_server, "memory", config) as server:
        node: Node = server.app.state.node
        store: Stores = node.stores
        (ann, ann_token), (bob, bob_token) = await new_guest(server, "ann"), await new_guest(server, "bob")
        sessions = ClientSession(ann_token), ClientSession(bob_token)
        async with connect(server) as ann_ws, connect(server) as bob_ws:
            pairs = list(zip((ann_ws, bob_ws), sessions, strict=True))
            for ws, session in pairs:
                await queue_on(ws, session)
            for ws, session in pairs:
                await read_until_session(ws, session, lambda s: s.matched)
                assert session.matched is not None
                await ws.send(session.join(session.matched.match))
            ann_matched = sessions[0].matched
            assert ann_matched is not None
            match_id = ann_matched.match
            live = node.hub.matches[match_id]
            minimum = config.ranked.ranked_min_play_seconds * 60
            for ws, session in pairs:
                await read_playing(ws, session, lambda s=session: len(s.frames) > 2, a_move(node))  # type: ignore[misc]
            await read_playing(ann_ws, sessions[0], lambda: len(live.played) == 2 and live.runner is not None
                               and live.runner.match.frame >= minimum, 0)
            await bob_ws.send(sessions[1].leave())
            await read_playing(ann_ws, sessions[0], lambda: sessions[0].over, 0)
            over = sessions[0].over
            assert over is not None and over.result is not None
            assert over.result["outcomes"] == ["won", "forfeited"]
            await ann_ws.send(sessions[0].queue())  # at once: `rated` still comes to this connection
            await read_until(ann_ws, sessions[0], lambda: (sessions[0].queued or sessions[0].errors)
                             and sessions[0].rated)
            assert sessions[0].queued is not None and not sessions[0].errors
            assert [rated.match for rated in sessions[0].rated] == [match_id]
        await settled(node)
        record = await store.matches.get_match(match_id)
        assert record is not None and not record.aborted and record.outcome is MatchState.OVER
        before = [await store.players.get_player(ann), await store.players.get_player(bob)]
        winner, loser = before
        assert winner is not None
        standing = winner.standing(PV)
        assert standing.played == 1 and standing.glicko.rating > START.rating
        assert loser is not None and loser.standing(PV).played == 1 and loser.cooldown_until == 0
        await node.ranked.rate(record)  # a retry
        assert [await store.players.get_player(ann), await store.players.get_player(bob)] == before
        assert node.ranked.applied == 2


async def dodged_once(
    server: RunningServer, honest: ClientSession, honest_ws: websockets.ClientConnection, dodger_token: str
) -> str:
    """The honest player (queued on its open connection) is paired with a dodger that never joins;
    it joins and reads on to the cancelled match's `over`. The match id."""
    dodger = ClientSession(dodger_token)
    async with connect(server, ATTACKER) as dodger_ws:
        await queue_on(dodger_ws, dodger)
        await read_until(honest_ws, honest, lambda: honest.matched)
        assert honest.matched is not None
        match_id = honest.matched.match
        await honest_ws.send(honest.join(match_id))
        await read_until(honest_ws, honest, lambda: honest.over)
        assert honest.over is not None and honest.over.result is None
        return match_id


@pytest.mark.parametrize("kind", STORES)
async def test_only_the_dodger_pays_and_a_dodge_loop_stops(start_server: StartServer, kind: str) -> None:
    """Alternate guests from one address dodge an honest player twice: after the first, it queues again at
    once on the same connection; after the second it closes its socket on `over` and still pays nothing,
    each dodger pays the cooldown, and the queue no longer pairs the honest player with that address (a
    third alternate guest waits while another player is paired with it)."""
    async with ranked_server(start_server, kind, ranked_abuse_config()) as server:
        node: Node = server.app.state.node
        store: Stores = node.stores
        honest_id, honest_token = await new_guest(server, "honest")
        dodgers = [await new_guest(server, f"dodger{index}", ATTACKER) for index in range(3)]
        honest = ClientSession(honest_token)
        async with connect(server) as honest_ws:
            await queue_on(honest_ws, honest)
            await read_until(honest_ws, honest, lambda: honest.queued)
            await dodged_once(server, honest, honest_ws, dodgers[0][1])
            honest.queued, honest.matched, honest.over = None, None, None
            await honest_ws.send(honest.queue())  # at once, on the same connection
            await read_until(honest_ws, honest, lambda: honest.queued or honest.errors)
            assert honest.queued is not None and not honest.errors
            await settled(node)
            await dodged_once(server, honest, honest_ws, dodgers[1][1])
        # the socket closed on `over`: the charge is decided already, not read after this close
        await settled(node)
        wall = node.clock.wall()
        player = await store.players.get_player(honest_id)
        assert player is not None and player.cooldown_until == 0 and len(player.dodged_by) == 2
        for dodger_id, _ in dodgers[:2]:
            dodger = await store.players.get_player(dodger_id)
            assert dodger is not None and dodger.cooldown_until > wall
        honest, third = ClientSession(honest_token), ClientSession(dodgers[2][1])
        other = ClientSession((await new_guest(server, "other"))[1])
        async with connect(server) as honest_ws, connect(server, ATTACKER) as third_ws, \
                connect(server) as other_ws:
            await queue_on(honest_ws, honest)
            await read_until(honest_ws, honest, lambda: honest.queued)
            await queue_on(third_ws, third)
            await read_until(third_ws, third, lambda: third.queued)
            await queue_on(other_ws, other)
            await read_until(honest_ws, honest, lambda: honest.matched)
            assert honest.matched is not None and honest.matched.opponent == "other"
            assert dodgers[2][0] in node.ranked._waiting  # the third dodger still waits


async def test_escalating_cooldown_for_a_repeat_dodger() -> None:
    """A guest's cooldown doubles with each dodge within the memory, up to the most; an old dodge is
    forgotten."""
    base, most, memory = 300.0, 3600.0, 86400.0
    player, cooldowns = None, []
    for dodge in range(6):
        now = 1000.0 + dodge
        cooldowns.append(dodge_cooldown(player, base, most, memory, now))
        player = with_dodge(player, "g_d", "d", base, most, memory, now)
        assert player.cooldown_until == now + cooldowns[-1]
    assert cooldowns == [300.0, 600.0, 1200.0, 2400.0, 3600.0, 3600.0]
    assert dodge_cooldown(player, base, most, memory, 1005.0 + memory + 1) == base


@pytest.mark.parametrize("kind", STORES)
async def test_a_renewal_revokes_the_old_token(start_server: StartServer, kind: str) -> None:
    """After a renewal the old token is refused everywhere (renew again, make a room, `hello`), while
    the new one works; the check is made at hello, not per message."""
    async with ranked_server(start_server, kind, ranked_abuse_config()) as server:
        async with attacker(server) as http:
            made = (await http.post("/api/guests", json={"name": "mallory"})).json()
            old = {"Authorization": f"Bearer {made['token']}"}
            renewed = await http.post("/api/guests/renew", headers=old)
            assert renewed.status_code == 200 and renewed.json()["guest"] == made["guest"]
            new = {"Authorization": f"Bearer {renewed.json()['token']}"}
            for path in ("/api/guests/renew", "/api/rooms"):
                refused = await http.post(path, headers=old)
                assert refused.status_code == 401 and refused.json()["code"] == "auth", path
            assert (await http.post("/api/rooms", headers=new)).status_code == 200
        for token, guest in ((made["token"], None), (renewed.json()["token"], made["guest"])):
            session = ClientSession(token)
            async with connect(server, ATTACKER) as ws:
                await ws.send(session.hello())
                await read_until_session(ws, session, lambda s: s.welcome)
            assert session.welcome is not None and session.welcome.guest == guest
            assert [error.code for error in session.errors] == ([] if guest else ["auth"])


async def test_renewals_are_bounded_per_address(start_server: StartServer) -> None:
    """Four guests from one address renew six times each (within each guest's 6 an hour): the address's
    budget of 20 an hour passes 20 and refuses the rest with 429 and Retry-After; another address
    still renews."""
    async with ranked_server(start_server, "memory", ranked_abuse_config()) as server:
        statuses: list[int] = []
        async with attacker(server) as http:
            for index in range(4):
                token = (await http.post("/api/guests", json={"name": f"m{index}"})).json()["token"]
                for _ in range(6):
                    answer = await http.post("/api/guests/renew", headers=bearer(token))
                    statuses.append(answer.status_code)
                    if answer.status_code == 200:
                        token = answer.json()["token"]
                    else:
                        assert answer.json()["code"] == "rate-limited"
                        assert int(answer.headers["retry-after"]) >= 1
        print(f"renewals from one address: {statuses.count(200)} of {len(statuses)} passed")
        assert statuses.count(200) == 20 and statuses.count(429) == 4
        _, token = await new_guest(server, "ann")
        async with httpx.AsyncClient(base_url=server.http_url, timeout=30 * UNIT) as http:
            answer = await http.post("/api/guests/renew", headers=bearer(token))
        assert answer.status_code == 200



async def test_messages_before_welcome_wait_in_a_bounded_backlog() -> None:
    """While hello's token is checked, the messages after it wait (at most hello_backlog; the rest are
    refused `busy`), then are answered in order after `welcome`."""
    node, session, out, clock = make(hello_backlog=4)
    token = node.signer.issue(Guest("g_ann", "ann"), clock.wall())
    session.receive(encode(Hello(version=PROTOCOL_VERSION, token=token)), clock.now)
    for index in range(6):
        session.receive(encode(Ping(id=index, t=0)), clock.now)
    assert out.kinds() == ["error", "error"] and session.held is not None and len(session.held) == 4
    assert {message.code for message in out.messages if isinstance(message, Error)} == {"busy"}
    await until(lambda: session.held is None, 10 * UNIT, "the token checked")
    assert out.kinds()[2:] == ["welcome", "pong", "pong", "pong", "pong"]
    assert [message.id for message in out.messages if isinstance(message, Pong)] == [0, 1, 2, 3]
