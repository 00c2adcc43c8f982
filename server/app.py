"""The FastAPI application: the node (server/node.py) and the verifier live for the app's lifespan.

    app = create_app(ServerConfig())        # the embedded in-memory stores unless some are given

The app is the HTTP API; the websocket endpoint `/ws` is served beside it on the same port by floe's
own listener (server/transport/listener.py), which reaches the node's dispatcher through
`app.state`. `server/embed.py` runs both in the current event loop (tests, bench, `floe serve`).
"""

from __future__ import annotations

import gc
import logging
import mimetypes
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from protocol.errors import ErrorCode
from protocol.version import PROTOCOL_VERSION

from .config import ServerConfig
from .errors import ServerError
from .http.api import build_router
from .http.bodylimit import BodyLimit
from .http.context import ApiContext
from .http.headers import ENGINE_POLICY, PAGE_POLICY, SecurityHeaders, docs_policy
from .http.refusals import list_common_refusals
from .http.replaystream import ReplayStreams
from .http.verify import Verifier
from .logs import log_event
from .match.sources import Clock, IdSource
from .node import Node
from .store.base import Stores

log = logging.getLogger("floe.http")

#: The browser client's build (`make serve` and `make test` run `npm ci` and the build there).
DEFAULT_WEB_ROOT = Path(__file__).resolve().parents[1] / "clients" / "web" / "dist"
#: What `/` answers when the client was not built.
NOT_BUILT = ("<!doctype html><title>floe</title><p>The browser client is not built: run "
             "<code>make serve</code> (or <code>npm ci && npm run build</code> in clients/web).</p>")
#: The top of /docs.
API_DESCRIPTION = f"""The HTTP API of floe, an authoritative match server for its rulesets (Pengo, Payload).

Matches themselves are played, watched and resumed over the **websocket at `/ws`** (binary msgpack
frames, protocol version {PROTOCOL_VERSION}): a client says `hello` with the guest token from
`POST /api/guests`, then `join`s its seat or `watch`es a match, and follows the numbered stream.
Every message, the stream's layout and tables and every limit are in protocol/README.md. The browser
client is served at `/`."""

#: The routes whose body is a replay (bounded by `verify_max_bytes`, not `http_body_bytes`).
UPLOAD_PATHS = ("/api/replays/verify", "/api/daily/runs")
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


def respond(error: ServerError) -> JSONResponse:
    """A refusal in the server's one error shape, with Retry-After when the error has a hint."""
    headers = {"Retry-After": str(max(1, round(error.retry_after)))} if error.retry_after else None
    return JSONResponse(error.plain(), status_code=error.status, headers=headers)


def create_app(
    config: ServerConfig | None = None,
    store: Stores | None = None,
    clock: Clock | None = None,
    ids: IdSource | None = None,
) -> FastAPI:
    """The app with its node (`app.state.node`; `app.state.hub` and `app.state.dispatcher` are the
    node's, the listener takes the dispatcher and `app.state.config`'s transport section).

    Raises ConfigError (server/errors.py) for a token secret the stores cannot work with.
    """
    config = config or ServerConfig()
    node = Node(config, store, clock, ids)
    verifier = Verifier(config.verify)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if config.tune_gc:
            tune_gc()
        await node.start()
        try:
            yield
        finally:
            await node.stop()
            verifier.close()

    app = FastAPI(title="floe", description=API_DESCRIPTION, lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.config = config
    app.state.node = node
    app.state.hub = node.hub
    app.state.dispatcher = node.dispatcher
    app.state.verifier = verifier
    http = config.http
    streams = ReplayStreams(http.replay_stream_cache, http.replay_stream_cache_per_client)
    app.state.replay_streams = streams
    api = ApiContext(node.hub, node.lobby, node.signer, node.clock, node.ids, node.stores, node.secret, http,
                     config.verify, config.daily, config.transport.allowed_origins, node.stats, node.name,
                     node.live_elsewhere)
    app.include_router(build_router(api, verifier, streams))
    openapi = app.openapi

    def openapi_with_common_refusals() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = list_common_refusals(openapi())
        return app.openapi_schema

    app.openapi = openapi_with_common_refusals  # type: ignore[method-assign]

    app.add_middleware(
        BodyLimit,
        default_bytes=http.http_body_bytes,
        upload_bytes={path: config.verify.verify_max_bytes for path in UPLOAD_PATHS},
        seconds=http.http_body_seconds,
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
        answer = respond(ServerError(code, str(error.detail), error.status_code))
        if error.status_code == 405:
            answer.headers["Allow"] = allowed_methods(error.headers)
        return answer

    @app.exception_handler(Exception)
    async def unexpected(_: Request, error: Exception) -> JSONResponse:
        log_event(log, logging.ERROR, "http.failed", error=f"{type(error).__name__}: {error}")
        return respond(ServerError(ErrorCode.INTERNAL, "the server failed on this request", 500))

    docs_page = serve_web(app, Path(http.web_root) if http.web_root else DEFAULT_WEB_ROOT)
    # Outermost: the answers the body bound gives get the headers too.
    app.add_middleware(SecurityHeaders, policies={"/": PAGE_POLICY, "/docs": docs_policy(docs_page)},
                       prefixes={"/engine/": ENGINE_POLICY})
    return app


def allowed_methods(headers: Mapping[str, str] | None) -> str:
    """The `Allow` header of a 405: the route's methods as Starlette names them (sorted, so the header
    is the same every time), or GET and HEAD for the static files, which name none."""
    named = (headers or {}).get("Allow", "")
    methods = sorted({method.strip() for method in named.split(",") if method.strip()})
    return ", ".join(methods or ["GET", "HEAD"])


def serve_web(app: FastAPI, root: Path) -> str:
    """The browser client at `/` (its build, clients/web/dist) and the API's docs at `/docs`, offline:
    Swagger UI's files come from the same build (docs-assets/), never from a CDN. Returns the /docs
    page (its policy allows its inline script by hash)."""
    docs_page = get_swagger_ui_html(
        openapi_url=app.openapi_url or "/openapi.json",
        title="floe API",
        swagger_js_url="/docs-assets/swagger-ui-bundle.js",
        swagger_css_url="/docs-assets/swagger-ui.css",
        swagger_favicon_url="data:,",
    ).body
    docs_html = bytes(docs_page).decode("utf-8")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(docs_html)

    index = root / "index.html"
    if index.is_file():
        # The page at `/` and its asset folders (the engine's too), each on its own prefix: a mount at "/"
        # would answer every unmatched path (a wrong method's 405 included) as a missing file.
        # The engine's modules and wasm need their types whatever the system's MIME table says.
        mimetypes.add_type("text/javascript", ".mjs")
        mimetypes.add_type("application/wasm", ".wasm")
        for folder in ("assets", "docs-assets", "engine"):
            if (root / folder).is_dir():
                app.mount(f"/{folder}", StaticFiles(directory=root / folder), name=folder)

        @app.get("/", include_in_schema=False)
        async def page() -> FileResponse:
            return FileResponse(index, media_type="text/html")

        return docs_html
    log_event(log, logging.WARNING, "http.no-web-client", root=str(root))

    @app.get("/", include_in_schema=False)
    async def not_built() -> HTMLResponse:
        return HTMLResponse(NOT_BUILT, status_code=503)

    return docs_html
