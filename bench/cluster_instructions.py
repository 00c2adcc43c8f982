"""Instructions per match-frame with and without the Redis fan-out (issue 20): bench.cluster_instructions.

    python -m bench.cluster_instructions                        # 10 lazy-bot duels, 600 frames, 3 setups
    python -m bench.cluster_instructions --matches 10 --frames 600 --setups lone journal relay

The measured process is one `Node` (server/node.py) hosting `--matches` duels of two server-side lazy
bots, on the event loop and collector settings `floe serve` runs with (uvloop's loop where it is
installed, `tune_gc`; `--plain`: asyncio's own loop and CPython's collector defaults, as this bench ran
before stop 27), run under `valgrind --tool=callgrind`: an instruction count does not depend on the machine's
load, so the three setups compare on a loaded machine. The node's frame clock is not started: the
driver calls the hub's tick itself, `--frames` times, on a clock of its own that advances one frame a
tick (so every wall-clock cadence of the node, status, lease renewal, snapshots, the relay's
`follow_ttl`, falls on the same frames in every run; nothing waits on wall time). It awaits what the
node's background tasks would do: after each of a frame's `tick_slices` wake-ups the reply of the
journal request the wake-up wrote, if it wrote one (`MatchOwner.flush_soon`: a publishing group's
seals, `journal_slices` neighbouring slices', go in one round trip after the group's last wake-up and
are published from its reply, as on a node whose Redis answers within a slice) and the flusher's work
(a new match's lease, the snapshots due), every `lease_renew_every` of its clock the lease renewal,
and the publisher's queue drained once a frame.

- `lone`: the node on the embedded store (no lease, no journal, no bus);
- `embedded-journal`: its matches shared on the embedded ownership (journal mode: every publication
  sealed, logged and published after its append, snapshots; no socket, no Redis);
- `journal`: its matches shared on Redis (leases renewed, every publication appended to the journal
  before it is sent, a snapshot every `snapshot_every`), with a bus but no follower (a match nobody
  follows publishes nothing on it);
- `relay`: as `journal`, and a second node (a child process of its own, not under valgrind, on the
  same Redis prefix) watches every match with one spectator each: the owner publishes both streams'
  records of every match on the bus (the Redis fan-out) and answers the follower's `Follow`s.

Each setup is run twice, for `--warmup` frames and for `--warmup + --frames` frames; the difference
of the two instruction totals (process start, imports and setup cancel out) divided by
`--frames * --matches` is the figure: instructions per match-frame. Lease times are long (600 s) so
that the slowness of valgrind never lets a lease lapse; the renewal still runs at the default cadence
of the driver's clock; the follower says `Follow` once (its heartbeat and idle time are made
endless on both nodes), so the owner's answers do not grow with valgrind's slowness. Results:
bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import redis.asyncio as aioredis

from protocol.codec import encode
from protocol.errors import CloseCode
from protocol.messages import Hello, ServerMessage, Watch
from protocol.version import PROTOCOL_VERSION
from server.app import tune_gc
from server.cluster.memory import MemoryBus, MemoryOwnership
from server.cluster.redis import RedisBus, RedisOwnership, connect
from server.cluster.settings import ClusterSettings
from server.config import ServerConfig
from server.embed import event_loop_factory
from server.match.session import Session
from server.match.sources import RandomIds
from server.node import Node

ROOT = Path(__file__).resolve().parents[1]
REDIS_URL = "redis://127.0.0.1:6379/0"
SECRET = b"cluster-instructions-0123456789ab"
SETUPS = ("lone", "embedded-journal", "journal", "relay")
#: Long enough that valgrind's slowness never lets a lease lapse (the driver renews on its own clock).
LEASE_TTL = 600.0
FOREVER = 1e6


class DriverClock:
    """A clock the driver moves: one frame a tick."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> float:
        return 1_700_000_000.0 + self.now


class FixedSeeds(RandomIds):
    """The same match seeds in every run (the bots' moves follow them)."""

    def __init__(self) -> None:
        self.count = 0

    def seed(self) -> int:
        self.count += 1
        return (self.count * 2654435761) % 2**32


class Counting:
    """A spectator's connection that counts what it is sent."""

    def __init__(self) -> None:
        self.messages = 0
        self.open = True
        self.peer = "bench"

    def send(self, message: ServerMessage) -> bool:
        return self.send_bytes(encode(message))

    def send_bytes(self, data: bytes) -> bool:
        self.messages += 1
        return True

    def close(self, code: int = CloseCode.NORMAL, message: ServerMessage | None = None) -> None:
        self.open = False


def cluster_settings() -> ClusterSettings:
    # The follower's `Follow` once, at the start (a heartbeat a second of wall time would make the
    # owner answer more of them the slower valgrind runs it; one a second is 1/60 of a frame's work).
    return ClusterSettings(lease_ttl=LEASE_TTL, follow_heartbeat=FOREVER, follow_idle=FOREVER)


def config() -> ServerConfig:
    return ServerConfig().override(secret=SECRET, cluster=cluster_settings(), tune_gc=False) \
        .with_time_limit(3600)


async def owner(setup: str, prefix: str, matches: int, frames: int,
                plain: bool = False) -> dict[str, int]:
    """The measured process: drive `matches` duels for `frames` ticks (see the module docstring)."""
    if not plain:
        tune_gc()  # as the app's start does
    clock = DriverClock()
    settings = config()
    if setup == "lone":
        node = Node(settings, clock=clock, ids=FixedSeeds())
    elif setup == "embedded-journal":  # journal mode on the embedded ownership: no socket, no Redis
        node = Node(settings, clock=clock, ids=FixedSeeds(),
                    ownership=MemoryOwnership(cluster_settings()), bus=MemoryBus(cluster_settings()))
    else:
        cluster = cluster_settings()
        node = Node(settings, clock=clock, ids=FixedSeeds(),
                    ownership=RedisOwnership(connect(REDIS_URL), prefix, cluster),
                    bus=RedisBus(connect(REDIS_URL), prefix, cluster))
    hub, shared, publisher = node.hub, node.shared, node.publisher
    if publisher is not None and node.follower is not None:
        publisher.start()
        node.follower.start()
    lives = [hub.create_bot_duel("lazy", "lazy") for _ in range(matches)]
    slices = hub.slices
    step = 1 / (hub.settings.pace * slices)
    renew_every = cluster_settings().lease_renew_every
    renewed = clock.now
    subtick = 0

    async def tick() -> None:
        nonlocal subtick, renewed
        for _ in range(slices):
            subtick += 1
            clock.now += step
            hub._on_tick(subtick)  # the frame clock's call (a shared node's fast flush at its end)
            if shared is not None:  # its reply, and what the flusher does when woken (leases, snapshots)
                if shared.owner.flushing:
                    await shared.owner.settled()
                if shared._due.is_set():
                    shared._due.clear()
                    shared.drop_lost(await shared.owner.flush(clock.now))
        if shared is not None and clock.now - renewed >= renew_every:
            renewed = clock.now
            await shared._renew()
        while publisher is not None and publisher._queue:
            await asyncio.sleep(0)

    await tick()  # the leases taken and the headers written: the follower can find the matches
    follower: asyncio.subprocess.Process | None = None
    if setup == "relay":
        follower = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.cluster_instructions", "--follower", "--prefix", prefix, "--",
            *[live.id for live in lives], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        assert follower.stdout is not None
        line = await follower.stdout.readline()  # the loop runs meanwhile: the relay answers Follows
        if line.strip() != b"ready":
            raise RuntimeError(f"the follower did not get ready: {line!r}")
    for _ in range(frames):
        await tick()
    figures = {"frames": sum(live.current_frame() for live in lives),
               "relayed": node.relay.records if node.relay is not None else 0,
               "bases": node.relay.bases if node.relay is not None else 0,
               "batches": shared.owner.batches if shared is not None else 0}
    if follower is not None:
        assert follower.stdin is not None
        follower.stdin.close()
        await follower.wait()
    if shared is not None:
        await shared.owner.release_all()
    if node.follower is not None:
        await node.follower.stop()
    if node.relay is not None:
        await node.relay.stop()
    if publisher is not None:
        await publisher.stop(1)
    if node.bus is not None:
        await node.bus.close()
    if node.ownership is not None:
        await node.ownership.close()
    return figures


async def follower(prefix: str, match_ids: list[str]) -> None:
    """The second node: one spectator on every match, until stdin closes."""
    settings = config()
    cluster = cluster_settings()
    node = Node(settings, ownership=RedisOwnership(connect(REDIS_URL), prefix, cluster),
                bus=RedisBus(connect(REDIS_URL), prefix, cluster))
    await node.start()
    outs = []
    for index, match_id in enumerate(match_ids):
        out = Counting()
        session = Session(out, node.dispatcher, settings.session, node.hub.now())
        _, token = node.signer.new_guest(f"w-{index}", f"watcher{index}", node.clock.wall())
        session.receive(encode(Hello(version=PROTOCOL_VERSION, token=token)), node.hub.now())
        while session.held is not None:
            await asyncio.sleep(0.001)
        session.receive(encode(Watch(match=match_id)), node.hub.now())
        outs.append(out)
    while not all(out.messages >= 3 for out in outs):  # hello's answer, watching, the resync
        await asyncio.sleep(0.01)
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await node.stop()


def instructions(setup: str, matches: int, frames: int, plain: bool = False) -> tuple[int, dict[str, int]]:
    """Run the owner under callgrind; its instruction total and its figures."""
    prefix = f"floe-instr:{uuid.uuid4().hex[:10]}:"
    with tempfile.TemporaryDirectory() as folder:
        out_file = Path(folder) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                   sys.executable, "-m", "bench.cluster_instructions", "--owner", setup, "--prefix", prefix,
                   "--matches", str(matches), "--frames", str(frames),
                   *(["--plain"] if plain else [])]
        try:
            done = subprocess.run(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                  capture_output=True, timeout=3600, check=False)
        finally:
            asyncio.run(drop(prefix))
        if done.returncode != 0:
            raise RuntimeError(f"{setup}: the owner failed: {done.stderr.decode()[-2000:]}")
        figures: dict[str, int] = json.loads(done.stdout.decode().strip().splitlines()[-1])
        text = out_file.read_text(errors="replace")
        found = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
        if found is None:
            raise RuntimeError(f"{setup}: no instruction total in callgrind's output")
        return int(found.group(1)), figures


async def drop(prefix: str) -> None:
    client = aioredis.Redis.from_url(REDIS_URL)
    keys = [key async for key in client.scan_iter(f"{prefix}*", count=500)]
    if keys:
        await client.delete(*keys)
    await client.aclose()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--warmup", type=int, default=120)
    parser.add_argument("--setups", nargs="+", choices=SETUPS, default=list(SETUPS))
    parser.add_argument("--plain", action="store_true",
                        help="asyncio's own event loop and CPython's collector defaults (not as `floe serve` "
                             "runs: the figures before stop 27)")
    parser.add_argument("--owner", choices=SETUPS, help=argparse.SUPPRESS)
    parser.add_argument("--follower", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--prefix", default="", help=argparse.SUPPRESS)
    parser.add_argument("ids", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.owner is not None:
        with asyncio.Runner(loop_factory=None if args.plain else event_loop_factory()) as runner:
            print(json.dumps(runner.run(owner(args.owner, args.prefix, args.matches, args.frames,
                                              args.plain))))
        return
    if args.follower:
        asyncio.run(follower(args.prefix, args.ids))
        return
    print(f"{args.matches} lazy-bot duels, {args.frames} frames after {args.warmup} (callgrind), "
          f"{'plain' if args.plain else 'as floe serve runs'}", flush=True)
    base: int | None = None
    for setup in args.setups:
        short, _ = instructions(setup, args.matches, args.warmup, args.plain)
        long, figures = instructions(setup, args.matches, args.warmup + args.frames, args.plain)
        per_frame = (long - short) / (args.frames * args.matches)
        base = base if base is not None else per_frame
        print(f"{setup:<8} {per_frame:>12,.0f} instructions/match-frame  ({per_frame / base:.2f}× "
              f"{args.setups[0]}; {figures})", flush=True)


if __name__ == "__main__":
    main()
