"""`floe serve`: the match server on one process, with the embedded store or a shared Redis.

    floe serve [--host 127.0.0.1] [--port 8000] [--redis redis://…]

`register(subparsers)` adds the subcommand; `run(args)` serves until interrupted and returns the exit
status. The store is Redis when `--redis` or FLOE_REDIS_URL names one, else the embedded store. The
token secret comes from FLOE_SECRET (at least 16 bytes; without it a per-process one, with a
warning: tokens then die with the process; a shared store refuses to start without it); allowed
websocket origins from FLOE_ORIGINS (comma-separated; "*" allows any).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from dataclasses import replace
from typing import Any

from .config import REDIS_ENV, ConfigError, ServerConfig

ORIGINS_ENV = "FLOE_ORIGINS"


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add `serve` to an argparse subparsers object."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="run the match server (HTTP API and websockets)",
        description="Run the floe match server (the embedded in-memory store unless --redis).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--redis",
        metavar="URL",
        default=None,
        help=f"Redis URL of a shared store (default: ${REDIS_ENV}, else the embedded store)",
    )
    parser.set_defaults(run=run)
    return parser


def config_from_env(host: str, port: int, redis_url: str | None = None) -> ServerConfig:
    """The default config, with the origins allowed for this host and port and FLOE_ORIGINS, and the
    Redis store of `redis_url` or FLOE_REDIS_URL."""
    config = ServerConfig(redis_url=redis_url or os.environ.get(REDIS_ENV) or None)
    origins = list(config.allowed_origins)
    origins += [f"http://{host}:{port}", f"http://localhost:{port}", f"http://127.0.0.1:{port}"]
    extra = os.environ.get(ORIGINS_ENV)
    if extra:
        origins += [origin.strip().rstrip("/") for origin in extra.split(",") if origin.strip()]
    return replace(config, allowed_origins=tuple(dict.fromkeys(origins)))


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    import uvicorn

    from .app import create_app
    from .embed import uvicorn_config
    from .logs import setup_logging

    setup_logging()
    try:
        config = config_from_env(args.host, args.port, args.redis)
        app = create_app(config)
    except ConfigError as error:
        print(f"floe serve: {error}", file=sys.stderr)
        return 2
    server = uvicorn.Server(uvicorn_config(app, args.host, args.port, config, log_level="info"))
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve())
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m server.cli serve …` until the lead wires `serve` into floe_cli."""
    parser = argparse.ArgumentParser(prog="floe")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
