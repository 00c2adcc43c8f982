"""Ranked abuse, measured: rating farming with forfeits, dodge loops, token renewals from one address.

    python -m bench.ranked_abuse [--store memory|redis] [--rounds 7] [--pair-wait 3]

One server in this process (the default ranked settings but a 1 s join timeout, so a dodge takes a
second) with a bystander's match of two server bots running; the attacker's connections come from
127.0.0.2, the honest players' from 127.0.0.1. Three attacks, one after the other:

- **farm**: a farmer is paired `--rounds` times with fresh guests of its own that leave as soon as the
  match runs; prints the farmer's rating after each round (a round the queue does not pair within
  `--pair-wait` seconds ends the attack: the farmer's rising rating widens the gap to a new guest's);
- **dodge**: fresh guests of the attacker are paired `--rounds` times with one honest player and never
  join; the honest player closes its socket on each `over`; prints how many of its matches were
  cancelled, how often it was refused the queue (`cooldown`), and when the queue stopped pairing;
- **renew**: 20 guests of one address renew their tokens 6 times each; prints how many passed.

Each prints the bystander's frame lateness meanwhile (p50, p99, max). Works against older trees too
(the settings it names exist there). Results: bench/ABUSE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from typing import Any

import httpx
import websockets

from protocol.client import ClientSession
from server.app import create_app
from server.config import ServerConfig
from server.embed import RunningServer, running_server
from server.match.settings import LimitSettings
from server.node import Node
from server.store.base import Stores
from server.store.memory import MemoryStore
from server.store.players import LEGACY_RULESET
from server.store.redis import RedisStore

ATTACKER = "127.0.0.2"
HONEST = "127.0.0.1"
#: Seconds a queued guest waits for `matched` before the attack counts as stopped by the queue (the
#: farm's own, `--pair-wait`, must let the rating window widen: 10 points a second).
PAIR_WAIT = 3.0


def lateness(node: Node) -> str:
    """The bystander's frame lateness since the last call (the clock's wake-ups), then start afresh."""
    samples = sorted(node.hub.frame_clock.lateness)
    node.hub.frame_clock.lateness.clear()
    if not samples:
        return "no wake-ups"

    def ms(fraction: float) -> str:
        return f"{samples[min(len(samples) - 1, int(fraction * len(samples)))] * 1000:.1f}"

    count = len(samples)
    return f"bystander lateness p50 {ms(0.5)} ms, p99 {ms(0.99)} ms, max {ms(1.0)} ms ({count} wake-ups)"


async def new_guest(server: RunningServer, name: str, address: str) -> tuple[str, str]:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=server.http_url, transport=transport) as http:
        body = (await http.post("/api/guests", json={"name": name})).json()
    return str(body["guest"]), str(body["token"])


def connect(server: RunningServer, address: str) -> Any:
    return websockets.connect(server.ws_url, compression=None, proxy=None, local_addr=(address, 0))


async def read_until(ws: Any, session: ClientSession, done: Any, timeout: float = 10.0) -> bool:
    """Read until `done()`; False when `timeout` seconds pass first."""
    deadline = time.monotonic() + timeout
    while not done():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        try:
            data = await asyncio.wait_for(ws.recv(), left)
        except TimeoutError:
            return False
        session.receive(data, time.monotonic())
    return True


async def settled(node: Node) -> None:
    while node.background:
        await asyncio.sleep(0.01)


async def farm(server: RunningServer, node: Node, rounds: int, pair_wait: float) -> None:
    farmer, farmer_token = await new_guest(server, "farmer", ATTACKER)
    ratings: list[str] = []
    for index in range(rounds):
        _, alt_token = await new_guest(server, f"alt{index}", ATTACKER)
        me, alt = ClientSession(farmer_token), ClientSession(alt_token)
        async with connect(server, ATTACKER) as me_ws, connect(server, ATTACKER) as alt_ws:
            for ws, session in ((me_ws, me), (alt_ws, alt)):
                await ws.send(session.hello())
                await ws.send(session.queue())
            if not await read_until(me_ws, me, lambda s=me: s.matched or s.errors, pair_wait) or me.errors:
                ratings.append("not paired" if not me.errors else me.errors[-1].code)
                break
            assert me.matched is not None
            await me_ws.send(me.join(me.matched.match))
            await alt_ws.send(alt.join(me.matched.match))
            await read_until(alt_ws, alt, lambda s=alt: s.frames)
            await alt_ws.send(alt.leave())
            await read_until(me_ws, me, lambda s=me: s.over)
        await settled(node)
        player = await node.stores.players.get_player(farmer)
        rating = player.standing(LEGACY_RULESET).glicko.rating if player is not None else 1500.0
        ratings.append(f"{rating:.0f}")
    print(f"farm: the farmer's rating after each forfeit: 1500 → {' → '.join(ratings)}; {lateness(node)}")


async def dodge(server: RunningServer, node: Node, rounds: int) -> None:
    _, honest_token = await new_guest(server, "honest", HONEST)
    cancelled = refused = 0
    stopped = "never"
    for index in range(rounds):
        _, dodger_token = await new_guest(server, f"dodger{index}", ATTACKER)
        honest, dodger = ClientSession(honest_token), ClientSession(dodger_token)
        async with connect(server, HONEST) as honest_ws, connect(server, ATTACKER) as dodger_ws:
            await honest_ws.send(honest.hello())
            await honest_ws.send(honest.queue())
            await read_until(honest_ws, honest, lambda s=honest: s.queued or s.errors)
            if honest.errors:
                refused += 1
                continue
            await dodger_ws.send(dodger.hello())
            await dodger_ws.send(dodger.queue())
            if not await read_until(honest_ws, honest, lambda s=honest: s.matched, PAIR_WAIT):
                stopped = f"after {cancelled} cancelled matches"
                break
            assert honest.matched is not None
            await honest_ws.send(honest.join(honest.matched.match))
            await read_until(honest_ws, honest, lambda s=honest: s.over)
            cancelled += honest.over is not None and honest.over.result is None
        # the honest socket closed on `over`
        await settled(node)
    print(f"dodge: {cancelled} of the honest player's matches cancelled, the queue refused it {refused} of "
          f"{rounds} times (cooldown); pairing stopped: {stopped}; {lateness(node)}")


async def renew(server: RunningServer, node: Node) -> None:
    passed = attempts = 0
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    async with httpx.AsyncClient(base_url=server.http_url, transport=transport) as http:
        for index in range(20):
            token = (await http.post("/api/guests", json={"name": f"r{index}"})).json()["token"]
            for _ in range(6):
                attempts += 1
                answer = await http.post("/api/guests/renew", headers={"Authorization": f"Bearer {token}"})
                if answer.status_code == 200:
                    passed += 1
                    token = answer.json()["token"]
    print(f"renew: {passed} of {attempts} renewals from one address passed; {lateness(node)}")


async def measure(kind: str, rounds: int, pair_wait: float, redis_url: str) -> None:
    store: Stores
    if kind == "redis":
        prefix = f"floe-bench:{uuid.uuid4().hex[:8]}:"
        store = RedisStore.from_url(redis_url, prefix)
    else:
        store = MemoryStore()
    limits = LimitSettings(guest_rate_per_address=1000.0, guest_burst_per_address=1000)  # alt guests aplenty
    config = ServerConfig().override(secret=b"bench-secret-0123456789", tune_gc=False, limits=limits,
                                     ranked_join_timeout=1.0, ranked_pair_every=0.05)
    try:
        async with running_server(create_app(config, store)) as server:
            node: Node = server.app.state.node
            node.hub.create_bot_duel("competent", "lazy")
            await asyncio.sleep(2.0)
            print(f"{kind} store; idle: {lateness(node)}")
            await farm(server, node, rounds, pair_wait)
            await dodge(server, node, rounds)
            await renew(server, node)
    finally:
        if isinstance(store, RedisStore):
            keys = [key async for key in store.redis.scan_iter(match=f"{store.prefix}*")]
            if keys:
                await store.redis.delete(*keys)
            await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=("memory", "redis"), default="memory")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--pair-wait", type=float, default=PAIR_WAIT)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    asyncio.run(measure(args.store, args.rounds, args.pair_wait, args.redis))


if __name__ == "__main__":
    main()
