"""What the fenced journal costs a match's owner per frame: `python -m bench.cluster_journal`.

    python -m bench.cluster_journal [--matches 50] [--seconds 10] [--redis redis://127.0.0.1:6379/0]
                                    [--no-cluster]

`--matches` two-seat pengo-versus matches run on one node's loop for `--seconds` of frames each, their
seats' inputs changing about 9 times a second (a busy human; bots change less). Each configuration runs
the same matches on the same inputs:

- `runner only`: the runners advance, nothing is logged (the baseline);
- `journal <backend>`: the runners journal (`journal=True`); every `send_every` (2) ticks, as the owner
  publishes, each match's input entries are taken and appended as one fenced batch, all matches'
  appends sent together (`append_all`: one pipeline, what the hub awaits before it publishes); every 3
  s of frames each match writes a snapshot of its checkpoint. Backends: embedded (`memory`), the Redis
  at `--redis` (a fresh key prefix, deleted afterwards) and a three-master Redis Cluster this script
  starts on loopback ports (skipped with `--no-cluster`).

Reported per configuration: CPU of this process per match-frame (µs; `time.process_time`), the extra
over the baseline, the CPU of the journal's own code alone (taking the logs, making the batches,
`append_all` and the snapshots: the steadier figure on a loaded machine), and the wall time of one
tick's awaited appends for all matches (p50/p99, ms) with the share of a 16.7 ms frame it takes; and
the journal's bytes per match-second. Results: bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, replace

from rules.versus.inputs import INPUTS
from rules.versus.ruleset import PENGO_VERSUS
from server.cluster.journal import (
    SNAPSHOT_FORMAT,
    Appending,
    Header,
    JournalSnapshot,
    Lease,
    Ownership,
    encode_logged,
    encode_snapshot,
)
from server.cluster.memory import MemoryOwnership
from server.cluster.redis import RedisOwnership, connect
from server.cluster.settings import ClusterSettings
from server.netcode.runner import MatchRunner, RunnerSettings

FRAME_HZ = 60
SEND_EVERY = 2
SNAPSHOT_FRAMES = 3 * FRAME_HZ
#: The bench runs faster than real time and renews nothing: its leases outlive it.
LONG_LEASES = replace(ClusterSettings(), lease_ttl=3600.0)
BYTES = (0x00, 0x01, 0x02, 0x03, 0x04, 0x0B, 0x09)


@dataclass
class Result:
    """One configuration's numbers."""

    name: str
    cpu_per_frame_us: float
    #: CPU of the journal's own code alone (take_log, batches, append_all, snapshots) per match-frame.
    journal_cpu_us: float
    tick_waits_ms: list[float]
    journal_bytes: int


def arrivals(seed: int, frames: int) -> list[list[tuple[int, int, int]]]:
    """Per tick, the (seat, frame, byte) inputs that arrive then (2 frames ahead, some late)."""
    rng = random.Random(seed)
    out: list[list[tuple[int, int, int]]] = [[] for _ in range(frames + 8)]
    for seat in range(2):
        for frame in range(frames):
            if rng.random() < 0.15:
                arrive = max(0, frame - 2 + rng.choice((0, 0, 0, 1, 3)))
                out[arrive].append((seat, frame, rng.choice(BYTES)))
    return out


def runners(count: int, frames: int, journal: bool) -> list[MatchRunner]:
    config = PENGO_VERSUS.with_time_limit(PENGO_VERSUS.default_config(), frames + 600)
    made = []
    for index in range(count):
        match = PENGO_VERSUS.new_match(config, 1000 + index, ["a", "b"])
        made.append(MatchRunner(match, INPUTS, RunnerSettings(), keyframe_phase=1000 + index,
                                journal=journal))
    return made


def header(seed: int) -> Header:
    return Header(PENGO_VERSUS.name, PENGO_VERSUS.version, SNAPSHOT_FORMAT, seed,
                  PENGO_VERSUS.config_plain(PENGO_VERSUS.default_config()), ("a", "b"), (None, None),
                  (None, None), False, False, 0.0, seed, {})


async def run(name: str, count: int, frames: int, ownership: Ownership | None) -> Result:
    scripts = [arrivals(index, frames) for index in range(count)]
    matches = runners(count, frames, ownership is not None)
    leases: list[Lease] = []
    if ownership is not None:
        for index in range(count):
            lease = await ownership.acquire(f"bench-{index}", "bench-node")
            assert lease is not None
            await ownership.create(lease, header(1000 + index))
            leases.append(lease)
    seqs = [0] * count
    waits: list[float] = []
    written = 0
    journal_cpu = overhead = 0.0
    cpu = time.process_time()
    for tick in range(frames):
        for runner, script in zip(matches, scripts, strict=True):
            for seat, frame, value in script[tick]:
                runner.tell_input(seat, frame, value)
            runner.advance(tick)
        if ownership is None or tick % SEND_EVERY:
            continue
        journal_started = time.process_time()
        items: list[Appending] = []
        for index, runner in enumerate(matches):
            seqs[index] += 1
            items.append((leases[index], seqs[index],
                          encode_logged(seqs[index], runner.now, runner.take_log(), {"players": tick})))
        started = time.perf_counter()
        refused = await ownership.append_all(items)
        waits.append((time.perf_counter() - started) * 1000)
        if tick % SNAPSHOT_FRAMES == 0 and tick:
            snapshots = [JournalSnapshot(seqs[i], runner.checkpoint()) for i, runner in enumerate(matches)]
            await asyncio.gather(*(ownership.snapshot(lease, snap) for lease, snap in zip(leases, snapshots,
                                                                                            strict=True)))
        else:
            snapshots = []
        journal_cpu += time.process_time() - journal_started
        counting = time.process_time()  # the bench's own counting, taken out of the CPU figures
        assert not any(refused), refused
        written += sum(len(data) for _, _, data in items)
        written += sum(len(encode_snapshot(snapshot)) for snapshot in snapshots)
        overhead += time.process_time() - counting
    cpu = time.process_time() - cpu
    if ownership is not None:
        for lease in leases:
            await ownership.finish(lease)
    cpu -= overhead
    return Result(name, cpu / (count * frames) * 1e6, journal_cpu / (count * frames) * 1e6, waits, written)


@contextlib.asynccontextmanager
async def redis_ownership(url: str, cluster: bool) -> AsyncIterator[RedisOwnership]:
    prefix = f"floe-bench:{uuid.uuid4().hex[:8]}:"
    client = connect(url, cluster)
    settings = LONG_LEASES
    ownership = RedisOwnership(client, prefix, settings)
    try:
        yield ownership
    finally:
        if not cluster:
            async for key in client.scan_iter(match=f"{prefix}*", count=500):
                await client.delete(key)
        await client.aclose()


@contextlib.contextmanager
def maybe_cluster(wanted: bool) -> Iterator[str | None]:
    if not wanted:
        yield None
        return
    from bench.redis_cluster import redis_cluster  # loopback ports, stopped by its own PIDs

    with redis_cluster() as running:
        yield running.url


def report(results: list[Result], count: int, seconds: float) -> None:
    base = results[0].cpu_per_frame_us
    print(f"{count} matches × {seconds:g} s ({int(seconds * FRAME_HZ)} frames each), a batch every "
          f"{SEND_EVERY} frames, a snapshot every {SNAPSHOT_FRAMES} frames")
    print(f"{'configuration':<22} {'CPU µs/match-frame':>19} {'extra':>8} {'journal code':>13} "
          f"{'tick wait p50':>14} {'p99 ms':>8} {'of a frame':>11} {'bytes/match-s':>14}")
    for result in results:
        waits = sorted(result.tick_waits_ms)
        p50 = statistics.median(waits) if waits else 0.0
        p99 = waits[min(len(waits) - 1, int(len(waits) * 0.99))] if waits else 0.0
        print(f"{result.name:<22} {result.cpu_per_frame_us:>19.1f} {result.cpu_per_frame_us - base:>8.1f} "
              f"{result.journal_cpu_us:>13.1f} {p50:>14.2f} {p99:>8.2f} {p50 / (1000 / FRAME_HZ):>10.0%} "
              f"{result.journal_bytes / (count * seconds):>14.0f}")
    for result in results[1:]:
        print(f"ab {result.name.replace(' ', '_')} journal_cpu_us_per_match_frame="
              f"{result.journal_cpu_us:.2f}")


async def main_async(count: int, seconds: float, url: str, cluster_url: str | None) -> None:
    frames = int(seconds * FRAME_HZ)
    results = [await run("runner only", count, frames, None)]
    results.append(await run("journal memory", count, frames, MemoryOwnership(LONG_LEASES)))
    async with redis_ownership(url, False) as ownership:
        results.append(await run("journal redis", count, frames, ownership))
    if cluster_url is not None:
        async with redis_ownership(cluster_url, True) as ownership:
            results.append(await run("journal redis-cluster", count, frames, ownership))
    report(results, count, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--no-cluster", action="store_true")
    args = parser.parse_args()
    with maybe_cluster(not args.no_cluster) as cluster_url:
        asyncio.run(main_async(args.matches, args.seconds, args.redis, cluster_url))


if __name__ == "__main__":
    main()
