"""A `floe serve` process started on a free loopback port, for the benches and the tests that run real
nodes (bench/takeover_time.py, tests/cluster/test_processes.py): its JSON log, and where it listens
once its `serve.listening` line is there. How to wait for that is the caller's (a test through its
condition helpers, a bench by polling)."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class ServeProcess:
    """One `floe serve` process and where it listens (read from its `serve.listening` log line)."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    http_url: str = ""
    ws_url: str = ""

    def lines(self) -> list[dict[str, Any]]:
        """Its JSON log lines so far."""
        found = []
        for line in self.log.read_text(encoding="utf-8", errors="replace").splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                found.append(json.loads(line))
        return found

    def logged(self, event: str, match_id: str) -> list[dict[str, Any]]:
        """Its log lines of `event` about the match."""
        return [line for line in self.lines() if line.get("event") == event and line.get("match") == match_id]

    def tail(self) -> str:
        """Its last 30 log lines, for a failure's message."""
        return f"{self.name}'s log:\n" + "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])

    def started(self) -> bool:
        """Does it listen yet (its address noted)? RuntimeError once it has exited."""
        if self.popen.poll() is not None:
            raise RuntimeError(f"{self.name} exited ({self.popen.returncode})\n{self.tail()}")
        for line in self.lines():
            if line.get("event") == "serve.listening":
                self.http_url, self.ws_url = line["http"], line["ws"]
                return True
        return False

    def stop(self) -> None:
        """Kill it (a frozen one too) and reap it."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGCONT)
            self.popen.kill()
        self.popen.wait(timeout=30)


def start_serve(name: str, env: dict[str, str], folder: Path) -> ServeProcess:
    """`floe serve` on a free loopback port as node `name` (FLOE_NODE_NAME), its log in `folder`."""
    log = folder / f"{name}.log"
    with log.open("wb") as out:
        popen = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", "--port", "0"],
            cwd=ROOT, env={**env, "FLOE_NODE_NAME": name}, stdin=subprocess.DEVNULL, stdout=out,
            stderr=subprocess.STDOUT,
        )
    return ServeProcess(name, popen, log)
