"""A throwaway Redis Cluster on loopback ports, for benchmarks and tests: three masters (no replicas)
in a temporary folder, made with `redis-cli --cluster create`, ready once every node says
`cluster_state:ok` (polled), stopped by their own PIDs whatever happens (they also die with this
process: PR_SET_PDEATHSIG). tests/cluster_helpers.py wraps it for pytest."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

#: How long the cluster may take to form (seconds; it takes about 2 s on an idle machine).
FORM_TIMEOUT = 60.0
#: How often the formation is looked at (seconds).
POLL = 0.05
#: prctl's PR_SET_PDEATHSIG.
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class RunningCluster:
    """A running cluster: its nodes' ports and processes."""

    ports: tuple[int, ...]
    pids: tuple[int, ...]

    @property
    def url(self) -> str:
        """A URL of one node (redis-py's cluster client discovers the others)."""
        return f"redis://127.0.0.1:{self.ports[0]}/0"


def installed() -> bool:
    """Are redis-server and redis-cli on the PATH?"""
    return shutil.which("redis-server") is not None and shutil.which("redis-cli") is not None


def _free_port() -> int:
    """A loopback port free now, whose cluster bus port (+10000) is free too."""
    for _ in range(100):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port + 10000 > 65535:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    raise RuntimeError("no free loopback port pair for a cluster node")


def _die_with_parent() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _cli(port: int, *args: str) -> str:
    done = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), *args],
                          capture_output=True, text=True, timeout=30, check=False)
    return done.stdout


def _wait(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + FORM_TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the Redis Cluster: {what} did not happen within {FORM_TIMEOUT:g} s")
        time.sleep(POLL)  # processes we started are forming: nothing in this process to wait on


def _server(port: int, folder: str, *options: str) -> subprocess.Popen[bytes]:
    """A redis-server on loopback `port`, keeping nothing on disk, with `options`; it dies with us."""
    return subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", folder, *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent,
    )


def _stop(processes: list[subprocess.Popen[bytes]], folder: str) -> None:
    """Kill the servers by their PIDs, wait for them, remove their folder."""
    for process in processes:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
    for process in processes:
        process.wait(timeout=30)
    shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def redis_alone(*options: str) -> Iterator[int]:
    """One throwaway Redis on a free loopback port with `options` (`--requirepass`, …): its port,
    once it answers; stopped by its PID whatever happens (RuntimeError without redis-server)."""
    if not installed():
        raise RuntimeError("redis-server is needed")
    folder = tempfile.mkdtemp(prefix="floe-redis-")
    port = _free_port()
    processes = [_server(port, folder, *options)]
    try:
        _wait(lambda: "PONG" in _cli(port, "ping") or "NOAUTH" in _cli(port, "ping"), "Redis answering")
        yield port
    finally:
        _stop(processes, folder)


@contextlib.contextmanager
def redis_cluster(masters: int = 3) -> Iterator[RunningCluster]:
    """Start a cluster of `masters` nodes, yield it, stop it (RuntimeError without redis-server)."""
    if not installed():
        raise RuntimeError("redis-server and redis-cli are needed for a Redis Cluster")
    folder = tempfile.mkdtemp(prefix="floe-cluster-")
    processes: list[subprocess.Popen[bytes]] = []
    try:
        ports = tuple(_free_port() for _ in range(masters))
        for port in ports:
            node_folder = os.path.join(folder, str(port))
            os.mkdir(node_folder)
            processes.append(_server(port, node_folder, "--cluster-enabled", "yes", "--cluster-node-timeout",
                                     "2000", "--cluster-config-file", "nodes.conf", "--protected-mode", "no"))
        _wait(lambda: all(_cli(port, "ping").strip() == "PONG" for port in ports), "every node answering")
        created = subprocess.run(
            ["redis-cli", "--cluster", "create", *(f"127.0.0.1:{port}" for port in ports),
             "--cluster-replicas", "0", "--cluster-yes"],
            capture_output=True, text=True, timeout=60, check=False,
        )
        if created.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout}{created.stderr}")
        _wait(lambda: all("cluster_state:ok" in _cli(port, "cluster", "info") for port in ports),
              "cluster_state:ok on every node")
        yield RunningCluster(ports, tuple(process.pid for process in processes))
    finally:
        _stop(processes, folder)
