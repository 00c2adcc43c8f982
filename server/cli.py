"""`floe serve`: the match server on one process, with the embedded store or a shared Redis.

    floe serve [--host 127.0.0.1] [--port 8000] [--redis redis://…] [--trusted-proxy ADDRESS …]
               [--capacity BOARD_FRAMES] [--SETTING VALUE …]

Every setting of the server (server/config.py's sections) is read from its flag, else from its
FLOE_* variable, else its default: the setting `reconnect_grace` is `--reconnect-grace` and
FLOE_RECONNECT_GRACE, a group's `limits.open_rooms_per_guest` is `--limits-open-rooms-per-guest` and
FLOE_LIMITS_OPEN_ROOMS_PER_GUEST; `floe serve --help` lists them all with their defaults. A few keep
their older, shorter names too: `--redis` (FLOE_REDIS_URL; `redis+cluster://host:port` names a Redis
Cluster by one of its nodes), `--trusted-proxy` (repeatable;
FLOE_TRUSTED_PROXIES, comma-separated), `--capacity` (FLOE_CAPACITY), `--origins` (FLOE_ORIGINS,
comma-separated: added to the default origins and this host and port's; "*" allows any). The token
secret is FLOE_SECRET only (a flag would show it in the process list): at least 16 bytes; without it
a per-process one, with a warning (tokens then die with the process; a shared store refuses to start
without it). `--capacity` is the node's budget of matches in board-frames a second (a 1 v 1 at 60
frames/s costs 120; the default 6000 is bench/SERVER.md's 50 matches on one core): measure your core
with `bench.server_capacity` and set it. `--port 0` takes a free port (logged at the start).

`register(subparsers)` adds the subcommand; `run(args)` serves until SIGINT or SIGTERM, stops
gracefully (server/embed.py: the listener and uvicorn together) and returns the exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import inspect
import json
import logging
import os
import re
import signal
import sys
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rules.registry import UnknownRulesetError, known, lookup
from rules.ruleset import Ruleset

from .config import GROUPS, ConfigError, ServerConfig
from .logs import log_event
from .origins import ORIGINS_ENV
from .tokens import MIN_SECRET_BYTES, SECRET_ENV, TokenSettings
from .transport.settings import DEFAULT_ORIGINS

if TYPE_CHECKING:
    from fastapi import FastAPI

log = logging.getLogger("floe.serve")

#: The environment variables' prefix.
ENV_PREFIX = "FLOE_"
#: The Redis store's variable (`--redis`), the trusted proxies' and the node's budget's (`--capacity`).
REDIS_ENV = "FLOE_REDIS_URL"
PROXIES_ENV = "FLOE_TRUSTED_PROXIES"
CAPACITY_ENV = "FLOE_CAPACITY"
#: Settings read from the environment only (a flag would show the value in the process list).
ENV_ONLY = frozenset({"secret"})
#: Older, shorter names some settings keep: extra flags and variables (the first variable is shown).
FLAG_ALIASES: dict[str, tuple[str, ...]] = {
    "redis_url": ("--redis",), "trusted_proxies": ("--trusted-proxy",),
    "capacity_board_frames": ("--capacity",), "allowed_origins": ("--origins",),
}
#: The settings that name a ruleset, and the config each one's matches are played with.
RULESET_CONFIGS = {"ruleset": "match_config", "daily_ruleset": "daily_config"}
ENV_ALIASES: dict[str, tuple[str, ...]] = {
    "capacity_board_frames": (CAPACITY_ENV,), "allowed_origins": (ORIGINS_ENV,), "secret": (SECRET_ENV,),
}


@dataclass(frozen=True)
class Option:
    """One setting as `floe serve` reads it: its flag(s), its variable(s), how to read a value."""

    #: The setting's name (`reconnect_grace`, `limits.open_rooms_per_guest`).
    name: str
    #: Where it lives: the config's section, and the group inside it (None: the section itself).
    section: str
    group: str | None
    attr: str
    hint: Any
    default: Any
    help: str
    flags: tuple[str, ...] = ()
    envs: tuple[str, ...] = ()
    dest: str = ""


_COMMENTS: dict[str, dict[str, str]] = {}


def _comments(cls: type[object]) -> dict[str, str]:
    """Each field's `#:` comment in the class's source (one comment covers the fields right after it)."""
    key = f"{cls.__module__}.{cls.__qualname__}"
    if key not in _COMMENTS:
        _COMMENTS[key] = _read_comments(cls)
    return _COMMENTS[key]


def _read_comments(cls: type[object]) -> dict[str, str]:
    found: dict[str, str] = {}
    comment: list[str] = []
    fresh = False
    for line in inspect.getsource(cls).splitlines():
        text = line.strip()
        if text.startswith("#:"):
            comment = comment + [text[2:].strip()] if fresh else [text[2:].strip()]
            fresh = True
            continue
        named = re.match(r"([a-z_]+)\s*:", text)
        if named and line.startswith("    ") and not line.startswith("     "):
            found[named.group(1)] = " ".join(comment)
            fresh = False
        elif not text:
            comment, fresh = [], False
    return found


def _first_sentence(text: str, limit: int = 220) -> str:
    """A field's comment up to its first full stop (shortened past `limit`, its brackets closed)."""
    sentence = re.split(r"(?<=\.)\s", text, maxsplit=1)[0].rstrip(".")
    if len(sentence) > limit:
        sentence = sentence[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return sentence + ")" * (sentence.count("(") - sentence.count(")"))


def options(config: ServerConfig | None = None) -> list[Option]:
    """Every setting of the config's sections, in order, with its flags and variables."""
    config = config or ServerConfig(tokens=TokenSettings(secret=None))
    made: list[Option] = []

    def add(section: str, group: str | None, settings: Any) -> None:
        cls: type[object] = type(settings)
        hints = typing.get_type_hints(cls)
        notes = _comments(cls)
        for item in dataclasses.fields(settings):
            value = getattr(settings, item.name)
            if item.name in GROUPS and dataclasses.is_dataclass(value):
                add(section, item.name, value)
                continue
            name = f"{group}.{item.name}" if group else item.name
            dashed = name.replace(".", "-").replace("_", "-")
            flags = () if item.name in ENV_ONLY else (f"--{dashed}", *FLAG_ALIASES.get(item.name, ()))
            envs = (*ENV_ALIASES.get(item.name, ()), ENV_PREFIX + name.replace(".", "_").upper())
            made.append(Option(name, section, group, item.name, hints[item.name], value,
                               _first_sentence(notes.get(item.name, "")), flags, tuple(dict.fromkeys(envs)),
                               "setting_" + name.replace(".", "__")))

    for section, settings in config.sections():
        add(section, None, settings)
    made.append(Option("tune_gc", "", None, "tune_gc", bool, config.tune_gc,
                       "tune the garbage collector for the match loop at startup", ("--tune-gc",),
                       (ENV_PREFIX + "TUNE_GC",), "setting_tune_gc"))
    return made


def _shown(option: Option) -> str:
    """The default as `--help` shows it."""
    value = option.default
    if option.name == "secret":
        return "none: a per-process secret"
    if option.name == "match_config" or option.name == "daily_config":
        return "the ruleset's default"
    if option.name in RULESET_CONFIGS:
        return f"{value.name}@{value.version}"
    if isinstance(value, tuple):
        return ",".join(value) if value else "none"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add `serve` to an argparse subparsers object."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="run the match server (HTTP API and websockets)",
        usage="floe serve [-h] [--host HOST] [--port PORT] [--redis URL] [--SETTING VALUE ...]",
        description="Run the floe match server (the embedded in-memory store unless --redis). Every "
        "setting is read from its flag, else its FLOE_* variable, else its default.",
        epilog=f"{ORIGINS_ENV} (or --origins) adds browser origins allowed to open the websocket "
        f"(comma-separated, e.g. https://play.example.org; '*' allows any; this host and port are always "
        f"allowed; a page from another origin is refused, and GET /api/origin says why); {SECRET_ENV} "
        f"signs the guest tokens (16 bytes or more; without it they die with the process; read from the "
        f"environment only). A list is comma-separated; a number or a time that may be absent takes "
        f"'none'; a ruleset is NAME@VERSION; a match or daily config is JSON.",
    )
    for option in options():
        where = f"${' or $'.join(option.envs)}"
        text = f"{option.help} (default {_shown(option)}; {where})".replace("%", "%%")
        if not option.flags:
            parser.add_argument_group(f"from the environment only: {option.envs[0]}", text)
            continue
        if option.name == "trusted_proxies":
            parser.add_argument(*option.flags, dest=option.dest, metavar="ADDRESS", action="append",
                                default=None, help=text + "; repeatable")
            continue
        metavar = option.name.split(".")[-1].upper()
        parser.add_argument(*option.flags, dest=option.dest, metavar=metavar, default=None, help=text)
    parser.set_defaults(run=run)
    return parser


def _parse(option: Option, text: str, source: str, config: ServerConfig) -> Any:
    """A setting's value from its text (a flag's or a variable's); ConfigError naming where it came from."""
    hint, name = option.hint, option.name
    try:
        if name == "secret":
            secret = text.encode("utf-8")
            if len(secret) < MIN_SECRET_BYTES:
                raise ValueError(f"must be at least {MIN_SECRET_BYTES} bytes, got {len(secret)}")
            return secret
        if name in ("match_config", "daily_config"):
            ruleset = config.match.ruleset if name == "match_config" else config.daily.daily_ruleset
            return ruleset.config_from_plain(json.loads(text))
        if hint is bool:
            lowered = text.strip().lower()
            if lowered not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError("expected true or false")
            return lowered in ("1", "true", "yes", "on")
        args = typing.get_args(hint)
        optional = type(None) in args
        if optional and text.strip().lower() in ("", "none"):
            return None
        base = next((arg for arg in args if arg is not type(None)), hint) if optional else hint
        if typing.get_origin(base) is tuple:
            return tuple(part.strip().rstrip("/") if name == "allowed_origins" else part.strip()
                         for part in text.split(",") if part.strip())
        if base is int:
            return int(text)
        if base is float:
            return float(text)
        if base is str:
            return text
        if typing.get_origin(base) is Ruleset or base is Ruleset:
            ruleset_name, _, version = text.partition("@")
            if not version:
                versions = [v for n, v in known() if n == ruleset_name]
                version = str(max(versions)) if versions else "1"
            return lookup(ruleset_name, int(version))
    except (ValueError, TypeError, UnknownRulesetError) as error:
        raise ConfigError(f"{source}: {error}") from None
    raise ConfigError(f"{source}: the setting {name} cannot be read from text")


def config_from(
    args: argparse.Namespace | None = None, environ: Mapping[str, str] | None = None
) -> ServerConfig:
    """The config `floe serve` runs with: each setting from its flag, else its FLOE_* variable, else its
    default. The allowed origins are the default ones, this host and port's, and those given; the
    node's budget must be positive. ConfigError for a value that cannot be read or is refused."""
    environ = os.environ if environ is None else environ
    base = ServerConfig(tokens=TokenSettings(secret=None))
    given = vars(args) if args is not None else {}
    raw: dict[str, tuple[Option, Any, str]] = {}
    for option in options(base):
        flag_value = given.get(option.dest)
        if flag_value is not None:
            raw[option.name] = (option, flag_value, f"{option.flags[0]} {flag_value!r}")
            continue
        env = next((env for env in option.envs if environ.get(env) is not None), None)
        if env is not None:
            raw[option.name] = (option, environ[env], f"{env}={environ[env]!r}")
    config = base
    for ruleset, match_config in RULESET_CONFIGS.items():  # a ruleset first: its config is read with it
        if ruleset in raw:
            option, text, source = raw.pop(ruleset)
            chosen = _parse(option, text, source, config)
            config = config.override(**{ruleset: chosen, match_config: chosen.default_config()})
    grouped: dict[tuple[str, str], dict[str, Any]] = {}  # a group's settings are checked together
    for option, text, source in raw.values():
        value = tuple(text) if isinstance(text, list) else _parse(option, text, source, config)
        if option.name == "capacity_board_frames" and isinstance(value, int) and value <= 0:
            raise ConfigError(f"{source}: the capacity must be a positive number of board-frames a second")
        if option.group is not None:
            grouped.setdefault((option.section, option.group), {})[option.attr] = value
            continue
        config = _set(config, option, value)
    for (section_name, group_name), values in grouped.items():
        section = getattr(config, section_name)
        try:
            group = dataclasses.replace(getattr(section, group_name), **values)
        except ValueError as error:
            raise ConfigError(f"the {group_name}.… settings: {error}") from None
        section = dataclasses.replace(section, **{group_name: group})
        config = dataclasses.replace(config, **{section_name: section})
    transport = config.transport
    port = transport.port
    here = (f"http://{transport.host}:{port}", f"http://localhost:{port}", f"http://127.0.0.1:{port}")
    given_origins = transport.allowed_origins if "allowed_origins" in raw else ()
    origins = tuple(dict.fromkeys((*DEFAULT_ORIGINS, *here, *given_origins)))
    return config.override(allowed_origins=origins)


def _set(config: ServerConfig, option: Option, value: Any) -> ServerConfig:
    """The config with one option's value set (inside its group when it has one)."""
    if not option.section:
        return dataclasses.replace(config, **{option.attr: value})
    section = getattr(config, option.section)
    if option.group is not None:
        group = dataclasses.replace(getattr(section, option.group), **{option.attr: value})
        section = dataclasses.replace(section, **{option.group: group})
    else:
        section = dataclasses.replace(section, **{option.attr: value})
    return dataclasses.replace(config, **{option.section: section})


def serve_config(argv: list[str], environ: Mapping[str, str] | None = None) -> ServerConfig:
    """The config of `floe serve ARGV…` in this environment (for the tests)."""
    parser = argparse.ArgumentParser(prog="floe")
    register(parser.add_subparsers(dest="command", required=True))
    return config_from(parser.parse_args(["serve", *argv]), environ)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    from .app import create_app
    from .logs import setup_logging

    setup_logging()
    try:
        config = config_from(args)
        app = create_app(config)
    except (ConfigError, ValueError) as error:
        print(f"floe serve: {error}", file=sys.stderr)
        return 2
    transport = config.transport
    from .embed import event_loop_factory

    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        runner.run(serve(app, transport.host, transport.port))
    return 0


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
