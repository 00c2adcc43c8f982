"""Run the server in the current event loop: floe's listener on the public port, uvicorn behind it.

    async with running_server(create_app(config)) as server:
        url = server.ws_url                  # ws://127.0.0.1:<port>/ws

floe's listener (server/transport/listener.py) owns the public socket: it serves the websockets at
`/ws` and relays every other request to uvicorn, which serves the FastAPI app on a unix socket in a
private directory (mode 0700) that nothing but the listener can reach. The tests start real servers
on port 0 this way (a real socket, real websocket handshakes), the benchmark does too, and so does
`floe serve` (server/cli.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass

import uvicorn
from fastapi import FastAPI

from .transport.listener import Listener


def event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop where it is installed (uvicorn[standard] brings it): what `floe serve` runs on, and
    the benchmarks measure."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


#: Seconds uvicorn gives the requests in flight when the server stops.
GRACEFUL_SHUTDOWN_SECONDS = 5
#: Seconds uvicorn may take to start, and to stop.
UVICORN_SECONDS = 10


def uvicorn_config(app: FastAPI, uds: str, log_level: str = "warning") -> uvicorn.Config:
    """uvicorn's settings for floe: the HTTP API on the private unix socket `uds`, no websockets (the
    listener serves them), and the peer address taken from X-Forwarded-For.

    uvicorn trusts that header from every peer of the socket ("*") because its only peer is the
    listener, which drops any copy a client sent and writes the real peer address (server/transport/
    relay.py). (uvicorn sees no address for a unix socket peer, so a narrower list would trust none.)
    """
    return uvicorn.Config(
        app,
        uds=uds,
        ws="none",
        proxy_headers=True,
        forwarded_allow_ips="*",
        log_config=None,
        log_level=log_level,
        lifespan="on",
        access_log=False,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )


class EmbeddedServer(uvicorn.Server):
    """uvicorn's server without its signal handlers: whoever runs the loop owns the signals."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass(frozen=True)
class RunningServer:
    """Where a started server listens."""

    app: FastAPI
    host: str
    port: int
    #: floe's listener on that port (its per-address counts are read by the tests).
    listener: Listener

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
    app: FastAPI, host: str = "127.0.0.1", port: int = 0
) -> AsyncIterator[RunningServer]:
    """Serve `app` in this loop until the block ends; yields the bound address.

    Stopping: the listener stops accepting and closes its websockets (1001), uvicorn finishes the
    requests in flight and runs the app's shutdown (the hub stops), then every socket left is closed.
    """
    with tempfile.TemporaryDirectory(prefix="floe-") as private:
        uds = os.path.join(private, "http.sock")
        server = EmbeddedServer(uvicorn_config(app, uds))
        task = asyncio.create_task(server.serve(), name="floe-uvicorn")
        listener = Listener(app.state.config.transport, app.state.dispatcher, uds)
        try:
            while not server.started:  # uvicorn has no event for it
                if task.done():
                    task.result()  # re-raise why it failed to start
                    raise RuntimeError("uvicorn stopped before it started")
                await asyncio.sleep(0.01)
            bound = await listener.start(host, port)
            yield RunningServer(app, host, bound, listener)
        finally:
            listener.begin_shutdown()
            server.should_exit = True
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, UVICORN_SECONDS)
            await listener.wait_closed()


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
