"""Frame lateness of running matches during a flood of verifications and daily runs:
`python -m bench.verify_flood`.

    python -m bench.verify_flood [--matches 20] [--seconds 10] [--clients 6] [--pool process|thread]

The server (default settings: the process pool of 2 verification workers, 60 frames/s) runs in this
process with `--matches` bot-against-bot matches (server-side competent bots, long enough to outlast
the bench). A second process floods it with `--clients` concurrent HTTP clients, each looping: POST a
3-minute 1 v 1 replay to /api/replays/verify, POST a 10-minute daily run to /api/daily/runs. The
per-client share is raised to the pool's size for the flood (the clients share one address), so the
slots are always full: the worst the match loop can see. Two windows of `--seconds` are measured,
quiet then flooded: the clock's wake-up lateness (p50, p99, max), missed ticks, frames simulated,
and the flood's answers by status. Results: bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import time
from collections import Counter
from typing import Any

import httpx

from protocol.replay_codec import encode_replay
from rules.replay import record
from rules.ruleset import seat_seed
from rules.versus.ruleset import PENGO_VERSUS
from server.app import create_app
from server.config import ServerConfig
from server.embed import running_server
from server.match.settings import LimitSettings


def played(ruleset: Any, config: Any, seed: int, seats: list[str]) -> bytes:
    """A match of competent bots played to its end, as replay bytes."""
    match = ruleset.new_match(config, seed, seats)
    bots = [ruleset.make_bot("competent", seat_seed(seed, seat)) for seat in range(len(seats))]
    while match.result is None:
        match.step([bot.decide(match.seat_view(seat), match.frame) for seat, bot in enumerate(bots)])
    return encode_replay(record(match, ruleset))


async def flood(url: str, clients: int, seconds: float, replay: bytes, run: bytes, out: Any) -> None:
    """The flooding clients (in their own process): their answers' statuses."""
    statuses: Counter[str] = Counter()
    headers = {"Content-Type": "application/msgpack"}
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        made = [await http.post("/api/guests", json={"name": f"f{i}"}) for i in range(clients)]
        tokens = [answer.json()["token"] for answer in made]
        deadline = time.monotonic() + seconds

        async def client(token: str) -> None:
            auth = {**headers, "Authorization": f"Bearer {token}"}
            while time.monotonic() < deadline:
                answer = await http.post("/api/replays/verify", content=replay, headers=headers)
                statuses[f"verify {answer.status_code}"] += 1
                answer = await http.post("/api/daily/runs", content=run, headers=auth)
                statuses[f"daily {answer.status_code}"] += 1

        await asyncio.gather(*(client(token) for token in tokens))
    out.put(dict(statuses))


def flood_process(url: str, clients: int, seconds: float, replay: bytes, run: bytes, out: Any) -> None:
    asyncio.run(flood(url, clients, seconds, replay, run, out))


class Windows:
    """The clock's figures between two calls of `take`: wake-up lateness (ms), missed ticks, frames."""

    def __init__(self, node: Any) -> None:
        self.hub = node
        self.take()

    def take(self) -> dict[str, float]:
        """The figures since the last call."""
        clock, node = self.hub.frame_clock, self.hub
        samples = sorted(clock.lateness) or [0.0]
        clock.lateness.clear()
        figures = {
            "p50": statistics.median(samples) * 1000,
            "p99": samples[int(0.99 * (len(samples) - 1))] * 1000,
            "max": samples[-1] * 1000,
            "missed": clock.missed - getattr(self, "_missed", clock.missed),
            "frames": node.hub.frames_simulated - getattr(self, "_frames", node.hub.frames_simulated),
        }
        self._missed, self._frames = clock.missed, node.hub.frames_simulated
        return figures


async def measure(matches: int, seconds: float, clients: int, pool: str) -> None:
    print("making the replays (a 3-minute 1 v 1, a 10-minute daily run)…", flush=True)
    replay = played(PENGO_VERSUS, PENGO_VERSUS.default_config(), 7, ["a", "b"])
    limits = LimitSettings(guest_rate_per_address=1000.0, guest_burst_per_address=1000)
    config = ServerConfig().override(secret=b"bench-secret-0123456789", limits=limits, verify_pool=pool,
                          daily_submissions=1_000_000)
    config = config.with_time_limit(3600).override(verify_per_client=config.verify.verify_concurrency)
    async with running_server(create_app(config)) as server:
        node = server.app.state.node
        async with httpx.AsyncClient() as http:
            daily = (await http.get(f"{server.http_url}/api/daily")).json()
        solo = config.daily.daily_ruleset
        run = played(solo, solo.config_from_plain(daily["config"]), daily["seed"], ["bench"])
        for _ in range(matches):
            node.hub.create_bot_duel("competent", "competent")
        await asyncio.sleep(2)
        windows = Windows(node)
        await asyncio.sleep(seconds)
        quiet = windows.take()
        out: Any = multiprocessing.get_context("spawn").Queue()
        flooder = multiprocessing.get_context("spawn").Process(
            target=flood_process, args=(server.http_url, clients, seconds, replay, run, out)
        )
        flooder.start()
        await asyncio.sleep(1.0)  # the flooder's start-up (its guests) is not measured
        windows.take()
        await asyncio.sleep(seconds - 1.0)
        flooded = windows.take()
        while flooder.is_alive():
            await asyncio.sleep(0.1)
        statuses = out.get(timeout=10)
    workers = config.verify.verify_concurrency
    print(f"{matches} matches, pool {pool} ({workers} workers), {clients} flooding clients")
    for name, figures in (("quiet", quiet), ("flood", flooded)):
        print(f"{name}: lateness p50 {figures['p50']:.2f} ms, p99 {figures['p99']:.2f} ms, "
              f"max {figures['max']:.2f} ms; missed ticks {figures['missed']:.0f}; "
              f"frames {figures['frames']:.0f}")
    print("flood answers:", ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--pool", choices=("process", "thread"), default="process")
    args = parser.parse_args()
    asyncio.run(measure(args.matches, args.seconds, args.clients, args.pool))


if __name__ == "__main__":
    main()
