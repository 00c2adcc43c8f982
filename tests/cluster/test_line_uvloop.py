"""The journal's line (server/cluster/line.py) on uvloop, the loop `floe serve` runs on (server/cli.py):
its transports are not asyncio's classes (tests/cluster/test_line.py runs on asyncio's own loop)."""

from __future__ import annotations

import asyncio
from typing import Any

from server.cluster.line import ScriptLine
from server.embed import event_loop_factory
from tests.cluster.test_line import SCRIPT, sha
from tests.cluster_helpers import redis_alone


def test_the_line_runs_on_uvloop_as_floe_serve_does() -> None:
    """`floe serve` runs on uvloop (server/cli.py), whose transports are not asyncio's classes: the
    line's protocol works on them (the other tests run on asyncio's own loop)."""
    factory = event_loop_factory()
    assert factory is not None, "uvloop comes with uvicorn[standard], a dependency"

    async def logged(port: int) -> Any:
        line = ScriptLine({"host": "127.0.0.1", "port": port})
        try:
            return await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "ab"])
        finally:
            line.close()

    with redis_alone() as port, asyncio.Runner(loop_factory=factory) as runner:
        assert runner.run(logged(port)) == 2
