"""Ranked on Redis: queue-to-match latency and store round trips per match: `python -m bench.ranked_queue`.

    python -m bench.ranked_queue [--pairs 20] [--seconds 4] [--redis redis://127.0.0.1:6379/0] [--nodes 2]

The server (default settings, but matches of `--seconds` and the per-address bounds raised) runs in
this process on a RedisStore under a fresh key prefix (deleted afterwards). 2 × `--pairs` guests, all
new (rating 1500), connect over real websockets, say hello and `queue` at once; each measures the time
from sending `queue` to receiving `matched` (the store's checks, the pairing pass, seating both through
the lobby, the journal note). Then bots play every match to its end and read on to `rated`. The store
counts its round trips (RedisStore.round_trips: a command, a pipeline or a script is one), read per
phase: the queue and pairing, and everything from the start of play to the last `rated` (the match
record, replay, seats given back, both rating updates, the leaderboard, the journal). `--nodes 2`
runs two servers (two nodes, each its own store client, on one prefix) and sends the guests to them in
turn, so most pairs span the two nodes (paired through the store's shared queue); each match is played
at the node that hosts it, and the round trips are both nodes' stores' (the nodes run on the shared
store as `floe serve --redis-url` makes them: their matches leased and journaled, the bus between
them, whose round trips are not counted).
Results: bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import time
import uuid

import websockets

from protocol.client import ClientSession
from server import botclient
from server.app import create_app
from server.config import ServerConfig
from server.embed import running_server
from server.match.settings import LimitSettings
from server.store.redis import RedisStore


async def queue_latency(ws_url: str, token: str) -> tuple[float, str]:
    """Seconds from `queue` to `matched` for one guest, and its match id."""
    session = ClientSession(token)
    async with websockets.connect(ws_url) as ws:
        await ws.send(session.hello())
        sent = time.perf_counter()
        await ws.send(session.queue())
        while session.matched is None:
            data = await asyncio.wait_for(ws.recv(), 60)
            assert isinstance(data, bytes)
            session.receive(data, time.monotonic())
            if session.errors:
                raise RuntimeError(f"refused: {session.errors[-1]}")
        return time.perf_counter() - sent, session.matched.match


async def measure(pairs: int, seconds: float, url: str, nodes: int = 1) -> None:
    prefix = f"floe-bench:{uuid.uuid4().hex[:8]}:"
    stores = [RedisStore.from_url(url, prefix) for _ in range(nodes)]
    limits = LimitSettings(guest_rate_per_address=1000.0, guest_burst_per_address=1000,  # one bench address
                           live_matches_per_address=10**6)
    # every result rated (no minimum of play): the bench times the queue and the rating path, and its
    # matches may be shorter than the minimum
    config = ServerConfig().override(secret=b"bench-secret-0123456789", tune_gc=False, limits=limits,
                          ranked_min_play_seconds=0.0,
                          message_rate_per_address=10.0**9, message_burst_per_address=10.0**9,
                          capacity_board_frames=10**9)
    config = config.with_time_limit(seconds)
    if nodes > 1:  # nodes on a shared store as `floe serve` makes them: leases, journals and the bus
        config = config.override(redis_url=url, redis_prefix=prefix)
    def trips() -> int:
        return sum(store.round_trips for store in stores)

    try:
        async with contextlib.AsyncExitStack() as stack:
            servers = [await stack.enter_async_context(running_server(create_app(config, store)))
                       for store in stores]
            tokens = [(await botclient.new_guest(servers[0].http_url, f"g{i}"))[1] for i in range(2 * pairs)]
            before = trips()
            found = await asyncio.gather(*(queue_latency(servers[i % nodes].ws_url, token)
                                           for i, token in enumerate(tokens)))
            queued = trips()
            latencies = sorted(latency for latency, _ in found)
            matches = {match for _, match in found}
            # A guest whose match the other node made hears `matched` through that node's note.
            elsewhere = sorted(latency for i, (latency, match) in enumerate(found)
                               if match not in servers[i % nodes].app.state.node.hub.matches)

            def host(match_id: str) -> str:
                """The websocket URL of the node that hosts the match (HAProxy's pinning)."""
                return next(s.ws_url for s in servers if match_id in s.app.state.node.hub.matches)

            # the `matched` connections are closed: the bots rejoin by id within the join timeout
            runs = await asyncio.gather(*(
                botclient.play(host(match), token, match, "competent", seed=i, until_rated=True)
                for i, (token, (_, match)) in enumerate(zip(tokens, found, strict=True))
            ))
            for server in servers:
                while server.app.state.node.background:
                    await asyncio.sleep(0.01)
            played = trips()
            rated = sum(len(run.session.rated) for run in runs)
            paired = [server.app.state.node.ranked.paired for server in servers]
        print(f"{pairs} pairs, {len(matches)} matches, {rated} rated messages (Redis at {url}); "
              f"pairs made per node: {paired}")
        p95 = latencies[int(0.95 * (len(latencies) - 1))]
        print(f"queue → matched: p50 {statistics.median(latencies) * 1000:.1f} ms, "
              f"p95 {p95 * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms")
        if elsewhere:
            far = elsewhere[int(0.95 * (len(elsewhere) - 1))]
            print(f"  of which told by the other node ({len(elsewhere)} guests): p50 "
                  f"{statistics.median(elsewhere) * 1000:.1f} ms, p95 {far * 1000:.1f} ms, "
                  f"max {elsewhere[-1] * 1000:.1f} ms")
        count = len(matches)
        print(f"store round trips per match: queue and pairing {(queued - before) / count:.1f}, "
              f"play to rated {(played - queued) / count:.1f}, total {(played - before) / count:.1f}")
    finally:
        import redis.asyncio as aioredis

        cleaner = aioredis.Redis.from_url(url)
        async for key in cleaner.scan_iter(match=f"{prefix}*", count=500):
            await cleaner.delete(key)
        await cleaner.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=4.0, help="match length (default 4 s)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--nodes", type=int, default=1, choices=(1, 2),
                        help="servers the guests reach in turn")
    args = parser.parse_args()
    asyncio.run(measure(args.pairs, args.seconds, args.redis, args.nodes))


if __name__ == "__main__":
    main()
