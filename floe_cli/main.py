"""The `floe` command: `floe sim` (headless seeded runs) and `floe play --text` (a terminal game).

The versus subcommands (`match`, `verify`, `rules`) live in `floe_cli/versus_cmds.py`; they are added
when that module imports, so `sim` and `play` keep working while the versus side is unfinished.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from rules.kick.config import ConfigError
from server import cli as server_cli

from . import daily_cmds, versus_cmds
from .controls import HOLD_SECONDS
from .games import PRESETS, GameChoice, make_game, parse_seed
from .players import PLAYER_KINDS
from .render import ASCII, UNICODE, Glyphs


def _game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", choices=PRESETS, default="pengo", help="rules to play (default pengo)")
    parser.add_argument("--seed", type=parse_seed, default=None,
                        help="board seed, decimal or 0x hex (default: the preset's, 0x365A for pengo)")
    parser.add_argument("--level", type=int, default=None, help="level (pengo act 1-16, ice-slide room)")
    parser.add_argument("--skill", type=int, default=None, help="pengo skill DIP 0 (easy) to 3 (default 1)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its subcommands."""
    parser = argparse.ArgumentParser(prog="floe", description="Pengo's rules: headless runs and play.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sim = commands.add_parser("sim", help="run a seeded game headless and print its event log")
    _game_options(sim)
    sim.add_argument("--player", choices=PLAYER_KINDS, default="scripted", help="player (default scripted)")
    sim.add_argument("--seconds", type=float, default=180.0, help="game seconds to run at most (default 180)")
    sim.add_argument("--format", choices=("text", "jsonl"), default="text", help="log format (default text)")
    sim.add_argument("--board", action="store_true", help="print the final board after the summary")

    play = commands.add_parser("play", help="play in the terminal")
    _game_options(play)
    play.add_argument("--text", action="store_true", help="text (curses) display; the only one so far")
    play.add_argument("--ascii", action="store_true", help="ASCII glyphs only (default: Unicode on UTF-8)")
    play.add_argument("--hold", type=float, default=HOLD_SECONDS,
                      help=f"seconds a direction stays held after a key repeat (default {HOLD_SECONDS})")
    play.add_argument("--script", default=None,
                      help='non-interactive: keys l r u d (move), k (kick), . (none), e.g. "llll kk dd"')
    play.add_argument("--frames-per-key", type=int, default=8, help="frames per script key (default 8)")
    versus_cmds.register(commands)
    server_cli.register(commands)
    daily_cmds.register(commands)
    return parser


def _glyphs(ascii_only: bool) -> Glyphs:
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    return ASCII if ascii_only or encoding != "utf8" else UNICODE


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `floe` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "versus_run", None) is not None:
        return versus_cmds.run(args)
    if args.command in ("serve", "daily"):
        return int(args.run(args))
    choice = GameChoice(args.preset, args.seed, args.level, args.skill)
    try:
        game = make_game(choice)
    except (ConfigError, ValueError) as error:
        parser.error(str(error))
    if args.command == "sim":
        from .sim import simulate

        if args.seconds < 0:
            parser.error("--seconds must not be negative")
        try:
            simulate(choice, args.player, args.seconds, sys.stdout, args.format, args.board, game=game)
        except BrokenPipeError:  # `floe sim | head`: stop quietly, and keep the exit-time flush quiet too
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        return 0
    if not args.text:
        parser.error("play: only the text display exists; use `floe play --text`")
    from .play import play_terminal, run_script
    from .render import screen

    glyphs = _glyphs(args.ascii)
    if args.script is not None:
        try:
            run_script(game, args.script, args.frames_per_key, args.hold)
        except ValueError as error:
            parser.error(str(error))
        print("\n".join(screen(game, glyphs)))
        return 0
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        parser.error("play --text needs a terminal; use --script for a non-interactive run")
    play_terminal(game, glyphs, args.hold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
