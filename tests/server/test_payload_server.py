"""Payload through the same server as Pengo: the ruleset is the match's, named by its room or bot match.

The node's default ruleset stays pengo-versus (the tests' config); a room or a bot match that names
`payload-versus` plays Payload versus through the same lobby, streams, records and replays, and its
record and the listings name it. A match that names none is pengo-versus, as before.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
from typing import Any

import pytest

from protocol.codec import decode_server_messages
from protocol.messages import Frame, Joined, Over, RematchOffer, RematchReady
from protocol.replay_codec import encode_replay
from rules import registry
from rules.payload.ruleset import PAYLOAD_VERSUS
from rules.replay import Replay, verify
from rules.ruleset import seat_seed
from server import botclient
from server.config import ServerConfig
from server.embed import RunningServer
from server.errors import ServerError
from server.store.base import MatchRecord
from tests.server.conftest import TEST_FRAME_RATE, StartServer, fast_config
from tests.server.helpers import UNIT, plain, replay_log, until, until_awaited
from tests.server.test_match_network import fetch_replay
from tests.server.test_rematch import both_told, played_to_the_end
from tests.toy.ruleset import RaceRuleset


async def stored_record(server: RunningServer, match_id: str) -> MatchRecord:
    """The finished match's record, once the store has it."""
    stores = server.app.state.node.stores
    found: list[MatchRecord] = []

    async def written() -> bool:
        record = await stores.matches.get_match(match_id)
        if record is not None:
            found.append(record)
        return record is not None

    await until_awaited(written, 30 * UNIT, f"the record of {match_id}")
    return found[0]


async def verified_by_server(server: RunningServer, replay: Replay) -> dict[str, Any]:
    """POST /api/replays/verify's answer for the replay."""
    status, body = await botclient.http_bytes(f"{server.http_url}/api/replays/verify", "POST",
                                              encode_replay(replay))
    assert status == 200, body
    answer: dict[str, Any] = json.loads(body)
    return answer


@pytest.mark.asyncio
async def test_a_payload_versus_room_plays_to_a_record_that_names_it(start_server: StartServer) -> None:
    """A room made with `ruleset: payload-versus` on a pengo-versus node: two client bots play it over the
    websocket, a spectator follows it, its record and live entry name payload-versus, its replay
    verifies locally and on the server, and its replay stream is the spectator's."""
    server = await start_server(fast_config())
    node = server.app.state.node
    _, first = await botclient.new_guest(server.http_url, "ann")
    _, second = await botclient.new_guest(server.http_url, "bob")
    room = await botclient.http_json(f"{server.http_url}/api/rooms", "POST",
                                     {"ruleset": "payload-versus", "minutes": 1}, first)
    assert room["ruleset"] == "payload-versus" and room["seats"] == 2
    match_id = room["match"]
    live = node.hub.matches[match_id]
    assert live.config.ruleset.name == "payload-versus" and live.summary()["ruleset"] == "payload-versus"
    assert live.config.ruleset.frame_hz * 60 == live.config.match_config.time_limit_frames  # its 1 minute
    await botclient.http_json(f"{server.http_url}/api/rooms/join", "POST", {"invite": room["invite"]}, second)
    watcher = asyncio.create_task(botclient.watch(server.ws_url, match_id))
    runs = await asyncio.wait_for(asyncio.gather(
        botclient.play(server.ws_url, first, match_id, "competent", seed=1),
        botclient.play(server.ws_url, second, match_id, "lazy", seed=2)), 60 * UNIT)
    spectator = await asyncio.wait_for(watcher, 30 * UNIT)

    replay = await fetch_replay(server, match_id)
    assert (replay.ruleset, replay.ruleset_version) == ("payload-versus", 1)
    assert replay.result.reason in ("finished", "out", "time")
    verdict = verify(replay)
    assert verdict.ok, verdict.reason
    answer = await verified_by_server(server, replay)
    assert answer["ok"] is True and answer["log_hash"] == replay.log_hash
    for run in runs:
        assert run.mirror is not None and run.mirror.mismatches == 0
        assert 0 < run.mirror.match.frame <= replay.final_frame, (run.mirror.match.frame, replay.final_frame)
    assert spectator.joined is not None and spectator.joined.ruleset == "payload-versus"
    assert {f: spectator.frames[f]["events"] for f in sorted(spectator.frames)} == plain(replay_log(replay))

    record = await stored_record(server, match_id)
    assert record.ruleset == "payload-versus" and record.private and record.frames == replay.final_frame
    assert MatchRecord.from_plain(record.plain()).ruleset == "payload-versus"

    status, body = await botclient.http_bytes(f"{server.http_url}/api/replays/{match_id}/stream")
    assert status == 200
    joined, *stream, over = decode_server_messages(body, max_bytes=len(body))
    assert isinstance(joined, Joined) and joined.ruleset == "payload-versus"
    assert isinstance(over, Over) and over.result == replay.result.plain()
    frames = {m.frame: m.events for m in stream if isinstance(m, Frame)}
    assert frames == {f: spectator.frames[f]["events"] for f in sorted(spectator.frames)}


@pytest.mark.asyncio
async def test_a_payload_bot_match_and_a_pengo_one_side_by_side(start_server: StartServer) -> None:
    """On one node, a bot match that names payload-versus plays Payload against the server's bot and one
    that names no ruleset plays pengo-versus as before; each record, listing and replay names its own,
    and both replays verify."""
    server = await start_server(fast_config())
    url = f"{server.http_url}/api/bot-matches"
    _, payload_player = await botclient.new_guest(server.http_url, "cy")
    _, pengo_player = await botclient.new_guest(server.http_url, "di")
    payload = await botclient.http_json(url, "POST", {"bot": "competent", "ruleset": "payload-versus"},
                                        payload_player)
    pengo = await botclient.http_json(url, "POST", {"bot": "lazy"}, pengo_player)
    assert payload["ruleset"] == "payload-versus" and pengo["ruleset"] == "pengo-versus"
    listed = {entry["id"]: entry["ruleset"]
              for entry in (await botclient.http_json(f"{server.http_url}/api/matches"))["matches"]}
    runs = await asyncio.wait_for(asyncio.gather(
        botclient.play(server.ws_url, payload_player, payload["match"], "lazy", seed=4),
        botclient.play(server.ws_url, pengo_player, pengo["match"], "lazy", seed=5)), 60 * UNIT)
    assert all(run.mirror is not None and run.mirror.mismatches == 0 for run in runs)
    assert set(listed.values()) <= {"payload-versus", "pengo-versus"}

    for created, name in ((payload, "payload-versus"), (pengo, "pengo-versus")):
        replay = await fetch_replay(server, created["match"])
        assert replay.ruleset == name
        verdict = verify(replay)
        assert verdict.ok, verdict.reason
        record = await stored_record(server, created["match"])
        assert record.ruleset == name and record.replay == created["match"]
        shown = await botclient.http_json(f"{server.http_url}/api/matches/{created['match']}")
        assert shown["ruleset"] == name
    recent = (await botclient.http_json(f"{server.http_url}/api/replays"))["replays"]
    by_id = {entry["id"]: entry["ruleset"] for entry in recent}
    assert by_id[payload["match"]] == "payload-versus" and by_id[pengo["match"]] == "pengo-versus"


@pytest.mark.asyncio
async def test_a_room_or_bot_match_of_a_ruleset_it_cannot_play_is_refused(start_server: StartServer) -> None:
    """422 for an unknown ruleset, a one-seat ruleset as a room or bot match, a seat count the ruleset
    does not play, and a bot the named ruleset does not have; nothing is made."""
    server = await start_server(fast_config())
    node = server.app.state.node
    _, token = await botclient.new_guest(server.http_url, "eve")
    refused: list[tuple[str, dict[str, Any], str]] = [
        ("rooms", {"ruleset": "chess"}, "unknown ruleset"),
        ("rooms", {"ruleset": "payload", "seats": 2}, "has 1 seats"),
        ("rooms", {"ruleset": "payload-versus", "seats": 3}, "has 2 seats"),
        ("bot-matches", {"bot": "competent", "ruleset": "pengo-solo"}, "has 1 seats"),
        ("bot-matches", {"bot": "random", "ruleset": "payload-versus"}, "bot must be one of"),
    ]
    for route, body, why in refused:
        with pytest.raises(urllib.error.HTTPError) as error:
            await botclient.http_json(f"{server.http_url}/api/{route}", "POST", body, token)
        assert error.value.code == 422, (route, body)
        assert why in error.value.read().decode(), (route, body)
    assert not node.hub.matches


@pytest.mark.asyncio
async def test_a_payload_bot_duel_on_the_server(start_server: StartServer) -> None:
    """The hub's bot duel takes a ruleset too: two server bots play Payload versus to a verified replay
    whose result is the one a straight run of the same bots gives."""
    server = await start_server(fast_config())
    node = server.app.state.node
    live = node.hub.create_bot_duel("competent", "lazy", "payload-versus")
    assert live.config.ruleset.name == "payload-versus"
    replay = await fetch_replay(server, live.id)
    verdict = verify(replay)
    assert verdict.ok, verdict.reason
    assert replay.ruleset == "payload-versus"
    straight = PAYLOAD_VERSUS.new_match(PAYLOAD_VERSUS.config_from_plain(replay.config), replay.seed,
                                        replay.seats)
    bots = [PAYLOAD_VERSUS.make_bot(name, seat_seed(replay.seed, seat))
            for seat, name in enumerate(("competent", "lazy"))]
    while straight.result is None:
        straight.step([bot.decide(straight.seat_view(seat), straight.frame) for seat, bot in enumerate(bots)])
    assert straight.log_hash == replay.log_hash and straight.result == replay.result
    record = await stored_record(server, live.id)
    assert record.ruleset == "payload-versus" and not record.private


class SlowRace(RaceRuleset):
    """toy-race at 30 frames a second: a ruleset of another pace than the node's loop."""

    name = "toy-slow"
    frame_hz = 30


@pytest.mark.asyncio
async def test_the_frame_rate_is_the_rulesets_unless_the_node_sets_one(start_server: StartServer) -> None:
    """A match's settings take its ruleset's frame rate when the node sets none (`frame_rate` 0), and the
    time limit in its frames; a ruleset of another pace than the node's loop is refused (422)."""
    default = ServerConfig().match
    assert default.frame_rate == 0 and default.pace == default.ruleset.frame_hz == 60
    payload = default.for_ruleset(PAYLOAD_VERSUS).with_time_limit(2)
    assert payload.pace == 60 and payload.match_config.time_limit_frames == 2 * PAYLOAD_VERSUS.frame_hz
    slow = SlowRace()
    registry.register(slow)
    try:
        assert default.for_ruleset(slow).pace == 30
        server = await start_server(fast_config(frame_rate=0))
        hub = server.app.state.node.hub
        assert hub.settings.pace == 60 and hub.settings_for("payload-versus").pace == 60
        with pytest.raises(ServerError) as refused:
            hub.settings_for("toy-slow")
        assert refused.value.status == 422 and "30 frames a second" in refused.value.message
        assert fast_config().match.for_ruleset(slow).pace == TEST_FRAME_RATE  # a node's set rate is kept
    finally:
        registry.unregister(slow)


@pytest.mark.asyncio
async def test_a_payload_rooms_rematch_plays_payload(start_server: StartServer) -> None:
    """The rematch of a payload-versus room is a room of payload-versus too, with the ended match's
    config (its time limit), on a node whose default is pengo-versus."""
    server = await start_server(fast_config())
    node = server.app.state.node
    _, first_token = await botclient.new_guest(server.http_url, "ann")
    _, second_token = await botclient.new_guest(server.http_url, "bob")
    room = await botclient.http_json(f"{server.http_url}/api/rooms", "POST",
                                     {"ruleset": "payload-versus", "minutes": 2}, first_token)
    await botclient.http_json(f"{server.http_url}/api/rooms/join", "POST", {"invite": room["invite"]},
                              second_token)
    first, second = await played_to_the_end(server, room["match"], (first_token, second_token))
    await first.send(first.session.rematch(room["match"]))
    await until(lambda: bool(second.of(RematchOffer)), 10 * UNIT, "the offer")
    await second.send(second.session.answer_rematch(room["match"], accept=True))
    await until(lambda: both_told(first, second), 10 * UNIT, "the rematch")
    old, new = node.hub.matches[room["match"]], node.hub.matches[first.of(RematchReady)[0].rematch]
    assert new.config.ruleset is PAYLOAD_VERSUS and new.config.match_config == old.config.match_config
    assert new.config.match_config.time_limit_frames == 2 * 60 * PAYLOAD_VERSUS.frame_hz
    assert new.summary()["ruleset"] == "payload-versus"
    for peer in (first, second):
        await peer.close()
