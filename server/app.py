"""The FastAPI application: the hub and the verifier live for the app's lifespan.

    app = create_app(ServerConfig())        # the embedded in-memory store unless one is given

The app is the HTTP API; the websocket endpoint `/ws` is served beside it on the same port by floe's
own listener (server/transport/listener.py), which reaches the hub and the dispatcher through
`app.state`. `server/embed.py` runs both in the current event loop (tests, bench, `floe serve`).
"""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from protocol.errors import ErrorCode

from .config import ServerConfig
from .errors import ServerError
from .http.api import build_router
from .http.bodylimit import BodyLimit
from .http.verify import Verifier
from .logs import log_event
from .match.dispatch import Dispatcher
from .match.hub import Hub
from .store.base import Store
from .store.memory import MemoryStore

log = logging.getLogger("floe.http")

#: Allocations between young-generation collections (CPython's default is 700).
GC_YOUNG_THRESHOLD = 20_000


def tune_gc() -> None:
    """Fewer, cheaper collections: the match loop allocates a lot of short-lived plain data per frame.

    With CPython's defaults a young collection runs every few hundred microseconds of a busy loop, and
    the occasional full collection of a heap full of snapshots stalls a tick for tens of milliseconds
    (bench/SERVER.md: the p99 frame lateness). Freezing what startup allocated takes it out of every
    later collection; a higher young threshold makes collections rarer. Reference counting still
    frees almost everything at once; the collector only finds cycles.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 1000)


def make_store(config: ServerConfig) -> Store:
    """The store the config names: Redis at `redis_url`, else the embedded one."""
    if config.redis_url is not None:
        from .store.redis import RedisStore

        return RedisStore.from_url(config.redis_url, config.redis_prefix)
    return MemoryStore(config.store_capacity)
def respond(error: ServerError) -> JSONResponse:
    """A refusal in the server's one error shape, with Retry-After when the error has a hint."""
    headers = {"Retry-After": str(max(1, round(error.retry_after)))} if error.retry_after else None
    return JSONResponse(error.plain(), status_code=error.status, headers=headers)


def create_app(config: ServerConfig | None = None, store: Store | None = None) -> FastAPI:
    """The app with its hub and dispatcher (`app.state.hub`, `app.state.dispatcher`: the listener's).

    Raises ConfigError (server/config.py) for a token secret the store cannot work with.
    """
    config = config or ServerConfig()
    hub = Hub(config, store if store is not None else make_store(config))
    verifier = Verifier(config)
    dispatcher = Dispatcher(hub)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if config.tune_gc:
            tune_gc()
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()
            verifier.close()

    app = FastAPI(title="floe", lifespan=lifespan)
    app.state.hub = hub
    app.state.dispatcher = dispatcher
    app.state.verifier = verifier
    app.include_router(build_router(hub, verifier))

    app.add_middleware(
        BodyLimit,
        default_bytes=config.http_body_bytes,
        upload_bytes={path: config.verify_max_bytes for path in ("/api/replays/verify", "/api/daily/runs")},
    )

    @app.exception_handler(ServerError)
    async def refused(_: Request, error: ServerError) -> JSONResponse:
        return respond(error)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()))
        message = f"{where}: {first.get('msg', 'invalid request')}"
        return respond(ServerError(ErrorCode.MALFORMED, message, 422))

    @app.exception_handler(StarletteHTTPException)
    async def http_refusal(_: Request, error: StarletteHTTPException) -> JSONResponse:
        code = ErrorCode.NOT_FOUND if error.status_code == 404 else ErrorCode.MALFORMED
        return respond(ServerError(code, str(error.detail), error.status_code))

    @app.exception_handler(Exception)
    async def unexpected(_: Request, error: Exception) -> JSONResponse:
        log_event(log, logging.ERROR, "http.failed", error=f"{type(error).__name__}: {error}")
        return respond(ServerError(ErrorCode.INTERNAL, "the server failed on this request", 500))

    return app
