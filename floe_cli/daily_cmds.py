"""`floe daily`: today's challenge from a server, a local run of it, its submission, the day's board.

    floe daily show --server http://127.0.0.1:8000             # the day, seed, config, when runs close
    floe daily play --server URL --bot competent --out run.replay [--submit --token T | --name ann]
    floe daily play --seed 123 --out run.replay                # offline: any seed, nothing submitted
    floe daily submit run.replay --server URL --token T
    floe daily board --server URL [--day 2030-01-02]

A run is played here, with the `rules` package (the server only re-verifies its moves): a bot plays
the day's board to its end (game over or the time limit) and the replay file is written. The token
comes from `--token` or FLOE_TOKEN; `--name` makes a new guest first and prints its token. With a
token the file is a layout 2 replay naming the guest as its player (the server refuses a run naming
another player); without one it names no player, and the server binds it to whoever submits it.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from protocol.replay_codec import encode_replay
from rules.registry import lookup
from rules.replay import Replay, record
from rules.ruleset import Ruleset, seat_seed
from rules.solo.ruleset import PENGO_SOLO

TOKEN_ENV = "FLOE_TOKEN"
DEFAULT_SERVER = "http://127.0.0.1:8000"


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add `daily` and its subcommands to the `floe` parser."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "daily", help="the daily challenge: play, submit, board"
    )
    commands = parser.add_subparsers(dest="daily_command", required=True, metavar="SUBCOMMAND")
    show = commands.add_parser("show", help="today's challenge")
    play = commands.add_parser("play", help="play today's challenge here with a bot; write (and submit) it")
    submit = commands.add_parser("submit", help="submit a run's replay file")
    board = commands.add_parser("board", help="a day's board")
    for sub in (show, play, submit, board):
        sub.add_argument("--server", default=DEFAULT_SERVER, help=f"the server (default {DEFAULT_SERVER})")
    play.add_argument("--seed", type=int, default=None, help="play this seed offline, not the server's day")
    play.add_argument("--bot", default="competent", help="the bot that plays (default competent)")
    play.add_argument("--out", type=Path, default=None, help="write the replay here")
    play.add_argument("--submit", action="store_true", help="submit the run when it ends")
    for sub in (play, submit):
        sub.add_argument("--token", default=os.environ.get(TOKEN_ENV), help=f"guest token (${TOKEN_ENV})")
        sub.add_argument("--name", default=None, help="without a token: make a new guest of this name")
    submit.add_argument("file", type=Path, help="the run's replay file")
    board.add_argument("--day", default=None, help="YYYY-MM-DD (default today's)")
    parser.set_defaults(run=run)
    return parser


class DailyError(Exception):
    """A request the server refused, with its message."""


def request(url: str, method: str = "GET", body: bytes | None = None, token: str | None = None,
            content_type: str = "application/json") -> Any:
    """A JSON answer from the server; DailyError with the server's message for a refusal."""
    call = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        call.add_header("Content-Type", content_type)
    if token is not None:
        call.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(call, timeout=120) as answer:  # noqa: S310 - the user's server
            return json.loads(answer.read())
    except urllib.error.HTTPError as error:
        try:
            refusal = json.loads(error.read())
            raise DailyError(f"{error.code} {refusal.get('code')}: {refusal.get('message')}") from None
        except ValueError:
            raise DailyError(f"HTTP {error.code}") from None
    except urllib.error.URLError as error:
        raise DailyError(f"cannot reach {url}: {error.reason}") from None


def play_run(ruleset: Ruleset[Any, Any], config: Any, seed: int, bot: str, name: str = "player",
             player: str | None = None) -> Replay:
    """A run of (ruleset, config, seed) played to its end by `bot`; its replay (naming `player`, a
    guest id, when one is given)."""
    match = ruleset.new_match(config, seed, [name])
    brain = ruleset.make_bot(bot, seat_seed(seed, 0))
    while match.result is None:
        match.step([brain.decide(match.seat_view(0), match.frame)])
    return record(match, ruleset, player)


def token_guest(token: str) -> str | None:
    """The guest id a token speaks for (read from its payload; only the server can check it), or None
    for a token that does not read as one."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, binascii.Error):
        return None
    guest = payload.get("g") if isinstance(payload, dict) else None
    return guest if isinstance(guest, str) else None


def _token(args: argparse.Namespace) -> str:
    if args.token:
        return str(args.token)
    if args.name is None:
        raise DailyError(f"submitting needs a guest token: --token, ${TOKEN_ENV}, or --name to make a guest")
    guest = request(f"{args.server}/api/guests", "POST", json.dumps({"name": args.name}).encode())
    print(f"new guest {guest['guest']} ({guest['name']}); its token: {guest['token']}")
    return str(guest["token"])


def _submit(args: argparse.Namespace, data: bytes, token: str | None = None) -> None:
    token = token or _token(args)
    answer = request(f"{args.server}/api/daily/runs", "POST", data, token, "application/msgpack")
    best = answer["best"]
    print(f"verified: {answer['score']} points in {answer['frames']} frames (day {answer['day']}, "
          f"replay {answer['replay']}); your best today: {best['score']}")


def run(args: argparse.Namespace) -> int:
    """Run the chosen `floe daily` subcommand; the exit status."""
    try:
        if args.daily_command == "show":
            print(json.dumps(request(f"{args.server}/api/daily"), indent=2))
        elif args.daily_command == "board":
            day = args.day or request(f"{args.server}/api/daily")["day"]
            answer = request(f"{args.server}/api/daily/{day}")
            print(f"day {answer['day']}: {answer['total']} players")
            for entry in answer["entries"]:
                print(f"{entry['rank']:>4}  {entry['score']:>8}  {entry['name']}  (replay {entry['replay']})")
        elif args.daily_command == "submit":
            _submit(args, args.file.read_bytes())
        else:
            ruleset: Ruleset[Any, Any] = PENGO_SOLO
            if args.seed is not None:
                config, seed = PENGO_SOLO.default_config(), args.seed
            else:
                today = request(f"{args.server}/api/daily")
                ruleset = lookup(today["ruleset"], today["ruleset_version"])
                config, seed = ruleset.config_from_plain(today["config"]), today["seed"]
            token = _token(args) if args.submit else args.token
            player = None if token is None else token_guest(str(token))
            replay = play_run(ruleset, config, seed, args.bot, player=player)
            data = encode_replay(replay)
            print(f"{args.bot} played seed {seed}: {replay.result.scores[0]} points, {replay.result.reason} "
                  f"at frame {replay.final_frame}")
            if args.out is not None:
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_bytes(data)
                print(f"replay written to {args.out}")
            if args.submit:
                _submit(args, data, token)
    except DailyError as error:
        print(f"floe daily: {error}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as error:
        print(f"floe daily: {error}", file=sys.stderr)
        return 1
    return 0
