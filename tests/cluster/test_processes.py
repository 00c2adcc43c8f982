"""Two real `floe serve` processes on the machine's Redis (a key prefix of their own, one FLOE_SECRET).

- A ranked match paired on node A, its players and a spectator connected to A; A killed with SIGKILL
  mid-match. Node B takes the match over once A's lease lapses, the clients reconnect to B and resume
  their streams, and the match finishes there, rated once.
- A room's match on A, A frozen with SIGSTOP until B has taken the match over, then resumed: A's
  writes are refused, it drops the match and closes its clients (1001); they resume on B.

What both show: the spectator's stream numbers run on without a gap and its frames never go back, no
player's stream rewinds below a frame it was told is confirmed, every input a client was shown on a
confirmed frame (on A or on B) is in the final replay, and the replay verifies. The processes are
stopped by their PIDs whatever happens (SIGKILL, after a SIGCONT for a frozen one)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio
import redis.asyncio as aioredis
import websockets

from bench.serve_process import ServeProcess, start_serve
from protocol.client import ClientSession
from protocol.errors import CloseCode
from protocol.messages import Error, Frame, Matched, Over, Resync, Rewind, ServerMessage
from protocol.replay_codec import decode_replay
from rules.replay import Replay, input_rows, verify
from rules.versus.inputs import encode_input
from server import botclient
from server.config import ServerConfig
from tests.redis_helpers import REDIS_URL, drop_prefix, redis_or_skip, unique_prefix
from tests.server.helpers import UNIT, plain, replay_log, until, until_awaited

ROOT = Path(__file__).resolve().parents[2]
#: The nodes' shared token secret.
SECRET = "process-test-secret-0123456789"
#: Leases for a test about a lease lapsing (a 3 s lease renewed every 0.5 s: a loaded machine still
#: renews in time), a quick scan and frequent snapshots.
CLUSTER_ENV = {
    "FLOE_CLUSTER_LEASE_TTL": "3", "FLOE_CLUSTER_LEASE_RENEW_EVERY": "0.5", "FLOE_CLUSTER_LEASE_MARGIN": "1",
    "FLOE_CLUSTER_ORPHAN_SCAN_EVERY": "0.2", "FLOE_CLUSTER_SNAPSHOT_EVERY": "0.5",
}
#: Seconds of game frames a match lasts (60 a second: the processes run at the default rate).
MATCH_SECONDS = 8
TIMEOUT = 60 * UNIT
DIRECTIONS = [encode_input(d) for d in ("left", "down", "right", "up")]


class Process(ServeProcess):
    """A node of the test (bench/serve_process.py), waited for through the condition helpers."""

    async def listening(self) -> None:
        await until(self.started, TIMEOUT, f"{self.name} listens")


def match_config_json(seconds: int) -> str:
    """The default ruleset's config, limited to `seconds` of game frames, as FLOE_MATCH_CONFIG reads it."""
    match = ServerConfig().with_time_limit(seconds).match
    return json.dumps(match.ruleset.config_plain(match.match_config))


@dataclass
class Cluster:
    a: Process
    b: Process


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A key prefix of this test's own on the machine's Redis (skipped when it does not answer outside CI);
    its keys are deleted afterwards."""
    asyncio.run(_probe())
    prefix = unique_prefix()
    try:
        yield prefix
    finally:
        asyncio.run(_drop(prefix))


async def _probe() -> None:
    client = await redis_or_skip()
    await client.aclose()


async def _drop(prefix: str) -> None:
    client = aioredis.Redis.from_url(REDIS_URL)
    await drop_prefix(client, prefix)
    await client.aclose()


@pytest_asyncio.fixture
async def cluster(redis_prefix: str, tmp_path: Path,
                  request: pytest.FixtureRequest) -> AsyncIterator[Cluster]:
    """Nodes A and B, started on free loopback ports, on one Redis prefix; killed by PID afterwards.
    A test parametrized indirectly with variables sets those too."""
    extra: dict[str, str] = getattr(request, "param", {})
    env = {
        **os.environ, "PYTHONPATH": str(ROOT), "FLOE_SECRET": SECRET, "FLOE_REDIS_URL": REDIS_URL,
        "FLOE_REDIS_PREFIX": redis_prefix, "FLOE_MATCH_CONFIG": match_config_json(MATCH_SECONDS),
        "FLOE_RECONNECT_GRACE": "60", "FLOE_RANKED_MIN_PLAY_SECONDS": "2",
        "FLOE_RANKED_SPECTATOR_DELAY": "1", **CLUSTER_ENV, **extra,
    }
    processes: list[Process] = []
    try:
        for name in ("node-a", "node-b"):
            started = start_serve(name, env, tmp_path)
            processes.append(Process(started.name, started.popen, started.log))
        for process in processes:
            await process.listening()
        yield Cluster(*processes)
    finally:
        for process in processes:
            process.stop()


@dataclass
class Client:
    """A player or a spectator that follows a match's stream across reconnects."""

    session: ClientSession
    seat: int | None
    #: Every message heard, on every connection, in order.
    heard: list[ServerMessage] = field(default_factory=list)
    #: The frame below which each rewind happened, and the confirmed mark heard before it.
    rewinds: list[tuple[int, int]] = field(default_factory=list)
    confirmed: int = 0
    #: The close code of each connection the server closed (none when the connection was lost).
    closes: list[int] = field(default_factory=list)
    #: A ranked player: queues first, joins the match it is paired into, and reads on to its `rated`.
    ranked: bool = False

    def done(self) -> bool:
        """The match is over (and, for a ranked player, rated)."""
        return self.session.over is not None and (not self.ranked or bool(self.session.rated))

    async def follow(self, url: str, match_id: str) -> bool:
        """Connect (join or watch, or resume where the stream was left) and follow the stream until the
        match is over (True) or the connection is lost (False); a player plays a new direction every
        30 frames (each seat its own turn)."""
        session = self.session
        try:
            async with websockets.connect(url, compression=None, proxy=None) as ws:
                await ws.send(session.hello())
                if session.match is not None:
                    await ws.send(session.resume())
                elif self.ranked:
                    await ws.send(session.queue())
                elif self.seat is None:
                    await ws.send(session.watch(match_id))
                else:
                    await ws.send(session.join(match_id))
                async for data in ws:
                    assert isinstance(data, bytes)
                    now = time.monotonic()
                    for message in session.receive(data, now):
                        self.hear(message)
                        if isinstance(message, Matched):
                            self.seat = message.seat
                            await ws.send(session.join(message.match))
                        playing = self.seat is not None and session.over is None
                        if playing and isinstance(message, Frame | Resync):
                            assert self.seat is not None
                            turn = (max(session.frames, default=0) // 30 + self.seat) % 4
                            for payload in session.input(DIRECTIONS[turn], now):
                                await ws.send(payload)
                    if self.done():
                        return True
                if ws.close_code is not None:
                    self.closes.append(ws.close_code)
        except (websockets.ConnectionClosed, OSError):
            pass
        return self.done()

    def hear(self, message: ServerMessage) -> None:
        assert not isinstance(message, Error), f"the server refused: {message}"
        self.heard.append(message)
        if isinstance(message, Rewind):
            self.rewinds.append((message.frame, self.confirmed))
        if isinstance(message, Frame | Resync):
            self.confirmed = max(self.confirmed, message.confirmed)

    def shown(self) -> list[Frame]:
        """The frame records heard as confirmed (each frame below its record's `confirmed` is final)."""
        return [m for m in self.heard if isinstance(m, Frame) and m.frame < m.confirmed]


async def fetch_replay(http_url: str, match_id: str) -> Replay:
    """The stored replay of a finished match, once the node has written it."""
    found: list[bytes] = []

    async def stored() -> bool:
        status, data = await botclient.http_bytes(f"{http_url}/api/replays/{match_id}")
        if status == 200:
            found.append(data)
        return status == 200

    await until_awaited(stored, TIMEOUT, "the replay is stored")
    return decode_replay(found[0])


def number(message: ServerMessage) -> int | None:
    """A stream record's number (None for a message outside the stream)."""
    n = getattr(message, "n", None)
    return n if isinstance(n, int) else None


async def hosts(process: Process, match_id: str) -> bool:
    """Does `process` host the match live? (Any node answers for a live match: `node` names its owner.)"""
    try:
        status, data = await botclient.http_bytes(f"{process.http_url}/api/matches/{match_id}")
    except OSError:
        return False
    summary = json.loads(data) if status == 200 else {}
    return bool(summary.get("live")) and summary.get("node") == process.name


async def host_room(a: Process, b: Process) -> tuple[str, list[Client]]:
    """A room's match on A (its two guests signed in on either node: the store is shared): (its id, its
    two players and a spectator, following it on A from the start)."""
    _, first = await botclient.new_guest(a.http_url, "ann")
    _, second = await botclient.new_guest(b.http_url, "bob")
    room = await botclient.http_json(f"{a.http_url}/api/rooms", "POST", {}, first)
    match_id = room["match"]
    joined = await botclient.http_json(f"{a.http_url}/api/rooms/join", "POST", {"invite": room["invite"]},
                                       second)
    assert joined == {"match": match_id, "seat": 1}
    return match_id, [Client(ClientSession(first), 0), Client(ClientSession(second), 1),
                      Client(ClientSession(None), None)]


def assert_kept_in_replay(players: list[Client], clients: list[Client], frames: list[Frame], replay: Replay,
                          survivor: Process) -> None:
    """What a takeover must keep: every input shown on a confirmed frame, on either node, to anyone, is
    in the replay; the players' streams never rewound below a frame they were told was confirmed, ran
    on without a gap and end as the replay (every frame's inputs as they stand after the rewinds); the
    spectator's view of every frame is the replay's; the survivor logged no error."""
    rows = list(input_rows(replay))
    shown = [record for client in clients for record in client.shown()]
    assert all(record.inputs == rows[record.frame] for record in shown)
    for player in players:
        assert all(frame >= confirmed for frame, confirmed in player.rewinds), player.rewinds
        assert player.session.gaps == 0
        told = {frame: list(body["inputs"]) for frame, body in player.session.frames.items()}
        assert told == {frame: list(rows[frame]) for frame in told}
    expected = replay_log(replay)
    assert all(f.events == plain(expected[f.frame]) for f in frames)
    assert not [line for line in survivor.lines() if line.get("level") == "error"], survivor.tail()


async def finish_on_b(b: Process, match_id: str, clients: list[Client]) -> None:
    """Once B hosts the match, every client reconnects to B, resumes its stream and follows it to the end;
    then the checks of the module docstring, on the replay B stored (for a ranked match's delayed
    spectator too)."""
    before = [len(client.heard) for client in clients]
    shown_before = [record for client in clients for record in client.shown()]
    await until_awaited(lambda: hosts(b, match_id), TIMEOUT, "B takes the match over")
    assert b.logged("owner.took-over", match_id), b.tail()
    finished = await asyncio.wait_for(
        asyncio.gather(*(client.follow(b.ws_url, match_id) for client in clients)), TIMEOUT)
    assert finished == [True, True, True], f"the match ends on B\n{b.tail()}"
    assert all(len(client.heard) > count for client, count in zip(clients, before, strict=True))

    replay = await fetch_replay(b.http_url, match_id)
    assert verify(replay).ok
    *players, spectator = clients
    # The spectator: one stream across both nodes, numbered without a gap, its frames never going back.
    # (A spectator that joins a started match, or a ranked one's delayed stream, may be caught up with a
    # resync on A before the kill; after it, none.)
    numbered = [m for m in spectator.heard if number(m) is not None]
    after_kill = [m for m in spectator.heard[before[-1]:] if number(m) is not None]
    assert not [m for m in numbered if isinstance(m, Rewind)], "the spectator never rewinds"
    assert isinstance(numbered[-1], Over), "the spectator's stream ends with the match"
    resyncs = [index for index, m in enumerate(numbered) if isinstance(m, Resync)]
    frames = [m for m in numbered[resyncs[-1] + 1 if resyncs else 0:] if isinstance(m, Frame)]
    assert frames[-1].frame == replay.final_frame - 1
    # Continuity of the spectator's stream, a ranked match's delayed one included (which A had sent
    # further than its journal's marks: B numbers the same records the same and holds the spectator
    # until its stream gets there, `Stream.hold`).
    assert not [m for m in after_kill if isinstance(m, Resync)], "the spectator resumed without a resync"
    numbers = [number(m) for m in numbered]
    assert numbers == list(range(numbers[0] or 0, (numbers[0] or 0) + len(numbers)))
    assert spectator.session.gaps == 0
    assert [f.frame for f in frames] == list(range(frames[0].frame, frames[0].frame + len(frames)))
    assert max(record.frame for record in shown_before) > 100, "inputs were shown confirmed on A"
    assert_kept_in_replay(players, clients, frames, replay, b)
    assert b.popen.poll() is None


@pytest.mark.asyncio
async def test_a_ranked_match_survives_its_node_being_killed(cluster: Cluster) -> None:
    """Two guests queue on A and are paired into a ranked match there, a spectator watches it on A; A is
    killed with SIGKILL mid-match; the match finishes on B (see the module docstring for what is
    checked), and is rated once: each player hears one `rated` (its first game), as B's store says."""
    a, b = cluster.a, cluster.b
    (ann, first), (bob, second) = [await botclient.new_guest(a.http_url, name) for name in ("ann", "bob")]
    players = [Client(ClientSession(token), None, ranked=True) for token in (first, second)]
    on_a = [asyncio.create_task(player.follow(a.ws_url, "")) for player in players]
    try:
        await until(lambda: all(player.session.match for player in players), TIMEOUT, "paired on A")
        match_id = players[0].session.match
        assert match_id is not None and players[1].session.match == match_id
        spectator = Client(ClientSession(None), None)
        on_a.append(asyncio.create_task(spectator.follow(a.ws_url, match_id)))
        await until(lambda: min(player.confirmed for player in players) > 150 and spectator.confirmed > 30,
                    TIMEOUT, "150 frames confirmed on A (30 shown to the spectator, 1 s behind)")
        assert not await hosts(b, match_id), "B must not host the match while A holds it"
        a.popen.send_signal(signal.SIGKILL)
        a.popen.wait(timeout=30)
        finished_on_a = await asyncio.wait_for(asyncio.gather(*on_a), TIMEOUT)
    finally:
        for task in on_a:
            task.cancel()
    assert finished_on_a == [False, False, False], "A died mid-match"
    await finish_on_b(b, match_id, [*players, spectator])
    for guest, player in zip((ann, bob), players, strict=True):
        assert [rated.match for rated in player.session.rated] == [match_id]
        rated = player.session.rated[0]
        assert rated.games == 1
        page = await botclient.http_json(f"{b.http_url}/api/players/{guest}")
        assert page["games"] == 1 and page["rating"] == rated.rating
        assert [game["replay"] for game in page["recent"]] == [match_id]


@pytest.mark.asyncio
async def test_a_frozen_owner_is_refused_and_stops_serving(cluster: Cluster) -> None:
    """A frozen with SIGSTOP until B has taken its match over, then resumed: A's lease is gone (its
    renewal and its journal writes are refused), so it drops the match and closes its clients with
    1001; they reconnect to B, where the match finishes (the same checks as after a kill)."""
    a, b = cluster.a, cluster.b
    match_id, clients = await host_room(a, b)
    spectator = clients[-1]
    on_a = [asyncio.create_task(client.follow(a.ws_url, match_id)) for client in clients]
    try:
        await until(lambda: spectator.confirmed > 150, TIMEOUT, "150 frames confirmed on A")
        a.popen.send_signal(signal.SIGSTOP)
        try:
            await until_awaited(lambda: hosts(b, match_id), TIMEOUT, "B takes the frozen A's match")
        finally:
            a.popen.send_signal(signal.SIGCONT)
        finished_on_a = await asyncio.wait_for(asyncio.gather(*on_a), TIMEOUT)
    finally:
        for task in on_a:
            task.cancel()
    assert finished_on_a == [False, False, False], "A stopped serving the match before its end"
    assert [client.closes for client in clients] == [[CloseCode.GOING_AWAY]] * 3
    assert a.logged("owner.lost", match_id), a.tail()
    assert not await hosts(a, match_id), "A no longer serves the match"
    await finish_on_b(b, match_id, clients)
    assert a.popen.poll() is None


#: Leases that never lapse within the test: only a hand-off can move the match.
GENEROUS = {"FLOE_CLUSTER_LEASE_TTL": "600", "FLOE_CLUSTER_LEASE_RENEW_EVERY": "1",
            "FLOE_CLUSTER_LEASE_MARGIN": "1"}


@pytest.mark.asyncio
@pytest.mark.parametrize("cluster", [GENEROUS], indirect=True, ids=["generous-leases"])
async def test_sigterm_hands_the_match_off(cluster: Cluster) -> None:
    """A stopped with SIGTERM (uvicorn's shutdown: the node hands its matches off, server/node.py) gives
    its lease up and exits 0; B takes the match over at its next scan (the 600 s lease never lapses
    here), the clients resume on B and the match finishes there (the same checks as after a kill)."""
    a, b = cluster.a, cluster.b
    match_id, clients = await host_room(a, b)
    spectator = clients[-1]
    on_a = [asyncio.create_task(client.follow(a.ws_url, match_id)) for client in clients]
    try:
        await until(lambda: spectator.confirmed > 150, TIMEOUT, "150 frames confirmed on A")
        a.popen.send_signal(signal.SIGTERM)
        finished_on_a = await asyncio.wait_for(asyncio.gather(*on_a), TIMEOUT)
    finally:
        for task in on_a:
            task.cancel()
    assert finished_on_a == [False, False, False], "A stopped serving the match before its end"
    assert a.popen.wait(timeout=TIMEOUT) == 0, a.tail()
    assert [line for line in a.lines() if line.get("event") == "node.handed-off"], a.tail()
    assert not a.logged("owner.lost", match_id), "A gave its lease up: nothing was refused"
    await finish_on_b(b, match_id, clients)


@pytest.mark.asyncio
async def test_clients_on_the_other_node_follow_the_match_across_a_kill(cluster: Cluster) -> None:
    """A room's match on A, one player connected to A, the other player and a spectator to B (which
    follows A's match over the bus, server/match/follow.py): A is killed with SIGKILL mid-match; B takes
    the match over and its two clients go on without reconnecting: the spectator's stream runs on
    without a gap or a resync, the match finishes (A's player resumes on B), every input shown
    anywhere is in the verified replay."""
    a, b = cluster.a, cluster.b
    match_id, (ann, bob, spectator) = await host_room(a, b)
    on_a = asyncio.create_task(ann.follow(a.ws_url, match_id))
    on_b = [asyncio.create_task(client.follow(b.ws_url, match_id)) for client in (bob, spectator)]
    try:
        await until(lambda: spectator.confirmed > 150 and bob.confirmed > 150, TIMEOUT,
                    "150 frames confirmed, seen on B")
        assert not await hosts(b, match_id), "B follows the match: A hosts it"
        assert b.logged("follow.player", match_id), b.tail()
        shown_before = [record for client in (ann, bob, spectator) for record in client.shown()]
        a.popen.send_signal(signal.SIGKILL)
        a.popen.wait(timeout=30)
        assert await asyncio.wait_for(on_a, TIMEOUT) is False, "A died mid-match"
        await until_awaited(lambda: hosts(b, match_id), TIMEOUT, "B takes the match over")
        finished = await asyncio.wait_for(asyncio.gather(*on_b, ann.follow(b.ws_url, match_id)), TIMEOUT)
    finally:
        for task in (on_a, *on_b):
            task.cancel()
    assert finished == [True, True, True], f"the match ends on B\n{b.tail()}"
    assert bob.closes == [] and spectator.closes == [], "B's clients kept their sockets"
    adopted = b.logged("follow.adopted", match_id)  # B's clients went over to B's own match
    assert adopted and adopted[0]["clients"] >= 2, b.tail()
    replay = await fetch_replay(b.http_url, match_id)
    assert verify(replay).ok
    numbered = [m for m in spectator.heard if number(m) is not None]
    assert not [m for m in numbered if isinstance(m, Rewind | Resync)], "no rewind, no resync"
    numbers = [number(m) for m in numbered]
    assert numbers == list(range(numbers[0] or 0, (numbers[0] or 0) + len(numbers)))
    assert spectator.session.gaps == 0 and isinstance(numbered[-1], Over)
    frames = [m for m in numbered if isinstance(m, Frame)]
    assert [f.frame for f in frames] == list(range(frames[0].frame, frames[0].frame + len(frames)))
    assert frames[-1].frame == replay.final_frame - 1
    assert max(record.frame for record in shown_before if record in bob.shown()) > 100, "B's player was shown"
    assert_kept_in_replay([ann, bob], [ann, bob, spectator], frames, replay, b)
