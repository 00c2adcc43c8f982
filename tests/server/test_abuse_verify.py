"""The verification pool shared fairly and replay streams made once (issue 18), against a real server.

Two attackers (127.0.0.2 and 127.0.0.3) flood the pool while an honest client on 127.0.0.1 and a
bystander's match go on; each test asserts the mechanism (every honest request answered, one
re-simulation for many requests, the attacker's misses evicting its own streams) and prints the
bystander's frame lateness (no timed assertion).
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest

from protocol.replay_codec import encode_replay
from rules.replay import record
from rules.solo.match import SoloConfig
from rules.solo.ruleset import PENGO_SOLO
from server.embed import RunningServer
from server.http import api as api_module
from server.http.daily import day_key, day_of, day_seed
from server.http.replaystream import ReplayStreams, replay_stream_bytes
from server.node import Node
from tests.server.bystander import print_lateness, start_bystander
from tests.server.conftest import StartServer
from tests.server.helpers import UNIT, until
from tests.server.test_abuse import MSGPACK, abuse_config
from tests.server.test_http import finished_replay_bytes

pytestmark = pytest.mark.asyncio

ATTACKERS = ("127.0.0.2", "127.0.0.3")
HONEST = "127.0.0.1"


def client_on(server: RunningServer, address: str) -> httpx.AsyncClient:
    """An HTTP client whose connections come from `address`."""
    limits = httpx.Limits(max_connections=16, max_keepalive_connections=16)
    transport = httpx.AsyncHTTPTransport(local_address=address, limits=limits)
    return httpx.AsyncClient(base_url=server.http_url, transport=transport, timeout=120 * UNIT)


async def start_with_bystander(start_server: StartServer, **overrides: object) -> RunningServer:
    """A server on the default limits (queue wait raised: no answer may depend on the machine's speed)
    with a bystander's bot match running."""
    server = await start_server(abuse_config(verify_queue_seconds=600.0, **overrides))
    await start_bystander(server)
    return server


async def flood(http: httpx.AsyncClient, request: Any, stop: asyncio.Event, counts: dict[int, int]) -> None:
    """Send `request(http, i)` again and again until `stop`, counting the answers' statuses."""
    i = 0
    while not stop.is_set():
        i += 1
        answer = await request(http, i)
        counts[answer.status_code] = counts.get(answer.status_code, 0) + 1


async def timed_verifies(http: httpx.AsyncClient, replay: bytes, times: int) -> list[float]:
    """Verify `replay` `times` times one after another; every answer must be a verdict of ok (asserted),
    and the seconds each took are returned (printed, never asserted)."""
    took = []
    for _ in range(times):
        started = asyncio.get_running_loop().time()
        answer = await http.post("/api/replays/verify", content=replay, headers=MSGPACK)
        took.append(asyncio.get_running_loop().time() - started)
        assert answer.status_code == 200 and answer.json()["ok"] is True, answer.text
    return took


def summary(took: list[float]) -> str:
    """Median and worst of some durations, in ms."""
    ordered = sorted(took)
    return f"median {1000 * ordered[len(ordered) // 2]:.0f} ms, max {1000 * ordered[-1]:.0f} ms"


async def test_two_attackers_cannot_starve_an_honest_verify(start_server: StartServer) -> None:
    """Two addresses flooding verify and replay streams (holding both slots and their queues) cannot
    starve an honest client: every one of its verifications is answered ok (its turn comes after at
    most one job of each attacker); an attacker's requests past its own queue are refused 429."""
    server = await start_with_bystander(start_server)
    node: Node = server.app.state.node
    verifier = server.app.state.verifier
    replay = finished_replay_bytes()
    for i in range(40):
        await node.stores.replays.put_replay(f"flood-{i}", replay)
    honest_runs = 6

    async def verify(http: httpx.AsyncClient, _: int) -> httpx.Response:
        return await http.post("/api/replays/verify", content=replay, headers=MSGPACK)

    async def stream(http: httpx.AsyncClient, i: int) -> httpx.Response:
        return await http.get(f"/api/replays/flood-{i % 40}/stream")

    async with client_on(server, HONEST) as honest:
        quiet = await timed_verifies(honest, replay, honest_runs)
        print_lateness(node, "while the honest client verifies alone")
        node.hub.frame_clock.lateness.clear()  # the figures below are the flood's alone
        stop = asyncio.Event()
        counts: list[dict[int, int]] = [{}, {}]
        async with client_on(server, ATTACKERS[0]) as first, client_on(server, ATTACKERS[1]) as second:
            floods = [asyncio.create_task(flood(first, verify, stop, counts[0])) for _ in range(8)]
            floods += [asyncio.create_task(flood(second, kind, stop, counts[1]))
                       for kind in (verify, stream) for _ in range(4)]
            try:
                await until(lambda: verifier.busy == 2 and all(counts), 30 * UNIT, "both attackers served")
                attacked = await timed_verifies(honest, replay, honest_runs)
            finally:
                stop.set()
                await asyncio.gather(*floods)
    assert all(set(count) <= {200, 429} for count in counts) and counts[0].get(429, 0) > 0, counts
    print(f"\nhonest verify alone: {summary(quiet)}; during the flood: {summary(attacked)} "
          f"({honest_runs} of {honest_runs} ok); attackers answered {counts}")
    print_lateness(node, "during the flood")


def held_stream_job(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, list[int]]:
    """Replay-stream re-simulations (on the thread pool) are counted and wait for the returned event."""
    release = threading.Event()
    calls = [0]

    def counted(data: bytes, replay_id: str, max_frames: int, keyframe_every: int) -> dict[str, Any]:
        calls[0] += 1
        release.wait(60 * UNIT)
        return replay_stream_bytes(data, replay_id, max_frames, keyframe_every)

    monkeypatch.setattr(api_module, "replay_stream_bytes", counted)
    return release, calls


async def test_concurrent_requests_for_one_stream_share_one_resimulation(
    start_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight concurrent requests (four addresses) for one uncached replay stream re-simulate it once
    and all get the same stream."""
    release, calls = held_stream_job(monkeypatch)
    server = await start_with_bystander(start_server)
    node: Node = server.app.state.node
    streams: ReplayStreams = server.app.state.replay_streams
    await node.stores.replays.put_replay("shared", finished_replay_bytes())
    addresses = ("127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4")
    clients = [client_on(server, address) for address in addresses]
    try:
        requests = [asyncio.create_task(http.get("/api/replays/shared/stream")) for http in clients * 2]
        await until(lambda: calls[0] >= 2 or getattr(streams, "followers", 0) == len(requests) - 1,
                    30 * UNIT, "every request waiting for a re-simulation")
        release.set()
        answers = await asyncio.gather(*requests)
    finally:
        release.set()
        for http in clients:
            await http.aclose()
    assert [answer.status_code for answer in answers] == [200] * len(answers)
    assert len({answer.content for answer in answers}) == 1
    assert calls[0] == 1 and streams.made == 1
    print_lateness(node, "meanwhile")


async def test_an_attackers_cache_misses_evict_its_own_streams(
    start_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An honest client's cached stream survives an attacker's 17 distinct misses (more than the whole
    cache): the attacker's streams are charged to it and, past its share, evict its own oldest."""
    release, calls = held_stream_job(monkeypatch)
    release.set()
    server = await start_with_bystander(start_server)
    node: Node = server.app.state.node
    streams: ReplayStreams = server.app.state.replay_streams
    replay = finished_replay_bytes()
    for name in ["mine", *(f"flood-{i}" for i in range(17))]:
        await node.stores.replays.put_replay(name, replay)
    async with client_on(server, HONEST) as honest, client_on(server, ATTACKERS[0]) as attacker:
        assert (await honest.get("/api/replays/mine/stream")).status_code == 200
        for i in range(17):
            assert (await attacker.get(f"/api/replays/flood-{i}/stream")).status_code == 200
        assert calls[0] == 18
        assert (await honest.get("/api/replays/mine/stream")).status_code == 200
    assert calls[0] == 18, "the honest client's stream was evicted by the attacker's misses"
    config = server.app.state.node.config
    assert streams._held[ATTACKERS[0]] == config.http.replay_stream_cache_per_client
    print_lateness(node, "meanwhile")


def random_run(config: SoloConfig, seed: int, bot_seed: int) -> bytes:
    """A pengo-solo run of (config, seed) by the random bot seeded `bot_seed` (a different run per seed)."""
    match = PENGO_SOLO.new_match(config, seed, ["bot"])
    brain = PENGO_SOLO.make_bot("random", bot_seed)
    while match.result is None:
        match.step([brain.decide(match.seat_view(0), match.frame)])
    return encode_replay(record(match, PENGO_SOLO))


async def test_a_days_kept_runs_stay_within_its_bytes_budget(start_server: StartServer) -> None:
    """Six guests of one address submit six runs into a day whose budget holds about three: the replays
    kept stay within the budget (the best run's among them) and the rest keep their scores with no
    replay."""
    runs_config = SoloConfig(time_limit_frames=1200)
    secret = abuse_config().tokens.secret
    assert secret is not None
    today = day_of(time.time())
    seed = day_seed(day_key(secret, today), today)
    runs = [random_run(runs_config, seed, bot_seed) for bot_seed in range(6)]
    budget = 3 * max(map(len, runs)) + 300
    server = await start_with_bystander(start_server, daily_config=runs_config, daily_replay_bytes=budget)
    node: Node = server.app.state.node
    async with client_on(server, ATTACKERS[0]) as http:
        for run in runs:
            token = (await http.post("/api/guests", json={"name": "m"})).json()["token"]
            answer = await http.post("/api/daily/runs", content=run,
                                     headers={"Authorization": f"Bearer {token}", **MSGPACK})
            assert answer.status_code == 200, answer.text
        board = (await http.get(f"/api/daily/{answer.json()['day']}")).json()
        kept = [await http.get(f"/api/replays/{entry['replay']}") for entry in board["entries"]]
    assert board["total"] == 6 and kept[0].status_code == 200
    kept_bytes = sum(len(answer.content) for answer in kept if answer.status_code == 200)
    assert kept_bytes <= budget and any(entry["replay"] is None for entry in board["entries"])
    print(f"\nkept {kept_bytes} bytes of six runs' {sum(map(len, runs))} within a budget of {budget}")
    print_lateness(node, "meanwhile")


async def test_the_queues_are_served_in_turn_and_bounded() -> None:
    """With one slot: a client past its own queue is refused 429, past the total 503; a freed slot goes
    to the clients in turn, so a newcomer's request runs after one of each client ahead of it (not
    after all of theirs); a request that waits past the bound is refused 503."""
    from server.errors import ServerError
    from server.http.verify import Verifier

    config = abuse_config(verify_concurrency=1, verify_per_client=1, verify_queue_per_client=2,
                          verify_queue_total=5, verify_queue_seconds=600.0)
    verifier = Verifier(config.verify)
    order: list[str] = []
    done = {name: asyncio.Event() for name in ("a1", "a2", "a3", "b1", "b2", "c1")}

    async def job(client: str, name: str) -> None:
        async with verifier.slot(client):
            order.append(name)
            await done[name].wait()

    tasks = [asyncio.create_task(job("a", "a1"))]
    await until(lambda: order == ["a1"], 10 * UNIT, "the first job running")
    for client, name in (("a", "a2"), ("a", "a3"), ("b", "b1"), ("b", "b2"), ("c", "c1")):
        tasks.append(asyncio.create_task(job(client, name)))
        await until(lambda: verifier.queued == len(tasks) - 1, 10 * UNIT, f"{name} waiting")
    for client, status in (("a", 429), ("d", 503)):
        with pytest.raises(ServerError) as refused:
            async with verifier.slot(client):
                pass
        assert refused.value.status == status and refused.value.retry_after
    for running, then in (("a1", "a2"), ("a2", "b1"), ("b1", "c1"), ("c1", "a3"), ("a3", "b2")):
        done[running].set()
        await until(lambda: order[-1] == then, 10 * UNIT, f"{then} served after {running}")  # noqa: B023
    done["b2"].set()
    await asyncio.gather(*tasks)
    assert order == ["a1", "a2", "b1", "c1", "a3", "b2"] and verifier.busy == verifier.queued == 0

    impatient = Verifier(config.override(verify_queue_seconds=0.05).verify)
    async with impatient.slot("a"):
        with pytest.raises(ServerError) as waited:
            async with impatient.slot("b"):
                pass
    assert waited.value.status == 503 and impatient.queued == 0
