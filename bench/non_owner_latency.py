"""What a non-owning node adds to a player's latency (issue 20): `python -m bench.non_owner_latency`.

    python -m bench.non_owner_latency [--matches 10] [--seconds 20] [--redis redis://127.0.0.1:6379/0]
    python -m bench.non_owner_latency --set journal_slices=1      # a server setting for both nodes

Two nodes (server/node.py: hubs, frame clocks at the default 60 Hz, relays and followers) in this one
process, on the Redis at `--redis` (their ownership and their bus: Redis pub/sub; a fresh key prefix,
deleted afterwards). `--matches` two-player matches are made on node A; in each, seat 0's player is
connected to node B (which follows the match: its inputs go over `match_in` to A, the records come
back over `match_out`) and seat 1's player to A itself. Both players change their input every 6
frames, stamped 2 frames ahead of A's frame, so both sides wait for the same frames. Measured per
input: from the moment the client's `input` reaches its node's session to the moment its node queues
to that client the first frame record carrying it (a frame record of that frame whose `inputs` hold
it: the record A sends only once the input is journaled). Reported: p50/p99/max for the player on A
and the player on B, and B's extra; the inputs, records and bases the relay sent. Both nodes share
one event loop and one CPU here, so B's extra includes its own work for the loop and Redis' two hops,
not a network's. Results: bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis

from bench.cluster_cpu import setting_overrides
from protocol.codec import decode_server_messages, encode
from protocol.errors import CloseCode
from protocol.messages import Frame, Hello, Input, Join, ServerMessage
from protocol.version import PROTOCOL_VERSION
from server.cluster.redis import RedisBus, RedisOwnership, connect
from server.cluster.settings import ClusterSettings
from server.config import ServerConfig
from server.match.live import LiveMatch, Seat
from server.match.session import Session
from server.node import Node
from server.store.memory import MemoryStore

VALUES = (0x01, 0x03, 0x02, 0x04)
EVERY = 6
AHEAD = 2


@dataclass(eq=False)
class TimedOutbox:
    """A client connection that notes when each frame record carrying one of its inputs is queued."""

    seat: int
    #: (frame, value) → when the input was sent; frame → when its record came back.
    sent: dict[tuple[int, int], float] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    open: bool = True
    peer: str = "bench"

    def send(self, message: ServerMessage) -> bool:
        return self.send_bytes(encode(message))

    def send_bytes(self, data: bytes) -> bool:
        now = time.perf_counter()
        for message in decode_server_messages(data):
            if isinstance(message, Frame) and message.inputs:
                key = (message.frame, message.inputs[self.seat])
                at = self.sent.pop(key, None)
                if at is not None:
                    self.latencies.append(now - at)
        return True

    def close(self, code: int = CloseCode.NORMAL, message: ServerMessage | None = None) -> None:
        self.open = False


async def play(node: Node, live: LiveMatch, session: Session, out: TimedOutbox, stop: asyncio.Event) -> None:
    """Send a new input every EVERY frames of A's runner, stamped AHEAD frames ahead."""
    count = 0
    while not stop.is_set() and live.ended_at is None:
        runner = live.runner
        if runner is None or runner.now < EVERY * count:
            await asyncio.sleep(0.002)
            continue
        value = VALUES[(count + out.seat) % len(VALUES)]
        frame = runner.now + AHEAD
        out.sent[(frame, value)] = time.perf_counter()
        session.receive(encode(Input(frame=frame, inputs=[value])), node.hub.now())
        count += 1


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"n": 0}
    return {"n": len(ordered), "p50": 1000 * statistics.median(ordered),
            "p99": 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], "max": 1000 * ordered[-1]}


async def run(matches: int, seconds: float, url: str,
              overrides: dict[str, float] | None = None) -> dict[str, Any]:
    prefix = f"floe-bench:{uuid.uuid4().hex[:12]}:"
    settings = ClusterSettings()
    config = ServerConfig().override(secret=b"bench-secret-0123456789abcdef", cluster=settings,
                                     tune_gc=False, **(overrides or {})).with_time_limit(seconds)
    store = MemoryStore()
    nodes = [Node(config, store, ownership=RedisOwnership(connect(url), prefix, settings),
                  bus=RedisBus(connect(url), prefix, settings)) for _ in range(2)]
    a, b = nodes
    for node in nodes:
        await node.start()
    stop = asyncio.Event()
    tasks = []
    outs: dict[str, list[TimedOutbox]] = {"A (owner)": [], "B (follower)": []}
    try:
        for index in range(matches):
            wall = a.clock.wall()
            signed = [a.signer.new_guest(f"g-{index}-{seat}", f"p{seat}", wall) for seat in range(2)]
            guests = [guest for guest, _ in signed]
            live = a.hub.new_match([Seat(guest.name, guest=guest.id) for guest in guests])
            for seat, node, name in ((0, b, "B (follower)"), (1, a, "A (owner)")):
                out = TimedOutbox(seat)
                session = Session(out, node.dispatcher, config.session, node.hub.now())
                token = signed[seat][1]  # the nodes share the secret: either one's token is good on both
                session.receive(encode(Hello(version=PROTOCOL_VERSION, token=token)), node.hub.now())
                while session.held is not None:
                    await asyncio.sleep(0.001)
                session.receive(encode(Join(match=live.id)), node.hub.now())
                outs[name].append(out)
                tasks.append(asyncio.create_task(play(node, live, session, out, stop)))
        deadline = time.monotonic() + seconds + 30
        while time.monotonic() < deadline and any(live.ended_at is None for live in a.hub.matches.values()):
            await asyncio.sleep(0.1)
    finally:
        stop.set()
        await asyncio.gather(*tasks)
        for node in nodes:
            await node.stop()
        cleaner = aioredis.Redis.from_url(url)
        async for key in cleaner.scan_iter(match=f"{prefix}*", count=500):
            await cleaner.delete(key)
        await cleaner.aclose()
    result: dict[str, Any] = {name: percentiles([x for out in group for x in out.latencies])
                              for name, group in outs.items()}
    assert a.relay is not None and b.publisher is not None and a.publisher is not None
    result["relay"] = {"records": a.relay.records, "bases": a.relay.bases,
                       "messages_by_a": a.publisher.published, "publishes_by_a": a.publisher.publishes,
                       "messages_by_b": b.publisher.published, "publishes_by_b": b.publisher.publishes,
                       "dropped": a.publisher.dropped + b.publisher.dropped}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=NUMBER",
                        help="a server setting for both nodes (e.g. journal_slices=1)")
    args = parser.parse_args()
    overrides = setting_overrides(args.set)
    result = asyncio.run(run(args.matches, args.seconds, args.redis, overrides))
    print(f"{args.matches} matches x {args.seconds:g} s, seat 0 on B (follower), seat 1 on A (owner)"
          + (f", {', '.join(args.set)}" if args.set else ""))
    print(f"{'client on':<14} {'inputs':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name in ("A (owner)", "B (follower)"):
        row = result[name]
        print(f"{name:<14} {row['n']:>7} {row.get('p50', 0):>8.2f} {row.get('p99', 0):>8.2f} "
              f"{row.get('max', 0):>8.2f}")
    owner, follower = result["A (owner)"], result["B (follower)"]
    if owner["n"] and follower["n"]:
        extra_p50, extra_p99 = follower["p50"] - owner["p50"], follower["p99"] - owner["p99"]
        print(f"B's extra: p50 {extra_p50:+.2f} ms, p99 {extra_p99:+.2f} ms")
    print("relay:", result["relay"])


if __name__ == "__main__":
    main()
