"""Takeover time: from SIGKILL of a match's owner to the first new frame a client gets from the survivor.

    .venv/bin/python -m bench.takeover_time                  # 12 kills, the default cluster settings
    .venv/bin/python -m bench.takeover_time --kills 20 --env FLOE_CLUSTER_LEASE_TTL=4 ...

Node B runs throughout; each round starts a fresh node A on the same Redis (a key prefix of this run's
own), makes a bot match on A (a guest against a server-side bot, the guest connected to A and playing),
lets it run past its first journal snapshot, kills A with SIGKILL and notes the time. The guest then
reconnects to B every `--poll` seconds (what a browser does after a lost connection: the deployment's
HAProxy sends it to a live node) and resumes its stream; the takeover time is kill → the first frame
record B sends it. It includes the lease running out (`cluster.lease_ttl` after A's last renewal), B's
next orphan scan (`cluster.orphan_scan_every`), loading and re-simulating the journal, and the poll.

Printed: each round's time, then p50 and max over the rounds (issue 20's target: ≤ 2 s), and the
cluster settings in force. The nodes are stopped by their PIDs whatever happens; the prefix's keys are
deleted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import signal
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
import websockets

from bench.serve_process import ServeProcess, start_serve
from protocol.client import ClientSession
from protocol.messages import Error, Frame, Resync
from rules.versus.inputs import encode_input
from server import botclient
from server.cluster.settings import ClusterSettings
from server.config import ServerConfig

ROOT = Path(__file__).resolve().parents[1]
REDIS_URL = "redis://127.0.0.1:6379/0"
SECRET = "takeover-bench-secret-0123456789"
#: Seconds of game frames a bot match lasts.
MATCH_SECONDS = 20
DIRECTIONS = [encode_input(d) for d in ("left", "down", "right", "up")]


async def listening(node: ServeProcess, timeout: float = 60.0) -> None:
    """Wait (polling its log) until the node listens."""
    deadline = time.monotonic() + timeout
    while not node.started():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{node.name} did not listen within {timeout} s")
        await asyncio.sleep(0.05)  # a bench polls a log file; tests wait through their condition helpers


async def play_until_killed(ws_url: str, session: ClientSession, match_id: str, frames: int,
                            ready: asyncio.Event) -> None:
    """Join and play on the owner; `ready` once `frames` frames were heard; return when the socket dies."""
    with contextlib.suppress(websockets.ConnectionClosed, OSError):
        async with websockets.connect(ws_url, compression=None, proxy=None) as ws:
            await ws.send(session.hello())
            await ws.send(session.join(match_id))
            async for data in ws:
                assert isinstance(data, bytes)
                now = time.monotonic()
                for message in session.receive(data, now):
                    if isinstance(message, Frame | Resync):
                        turn = (max(session.frames, default=0) // 30) % 4
                        for payload in session.input(DIRECTIONS[turn], now):
                            await ws.send(payload)
                if max(session.frames, default=0) >= frames:
                    ready.set()


async def first_frame_from(ws_url: str, session: ClientSession, poll: float, timeout: float) -> float:
    """Reconnect to the survivor every `poll` seconds and resume; the monotonic time of the first frame
    record it sends."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(websockets.ConnectionClosed, OSError):
            async with websockets.connect(ws_url, compression=None, proxy=None, open_timeout=5) as ws:
                await ws.send(session.hello())
                await ws.send(session.resume())
                async for data in ws:
                    assert isinstance(data, bytes)
                    messages = session.receive(data, time.monotonic())
                    if any(isinstance(message, Frame | Resync) for message in messages):
                        return time.monotonic()
                    if any(isinstance(message, Error) for message in messages):
                        break  # not B's match yet (`no-such-match`): try again
        await asyncio.sleep(poll)
    raise TimeoutError(f"no frame from the survivor within {timeout} s")


async def one_round(index: int, b: ServeProcess, env: dict[str, str], folder: Path, poll: float,
                    frames: int) -> float:
    a = start_serve(f"node-a{index}", env, folder)
    try:
        await listening(a)
        _, token = await botclient.new_guest(a.http_url, f"kill{index}")
        match = await botclient.http_json(f"{a.http_url}/api/bot-matches", "POST", {"bot": "lazy"}, token)
        match_id = match["match"]
        session = ClientSession(token)
        ready = asyncio.Event()
        player = asyncio.create_task(play_until_killed(a.ws_url, session, match_id, frames, ready))
        await asyncio.wait_for(ready.wait(), 60)
        killed = time.monotonic()
        a.popen.send_signal(signal.SIGKILL)
        await player
        seen = await first_frame_from(b.ws_url, session, poll, 30)
        return seen - killed
    finally:
        a.stop()


@contextlib.asynccontextmanager
async def prefix_of_its_own() -> AsyncIterator[str]:
    prefix = f"floe-bench-{secrets.token_hex(4)}"
    try:
        yield prefix
    finally:
        client = aioredis.Redis.from_url(REDIS_URL)
        keys = [key async for key in client.scan_iter(f"{prefix}*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


async def run(kills: int, poll: float, frames: int, extra: dict[str, str]) -> list[float]:
    async with prefix_of_its_own() as prefix:
        # one address makes every guest and match of the run; a match lasts 20 s, so B's load stays flat
        match = ServerConfig().with_time_limit(MATCH_SECONDS).match
        env = {**os.environ, "PYTHONPATH": str(ROOT), "FLOE_SECRET": SECRET, "FLOE_REDIS_URL": REDIS_URL,
               "FLOE_REDIS_PREFIX": prefix, "FLOE_RECONNECT_GRACE": "60",
               "FLOE_MATCH_CONFIG": json.dumps(match.ruleset.config_plain(match.match_config)),
               "FLOE_LIMITS_GUEST_BURST_PER_ADDRESS": "1000", "FLOE_LIMITS_MATCH_BURST_PER_ADDRESS": "1000",
               "FLOE_LIMITS_LIVE_MATCHES_PER_ADDRESS": "1000", **extra}
        with tempfile.TemporaryDirectory(prefix="floe-takeover-") as folder:
            b = start_serve("node-b", env, Path(folder))
            try:
                await listening(b)
                times = []
                for index in range(kills):
                    seconds = await one_round(index, b, env, Path(folder), poll, frames)
                    times.append(seconds)
                    print(f"kill {index + 1:2}: {seconds:.3f} s", flush=True)
                return times
            finally:
                b.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=12)
    parser.add_argument("--poll", type=float, default=0.02, help="the client's reconnect interval (s)")
    parser.add_argument("--frames", type=int, default=240,
                        help="frames the match plays on A before the kill (past a snapshot)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting for both nodes (e.g. FLOE_CLUSTER_LEASE_TTL=4)")
    args = parser.parse_args(argv)
    extra = dict(item.split("=", 1) for item in args.env)
    settings: dict[str, Any] = vars(ClusterSettings())
    names = ("lease_ttl", "lease_renew_every", "lease_margin", "orphan_scan_every", "snapshot_every")
    shown = {name: extra.get(f"FLOE_CLUSTER_{name.upper()}", settings[name]) for name in names}
    print("cluster settings:", ", ".join(f"{name}={value}" for name, value in shown.items()), flush=True)
    times = asyncio.run(run(args.kills, args.poll, args.frames, extra))
    print(f"takeover over {len(times)} kills: p50 {statistics.median(times):.3f} s, "
          f"min {min(times):.3f} s, max {max(times):.3f} s")


if __name__ == "__main__":
    main()
