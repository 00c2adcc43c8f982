"""`floe serve`: the match server on one process, with the embedded store or a shared Redis.

    floe serve [--host 127.0.0.1] [--port 8000] [--redis redis://…] [--trusted-proxy ADDRESS …]
               [--capacity BOARD_FRAMES]

`register(subparsers)` adds the subcommand; `run(args)` serves until SIGINT or SIGTERM, stops
gracefully (server/embed.py: the listener and uvicorn together) and returns the exit status. The
store is Redis when `--redis` or FLOE_REDIS_URL names one, else the embedded store. The token secret
comes from FLOE_SECRET (at least 16 bytes; without it a per-process one, with a warning: tokens then
die with the process; a shared store refuses to start without it); allowed websocket origins from
FLOE_ORIGINS (comma-separated; "*" allows any). `--trusted-proxy` (repeatable, or FLOE_TRUSTED_PROXIES,
comma-separated) names the reverse proxies whose `X-Forwarded-For` gives the client's address; without
one, a client's address is its socket's peer. `--capacity` (or FLOE_CAPACITY) is the node's budget of
matches in board-frames a second (`capacity_board_frames`: a 1 v 1 at 60 frames/s costs 120; the
default 6000 is bench/SERVER.md's 50 matches on one core): measure your core with
`bench.server_capacity` and set it. `--port 0` takes a free port (logged at the start).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .config import REDIS_ENV, ConfigError, ServerConfig
from .logs import log_event
from .origins import ORIGINS_ENV

if TYPE_CHECKING:
    from fastapi import FastAPI

log = logging.getLogger("floe.serve")

PROXIES_ENV = "FLOE_TRUSTED_PROXIES"
CAPACITY_ENV = "FLOE_CAPACITY"


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add `serve` to an argparse subparsers object."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="run the match server (HTTP API and websockets)",
        description="Run the floe match server (the embedded in-memory store unless --redis).",
        epilog=f"environment: {ORIGINS_ENV} adds browser origins allowed to open the websocket "
        f"(comma-separated, e.g. https://play.example.org; '*' allows any; this host and port are always "
        f"allowed; a page from another origin is refused, and GET /api/origin says why); FLOE_SECRET "
        f"signs the guest tokens (16 bytes or more; without it they die with the process); "
        f"{REDIS_ENV}, {PROXIES_ENV} and {CAPACITY_ENV} are the defaults of --redis, --trusted-proxy and "
        f"--capacity.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--redis",
        metavar="URL",
        default=None,
        help=f"Redis URL of a shared store (default: ${REDIS_ENV}, else the embedded store)",
    )
    parser.add_argument(
        "--trusted-proxy",
        metavar="ADDRESS",
        action="append",
        default=None,
        help=f"a reverse proxy's address whose X-Forwarded-For names the client (repeatable; default "
        f"${PROXIES_ENV}, else none: the socket's peer is the client)",
    )
    parser.add_argument(
        "--capacity",
        metavar="BOARD_FRAMES",
        type=int,
        default=None,
        help=f"the matches this node admits, in board-frames a second (a 1 v 1 at 60 frames/s is 120; "
        f"default ${CAPACITY_ENV}, else 6000: 50 such matches)",
    )
    parser.set_defaults(run=run)
    return parser


def config_from_env(
    host: str,
    port: int,
    redis_url: str | None = None,
    proxies: list[str] | None = None,
    capacity: int | None = None,
) -> ServerConfig:
    """The default config, with the origins allowed for this host and port and FLOE_ORIGINS, the
    Redis store of `redis_url` or FLOE_REDIS_URL, the trusted proxies or FLOE_TRUSTED_PROXIES, and the
    node's budget `capacity` or FLOE_CAPACITY (ConfigError unless a positive whole number)."""
    if proxies is None:
        proxies = [p.strip() for p in os.environ.get(PROXIES_ENV, "").split(",") if p.strip()]
    config = ServerConfig(
        redis_url=redis_url or os.environ.get(REDIS_ENV) or None, trusted_proxies=tuple(proxies)
    )
    if capacity is None and os.environ.get(CAPACITY_ENV):
        text = os.environ[CAPACITY_ENV].strip()
        if not text.isdigit():
            raise ConfigError(f"{CAPACITY_ENV} must be a whole number of board-frames a second, got {text!r}")
        capacity = int(text)
    if capacity is not None:
        if capacity <= 0:
            raise ConfigError(f"the capacity must be positive, got {capacity}")
        config = replace(config, capacity_board_frames=capacity)
    origins = list(config.allowed_origins)
    origins += [f"http://{host}:{port}", f"http://localhost:{port}", f"http://127.0.0.1:{port}"]
    extra = os.environ.get(ORIGINS_ENV)
    if extra:
        origins += [origin.strip().rstrip("/") for origin in extra.split(",") if origin.strip()]
    return replace(config, allowed_origins=tuple(dict.fromkeys(origins)))


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    from .app import create_app
    from .logs import setup_logging

    setup_logging()
    try:
        config = config_from_env(args.host, args.port, args.redis, args.trusted_proxy, args.capacity)
        app = create_app(config)
    except ConfigError as error:
        print(f"floe serve: {error}", file=sys.stderr)
        return 2
    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        runner.run(serve(app, args.host, args.port))
    return 0


def event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop where it is installed (uvicorn[standard] brings it; the benchmark measures it)."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


async def serve(app: FastAPI, host: str, port: int) -> None:
    """Serve `app` until SIGINT or SIGTERM, then stop gracefully."""
    from .embed import running_server

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with running_server(app, host, port) as server:
        log_event(log, logging.INFO, "serve.listening", http=server.http_url, ws=server.ws_url)
        await stop.wait()
    log_event(log, logging.INFO, "serve.stopped")


def main(argv: list[str] | None = None) -> int:
    """`python -m server.cli serve …` until the lead wires `serve` into floe_cli."""
    parser = argparse.ArgumentParser(prog="floe")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
