"""Run the app under uvicorn inside the current event loop, on a given or a free port.

    async with running_server(create_app(config)) as server:
        url = server.ws_url                  # ws://127.0.0.1:<port>/ws

The tests start real servers on port 0 this way (a real socket, real websocket handshakes), and the
benchmark does too; `floe serve` uses the same uvicorn settings (`uvicorn_config`).
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import uvicorn
from fastapi import FastAPI

from .config import ServerConfig
from .transport.native import FloeWebSocketProtocol


def uvicorn_config(
    app: FastAPI,
    host: str,
    port: int,
    config: ServerConfig,
    log_level: str = "warning",
    fast_path: bool = True,
) -> uvicorn.Config:
    """uvicorn's settings for floe: the sans-I/O websockets with the fast path (server/native.py; off:
    uvicorn's own class, every message through ASGI), the hard frame limit, no compression."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        ws=FloeWebSocketProtocol if fast_path else "websockets-sansio",
        ws_max_size=config.ws_max_bytes,
        ws_per_message_deflate=False,
        log_config=None,
        log_level=log_level,
        lifespan="on",
        access_log=False,
        timeout_graceful_shutdown=5,
    )


@dataclass(frozen=True)
class RunningServer:
    """Where a started server listens."""

    app: FastAPI
    host: str
    port: int

    @property
    def http_url(self) -> str:
        """The base URL of the HTTP API."""
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        """The websocket endpoint."""
        return f"ws://{self.host}:{self.port}/ws"


@contextlib.asynccontextmanager
async def running_server(
    app: FastAPI, host: str = "127.0.0.1", port: int = 0, fast_path: bool = True
) -> AsyncIterator[RunningServer]:
    """Serve `app` in this loop until the block ends; yields the bound address."""
    config: ServerConfig = app.state.hub.config
    server = uvicorn.Server(uvicorn_config(app, host, port, config, fast_path=fast_path))
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]  # the caller owns signals
    task = asyncio.create_task(server.serve(), name="floe-uvicorn")
    try:
        while not server.started:
            if task.done():
                task.result()  # re-raise why it failed to start
                raise RuntimeError("uvicorn stopped before it started")
            await asyncio.sleep(0.01)
        sockets = [sock for srv in server.servers for sock in (srv.sockets or ())]
        bound = sockets[0].getsockname()[1]
        yield RunningServer(app, host, int(bound))
    finally:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)


@contextlib.contextmanager
def server_in_thread(app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> Iterator[RunningServer]:
    """Serve `app` from a background thread with its own event loop (for synchronous callers)."""
    started: queue.Queue[RunningServer | BaseException] = queue.Queue()
    stop: list[asyncio.Event] = []
    loop_box: list[asyncio.AbstractEventLoop] = []

    async def main() -> None:
        stop.append(asyncio.Event())
        loop_box.append(asyncio.get_running_loop())
        try:
            async with running_server(app, host, port) as server:
                started.put(server)
                await stop[0].wait()
        except BaseException as error:  # noqa: BLE001 - handed to the caller, who re-raises it
            started.put(error)

    thread = threading.Thread(target=asyncio.run, args=(main(),), name="floe-server", daemon=True)
    thread.start()
    outcome = started.get(timeout=30)
    if isinstance(outcome, BaseException):
        raise outcome
    try:
        yield outcome
    finally:
        loop_box[0].call_soon_threadsafe(stop[0].set)
        thread.join(timeout=30)
