"""How many 1 v 1 matches one server process sustains at 60 frames/s: `python -m bench.server_capacity`.

    python -m bench.server_capacity [--matches 10,25,50,75] [--seconds 20] [--spectators 5]
                                    [--repeat 1] [--profile 50] [--sample 50]

For each match count N: the server (floe's listener on uvloop, websockets on websockets' sans-I/O
protocol, the HTTP API relayed to FastAPI on uvicorn, the embedded store, default settings: 60
frames/s, window 8, input delay 2, input runs of 2, streams sent every 2 frames; the lobby's rates
raised, since one address makes every room) runs in this process, pinned to one CPU; N rooms are
made and two bot clients per room connect over real websockets from a second process (pinned to the
other CPU when there is one), plus a few spectators. The bots are cheap on purpose (a seeded random
walk: a new direction every 20–80 frames, a kick one frame in 20; inputs stamped and gathered by
protocol.client, which sends a run every 2 frames and a change at once), so the client side does not
starve the server of the second core. Once every match runs, the window of `--seconds` is measured:

- frame lateness: how late the match loop woke for each tick (p50, p99, max) and ticks missed;
- the runner's work: frames simulated on a prediction, rollbacks and frames re-simulated;
- the loop's busy share (ticking every match: simulate, snapshot, publish) and the process's CPU share
  (the rest is the websocket and HTTP machinery: uvicorn, websockets, the reader and writer tasks);
- bytes per second per player (the players' stream plus pongs and status) and per spectator (the
  spectators' stream), from the streams' own counters, and the clients' own byte counts as a check;
- websocket messages per second per player, each way (the clients' counts), and the bot process's
  CPU share (if it saturates its core, inputs arrive late and the server predicts and rolls back).

The clock wakes four times a frame (each wake-up ticks a quarter of the matches); lateness is per
wake-up, and a missed tick is a wake-up so late that the next one was due too. A count passes when
p99 lateness is under 4 ms and every client played to the end; `--repeat R` measures every count R
times, in rounds, and sums up how many windows passed. `--profile N` adds a cProfile
of one more window at N matches and sums the time by where it goes; `--sample N` a statistical
profile of one more window (bench/sampler.py: the functions with the most CPU, inclusive and own).
Results: bench/SERVER.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import os
import pstats
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection

from protocol.client import ClientSession
from protocol.messages import Frame
from rules.kick.geometry import DIRECTIONS
from rules.versus.inputs import KICK_BIT, encode_input
from rules.versus.ruleset import PENGO_VERSUS
from rules.versus.tables import FRAME_HZ, VERSUS_RULES
from server.app import create_app
from server.config import ServerConfig
from server.embed import running_server
from server.match.settings import LimitSettings
from server.netcode.runner import MatchRunner
from server.node import Node

from .sampler import Sampler

P99_TARGET_MS = 4.0
#: Every byte a random walk holds: no direction, then up, down, left, right.
HELD_BYTES = tuple(encode_input(d) for d in (None, *DIRECTIONS))


# ---- the bot process -------------------------------------------------------------------------------


async def messages_until(ws: ClientConnection, until: float) -> AsyncIterator[bytes]:
    """The websocket's messages until `until` (monotonic seconds)."""
    while time.monotonic() < until:
        try:
            data = await asyncio.wait_for(ws.recv(), max(0.01, until - time.monotonic()))
        except TimeoutError:
            return
        assert isinstance(data, bytes)
        yield data


async def cheap_player(url: str, token: str, match_id: str, seed: int, until: float) -> dict[str, Any]:
    """Play a seat with a seeded random walk until `until` (monotonic seconds); count what arrives."""
    rng = random.Random(seed)
    session = ClientSession(token, validate=False, keep_log=False)
    held, change_at, last_frame = 0, 0, 0
    received = messages = sent = 0
    async with websockets.connect(url, compression=None, proxy=None, max_size=2**22) as ws:
        await ws.send(session.hello())
        await ws.send(session.join(match_id))
        next_ping = 0.0
        async for data in messages_until(ws, until):
            now = time.monotonic()
            received += len(data)
            messages += 1
            heard = session.receive(data, now)
            if now >= next_ping:
                next_ping = now + 1.0
                await ws.send(session.ping(now))
            if not any(isinstance(m, Frame) for m in heard) or session.over is not None:
                continue
            frame = int(session.server_frame(now) or 0)
            if frame >= change_at:
                held = HELD_BYTES[rng.randrange(len(HELD_BYTES))]
                change_at = frame + 20 + rng.randrange(60)
            kick = rng.randrange(20) < frame - last_frame  # one kick in 20 frames, however they come
            last_frame = frame
            for payload in session.input(held | (KICK_BIT if kick else 0), now):
                await ws.send(payload)
                sent += 1
    return {
        "role": "player",
        "bytes": received,
        "messages": messages,
        "sent": sent,
        "late": len(session.late),
        "errors": len(session.errors),
        "gaps": session.gaps,
    }


async def cheap_spectator(url: str, match_id: str, until: float) -> dict[str, Any]:
    """Watch a match until `until`; count what arrives."""
    session = ClientSession(None, validate=False, keep_log=False)
    received = messages = 0
    async with websockets.connect(url, compression=None, proxy=None, max_size=2**22) as ws:
        await ws.send(session.hello())
        await ws.send(session.watch(match_id, since=0))
        async for data in messages_until(ws, until):
            received += len(data)
            messages += 1
            session.receive(data, time.monotonic())
    return {"role": "spectator", "bytes": received, "messages": messages, "gaps": session.gaps}


async def run_bots(plan: dict[str, Any]) -> None:
    """The bot process: every planned client at once, then one JSON line of results on stdout."""
    started = time.monotonic()
    until = started + plan["seconds"]
    tasks = []
    for index, room in enumerate(plan["rooms"]):
        for seat, token in enumerate(room["tokens"]):
            tasks.append(cheap_player(plan["url"], token, room["match"], index * 2 + seat, until))
    for room in plan["rooms"][: plan["spectators"]]:
        tasks.append(cheap_spectator(plan["url"], room["match"], until))
    results = await asyncio.gather(*tasks, return_exceptions=True)
    clients = [r for r in results if isinstance(r, dict)]
    failures = [repr(r) for r in results if not isinstance(r, dict)]
    seconds = time.monotonic() - started
    report = {"seconds": seconds, "cpu": time.process_time() / seconds, "clients": clients}
    print(json.dumps({**report, "failures": failures[:5]}))


# ---- the server process ----------------------------------------------------------------------------


@dataclass
class Window:
    """What one measured window found."""

    matches: int
    seconds: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    missed: int
    loop_share: float
    cpu_share: float
    frames_per_second: float
    predicted_share: float
    rollbacks_per_second: float
    resimulated_share: float
    player_bps: float
    spectator_bps: float
    client_player_bps: float
    client_spectator_bps: float
    messages_to_player: float
    messages_from_player: float
    client_cpu: float
    failures: list[str]

    @property
    def passed(self) -> bool:
        """p99 under the target (the issue's criterion) and every client played to the end."""
        return self.p99_ms < P99_TARGET_MS and not self.failures


def pin(cpu: int) -> None:
    """Run on one CPU when the OS allows it (a shared machine moves processes around otherwise)."""
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > cpu:
        os.sched_setaffinity(0, {cpu})


#: The lobby's per-guest and per-address rates raised through their settings: every room of the bench
#: is made from one address in a burst.
BENCH_LIMITS = LimitSettings(match_burst_per_guest=10**6, match_burst_per_address=10**6,
                             guest_burst_per_address=10**6, live_matches_per_address=10**6)


def server_config() -> ServerConfig:
    """The default server, with matches long enough to outlast the measurement, and the lobby's rates,
    the live matches, connections and messages per address raised (one address makes every room and
    opens every socket), and the node's budget raised (the bench measures past it)."""
    rules = replace(VERSUS_RULES, lives=99, time_limit_frames=30 * 60 * FRAME_HZ)
    return ServerConfig().override(
        match_config=replace(PENGO_VERSUS.default_config(), rules=rules),
        limits=BENCH_LIMITS,
        max_connections_per_address=100_000,
        message_rate_per_address=10.0**9,
        message_burst_per_address=10.0**9,
        capacity_board_frames=10**9,
        secret=b"bench-secret-0123456789",
    )


def runner_work(runners: list[MatchRunner]) -> tuple[int, int, int]:
    """Frames simulated on a prediction, rollbacks, frames re-simulated: summed over the runners."""
    return (
        sum(r.predicted for r in runners),
        sum(r.rollbacks for r in runners),
        sum(r.resimulated for r in runners),
    )


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


async def measure(
    matches: int, seconds: float, spectators: int, profile: str | None = None
) -> tuple[Window, str]:
    """One window at `matches` matches; returns the figures and (with a profile) the time breakdown.

    `profile`: "cprofile" (own time by place, every call traced) or "sample" (a statistical profile,
    bench/sampler.py).
    """
    app = create_app(server_config())
    node: Node = app.state.node
    async with running_server(app) as server:
        rooms = []
        for _ in range(matches):
            first, first_token = node.signer.new_guest(node.ids.guest_id(), "a", time.time())
            second, second_token = node.signer.new_guest(node.ids.guest_id(), "b", time.time())
            live = await node.lobby.create_room(first, "bench")
            assert live.invite is not None
            await node.lobby.join_room(live.invite, second, "bench")
            rooms.append({"match": live.id, "tokens": [first_token, second_token]})
        warmup = 3.0 + matches / 25
        plan = {
            "url": server.ws_url,
            "rooms": rooms,
            "spectators": spectators,
            "seconds": warmup + seconds + 1,
        }
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
            json.dump(plan, handle)
        bots = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.server_capacity",
            "--bots",
            handle.name,
            stdout=asyncio.subprocess.PIPE,
            cwd=str(Path(__file__).resolve().parents[1]),
        )
        deadline = time.monotonic() + warmup + 30
        while node.stats()["running"] < matches and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await asyncio.sleep(max(0.0, warmup - 2))
        clock = node.hub.frame_clock
        clock.lateness.clear()
        missed, busy, frames = clock.missed, clock.busy, node.hub.frames_simulated
        streams = [(live.players, live.spectators) for live in node.hub.matches.values()]
        published = [(p.bytes_published, s.bytes_published) for p, s in streams]
        runners = [live.runner for live in node.hub.matches.values() if live.runner is not None]
        work_before = runner_work(runners)
        cpu, wall = time.process_time(), time.monotonic()
        profiler = cProfile.Profile() if profile == "cprofile" else None
        sampler = Sampler() if profile == "sample" else None
        if profiler is not None:
            profiler.enable()
        with sampler or contextlib.nullcontext():
            await asyncio.sleep(seconds)
        if profiler is not None:
            profiler.disable()
        elapsed = time.monotonic() - wall
        cpu_share = (time.process_time() - cpu) / elapsed
        ordered = sorted(clock.lateness)
        missed, busy, frames = clock.missed - missed, clock.busy - busy, node.hub.frames_simulated - frames
        work = [after - before for after, before in zip(runner_work(runners), work_before, strict=True)]
        player_bytes = sum(
            p.bytes_published - before[0] for (p, _), before in zip(streams, published, strict=True)
        )
        spectator_bytes = [
            s.bytes_published - before[1] for (_, s), before in zip(streams, published, strict=True)
        ]
        stdout, _ = await bots.communicate()
        os.unlink(handle.name)
    report = json.loads(stdout.decode().strip().splitlines()[-1])
    players = [c for c in report["clients"] if c["role"] == "player"]
    watchers = [c for c in report["clients"] if c["role"] == "spectator"]
    window = Window(
        matches=matches,
        seconds=elapsed,
        p50_ms=percentile(ordered, 0.5) * 1000,
        p99_ms=percentile(ordered, 0.99) * 1000,
        max_ms=(ordered[-1] if ordered else 0.0) * 1000,
        missed=missed,
        loop_share=busy / elapsed,
        cpu_share=cpu_share,
        frames_per_second=frames / elapsed,
        predicted_share=work[0] / max(1, frames),
        rollbacks_per_second=work[1] / elapsed,
        resimulated_share=work[2] / max(1, frames),
        player_bps=player_bytes / max(1, matches) / elapsed,
        spectator_bps=sum(spectator_bytes) / max(1, matches) / elapsed,
        client_player_bps=sum(c["bytes"] for c in players) / max(1, len(players)) / report["seconds"],
        client_spectator_bps=sum(c["bytes"] for c in watchers) / max(1, len(watchers)) / report["seconds"],
        messages_to_player=sum(c["messages"] for c in players) / max(1, len(players)) / report["seconds"],
        messages_from_player=sum(c["sent"] for c in players) / max(1, len(players)) / report["seconds"],
        client_cpu=report["cpu"],
        failures=report["failures"],
    )
    if profiler is not None:
        return window, breakdown(profiler)
    return window, sampler.table() if sampler is not None else ""


#: Where the time goes, by the file a function lives in (first match wins).
PLACES = (
    ("rules/kick", "rules: the boards (step)"),
    ("rules/versus", "rules: versus step, snapshots"),
    ("rules/synctest", "keyframe checksums"),
    ("server/runner", "server: runner"),
    ("server/view", "server: actor views"),
    ("server/", "server: matches, streams, sockets"),
    ("protocol/", "protocol: codec"),
    ("msgpack", "msgpack"),
    ("pydantic", "pydantic (client messages)"),
    ("uvicorn", "uvicorn (its websocket protocol, HTTP)"),
    ("websockets", "websockets library (framing)"),
    ("starlette", "starlette"),
    ("asyncio", "asyncio"),
    ("uvloop", "asyncio"),
)


def breakdown(profiler: cProfile.Profile) -> str:
    """Own time summed by place, as a table."""
    stats = pstats.Stats(profiler)
    totals: dict[str, float] = {}
    for (filename, _, name), row in stats.stats.items():  # type: ignore[attr-defined]
        own = row[2]
        place = next((label for key, label in PLACES if key in filename), None)
        if place is None:
            place = "builtins (" + name.strip("<>").split(" ")[0] + ")" if filename == "~" else "other"
        totals[place] = totals.get(place, 0.0) + own
    total = sum(totals.values()) or 1.0
    rows = sorted(totals.items(), key=lambda item: -item[1])
    lines = ["| where | share of profiled time |", "|---|---:|"]
    lines += [f"| {place} | {seconds / total:.1%} |" for place, seconds in rows[:14]]
    return "\n".join(lines)


def row(window: Window) -> str:
    """One window as a row of the results table."""
    return (
        f"| {window.matches} | {window.p50_ms:.2f} | {window.p99_ms:.2f} | {window.max_ms:.1f} | "
        f"{window.missed} | {window.loop_share:.0%} | {window.cpu_share:.0%} | "
        f"{window.cpu_share * 1000 / window.matches:.1f} | {window.frames_per_second:.0f} | "
        f"{window.player_bps:,.0f} ({window.client_player_bps:,.0f}) | "
        f"{window.spectator_bps:,.0f} ({window.client_spectator_bps:,.0f}) | "
        f"{window.messages_to_player:.0f}, {window.messages_from_player:.0f} | "
        f"{window.predicted_share:.1%} | {window.rollbacks_per_second:.1f} | "
        f"{window.resimulated_share:.1%} | {window.client_cpu:.0%} | "
        f"{'yes' if window.passed else 'no'} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", default="10,25,50,75", help="match counts to measure, comma-separated")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per count (default 20)")
    parser.add_argument(
        "--spectators", type=int, default=5, help="spectators (one per match, first N matches)"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="measure every count this many times, in rounds (default 1)"
    )
    parser.add_argument("--profile", type=int, default=0, help="also profile one window at this many matches")
    parser.add_argument(
        "--sample", type=int, default=0, help="also sample one window at this many matches (bench/sampler.py)"
    )
    parser.add_argument("--bots", help=argparse.SUPPRESS)  # the bot process's plan file
    args = parser.parse_args()
    if args.bots:
        pin(1)
        asyncio.run(run_bots(json.loads(Path(args.bots).read_text())))
        return 0
    pin(0)
    import uvloop  # the loop uvicorn picks by default

    print(
        "| matches | p50 ms | p99 ms | max ms | missed ticks | loop busy | process CPU "
        "| CPU ms per match-s | frames/s | B/s per player | B/s per spectator "
        "| msgs/s to, from a player | predicted frames | rollbacks/s | re-simulated "
        "| bot process CPU | pass |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|")
    counts = [int(n) for n in args.matches.split(",") if n]
    windows: dict[int, list[Window]] = {matches: [] for matches in counts}
    for _ in range(args.repeat):  # rounds over every count, so a change in the machine's load spreads
        for matches in counts:
            window, _ = uvloop.run(measure(matches, args.seconds, args.spectators))
            windows[matches].append(window)
            print(row(window), flush=True)
            if window.failures:
                print(f"client failures: {window.failures}", flush=True)
    if args.repeat > 1:
        print("\n| matches | windows passed | p99 ms, lowest–highest | CPU ms per match-s, median |")
        print("|---:|---:|---:|---:|")
        for matches, measured in windows.items():
            p99s = sorted(w.p99_ms for w in measured)
            costs = sorted(w.cpu_share * 1000 / w.matches for w in measured)
            passed = sum(w.passed for w in measured)
            print(
                f"| {matches} | {passed} of {len(measured)} | {p99s[0]:.2f}–{p99s[-1]:.2f} | "
                f"{costs[len(costs) // 2]:.1f} |"
            )
    profiles = (
        (args.profile, "cprofile", "cProfile, own time; the profiler slows everything"),
        (args.sample, "sample", "sampled"),
    )
    for matches, mode, how in profiles:
        if matches:
            window, table = uvloop.run(measure(matches, args.seconds, args.spectators, mode))
            print(f"\nWhere the time goes at {matches} matches ({how}; p99 under it {window.p99_ms:.1f} ms):")
            print(f"\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
