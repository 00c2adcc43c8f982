"""A bystander's match while one address tries to run 50 bot matches: `python -m bench.admission_attack`.

    python -m bench.admission_attack [--tries 50] [--seconds 15]
                                     [--modes quiet,bounded,spread,unbounded,spam,spam-unbounded]

The server (default settings: 60 frames/s; matches long enough to outlast the window) runs in this
process, pinned to one CPU; a bystander's match of two server bots runs on it. Then, per mode:

- `quiet`: no attack;
- `bounded`: the default admission (`limits.live_matches_per_address`, `capacity_board_frames`, the
  message budget per address);
- `spread`: the same, the tries spread over 7 addresses (127.0.0.2–8, in turn): the node's budget
  (50 matches' work, the bystander's included) is what refuses;
- `unbounded`: the same attack with those three raised out of reach (the server before issue 18).

The attack: `--tries` guests made in advance (minted directly: an address makes 10 at once and one
every 5 s, so an attacker makes them ahead), each asks for a bot match from 127.0.0.2 (the creation
rates are raised in every mode: they only pace an attacker who is patient), and every match made is
played by a cheap client (bench/server_capacity.py's random walk) in a second process pinned to the
other CPU. Once they run, the window of `--seconds` measures the bystander: its frames a second
(60 is on time), and the loop's wake-up lateness (p50, p99, max), and the server process's CPU.

The `spam` modes are the other attack on an address's share: 32 websockets from 127.0.0.2 (guests'
tokens), each sending `queue` and `unqueue` in turn at its own connection's rate (120 a second, the
default), from the second process; `spam` with the default message budget per address,
`spam-unbounded` with it raised out of reach. Results: bench/ABUSE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import websockets
from websockets.exceptions import ConnectionClosed

from protocol.client import ClientSession
from protocol.codec import decode_server_messages
from rules.versus.ruleset import PENGO_VERSUS
from rules.versus.tables import FRAME_HZ, VERSUS_RULES
from server.app import create_app
from server.config import ServerConfig
from server.embed import running_server
from server.match.settings import LimitSettings
from server.node import Node

from .server_capacity import percentile, pin

#: The attacker's addresses: one, or seven for `spread`.
ATTACKERS = {"spread": [f"127.0.0.{n}" for n in range(2, 9)]}
#: Creation rates out of the way in every mode (they pace an attacker, they do not bound it).
RATES = {"match_burst_per_guest": 10**6, "match_burst_per_address": 10**6, "guest_burst_per_address": 10**6}


def config_for(mode: str) -> ServerConfig:
    """The default server with long matches; `unbounded` raises the admission bounds out of reach."""
    rules = replace(VERSUS_RULES, lives=99, time_limit_frames=30 * 60 * FRAME_HZ)
    config = ServerConfig().override(
        match_config=replace(PENGO_VERSUS.default_config(), rules=rules),
        limits=LimitSettings(**RATES),
        max_connections_per_address=100_000,
        secret=b"bench-secret-0123456789",
    )
    if mode == "spam-unbounded":
        config = config.override(message_rate_per_address=10.0**9, message_burst_per_address=10.0**9)
    if mode == "unbounded":
        config = config.override(
            limits=LimitSettings(**RATES, live_matches_per_address=10**6),
            capacity_board_frames=10**9,
            message_rate_per_address=10.0**9,
            message_burst_per_address=10.0**9,
        )
    return config


@dataclass
class Found:
    """One window: the attack's outcome and the bystander's figures."""

    made: int
    cpu: float = 0.0
    refused: dict[str, int] = field(default_factory=dict)
    running: int = 0
    fps: float = 0.0
    loop: float = 0.0
    p50: float = 0.0
    p99: float = 0.0
    max: float = 0.0


async def window(mode: str, tries: int, seconds: float) -> Found:
    """One mode's window: the attack (unless quiet), then the bystander measured."""
    app = create_app(config_for(mode))
    node: Node = app.state.node
    async with running_server(app) as server:
        bystander = node.hub.create_bot_duel("competent", "lazy")
        rooms: list[dict[str, object]] = []
        refused: dict[str, int] = {}
        if mode in ("bounded", "spread", "unbounded"):
            addresses = ATTACKERS.get(mode, ["127.0.0.2"])
            clients = [httpx.AsyncClient(base_url=server.http_url, timeout=30,
                                         transport=httpx.AsyncHTTPTransport(local_address=address))
                       for address in addresses]
            for index in range(tries):
                _, token = node.signer.new_guest(node.ids.guest_id(), f"m{index}", time.time())
                http = clients[index % len(clients)]
                answer = await http.post("/api/bot-matches", json={"bot": "lazy"},
                                         headers={"Authorization": f"Bearer {token}"})
                if answer.status_code == 200:
                    rooms.append({"match": answer.json()["match"], "tokens": [token]})
                else:
                    code = f"{answer.status_code} {answer.json()['code']}"
                    refused[code] = refused.get(code, 0) + 1
            for http in clients:
                await http.aclose()
        warmup = 3.0 + len(rooms) / 25
        plan = {"url": server.ws_url, "rooms": rooms, "spectators": 0, "seconds": warmup + seconds + 1}
        module = "bench.server_capacity"
        if mode.startswith("spam"):
            module = "bench.admission_attack"
            plan["tokens"] = [node.signer.new_guest(node.ids.guest_id(), f"s{index}", time.time())[1]
                              for index in range(SPAM_SOCKETS)]
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
            json.dump(plan, handle)
        bots = await asyncio.create_subprocess_exec(
            sys.executable, "-m", module, "--bots", handle.name,
            stdout=asyncio.subprocess.PIPE, cwd=str(Path(__file__).resolve().parents[1]),
        )
        deadline = time.monotonic() + warmup + 30
        while node.stats()["running"] < 1 + len(rooms) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await asyncio.sleep(max(0.0, warmup - 2))
        clock = node.hub.frame_clock
        clock.lateness.clear()
        assert bystander.runner is not None
        frames, busy, wall = bystander.runner.match.frame, clock.busy, time.monotonic()
        cpu = time.process_time()
        await asyncio.sleep(seconds)
        elapsed = time.monotonic() - wall
        cpu = (time.process_time() - cpu) / elapsed
        fps = (bystander.runner.match.frame - frames) / elapsed
        loop_share = (clock.busy - busy) / elapsed
        ordered = sorted(clock.lateness)
        running = node.stats()["running"]
        stdout, _ = await bots.communicate()
        os.unlink(handle.name)
        if mode.startswith("spam"):
            print(f"spam ({mode}): {stdout.decode().strip().splitlines()[-1]}", flush=True)
    return Found(
        made=len(rooms), cpu=cpu, refused=refused, running=running, fps=fps, loop=loop_share,
        p50=percentile(ordered, 0.5) * 1000, p99=percentile(ordered, 0.99) * 1000,
        max=(ordered[-1] if ordered else 0.0) * 1000,
    )


#: The spamming websockets of the `spam` modes, and the messages each sends a second (its own rate).
SPAM_SOCKETS = 32
SPAM_RATE = 120


async def spam_socket(url: str, token: str, until: float) -> dict[str, int]:
    """Send `queue` and `unqueue` in turn at SPAM_RATE a second until `until`; count the answers."""
    session = ClientSession(token, validate=False, keep_log=False)
    counts = {"sent": 0, "answers": 0, "closed": 0}
    try:
        async with websockets.connect(url, compression=None, proxy=None, local_addr=("127.0.0.2", 0)) as ws:

            async def drain() -> None:
                async for data in ws:
                    assert isinstance(data, bytes)
                    counts["answers"] += len(decode_server_messages(data))

            reader = asyncio.create_task(drain())
            await ws.send(session.hello())
            messages = [session.queue(), session.unqueue()]
            tick = 1 / 30
            while time.monotonic() < until and not reader.done():
                for _ in range(SPAM_RATE // 30):
                    await ws.send(messages[counts["sent"] % 2])
                    counts["sent"] += 1
                await asyncio.sleep(tick)
            reader.cancel()
    except ConnectionClosed:
        pass
    counts["closed"] = 1 if counts["sent"] and time.monotonic() < until else 0
    return counts


async def run_spam(plan: dict[str, Any]) -> None:
    """The spam process: every socket at once, then one JSON line of totals on stdout."""
    until = time.monotonic() + plan["seconds"]
    results = await asyncio.gather(*(spam_socket(plan["url"], token, until) for token in plan["tokens"]),
                                   return_exceptions=True)
    totals = {"sent": 0, "answers": 0, "closed": 0}
    for result in results:
        if isinstance(result, dict):
            for key in totals:
                totals[key] += result[key]
    print(json.dumps(totals))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tries", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--modes", default="quiet,bounded,spread,unbounded,spam,spam-unbounded")
    parser.add_argument("--bots", help=argparse.SUPPRESS)  # the spam process's plan file
    args = parser.parse_args()
    if args.bots:
        pin(1)
        asyncio.run(run_spam(json.loads(Path(args.bots).read_text())))
        return
    pin(0)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("| mode | bot matches made of tries | refused | matches running | bystander frames/s | "
          "loop busy | server CPU | p50 ms | p99 ms | max ms |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for mode in args.modes.split(","):
        found = asyncio.run(window(mode, args.tries, args.seconds))
        refused = ", ".join(f"{count} × {code}" for code, count in found.refused.items()) or "—"
        tries = 0 if mode == "quiet" or mode.startswith("spam") else args.tries
        print(f"| {mode} | {found.made} of {tries} | {refused} | {found.running} | {found.fps:.1f} | "
              f"{found.loop:.0%} | {found.cpu:.0%} | {found.p50:.2f} | {found.p99:.2f} | {found.max:.1f} |",
              flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
