"""Record the streams the browser client's model is tested on (clients/web/test/fixtures/*.msgpack).

    .venv/bin/python -m tests.web.record_streams        # about a minute: one live match in real time

Each fixture is a stream as a client receives it, msgpack values back to back (`decodeMulti`):
- `spectator-*.msgpack`: long bot matches (2 and 4 seats) re-simulated into their spectators' stream
  exactly as `GET /api/replays/{id}/stream` serves it (joined, a keyframe every 120 frames, every
  frame record, over);
- `player-rewinds.msgpack`: a player's stream from a live server, the bot's inputs held back on
  purpose every other second so the server rolls back and the stream rewinds;
- `payload-versus/*.msgpack`: Payload versus bot matches as their spectators' stream, a keyframe every
  3 frames (clients/web/test/payload-versus.test.ts rebuilds the Payload model from them).

Vitest (clients/web/test/model.test.ts) rebuilds every board from each stream alone and compares
the model with every keyframe. Run this again when the stream's format changes:
tests/web/test_recorded_streams.py fails when the fixtures are stale.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from protocol.replay_codec import encode_replay
from rules.payload.ruleset import PAYLOAD_VERSUS
from rules.replay import record
from rules.ruleset import Ruleset, seat_seed
from rules.versus.ruleset import PENGO_VERSUS
from server import botclient
from server.app import create_app
from server.config import ServerConfig
from server.embed import running_server
from server.http.replaystream import replay_stream_bytes

FIXTURES = Path(__file__).resolve().parents[2] / "clients" / "web" / "test" / "fixtures"
#: (file name, seed, bots, seconds): long matches, every seat a bot.
SPECTATOR_MATCHES = (
    ("spectator-competent-mirror", 7, ("competent", "competent"), 150),
    ("spectator-competent-lazy", 31, ("competent", "lazy"), 150),
    ("spectator-four-seats", 5, ("competent", "lazy", "competent", "lazy"), 120),
)
#: (file name, seed, bots, seconds): Payload versus matches, every seat a bot, in fixtures/payload-versus/.
PAYLOAD_MATCHES = (
    ("competent-lazy", 11, ("competent", "lazy"), 600),
    ("competent-mirror", 4, ("competent", "competent"), 600),
)
PAYLOAD_FIXTURES = FIXTURES / "payload-versus"
#: Frames between two keyframes of a Payload fixture (bots move every frame: short matches, many checks).
PAYLOAD_KEYFRAME_EVERY = 3
#: Seconds of the live match whose player stream is recorded.
PLAYER_SECONDS = 40


def spectator_stream(seed: int, bots: tuple[str, ...], seconds: int,
                     ruleset: Ruleset[Any, Any] = PENGO_VERSUS, keyframe_every: int = 120) -> bytes:
    """A bot match played to its end, as its spectators' stream."""
    config = ruleset.with_time_limit(ruleset.default_config(), seconds * 60)
    match = ruleset.new_match(config, seed, list(bots))
    players = [ruleset.make_bot(name, seat_seed(seed, seat)) for seat, name in enumerate(bots)]
    while match.result is None:
        match.step([bot.decide(match.seat_view(seat), match.frame) for seat, bot in enumerate(players)])
    data = encode_replay(record(match, ruleset))
    answer = replay_stream_bytes(data, f"fixture-{seed}", 10**6, keyframe_every)
    assert answer["decoded"], answer
    body: bytes = answer["body"]
    return body


def payload_stream(seed: int, bots: tuple[str, ...], seconds: int) -> bytes:
    """A Payload versus bot match played to its end, as its spectators' stream."""
    return spectator_stream(seed, bots, seconds, PAYLOAD_VERSUS, PAYLOAD_KEYFRAME_EVERY)


async def player_stream() -> bytes:
    """A live match against the lazy bot, played by the competent bot whose inputs arrive late at times."""
    app = create_app(ServerConfig().with_time_limit(PLAYER_SECONDS))
    async with running_server(app) as server:
        _, token = await botclient.new_guest(server.http_url, "recorder")
        url = f"{server.http_url}/api/bot-matches"
        answer = await botclient.http_json(url, "POST", {"bot": "lazy"}, token)
        received: list[bytes] = []
        run = await botclient.play(server.ws_url, token, answer["match"], "competent", seed=3,
                                   latency=lambda frame: 6 if (frame // 60) % 2 else 0, record=received)
        assert run.session.rewinds > 0, "no rewinds: the latency did not make the server roll back"
        return b"".join(received)


def main() -> None:
    """Write every fixture."""
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, seed, bots, seconds in SPECTATOR_MATCHES:
        data = spectator_stream(seed, bots, seconds)
        (FIXTURES / f"{name}.msgpack").write_bytes(data)
        print(f"{name}: {len(data)} bytes")
    PAYLOAD_FIXTURES.mkdir(exist_ok=True)
    for name, seed, bots, seconds in PAYLOAD_MATCHES:
        data = payload_stream(seed, bots, seconds)
        (PAYLOAD_FIXTURES / f"{name}.msgpack").write_bytes(data)
        print(f"payload-versus/{name}: {len(data)} bytes")
    data = asyncio.run(player_stream())
    (FIXTURES / "player-rewinds.msgpack").write_bytes(data)
    print(f"player-rewinds: {len(data)} bytes")


if __name__ == "__main__":
    main()
