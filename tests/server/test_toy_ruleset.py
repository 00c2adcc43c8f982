"""A second ruleset through the same server: the tests' toy race plays over real websockets.

Nothing under server/ knows toy-race (tests/toy/ruleset.py): two players, one of them dropping and
resuming, a spectator, the recorded replay and its verification all go through the `Ruleset` seam.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
from collections.abc import Iterator

import pytest

from protocol.client import ClientSession
from protocol.replay_codec import encode_replay
from rules import registry
from rules.replay import verify
from rules.versus.inputs import KICK_BIT
from server import botclient
from server.config import ServerConfig
from server.embed import RunningServer
from server.netcode.runner import FrameRecord, MatchRunner, RunnerSettings
from tests.server.conftest import StartServer, fast_config
from tests.server.helpers import UNIT, plain, play_scripted, replay_log, until
from tests.server.test_match_network import fetch_replay, open_room
from tests.toy.ruleset import LEFT, RIGHT, TOY_RACE, RaceConfig


@pytest.fixture(autouse=True)
def toy_registered() -> Iterator[None]:
    """toy-race is registered while these tests run (verification finds rulesets in the registry)."""
    registry.register(TOY_RACE)
    try:
        yield
    finally:
        registry.unregister(TOY_RACE)


def toy_config(**overrides: object) -> ServerConfig:
    """The tests' server config, playing toy-race on a long track."""
    race = RaceConfig(track=500, time_limit_frames=2000)
    return fast_config().override(ruleset=TOY_RACE, match_config=race, **overrides)


async def walk(ws_url: str, session: ClientSession, match_id: str, drop_at: int | None) -> None:
    """Hold right until the race is over, or drop the socket once past frame `drop_at`."""
    await play_scripted(ws_url, session, match_id, lambda _frame: RIGHT, drop_at)


@pytest.mark.asyncio
async def test_the_toy_ruleset_plays_a_match_end_to_end(start_server: StartServer) -> None:
    """Two players (one drops and resumes), a spectator, the replay verified locally and by the server."""
    server: RunningServer = await start_server(toy_config())
    node = server.app.state.node
    match_id, first, second = await open_room(server)
    bot = asyncio.create_task(botclient.play(server.ws_url, second, match_id, "dawdler", seed=3))
    watcher = asyncio.create_task(botclient.watch(server.ws_url, match_id))
    session = ClientSession(first, client="toy-walker")
    await asyncio.wait_for(walk(server.ws_url, session, match_id, drop_at=60), 30 * UNIT)
    live = node.hub.matches[match_id]
    await until(lambda: live.seats[0].connection is None, 10 * UNIT, "the server seeing the drop")
    await asyncio.wait_for(walk(server.ws_url, session, match_id, drop_at=None), 60 * UNIT)
    run = await asyncio.wait_for(bot, 30 * UNIT)
    spectator = await asyncio.wait_for(watcher, 30 * UNIT)

    replay = await fetch_replay(server, match_id)
    assert (replay.ruleset, replay.ruleset_version) == ("toy-race", 1)
    assert replay.result.reason in ("finish", "time") and replay.result.winner == 0
    verdict = verify(replay)
    assert verdict.ok, verdict.reason
    status, body = await botclient.http_bytes(f"{server.http_url}/api/replays/verify", "POST",
                                              encode_replay(replay))
    answer = json.loads(body)
    assert status == 200 and answer["ok"] is True and answer["log_hash"] == replay.log_hash

    expected = plain(replay_log(replay))
    assert {f: spectator.frames[f]["events"] for f in sorted(spectator.frames)} == expected
    assert spectator.over is not None and spectator.over.result == replay.result.plain()
    assert session.over is not None and session.gaps == 0
    assert {f: session.frames[f]["events"] for f in sorted(session.frames)} == expected
    assert run.mirror is not None and run.mirror.mismatches == 0 and run.mirror.match.frame > 400
    views = [keyframe.view for keyframe in spectator.keyframes.values()]
    assert views and all(view["seats"][0]["name"] == "ann" for view in views)


@pytest.mark.asyncio
async def test_a_bot_match_of_the_toy_ruleset(start_server: StartServer) -> None:
    """The lobby offers the ruleset's own bots; a guest who plays one gets a verified replay."""
    server = await start_server(toy_config())
    _, token = await botclient.new_guest(server.http_url, "cy")
    with pytest.raises(urllib.error.HTTPError) as refused:
        await botclient.http_json(f"{server.http_url}/api/bot-matches", "POST", {"bot": "competent"}, token)
    assert refused.value.code == 422 and b"sprinter" in refused.value.read()
    url = f"{server.http_url}/api/bot-matches"
    created = await botclient.http_json(url, "POST", {"bot": "sprinter"}, token)
    run = await asyncio.wait_for(botclient.play(server.ws_url, token, created["match"], "dawdler", seed=1),
                                 60 * UNIT)
    replay = await fetch_replay(server, created["match"])
    assert verify(replay).ok and replay.result.winner == 1
    assert run.mirror is not None and run.mirror.mismatches == 0 and run.mirror.match.frame > 0


def test_the_runner_rolls_the_toy_back_and_rechecks_it() -> None:
    """With SyncTest on, the runner rolls toy-race back every frame and finds every re-simulation equal;
    a late input rewinds it, and the confirmed frames equal a straight run of the same inputs."""
    config = RaceConfig(track=10_000, time_limit_frames=300)
    settings = RunnerSettings(rollback_window=8, synctest_every=1)
    runner = MatchRunner(TOY_RACE.new_match(config, 5, ["a", "b"]), TOY_RACE.inputs, settings)
    confirmed: list[FrameRecord] = []
    rewinds = 0
    for now in range(1, 400):
        runner.tell_input(0, now + 1, RIGHT | (KICK_BIT if now % 7 == 0 else 0))
        if now % 5 == 0:
            runner.tell_input(1, now - 4, LEFT if now % 10 else RIGHT)  # four frames late: inside the window
        out = runner.advance(now)
        rewinds += out.rewind_to is not None
        confirmed += [item for item in out.confirmed if isinstance(item, FrameRecord)]
        if runner.finished:
            break
    assert runner.finished and rewinds > 10
    straight = TOY_RACE.new_match(config, 5, ["a", "b"])
    for record in confirmed:
        assert straight.records_plain(straight.step(list(record.inputs))) == record.events
    assert straight.result == runner.result and straight.log_hash == runner.match.log_hash
