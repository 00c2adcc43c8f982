"""A delaying TCP proxy on loopback (this kernel has no netem): every chunk read in either direction is
passed on `delay` ± `jitter` seconds later, in order (a chunk never overtakes the one before it, as on
one TCP connection), so a browser on the proxy's port plays `delay` seconds one way from the server.

    async with delaying_proxy(server_port, delay=0.100, jitter=0.010) as port:
        await page.goto(f"http://127.0.0.1:{port}/")

Used by tests/web/test_prediction_delay.py and bench/own_board_latency.py.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

#: Bytes read at once from a socket.
CHUNK = 65536


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float, jitter: float,
                rng: random.Random) -> None:
    """Copy `reader` to `writer`, each chunk written `delay` ± `jitter` after it was read, in order (each
    chunk's time is later than the one before it: the loop's timers run in the order of their times,
    and equal times in no promised order)."""
    loop = asyncio.get_running_loop()
    last = 0.0
    done = loop.create_future()

    def write(data: bytes) -> None:
        if writer.is_closing():
            return
        if data:
            writer.write(data)
        else:
            with suppress(OSError):
                writer.write_eof()

    try:
        while True:
            data = await reader.read(CHUNK)
            due = max(last + 1e-6, loop.time() + delay + rng.uniform(-jitter, jitter))
            last = due
            loop.call_at(due, write, data)
            if not data:
                break
        loop.call_at(last + 1e-6, finish, done)
        await done
    finally:
        loop.call_at(max(last + 2e-6, loop.time()), writer.close)


def finish(done: asyncio.Future[None]) -> None:
    """Mark a pipe's last chunk written (unless the pipe was cancelled meanwhile)."""
    if not done.done():
        done.set_result(None)


@asynccontextmanager
async def delaying_proxy(upstream_port: int, delay: float, jitter: float = 0.0,
                         seed: int = 1) -> AsyncIterator[int]:
    """A proxy to 127.0.0.1:`upstream_port` delaying each direction by `delay` ± `jitter` s; its port."""
    rng = random.Random(seed)
    tasks: set[asyncio.Task[None]] = set()

    async def serve(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
        except OSError:
            client_writer.close()
            return
        both = asyncio.gather(_pipe(client_reader, up_writer, delay, jitter, rng),
                              _pipe(up_reader, client_writer, delay, jitter, rng), return_exceptions=True)
        await both

    def track(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.create_task(serve(reader, writer))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    server = await asyncio.start_server(track, "127.0.0.1", 0)
    port = int(server.sockets[0].getsockname()[1])
    try:
        yield port
    finally:
        server.close()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await server.wait_closed()
