"""Ranked Payload versus beside ranked Pengo: one queue and one rating per ruleset.

Two guests queue `payload-versus` and two others queue the node's own ruleset (pengo-versus) at the
same time on one node: each pair is paired within its ruleset, plays it (client bots over real
websockets) and is rated on that ruleset's rating only; a payload-versus player's earlier
pengo-versus rating does not move, and each ruleset's leaderboard lists its own players.
"""

from __future__ import annotations

import asyncio
import urllib.error

import pytest
import websockets

from protocol.client import ClientSession
from protocol.errors import ErrorCode
from server import botclient
from server.node import Node
from server.store.memory import MemoryStore
from server.store.players import LEGACY_RULESET, Glicko, PlayerRecord, Standing
from tests.server.conftest import StartServer
from tests.server.helpers import UNIT
from tests.server.test_ranked import a_store, ranked_config

pytestmark = pytest.mark.asyncio

PAYLOAD_VERSUS = "payload-versus"
#: ann's pengo-versus rating before she plays Payload ranked (settled: RD below the provisional bound).
ANN_PENGO = Standing(Glicko(1712.0, 80.0, 0.06), wins=7, losses=3)


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_payload_versus_ranked_rates_payload_only_beside_a_pengo_queue(
    start_server: StartServer, kind: str
) -> None:
    """ann and bob queue payload-versus while cat and dan queue pengo-versus: two matches, one of each
    ruleset, each pair with its own; the payload-versus pair's `rated` and records move their
    payload-versus ratings only (ann's pengo-versus standing is as it was), the pengo pair's their
    pengo-versus ones; each ruleset's leaderboard and the player pages say so."""
    async with a_store(kind) as store:
        server = await start_server(ranked_config(), store)
        node: Node = server.app.state.node
        guests = [await botclient.new_guest(server.http_url, name) for name in ("ann", "bob", "cat", "dan")]
        (ann, ann_token), (bob, bob_token), (cat, cat_token), (dan, dan_token) = guests
        ann_before = PlayerRecord(ann, "ann", {LEGACY_RULESET: ANN_PENGO})
        await store.players.update_player(ann, lambda held: ann_before)

        def play(token: str, bot: str, seed: int, ruleset: str | None) -> asyncio.Task[botclient.BotRun]:
            return asyncio.create_task(botclient.play(server.ws_url, token, None, bot, seed=seed,
                                                      until_rated=True, queue_ruleset=ruleset))

        runs = await asyncio.wait_for(asyncio.gather(
            play(ann_token, "competent", 1, PAYLOAD_VERSUS), play(cat_token, "competent", 3, None),
            play(bob_token, "lazy", 2, PAYLOAD_VERSUS), play(dan_token, "lazy", 4, None)), 90 * UNIT)
        ann_run, cat_run, bob_run, dan_run = runs
        payload_match, pengo_match = ann_run.session.matched, cat_run.session.matched
        assert payload_match is not None and pengo_match is not None
        assert bob_run.session.matched is not None and bob_run.session.matched.match == payload_match.match
        assert dan_run.session.matched is not None and dan_run.session.matched.match == pengo_match.match
        assert payload_match.ruleset == PAYLOAD_VERSUS and pengo_match.ruleset == LEGACY_RULESET
        assert payload_match.opponent == "bob" and pengo_match.opponent == "dan"
        assert ann_run.session.queued is not None and ann_run.session.queued.ruleset == PAYLOAD_VERSUS
        assert ann_run.session.queued.rating == 1500.0  # her payload-versus rating, not her pengo one

        payload_record = await store.matches.get_match(payload_match.match)
        pengo_record = await store.matches.get_match(pengo_match.match)
        assert payload_record is not None and payload_record.ranked
        assert payload_record.ruleset == PAYLOAD_VERSUS
        assert pengo_record is not None and pengo_record.ranked and pengo_record.ruleset == LEGACY_RULESET
        for run, match_id, ruleset in ((ann_run, payload_match.match, PAYLOAD_VERSUS),
                                       (bob_run, payload_match.match, PAYLOAD_VERSUS),
                                       (cat_run, pengo_match.match, LEGACY_RULESET),
                                       (dan_run, pengo_match.match, LEGACY_RULESET)):
            assert [(r.match, r.ruleset, r.games) for r in run.session.rated] == [(match_id, ruleset, 1)]

        outcomes = payload_record.result["outcomes"] if payload_record.result else []
        records = {guest: await store.players.get_player(guest) for guest in (ann, bob, cat, dan)}
        for guest in (ann, bob):
            record = records[guest]
            assert record is not None and record.standing(PAYLOAD_VERSUS).played == 1
            assert record.standing(PAYLOAD_VERSUS).games[0].match == payload_match.match
        for guest in (cat, dan):
            record = records[guest]
            assert record is not None and record.standing(LEGACY_RULESET).played == 1
            assert set(record.ratings) == {LEGACY_RULESET}
        ann_record, bob_record = records[ann], records[bob]
        assert ann_record is not None and bob_record is not None
        assert ann_record.standing(LEGACY_RULESET) == ANN_PENGO  # untouched by the payload-versus match
        assert set(bob_record.ratings) == {PAYLOAD_VERSUS}
        ann_payload = ann_record.standing(PAYLOAD_VERSUS).glicko.rating
        if "drawn" not in outcomes:
            assert (ann_payload > 1500.0) == (outcomes[0] == "won")
        assert ann_run.session.rated[0].rating == ann_payload
        assert node.ranked.applied == 4

        payload_board = await botclient.http_json(
            f"{server.http_url}/api/leaderboard?ruleset={PAYLOAD_VERSUS}&provisional=true")
        assert payload_board["ruleset"] == PAYLOAD_VERSUS
        assert {entry["id"] for entry in payload_board["players"]} == {ann, bob}
        pengo_board = await botclient.http_json(f"{server.http_url}/api/leaderboard?provisional=true")
        assert pengo_board["ruleset"] == LEGACY_RULESET
        assert {entry["id"] for entry in pengo_board["players"]} == {cat, dan}
        settled = await botclient.http_json(f"{server.http_url}/api/leaderboard")
        assert [(entry["id"], entry["rating"]) for entry in settled["players"]] == [(ann, 1712.0)]
        page = await botclient.http_json(f"{server.http_url}/api/players/{ann}?ruleset={PAYLOAD_VERSUS}")
        assert page["ruleset"] == PAYLOAD_VERSUS and page["rating"] == ann_payload and page["games"] == 1
        assert page["ratings"][LEGACY_RULESET]["rating"] == 1712.0
        assert page["ratings"][PAYLOAD_VERSUS]["recent"][0]["match"] == payload_match.match
        default_page = await botclient.http_json(f"{server.http_url}/api/players/{ann}")
        assert default_page["ruleset"] == LEGACY_RULESET and default_page["rating"] == 1712.0


async def test_a_queue_of_a_ruleset_unfit_for_ranked_is_refused(start_server: StartServer) -> None:
    """`queue` naming an unknown ruleset, or a one-seat one (payload), is refused `malformed` and the
    guest waits nowhere; the leaderboard of an unknown ruleset is 404."""
    server = await start_server(ranked_config(), MemoryStore())
    node: Node = server.app.state.node
    _, token = await botclient.new_guest(server.http_url, "ann")
    for ruleset in ("no-such-game", "payload"):
        session = ClientSession(token)
        async with websockets.connect(server.ws_url, proxy=None) as ws:
            await ws.send(session.hello())
            await ws.send(session.queue(ruleset))
            while not session.errors:
                data = await asyncio.wait_for(ws.recv(), 10 * UNIT)
                assert isinstance(data, bytes)
                session.receive(data, 0.0)
        assert session.errors[-1].code == ErrorCode.MALFORMED.value and session.errors[-1].ref == "queue"
        assert session.queued is None and node.ranked.waiting() == 0
    with pytest.raises(urllib.error.HTTPError) as missing:
        await botclient.http_json(f"{server.http_url}/api/leaderboard?ruleset=no-such-game")
    assert missing.value.code == 404
