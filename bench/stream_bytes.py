"""Bytes per second a player and a spectator receive: `python -m bench.stream_bytes`.

    python -m bench.stream_bytes                       # the streams as published, 1 v 1 and 4 seats
    python -m bench.stream_bytes --live                # plus a live 1 v 1 over real websockets
    python -m bench.ab --old 17209d3 --workload new --rounds 1 \
        --metric 'ab 1v1 spectator_bytes_per_s=([0-9.]+)' -- bench.stream_bytes   # before and after

The published figures: one `LiveMatch` (server/match/live.py, default settings: 60 frames/s, window
8, keyframes every 120 frames, streams sent every 2 frames) whose seats are all server bots (the
competent mirror: competent against competent; and four seats, competent and lazy taking turns)
is ticked frame by frame to its end with no clock and no sockets, and a counting subscriber on each
stream records every message's bytes: exactly the websocket payload bytes of the stream (compression
off; the stream's messages of one send go out back to back in one websocket message). Reported per
stream: the mean over the match (bytes / match seconds) and the p95 over 1-second windows (60
frames each). With bot seats every input is known, so this players' stream has no rewinds.

`--live` adds one match over real websockets on this machine: a guest playing the competent bot
through protocol/client.py (server/botclient.py) against the server's competent bot, and a
spectator, counting every websocket message's payload (pongs and status included: what a player
really receives), windows by the newest frame seen; the rewinds its stream carried are printed.
`--latency F` holds the player's inputs back F frames every other second (the server rolls back).

The last lines are one `ab <scenario> <stream>_bytes_per_s=<mean>` per figure, for bench.ab.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from server.config import ServerConfig
from server.match.live import LiveMatch, Seat
from server.match.settings import MatchSettings

FRAME_RATE = 60


@dataclass(eq=False)
class Counter:
    """A stream subscriber that counts bytes per 1-second window of match frames."""

    frame: int = 0
    total: int = 0
    windows: dict[int, int] = field(default_factory=dict)

    def send_bytes(self, data: bytes) -> bool:
        """Count `data` in the current frame's window."""
        self.total += len(data)
        window = self.frame // FRAME_RATE
        self.windows[window] = self.windows.get(window, 0) + len(data)
        return True

    def send(self, message: Any) -> bool:
        """A message sent to the connection outside the stream (status): counted as its encoding."""
        from protocol.codec import encode

        return self.send_bytes(encode(message))

    def figures(self, frames: int) -> tuple[float, float]:
        """(mean bytes per second over the match, p95 over 1-second windows)."""
        mean = self.total / (frames / FRAME_RATE)
        values = sorted(self.windows.values())
        p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))] if values else 0.0
        return mean, float(p95)


def published(
    bots: list[str], seed: int, settings: MatchSettings | None = None
) -> tuple[int, Counter, Counter]:
    """Tick an all-bot match (of `settings`' ruleset; default the node's, pengo-versus) to its end;
    (frames, the players' stream counter, the spectators')."""
    settings = settings if settings is not None else ServerConfig().match
    seats = [Seat(name=f"{bot}-{index}", bot=bot) for index, bot in enumerate(bots)]
    live = LiveMatch(settings, seats, 0.0, lambda _: None, f"bench-{seed}", seed)
    players, spectators = Counter(), Counter()
    live.players.subscribers.add(players)  # type: ignore[arg-type]
    live.spectators.subscribers.add(spectators)  # type: ignore[arg-type]
    tick = 0
    while live.result is None and tick < 10**6:
        for counter in (players, spectators):
            counter.frame = tick
        live.tick(tick, tick / FRAME_RATE)
        tick += 1
    frames = live.runner.match.frame if live.runner is not None else tick
    return frames, players, spectators


async def live_match(latency: int) -> tuple[int, Counter, Counter, int]:
    """One live 1 v 1 (a client playing competent against the server's competent bot) and a spectator."""
    import websockets

    from protocol.client import ClientSession
    from server import botclient
    from server.app import create_app
    from server.embed import running_server

    app = create_app(ServerConfig().override(allowed_origins=("*",)))
    async with running_server(app) as server:
        _, token = await botclient.new_guest(server.http_url, "bench")
        answer = await botclient.http_json(f"{server.http_url}/api/bot-matches", "POST",
                                           {"bot": "competent"}, token)
        match_id = answer["match"]
        hold = (lambda frame: latency if (frame // FRAME_RATE) % 2 else 0) if latency else None
        received = TimedBytes()
        player_task = asyncio.create_task(botclient.play(
            server.ws_url, token, match_id, "competent", seed=1, latency=hold, record=received))
        node = server.app.state.node
        while match_id not in node.hub.matches or node.hub.matches[match_id].runner is None:
            await asyncio.sleep(0.01)
        spectator = Counter()
        session = ClientSession(None, client="bench-spectator")
        async with websockets.connect(server.ws_url, compression=None, max_size=2**22) as ws:
            await ws.send(session.hello())
            await ws.send(session.watch(match_id))
            async for data in ws:
                assert isinstance(data, bytes)
                newest = max(session.frames, default=0)
                spectator.frame = newest
                spectator.send_bytes(data)
                session.receive(data, time.monotonic())
                if session.over is not None:
                    break
        run = await player_task
        frames = run.session.over.result["frame"] if run.session.over and run.session.over.result else 0
        player = Counter()
        start = received.times[0] if received.times else 0.0
        for at, size in zip(received.times, received.sizes, strict=True):
            player.frame = int((at - start) * FRAME_RATE)  # the match runs in real time: 60 frames a second
            player.send_bytes(b"\0" * size)
        return frames, player, spectator, run.session.rewinds


class TimedBytes(list[bytes]):
    """What botclient.play records, kept as the time and size of each websocket message."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []
        self.sizes: list[int] = []

    def append(self, data: bytes) -> None:
        self.times.append(time.monotonic())
        self.sizes.append(len(data))


def report(scenario: str, stream: str, frames: int, counter: Counter, rows: list[str], ab: list[str]) -> None:
    mean, p95 = counter.figures(frames)
    rows.append(f"| {scenario} | {stream} | {frames} | {counter.total:,} | {mean:,.0f} | {p95:,.0f} |")
    ab.append(f"ab {scenario} {stream}_bytes_per_s={mean:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=7, help="match seed (default 7)")
    parser.add_argument("--live", action="store_true", help="also one live 1 v 1 over real websockets")
    parser.add_argument("--latency", type=int, default=0,
                        help="live: frames the player's inputs are held back every other second")
    args = parser.parse_args()
    rows = ["| scenario | stream | frames | bytes | mean B/s | p95 B/s (1-s windows) |",
            "|---|---|---:|---:|---:|---:|"]
    ab: list[str] = []
    for scenario, bots in (("1v1", ["competent", "competent"]), ("4seats", ["competent", "lazy"] * 2)):
        frames, players, spectators = published(bots, args.seed)
        report(scenario, "player", frames, players, rows, ab)
        report(scenario, "spectator", frames, spectators, rows, ab)
    if args.live:
        frames, player, spectator, rewinds = asyncio.run(live_match(args.latency))
        report(f"live-1v1 ({rewinds} rewinds)", "player", frames, player, rows, ab)
        report("live-1v1", "spectator", frames, spectator, rows, ab)
    print("\n".join(rows))
    print("\n".join(ab))
    return 0


if __name__ == "__main__":
    sys.exit(main())
