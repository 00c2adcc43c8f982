"""A node's CPU per match-second alone and in a two-node cluster (issue 20): `python -m bench.cluster_cpu`.

    .venv/bin/python -m bench.cluster_cpu                      # 5 rounds, 20 duels a node, 15 s windows
    .venv/bin/python -m bench.cluster_cpu --rounds 7 --matches 30 --seconds 20
    .venv/bin/python -m bench.cluster_cpu --together --rounds 9 --seconds 10 --variant journal_slices=4
    .venv/bin/python -m bench.cluster_cpu --together --rounds 30 --seconds 10 \
        --record bench/records/cluster_cpu.jsonl
    .venv/bin/python -m bench.cluster_cpu --pool bench/records/cluster_cpu.jsonl   # every recorded round

Each measurement is a child process running one `Node` (server/node.py, default settings) as `floe
serve` runs it (uvloop's event loop where it is installed, the collector tuned: server/embed.py
`event_loop_factory`, server/app.py `tune_gc`; `--plain` runs it on asyncio's own loop with CPython's
collector defaults, as this bench did before stop 27) that hosts
`--matches` duels of two server-side lazy bots (`Hub.create_bot_duel`: no client, so no websocket or
client load; the bots are the cheap ones so the server's own work shows), long enough to outlast the
window. After a warm-up the child measures its process CPU time over `--seconds` and the match-seconds
played (frames advanced across its matches / 60) and prints CPU ms per match-second. The setups, run
in turns in each round so that the machine's load falls on all of them alike (`--together`: at the
same time, four nodes at once, so that each round's ratios compare the same moment of the machine:
on these shared VMs a node's CPU per match-second moves by ±20 % from one minute to the next):

- `lone`: the node on the embedded store (nothing shared: no lease, no journal);
- `redis`: the node alone on Redis (its matches shared: a lease renewed every `lease_renew_every`, the
  journal written as frames are confirmed, a snapshot every `snapshot_every`, the orphan scan);
- `pair`: two such nodes on one Redis prefix, each hosting `--matches` duels (both measured; the
  figure is their mean): what a node of a two-node cluster spends;
- `embedded` (only with `--setups`): the node in journal mode on the embedded ownership and bus (every
  publication sealed, logged in memory and published after it, snapshots; no socket): what journal
  mode costs without a round trip;
- `pair:NAME=NUMBER` (`--variant NAME=NUMBER`, repeatable): a pair whose nodes have that server
  setting besides `--set`'s (`--variant journal_slices=4`: the journal's round trips against the
  default pair's in the same rounds).

A child's own figures (its JSON line) also give the kernel's share of its CPU time, the store's
requests a second and how long publications waited for the journal (p50, p99: `/health`'s
`journal.wait_ms`) (`--child redis`). Printed: each round's figures and the ratios `redis / lone` and
`pair / lone`, then the median ratio over the rounds with its spread (min–max) and how far that
median could move by chance (`median_interval`: a seeded bootstrap over the rounds). Issue 20's target: a
node of a two-node cluster ≤ 1.1× a lone node's CPU per match-second. The Redis is the machine's (a
prefix of each child's own, deleted).

One run's rounds are few against this machine's noise (a 15-round run's median moves by ±0.02 between
runs an hour apart), so `--record FILE` appends each round as a JSON line (the commit measured, the
run's shape, each setup's CPU) and `--pool FILE…` reads them back and prints each ratio's
median and interval over every recorded round of the same node code (the `rules`, `protocol` and
`server` trees: a commit of docs or benches pools with its parent's rounds) and shape, however many
runs and sessions they came from.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import secrets
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from server.app import tune_gc
from server.cluster.memory import MemoryBus, MemoryOwnership
from server.config import ServerConfig
from server.embed import event_loop_factory
from server.node import Node

ROOT = Path(__file__).resolve().parents[1]
REDIS_URL = "redis://127.0.0.1:6379/0"
FRAME_HZ_OF_MATCH = 60
SECRET = "cluster-cpu-bench-0123456789"


async def child(store: str, prefix: str, matches: int, seconds: float, warmup: float,
                settings: dict[str, float] | None = None, plain: bool = False) -> dict[str, float]:
    config = ServerConfig().with_time_limit(warmup + seconds + 30).override(**(settings or {}))
    if store == "redis":
        config = config.override(redis_url=REDIS_URL, redis_prefix=prefix, secret=SECRET)
    if config.tune_gc and not plain:
        tune_gc()  # as the app's start does
    if store == "embedded":
        cluster = config.node.cluster
        node = Node(config, ownership=MemoryOwnership(cluster), bus=MemoryBus(cluster))
    else:
        node = Node(config)
    await node.start()
    try:
        lives = [node.hub.create_bot_duel("lazy", "lazy") for _ in range(matches)]
        await asyncio.sleep(warmup)  # a bench's window is wall time; tests wait on conditions
        frames0, simulated0 = sum(live.current_frame() for live in lives), node.hub.frames_simulated
        trips0 = getattr(node.ownership, "round_trips", 0)
        times0, cpu0, wall0 = os.times(), time.process_time(), time.monotonic()
        await asyncio.sleep(seconds)
        times1, cpu1, wall1 = os.times(), time.process_time(), time.monotonic()
        frames1, simulated1 = sum(live.current_frame() for live in lives), node.hub.frames_simulated
        trips1 = getattr(node.ownership, "round_trips", 0)
        # Matches this node no longer hosts (a lease lost on a loaded machine; a pair's other node or
        # this one's scan takes them over): their frames are in `hosted_match_seconds`, not above.
        lost = sum(node.hub.matches.get(live.id) is not live for live in lives)
        waits = node.stats().get("journal", {}).get("wait_ms", {})
    finally:
        await node.stop()
    match_seconds = (frames1 - frames0) / FRAME_HZ_OF_MATCH
    return {"cpu_ms_per_match_second": 1000 * (cpu1 - cpu0) / max(match_seconds, 1e-9),
            "match_seconds": match_seconds, "wall": wall1 - wall0, "cpu": cpu1 - cpu0,
            "hosted_match_seconds": (simulated1 - simulated0) / FRAME_HZ_OF_MATCH, "lost": lost,
            # The kernel's share (sockets: on these VMs a loopback round trip costs about as much in
            # the kernel as in Python) and the store's requests a second (the journal's, leases', scans').
            "system_share": (times1.system - times0.system) / max(cpu1 - cpu0, 1e-9),
            "round_trips_per_s": (trips1 - trips0) / max(wall1 - wall0, 1e-9),
            # How long publications waited for the journal (the owner's window of its last requests).
            "journal_wait_p50_ms": waits.get("p50", 0.0), "journal_wait_p99_ms": waits.get("p99", 0.0)}


def median_interval(values: list[float], draws: int = 2000, level: float = 0.95) -> tuple[float, float]:
    """How far the median of these rounds could move by chance: the middle `level` of the medians of
    `draws` resamplings of the rounds with replacement (a percentile bootstrap; seeded, so the same
    rounds print the same interval). Whether a target is met is read off this, not off one median."""
    draws_of = random.Random(0)
    medians = sorted(statistics.median(draws_of.choices(values, k=len(values))) for _ in range(draws))
    tail = (1 - level) / 2
    return medians[int(tail * draws)], medians[min(draws - 1, int((1 - tail) * draws))]


#: What makes rounds comparable (pooled together): the code a node runs and the run's shape.
POOL_KEYS = ("code", "matches", "seconds", "warmup", "together", "plain", "set")
#: The folders whose files a node runs (a commit that changes none of them pools with its parent's rounds).
NODE_CODE = ("rules", "protocol", "server")


def ratios_of(figures: dict[str, float]) -> dict[str, float]:
    """A round's ratios: each setup's CPU ms a match-second over the lone node's in the same round."""
    return {setup: cpu / figures["lone"] for setup, cpu in figures.items() if setup != "lone"}


def round_record(index: int, figures: dict[str, float], args: argparse.Namespace,
                 commit: str, code: str) -> dict[str, Any]:
    """One round as a `--record` line: its shape (`POOL_KEYS`) and each setup's CPU ms a match-second."""
    return {"commit": commit, "code": code, "matches": args.matches, "seconds": args.seconds,
            "warmup": args.warmup, "together": args.together, "plain": args.plain, "set": sorted(args.set),
            "round": index + 1, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "cpu_ms_per_match_second": figures}


def pooled(records: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str, list[float]]]:
    """The recorded rounds grouped by shape (`POOL_KEYS`), in the order each shape first appears: each
    shape, setup and its ratios over every round of that shape."""
    groups: dict[str, tuple[dict[str, Any], dict[str, list[float]]]] = {}
    for record in records:
        shape = {key: record[key] for key in POOL_KEYS}
        _, ratios = groups.setdefault(json.dumps(shape, sort_keys=True), (shape, {}))
        for setup, ratio in ratios_of(record["cpu_ms_per_match_second"]).items():
            ratios.setdefault(setup, []).append(ratio)
    return [(shape, setup, values) for shape, ratios in groups.values() for setup, values in ratios.items()]


def summary(setup: str, values: list[float]) -> str:
    """A ratio's median over its rounds, with the spread and the median's 95 % interval."""
    low, high = median_interval(values)
    spread = f"{min(values):.3f}–{max(values):.3f}"
    return (f"{setup}/lone: median {statistics.median(values):.3f} (spread {spread}; "
            f"95 % interval of the median {low:.3f}–{high:.3f})")


def measured(root: Path) -> tuple[str, str]:
    """What a record names: the checkout's commit, and the code a node runs (`NODE_CODE`'s trees at
    that commit, hashed); each with `+` when the checkout changes it without a commit."""
    def git(*command: str) -> str:
        return subprocess.run(["git", *command], cwd=root, capture_output=True, text=True, check=False).stdout
    commit = git("rev-parse", "--short=12", "HEAD").strip() or "unknown"
    trees = git("rev-parse", *(f"HEAD:{folder}" for folder in NODE_CODE))
    code = hashlib.sha1(trees.encode()).hexdigest()[:12] if trees.strip() else "unknown"
    changed = git("status", "--porcelain", "--untracked-files=no")
    code_changed = git("status", "--porcelain", "--untracked-files=no", "--", *NODE_CODE)
    return commit + ("+" if changed.strip() else ""), code + ("+" if code_changed.strip() else "")


def setting_overrides(items: list[str]) -> dict[str, float]:
    """`--set NAME=NUMBER` items as server settings (a number with a point is a float, else an int)."""
    return {name: float(value) if "." in value else int(value)
            for name, value in (item.split("=", 1) for item in items)}


def spawn(store: str, prefix: str, args: argparse.Namespace,
          extra: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
    """A child node (`extra`: settings of its own besides `--set`'s)."""
    command = [sys.executable, "-m", "bench.cluster_cpu", "--child", store, "--prefix", prefix,
               "--matches", str(args.matches), "--seconds", str(args.seconds), "--warmup", str(args.warmup),
               *[f"--set={item}" for item in (*args.set, *extra)], *(["--plain"] if args.plain else [])]
    return subprocess.Popen(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.PIPE)


def result(popen: subprocess.Popen[bytes]) -> dict[str, float]:
    out, _ = popen.communicate(timeout=600)
    if popen.returncode != 0:
        raise RuntimeError(f"a child failed ({popen.returncode})")
    figures: dict[str, float] = json.loads(out.decode().strip().splitlines()[-1])
    return figures


async def drop(prefix: str) -> None:
    client = aioredis.Redis.from_url(REDIS_URL)
    keys = [key async for key in client.scan_iter(f"{prefix}*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


def start(setup: str, prefix: str, args: argparse.Namespace) -> list[subprocess.Popen[bytes]]:
    """The setup's children (one node, or the pair's two), started."""
    if setup == "lone":
        return [spawn("memory", prefix, args)]
    if setup in ("redis", "embedded"):
        return [spawn(setup, prefix, args)]
    extra = tuple(setup.split(":", 1)[1:])  # `pair:NAME=NUMBER` (`--variant`): a pair with that setting
    return [spawn("redis", prefix, args, extra), spawn("redis", prefix, args, extra)]


def figure(children: list[subprocess.Popen[bytes]]) -> float:
    """CPU ms per match-second of a setup's node (the pair's: the mean of its two)."""
    return statistics.mean(result(popen)["cpu_ms_per_match_second"] for popen in children)


def measure(setup: str, args: argparse.Namespace) -> float:
    prefix = f"floe-cpu-{secrets.token_hex(4)}"
    try:
        return figure(start(setup, prefix, args))
    finally:
        asyncio.run(drop(prefix))


def measure_together(setups: list[str], args: argparse.Namespace) -> dict[str, float]:
    """Every setup's children at once (four nodes: the same moment's machine for all of them)."""
    prefixes = {setup: f"floe-cpu-{secrets.token_hex(4)}" for setup in setups}
    try:
        children = {setup: start(setup, prefixes[setup], args) for setup in setups}
        return {setup: figure(popens) for setup, popens in children.items()}
    finally:
        for prefix in prefixes.values():
            asyncio.run(drop(prefix))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=NUMBER",
                        help="a server setting for every node (e.g. tick_slices=1)")
    parser.add_argument("--together", action="store_true",
                        help="each round runs every setup's nodes at once (the four share the moment's "
                             "machine) instead of one setup after the other")
    parser.add_argument("--plain", action="store_true",
                        help="asyncio's own event loop and CPython's collector defaults in every node "
                             "(not as `floe serve` runs: the figures before stop 27)")
    parser.add_argument("--setups", nargs="+", choices=("redis", "pair", "embedded"),
                        default=["redis", "pair"],
                        help="the setups measured against `lone` in each round")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=NUMBER",
                        help="one more setup: a pair whose nodes have this server setting (e.g. "
                             "journal_slices=4), measured in the same rounds")
    parser.add_argument("--record", type=Path, metavar="FILE",
                        help="append each round to FILE as a JSON line (for --pool)")
    parser.add_argument("--pool", type=Path, nargs="+", metavar="FILE",
                        help="measure nothing: the ratios over every round recorded in these files, "
                             "by the node's code and the run's shape")
    parser.add_argument("--child", choices=("memory", "redis", "embedded"), help=argparse.SUPPRESS)
    parser.add_argument("--prefix", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        settings = setting_overrides(args.set)
        with asyncio.Runner(loop_factory=None if args.plain else event_loop_factory()) as runner:
            figures = runner.run(child(args.child, args.prefix, args.matches, args.seconds, args.warmup,
                                       settings, args.plain))
        print(json.dumps(figures))
        return
    if args.pool is not None:
        records = [json.loads(line) for path in args.pool for line in path.read_text().splitlines() if line]
        for shape, setup, values in pooled(records):
            print(f"{len(values)} rounds of {shape}: {summary(setup, values)}")
        return
    commit, code = measured(ROOT)
    print(f"{args.matches} lazy-bot duels a node, {args.seconds} s windows after {args.warmup} s, "
          f"{args.rounds} rounds, {'plain' if args.plain else 'as floe serve runs'}"
          f"{', the setups together' if args.together else ''}", flush=True)
    setups = ["lone", *args.setups, *[f"pair:{variant}" for variant in args.variant]]
    ratios: dict[str, list[float]] = {setup: [] for setup in setups[1:]}
    for index in range(args.rounds):
        order = setups[index % len(setups):] + setups[:index % len(setups)]
        if args.together:
            order = setups
            figures = measure_together(setups, args)
        else:
            figures = {setup: measure(setup, args) for setup in order}
        for setup, ratio in ratios_of(figures).items():
            ratios[setup].append(ratio)
        if args.record is not None:
            args.record.parent.mkdir(parents=True, exist_ok=True)
            with args.record.open("a") as record:
                record.write(json.dumps(round_record(index, figures, args, commit, code)) + "\n")
        cpu = "  ".join(f"{setup} {figures[setup]:.2f}" for setup in setups)
        shares = "  ".join(f"{setup}/lone {values[-1]:.3f}" for setup, values in ratios.items())
        print(f"round {index + 1} ({' → '.join(order)}): {cpu} CPU ms/match-s; {shares}", flush=True)
    for setup, values in ratios.items():
        print(summary(setup, values))


if __name__ == "__main__":
    main()
