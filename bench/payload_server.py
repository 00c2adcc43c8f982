"""Payload versus on the server: CPU per match-second and stream bytes per viewer (issue 22).

    .venv/bin/python -m bench.payload_server                       # 3 rounds, 20 duels, 10 s windows
    .venv/bin/python -m bench.payload_server --rounds 5 --matches 30 --seconds 15

**CPU.** Each measurement is a child process running one `Node` (server/node.py, default settings but
`linger` 1 s, on the embedded store) that keeps `--matches` duels of two server-side bots running
(`Hub.create_bot_duel`, as bench/cluster_cpu.py: no client, so no websocket or client load); a duel
that ends is replaced at once (its record and replay written: part of a match's cost). After a
warm-up the child measures its process CPU time over `--seconds` and the match-seconds played (engine
frames advanced across its matches / 60) and prints CPU ms per match-second and per match. Setups,
run in turns in each round so that the machine's load falls on all of them alike:

- `payload-paced` (lazy v lazy) and `payload-paced-competent` (competent v competent): payload-versus
  whose bots move once a second (the rules' `SeatBot.pace` = 60 frames: a human's pace; a draft is
  two moves, select then place): the cost of a Payload match as people play it;
- `payload-dense`: payload-versus competent v competent moving every frame (what the bots do by
  default: a whole match in 30–45 frames). Every frame has a move, so this is the ceiling of CPU
  per match-second, and the competent bot's own thinking is most of it;
- `pengo`: pengo-versus lazy v lazy, the reference (bench/cluster_cpu.py's `lone` setup).

Bot duels put the bots' `decide` on the server, so a figure includes it; the lazy bots are cheap.

**Stream bytes.** bench/stream_bytes.py's published figures for payload-versus (a `LiveMatch`
ticked to its end, no clock, no sockets; a counting subscriber on the players' and the spectators'
stream): competent v competent, dense and paced. Per stream: bytes over the match, per match-second
(mean) and per move. Drops simulated per second are bench/payload_balance.py's (bench/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from bench.stream_bytes import published
from rules.payload.bots.seat import SeatBot
from rules.payload.ruleset import PayloadRuleset
from server.config import ServerConfig
from server.match.live import LiveMatch
from server.node import Node

ROOT = Path(__file__).resolve().parents[1]
FRAME_HZ_OF_MATCH = 60
#: A human's pace: one move a second.
HUMAN_PACE = 60
#: setup → (ruleset, bots, frames between a bot's moves; None: pengo-versus).
SETUPS: dict[str, tuple[str, tuple[str, str], int]] = {
    "payload-paced": ("payload-versus", ("lazy", "lazy"), HUMAN_PACE),
    "payload-paced-competent": ("payload-versus", ("competent", "competent"), HUMAN_PACE),
    "payload-dense": ("payload-versus", ("competent", "competent"), 1),
    "pengo": ("pengo-versus", ("lazy", "lazy"), 1),
}


class PacedPayload(PayloadRuleset):
    """payload-versus whose bots move every `pace` frames (the same rules, name and version)."""

    def __init__(self, pace: int) -> None:
        super().__init__("payload-versus", 2)
        self.pace = pace

    def make_bot(self, name: str, seed: int) -> SeatBot:
        """The bot, thinking `pace` frames between moves."""
        return replace(super().make_bot(name, seed), pace=self.pace)


def setup_config(setup: str) -> ServerConfig:
    """The node's config of a setup: its ruleset the node's own (so its duels play it)."""
    ruleset_name, _, pace = SETUPS[setup]
    config = ServerConfig().override(linger=1.0)
    if ruleset_name == "payload-versus":
        config = config.override(ruleset=PacedPayload(pace), match_config=None)
    return config


def frames_of(live: LiveMatch) -> int:
    """The engine frames a match has played."""
    return live.runner.match.frame if live.runner is not None else 0


async def child(setup: str, matches: int, seconds: float, warmup: float) -> dict[str, float]:
    _, bots, _ = SETUPS[setup]
    node = Node(setup_config(setup))
    await node.start()
    lives: list[LiveMatch] = []
    running: list[LiveMatch] = []
    ended = 0

    def refill() -> None:
        nonlocal ended
        for live in list(running):
            if live.result is not None or live.ended_at is not None:
                running.remove(live)
                ended += 1
        while len(running) < matches:
            live = node.hub.create_bot_duel(*bots)
            running.append(live)
            lives.append(live)

    async def keep_up(until: float) -> None:
        while time.monotonic() < until:
            refill()
            await asyncio.sleep(0.02)  # a bench's window is wall time; tests wait on conditions

    try:
        refill()
        await keep_up(time.monotonic() + warmup)
        frames0, ended0 = sum(frames_of(live) for live in lives), ended
        cpu0, wall0 = time.process_time(), time.monotonic()
        await keep_up(wall0 + seconds)
        cpu1, wall1 = time.process_time(), time.monotonic()
        frames1, ended1 = sum(frames_of(live) for live in lives), ended
    finally:
        await node.stop()
    match_seconds = (frames1 - frames0) / FRAME_HZ_OF_MATCH
    cpu = cpu1 - cpu0
    return {"cpu_ms_per_match_second": 1000 * cpu / max(match_seconds, 1e-9),
            "cpu_ms_per_match": 1000 * cpu / (ended1 - ended0) if ended1 > ended0 else float("nan"),
            "matches_ended": ended1 - ended0,
            "match_seconds": match_seconds, "wall": wall1 - wall0, "cpu": cpu}


def measure(setup: str, args: argparse.Namespace) -> dict[str, float]:
    command = [sys.executable, "-m", "bench.payload_server", "--child", setup,
               "--matches", str(args.matches), "--seconds", str(args.seconds), "--warmup", str(args.warmup)]
    done = subprocess.run(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          stdout=subprocess.PIPE, check=True, timeout=600)
    figures: dict[str, float] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return figures


def stream_rows(seed: int) -> list[str]:
    """The payload-versus streams' bytes per viewer (competent mirror, dense and paced)."""
    rows = ["| payload-versus, competent v competent | stream | frames | moves | bytes | "
            "B per match-second | B per move |", "|---|---|---:|---:|---:|---:|---:|"]
    for label, pace in (("moving every frame", 1), ("a move a second", HUMAN_PACE)):
        settings = ServerConfig().match.for_ruleset(PacedPayload(pace))
        frames, players, spectators = published(["competent", "competent"], seed, settings)
        moves = moves_of(seed, pace)
        for stream, counter in (("player", players), ("spectator", spectators)):
            per_second = counter.total / (frames / FRAME_HZ_OF_MATCH)
            rows.append(f"| {label} | {stream} | {frames} | {moves} | {counter.total:,} | "
                        f"{per_second:,.0f} | {counter.total / max(moves, 1):,.0f} |")
    return rows


def moves_of(seed: int, pace: int) -> int:
    """The moves (input edges) of both seats in the same match `published` ticks (its seed)."""
    from server.match.live import Seat

    settings = ServerConfig().match.for_ruleset(PacedPayload(pace))
    seats = [Seat(name=f"competent-{index}", bot="competent") for index in range(2)]
    live = LiveMatch(settings, seats, 0.0, lambda _: None, f"bench-{seed}", seed)
    tick = 0
    while live.result is None and tick < 10**6:
        live.tick(tick, tick / FRAME_HZ_OF_MATCH)
        tick += 1
    assert live.runner is not None
    return sum(len(seat) for seat in live.runner.match.moves)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=7, help="the stream figures' match seed")
    parser.add_argument("--child", choices=tuple(SETUPS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(asyncio.run(child(args.child, args.matches, args.seconds, args.warmup))))
        return
    print(f"{args.matches} duels a node kept running, {args.seconds} s windows after {args.warmup} s, "
          f"{args.rounds} rounds", flush=True)
    setups = list(SETUPS)
    figures: dict[str, list[dict[str, float]]] = {setup: [] for setup in setups}
    for index in range(args.rounds):
        order = setups[index % len(setups):] + setups[:index % len(setups)]
        for setup in order:
            figures[setup].append(measure(setup, args))
        print(f"round {index + 1}: " + "  ".join(
            f"{setup} {figures[setup][-1]['cpu_ms_per_match_second']:.2f}" for setup in setups)
            + " CPU ms/match-s", flush=True)
    print("| setup | CPU ms per match-second, median (min–max) | CPU ms per match ended, median "
          "| matches ended a window |")
    print("|---|---:|---:|---:|")
    for setup in setups:
        per_second = [f["cpu_ms_per_match_second"] for f in figures[setup]]
        per_match = [f["cpu_ms_per_match"] for f in figures[setup] if f["matches_ended"] > 0]
        ended = [f["matches_ended"] for f in figures[setup]]
        spread = f"{min(per_second):.2f}–{max(per_second):.2f}"
        print(f"| {setup} | {statistics.median(per_second):.2f} ({spread}) "
              f"| {f'{statistics.median(per_match):.1f}' if per_match else '– (none ended)'} "
              f"| {statistics.median(ended):.0f} |")
    print("\n".join(stream_rows(args.seed)))


if __name__ == "__main__":
    main()
