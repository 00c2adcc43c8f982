"""What a client shows around the board: each seat's connection (lag, the grace countdown of a dropped
seat) and the spectators in `status`; a ranked match's spectators following it late; the origin
check the page asks first; the websocket URL naming its match."""

from __future__ import annotations

import argparse
import time

import httpx
import pytest
import websockets

from protocol.messages import Error, Frame, Joined, Keyframe, Over, ServerMessage, Status
from server.cli import register
from server.node import Node
from tests.server.conftest import StartServer, fast_config
from tests.server.helpers import UNIT, until
from tests.server.peers import Peer
from tests.server.test_abuse_ranked import new_guest
from tests.server.test_match_network import open_room

pytestmark = pytest.mark.asyncio


async def test_status_tells_each_seats_lag_grace_and_the_spectators(start_server: StartServer) -> None:
    """While a room's match runs, `status` comes every status_every seconds with each connected seat's
    measured lag and the spectators; once a player drops, the others see its seat disconnected with
    the whole seconds left of reconnect_grace, counting down."""
    config = fast_config(status_every=0.05, lag_probe_every=0.05, reconnect_grace=30.0)
    server = await start_server(config)
    node: Node = server.app.state.node
    match_id, first_token, second_token = await open_room(server)
    first = await Peer.open(server.ws_url, first_token)
    second = await Peer.open(server.ws_url, second_token)
    watcher = await Peer.open(server.ws_url, None, play=False)
    await first.send(first.session.join(match_id))
    await second.send(second.session.join(match_id))
    await watcher.send(watcher.session.watch(match_id))
    await until(lambda: bool(watcher.of(Joined)), 10 * UNIT, "the spectator joined")
    assert watcher.of(Joined)[0].spectators == 1 and watcher.of(Joined)[0].delay == 0.0
    welcome = first.session.welcome
    assert welcome is not None and welcome.reconnect_grace == 30.0
    assert welcome.rematch_offer_seconds == config.lobby.rematch_offer_seconds

    def measured(status: Status) -> bool:
        return all(lag is not None and lag >= 0 for lag in status.lag) and status.spectators == 1

    await until(lambda: any(measured(s) for s in first.of(Status)), 20 * UNIT, "both seats' lag measured")
    live = node.hub.matches[match_id]
    sessions = [seat.connection for seat in live.seats]
    shown = next(s for s in first.of(Status) if measured(s))
    assert shown.grace == [None, None] and shown.connected == [True, True]
    assert all(0 <= lag <= 9999 for lag in shown.lag if lag is not None)
    assert sessions[0] is not None and sessions[0].lag_ms is not None
    await second.close()

    def dropped(status: Status) -> bool:
        return status.connected == [True, False] and status.grace[1] is not None

    await until(lambda: sum(dropped(s) for s in first.of(Status)) >= 2, 20 * UNIT, "the drop shown twice")
    countdown = [s for s in first.of(Status) if dropped(s)]
    assert all(s.lag[1] is None and s.grace[0] is None for s in countdown)
    assert all(1 <= (s.grace[1] or 0) <= 30 for s in countdown)
    assert countdown[-1].grace[1] <= countdown[0].grace[1]  # type: ignore[operator]
    seat = live.seats[1]
    assert seat.dropped_at is not None
    now = node.hub.now()
    assert live.status_message(now).grace[1] == pytest.approx(30 - (now - seat.dropped_at), abs=1)
    for peer in (first, watcher):
        await peer.close()


async def test_a_ranked_matchs_spectators_follow_it_late(start_server: StartServer) -> None:
    """A ranked match's spectators get the confirmed stream ranked_spectator_delay seconds late (no record
    before it has been held that long, their `over` that long after the end, every frame and no gap);
    other matches' spectators get it at once."""
    delay = 1.0
    config = fast_config(ranked_spectator_delay=delay, ranked_min_play_seconds=0.0).with_time_limit(2)
    server = await start_server(config)
    node: Node = server.app.state.node
    tokens = [(await new_guest(server, name))[1] for name in ("ann", "bob")]
    guests = [node.signer.verify(token, node.clock.wall()) for token in tokens]
    live = node.hub.create_ranked_match(guests[0], guests[1], "ranked-1", ("127.0.0.1", "127.0.0.1"))
    watcher = await Peer.open(server.ws_url, None, play=False)
    await watcher.send(watcher.session.watch(live.id))
    await until(lambda: bool(watcher.of(Joined)), 10 * UNIT, "the spectator joined")
    assert watcher.of(Joined)[0].delay == delay
    arrivals: list[tuple[float, object]] = []
    watcher_read = watcher.session.receive

    def timed(data: bytes, now: float) -> list[ServerMessage]:
        messages = watcher_read(data, now)
        arrivals.extend((time.monotonic(), m) for m in messages)
        return messages

    watcher.session.receive = timed  # type: ignore[method-assign]
    players = [await Peer.open(server.ws_url, token) for token in tokens]
    for player in players:
        await player.send(player.session.join(live.id))
    await until(lambda: live.started_at is not None, 10 * UNIT, "the match started")
    await until(lambda: bool(watcher.of(Over)), 60 * UNIT, "the spectator told the end")
    assert live.started_at is not None and live.ended_at is not None
    first_record = next(at for at, m in arrivals if isinstance(m, Frame | Keyframe))
    over_at = next(at for at, m in arrivals if isinstance(m, Over))
    assert first_record - live.started_at >= delay and over_at - live.ended_at >= delay
    frames = [m.frame for m in watcher.of(Frame)]
    assert frames == list(range(len(frames))) and watcher.session.gaps == 0
    assert watcher.of(Over)[0].result == live.result
    duel = node.hub.create_bot_duel("lazy", "lazy")
    assert duel.spectator_delay == 0 and duel.joined_message("spectator", None).delay == 0
    for peer in (*players, watcher):
        await peer.close()


async def test_the_page_asks_whether_its_origin_may_open_the_websocket(start_server: StartServer) -> None:
    """GET /api/origin answers whether the request's Origin is in the websocket's allow-list, with the
    list and a reason naming FLOE_ORIGINS when it is not; the handshake agrees; `floe serve --help`
    names FLOE_ORIGINS."""
    server = await start_server(fast_config(allowed_origins=("http://localhost:8000",)))
    async with httpx.AsyncClient(base_url=server.http_url, timeout=10 * UNIT) as http:
        refused = (await http.get("/api/origin", headers={"Origin": "http://proxy.example"})).json()
        allowed = (await http.get("/api/origin", headers={"Origin": "http://localhost:8000"})).json()
        none = (await http.get("/api/origin")).json()
    assert refused["allowed"] is False and "FLOE_ORIGINS" in refused["reason"]
    assert refused["origins"] == ["http://localhost:8000"] and refused["origin"] == "http://proxy.example"
    assert allowed["allowed"] is True and none["allowed"] is True and none["origin"] is None
    with pytest.raises(websockets.InvalidStatus) as handshake:
        await websockets.connect(server.ws_url, origin="http://proxy.example", proxy=None)  # type: ignore[arg-type]
    assert handshake.value.response.status_code == 403
    parser = argparse.ArgumentParser(prog="floe")
    serve = register(parser.add_subparsers())
    assert "FLOE_ORIGINS" in serve.format_help()


async def test_the_websocket_url_names_its_match(start_server: StartServer) -> None:
    """`/ws?match=<id>` is accepted and pins the connection: joining that match works, another is
    refused `wrong-match` (and the connection lives on); a malformed `match` query is refused at the
    handshake with 400; a URL without it follows any match."""
    server = await start_server()
    match_id, first_token, _ = await open_room(server)
    pinned = await Peer.open(f"{server.ws_url}?match={match_id}", first_token, play=False)
    await pinned.send(pinned.session.join("another-match"))
    await until(lambda: bool(pinned.of(Error)), 10 * UNIT, "the other match refused")
    assert pinned.of(Error)[0].code == "wrong-match" and pinned.of(Error)[0].ref == "join"
    await pinned.send(pinned.session.watch("another-match"))
    await pinned.send(pinned.session.join(match_id))
    await until(lambda: bool(pinned.of(Joined)), 10 * UNIT, "the named match joined")
    assert [e.code for e in pinned.of(Error)] == ["wrong-match", "wrong-match"]
    for query in ("?match=", f"?match={match_id}&match={match_id}", "?match=" + "x" * 65):
        with pytest.raises(websockets.InvalidStatus) as handshake:
            await websockets.connect(server.ws_url + query, proxy=None)
        assert handshake.value.response.status_code == 400, query
    free = await Peer.open(f"{server.ws_url}?v=2", None, play=False)
    await free.send(free.session.watch(match_id))
    await until(lambda: bool(free.of(Joined)), 10 * UNIT, "any match watched")
    for peer in (pinned, free):
        await peer.close()
