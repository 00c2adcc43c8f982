"""How long trickled JSON request bodies hold their requests open, and a bystander match meanwhile:
`python -m bench.http_trickle`.

    python -m bench.http_trickle [--connections 64] [--seconds 30] [--every 2]

The server (default settings: the body deadline `http_body_seconds`, 10 s) runs in this process with
one bot-against-bot match (the bystander). From 127.0.0.2, `--connections` raw connections each send
`POST /api/guests` with `Content-Length: 64` and then one byte of the body every `--every` seconds
(never a pause long enough for the relay's idle timeout). The bench watches for `--seconds` and
prints, per connection, when its answer came (and its status) or that it is still held, and the
bystander's frame lateness (p50, p99, max) over the window. Results: bench/ABUSE.md, "## HTTP".
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from server.app import create_app
from server.config import ServerConfig
from server.embed import RunningServer, running_server

ATTACKER = "127.0.0.2"
HEAD = (b"POST /api/guests HTTP/1.1\r\nHost: floe\r\nContent-Type: application/json\r\n"
        b"Content-Length: 64\r\n\r\n")


async def trickle(server: RunningServer, every: float, seconds: float) -> tuple[float | None, str]:
    """One held request: (seconds until its answer, its status line) or (None, "held")."""
    reader, writer = await asyncio.open_connection(server.host, server.port, local_addr=(ATTACKER, 0))
    start = time.monotonic()
    writer.write(HEAD)
    answer = asyncio.ensure_future(reader.readline())
    try:
        while time.monotonic() - start < seconds:
            done, _ = await asyncio.wait({answer}, timeout=every)
            if done:
                line = answer.result().decode("latin-1").strip() or "closed"
                return time.monotonic() - start, line
            writer.write(b" ")
        return None, "held"
    finally:
        answer.cancel()
        writer.close()


async def main(connections: int, seconds: float, every: float) -> None:
    config = ServerConfig().override(tune_gc=False, secret=b"bench-secret-0123456789abcdef")
    app = create_app(config)
    async with running_server(app) as server:
        node = app.state.node
        node.hub.create_bot_duel("competent", "competent")
        while node.stats()["running"] < 1:
            await asyncio.sleep(0.05)
        before = node.stats()["lateness_ms"]["samples"]
        results = await asyncio.gather(*(trickle(server, every, seconds) for _ in range(connections)))
        lateness = node.stats()["lateness_ms"]
    answered = [took for took, _ in results if took is not None]
    statuses = sorted({status for _, status in results})
    print(f"{connections} trickled JSON bodies, a byte every {every:g} s, watched {seconds:g} s "
          f"(body deadline {config.http.http_body_seconds:g} s)")
    print(f"  answered: {len(answered)}, still held: {connections - len(answered)}; statuses {statuses}")
    if answered:
        print(f"  answered after: median {statistics.median(answered):.1f} s, max {max(answered):.1f} s")
    print(f"  bystander's frame lateness: p50 {lateness['p50']} ms, p99 {lateness['p99']} ms, "
          f"max {lateness['max']} ms over {lateness['samples'] - before} wake-ups")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--every", type=float, default=2.0)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.connections, arguments.seconds, arguments.every))
