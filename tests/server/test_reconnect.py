"""A player who drops and comes back resumes the seat: missed records, or a keyframe past the history."""

from __future__ import annotations

import asyncio
import marshal
from base64 import b64decode

import pytest

from protocol.client import ClientSession
from protocol.codec import decode_server
from protocol.limits import MAX_REPLICA_STATE_BYTES
from protocol.messages import Resync
from rules.replay import verify
from rules.synctest import state_checksum
from rules.versus.inputs import encode_input
from rules.versus.match import VersusMatch
from rules.versus.ruleset import config_from_plain
from server import botclient
from tests.server.conftest import StartServer, fast_config
from tests.server.helpers import UNIT, plain, play_scripted, replay_log, until
from tests.server.test_match_network import fetch_replay, open_room

pytestmark = pytest.mark.asyncio

DIRECTIONS = [encode_input(d) for d in ("left", "down", "right", "up")]


def turning(frame: int) -> int:
    """A new direction every 30 frames."""
    return DIRECTIONS[(frame // 30) % 4]


async def scripted(ws_url: str, session: ClientSession, match_id: str, leave_at: int | None) -> None:
    """Play (a new direction every 30 frames) until the match is over, or drop once past frame `leave_at`."""
    await play_scripted(ws_url, session, match_id, turning, leave_at)


async def test_reconnect_within_history_gets_the_missed_records(start_server: StartServer) -> None:
    """Back after a short drop, a player gets exactly the records it missed and ends with the replay's log."""
    server = await start_server()
    match_id, first, second = await open_room(server)
    bot = asyncio.create_task(botclient.play(server.ws_url, second, match_id, "lazy", seed=9))
    session = ClientSession(first)
    await asyncio.wait_for(scripted(server.ws_url, session, match_id, leave_at=150), 30 * UNIT)
    seen = session.last_n
    live = server.app.state.node.hub.matches[match_id]
    await until(lambda: live.seats[0].connection is None and live.players.head > seen + 5, 10 * UNIT,
                "the drop seen and records missed")
    await asyncio.wait_for(scripted(server.ws_url, session, match_id, leave_at=None), 60 * UNIT)
    await asyncio.wait_for(bot, 30 * UNIT)
    replay = await fetch_replay(server, match_id)
    assert verify(replay).ok
    assert session.gaps == 0 and session.resyncs == [] and session.last_n > seen
    expected = replay_log(replay)
    assert {f: session.frames[f]["events"] for f in sorted(session.frames)} == plain(expected)


async def test_reconnect_past_the_history_resyncs_from_a_keyframe(start_server: StartServer) -> None:
    """Back after a drop longer than the history, a player gets a resync with the right keyframe checksum."""
    server = await start_server(fast_config().override(history=40))
    match_id, first, second = await open_room(server)
    bot = asyncio.create_task(botclient.play(server.ws_url, second, match_id, "lazy", seed=10))
    session = ClientSession(first)
    await asyncio.wait_for(scripted(server.ws_url, session, match_id, leave_at=100), 30 * UNIT)
    seen = session.last_n
    live = server.app.state.node.hub.matches[match_id]
    await until(lambda: live.players.head > seen + 41, 10 * UNIT, "the stream passing a history of 40")
    await asyncio.wait_for(scripted(server.ws_url, session, match_id, leave_at=None), 60 * UNIT)
    await asyncio.wait_for(bot, 30 * UNIT)
    replay = await fetch_replay(server, match_id)
    assert verify(replay).ok and len(session.resyncs) == 1
    resync = session.resyncs[0]
    match = VersusMatch(config_from_plain(replay.config), replay.seed, replay.seats)
    changes = {(frame, seat): value for seat, moves in enumerate(replay.moves) for frame, value in moves}
    inputs = [0, 0]
    for frame in range(resync.frame):
        inputs = [changes.get((frame, seat), value) for seat, value in enumerate(inputs)]
        match.step(inputs)
    assert resync.checksum == state_checksum(match.snapshot())
    expected = replay_log(replay)
    for frame in range(resync.frame, replay.final_frame):
        assert session.frames[frame]["events"] == plain(expected[frame]), frame


async def test_no_return_within_grace_forfeits_the_seat(start_server: StartServer) -> None:
    """A player who does not come back within the grace period forfeits through the match's own step."""
    server = await start_server(fast_config().override(reconnect_grace=0.3))
    match_id, first, second = await open_room(server)
    bot = asyncio.create_task(botclient.play(server.ws_url, second, match_id, "lazy", seed=11))
    await asyncio.wait_for(scripted(server.ws_url, ClientSession(first), match_id, leave_at=60), 30 * UNIT)
    run = await asyncio.wait_for(bot, 30 * UNIT)
    replay = await fetch_replay(server, match_id)
    assert verify(replay).ok
    assert replay.result.outcomes == ("forfeited", "won") and replay.result.reason == "forfeit"
    assert replay.moves[0][-1][1] == 0x80 and replay.final_frame < 8 * 60
    assert run.session.over is not None


async def test_a_player_that_asked_for_replica_state_gets_it_on_resync(start_server: StartServer) -> None:
    """A player that joined with `replica` is sent, in its resync, the match's state at the keyframe:
    restored, its checksum is the keyframe's; stepped with the resync's confirmed frames, it is the
    straight run's state there. A player that did not ask (here another node's newcomer) gets none."""
    server = await start_server(fast_config().override(history=40))
    match_id, first, second = await open_room(server)
    bot = asyncio.create_task(botclient.play(server.ws_url, second, match_id, "lazy", seed=10))
    asked = ClientSession(first)
    asked.replica = True
    await asyncio.wait_for(scripted(server.ws_url, asked, match_id, leave_at=100), 30 * UNIT)
    seen = asked.last_n
    live = server.app.state.node.hub.matches[match_id]
    await until(lambda: live.players.head > seen + 41, 10 * UNIT, "the stream passing a history of 40")
    await asyncio.wait_for(scripted(server.ws_url, asked, match_id, leave_at=None), 60 * UNIT)
    await asyncio.wait_for(bot, 30 * UNIT)
    replay = await fetch_replay(server, match_id)
    assert verify(replay).ok and len(asked.resyncs) == 1
    resync = asked.resyncs[0]
    state = resync.state
    assert state is not None and state["frame"] == resync.frame and len(state["held"]) == 2
    snapshot = b64decode(state["snapshot"])
    assert len(snapshot) <= MAX_REPLICA_STATE_BYTES
    match = VersusMatch(config_from_plain(replay.config), replay.seed, replay.seats)
    match.restore(marshal.loads(snapshot))
    assert match.frame == resync.frame and state_checksum(match.snapshot()) == resync.checksum
    for body in resync.frames:
        if body["frame"] < resync.confirmed:
            match.step(body["inputs"])
    straight = VersusMatch(config_from_plain(replay.config), replay.seed, replay.seats)
    changes = {(frame, seat): value for seat, moves in enumerate(replay.moves) for frame, value in moves}
    inputs = [0, 0]
    for frame in range(match.frame):
        if frame == resync.frame:
            assert inputs == state["held"], "the inputs held at the keyframe"
        inputs = [changes.get((frame, seat), value) for seat, value in enumerate(inputs)]
        straight.step(inputs)
    assert match.frame > resync.frame
    assert state_checksum(match.snapshot()) == state_checksum(straight.snapshot())
    newcomer = decode_server(live.newcomer_messages(spectator=False)[0])  # another node's player: no replica
    assert isinstance(newcomer, Resync) and newcomer.state is None
