"""`floe match`, `floe verify` and `floe rules`: headless versus matches, replay verification, the compendium.

    floe match --bots competent,lazy --seed 7 --out m.replay   # play bots headless, write the replay
    floe verify m.replay other.replay                          # re-simulate; exit 1 if any fails
    floe rules                                                 # the attack table and Pengo's numbers

`register(subparsers)` adds the three subcommands to the `floe` parser; each sets `versus_run`, which
`run(args)` calls (floe_cli/main.py dispatches to it for the names in COMMANDS). Bots come from
`PENGO_VERSUS.make_bot(name, seat_seed(seed, seat))` (the current version's bots, on its default config), as
everywhere else.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO, TypeVar

from rules.versus.bots import BOT_NAMES, Bot, seat_seed
from rules.versus.events import Attack, BoardRecord, Landing, Offset, Queued, Record, record_plain
from rules.versus.inputs import NEUTRAL
from rules.versus.match import VersusConfig, VersusMatch
from rules.versus.tables import FRAME_HZ
from rules.versus.view import SeatView

COMMANDS: tuple[str, ...] = ("match", "verify", "rules")

T = TypeVar("T")


# ---- floe match ----------------------------------------------------------------------------------------


@dataclass
class AttackFlow:
    """One seat's side of the attack exchange, counted from the log."""

    attacks: int = 0
    units_earned: int = 0
    chains: int = 0
    offset_units: int = 0
    packets_sent: int = 0
    units_sent: int = 0
    packets_received: int = 0
    units_received: int = 0
    landings: Counter[str] = field(default_factory=Counter)
    units_landed: int = 0
    reasons: Counter[str] = field(default_factory=Counter)


def attack_flow(records: Iterable[Record], seats: int) -> list[AttackFlow]:
    """Per seat: attacks and their units, offsets, packets sent and received, landings by kind."""
    flows = [AttackFlow() for _ in range(seats)]
    for record in records:
        if isinstance(record, Attack):
            flow = flows[record.seat]
            flow.attacks += 1
            flow.units_earned += record.units
            flow.chains += record.chain
            flow.reasons.update(record.reasons)
        elif isinstance(record, Offset):
            flows[record.seat].offset_units += record.units
        elif isinstance(record, Queued):
            flows[record.source].packets_sent += 1
            flows[record.source].units_sent += record.units
            flows[record.seat].packets_received += 1
            flows[record.seat].units_received += record.units
        elif isinstance(record, Landing):
            flows[record.seat].landings[record.landing] += 1
            flows[record.seat].units_landed += record.units
    return flows


def _clock(frames: int) -> str:
    seconds = frames // FRAME_HZ
    return f"{seconds // 60}:{seconds % 60:02d}.{frames % FRAME_HZ * 100 // FRAME_HZ:02d}"


def _record_line(frame: int, record: Record) -> str:
    plain = record_plain(record)
    kind = plain.pop("kind")
    seat = plain.pop("seat", None)
    where = "" if seat is None else f" s{seat}"
    fields_text = " ".join(f"{key}={_compact(value)}" for key, value in plain.items())
    return f"{frame:6d}{where} {kind} {fields_text}".rstrip()


def _compact(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "[" + ",".join(_compact(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_compact(v)}" for k, v in value.items()) + "}"
    return str(value)


def play_match(
    bots: Sequence[Bot[SeatView]],
    seed: int,
    names: Sequence[str],
    config: VersusConfig | None = None,
    on_frame: Callable[[int, list[Record]], None] | None = None,
) -> tuple[VersusMatch, list[Record]]:
    """Run a match to its end with one bot per seat; returns the match and its versus records."""
    match = VersusMatch(config, seed, names)
    kept: list[Record] = []
    while match.result is None:
        frame = match.frame
        row = [
            bots[seat.index].decide(seat.view, frame) if seat.alive else NEUTRAL for seat in match.seat_states
        ]
        records = match.step(row)
        if on_frame is not None:
            on_frame(frame, records)
        kept.extend(r for r in records if not isinstance(r, BoardRecord))
    return match, kept


def _seat_names(bots: list[str], given: str | None) -> list[str]:
    if given is not None:
        names = [name.strip() for name in given.split(",")]
        if len(names) != len(bots):
            raise ValueError(f"--seats: {len(names)} names for {len(bots)} bots")
        if any(not name for name in names):
            raise ValueError("--seats: a seat name is empty")
        return names
    seen: Counter[str] = Counter()
    names = []
    for bot in bots:
        seen[bot] += 1
        names.append(bot if bots.count(bot) == 1 else f"{bot}-{seen[bot]}")
    return names


def _cmd_match(args: argparse.Namespace) -> int:
    from protocol.replay_codec import encode_replay
    from rules.replay import record
    from rules.versus.ruleset import PENGO_VERSUS

    out: TextIO = args.stdout
    bot_names = [name.strip() for name in args.bots.split(",")]
    names = _seat_names(bot_names, args.seats)
    base = PENGO_VERSUS.default_config()  # new matches are played under the current version
    rules = base.rules
    changes: dict[str, int] = {}
    if args.lives is not None:
        changes["lives"] = args.lives
    if args.time_limit is not None:
        changes["time_limit_frames"] = round(args.time_limit * FRAME_HZ)
    if changes:
        from dataclasses import replace

        rules = replace(rules, **changes)  # type: ignore[arg-type]
    config = VersusConfig(rules=rules, difficulty=args.difficulty, fidelity=base.fidelity)
    bots = [PENGO_VERSUS.make_bot(name, seat_seed(args.seed, seat)) for seat, name in enumerate(bot_names)]
    if args.out is not None:
        folder = Path(args.out).resolve().parent
        if not folder.is_dir():  # refused before the match runs, not after
            raise ValueError(f"--out: the folder {folder} does not exist")

    def show(frame: int, records: list[Record]) -> None:
        for rec in records:
            print(_record_line(frame, rec), file=out)

    started = time.perf_counter()
    match, records = play_match(bots, args.seed, names, config, show if args.log else None)
    elapsed = time.perf_counter() - started
    result = match.result
    assert result is not None
    winner = "none (draw)" if result.winner is None else f"seat {result.winner} ({names[result.winner]})"
    print(f"match: seed {args.seed} ({args.seed:#x}), {len(names)} seats, {result.frame} frames "
          f"({_clock(result.frame)}), played in {elapsed:.2f} s", file=out)
    print(f"result: {result.reason}; winner {winner}", file=out)
    for seat, name in enumerate(names):
        game = match.games[seat]
        print(f"  seat {seat} {name:<14} {result.outcomes[seat]:<9} score {result.scores[seat]:>6}  "
              f"level {game.level}  lives {game.lives}", file=out)
    print("attack flow:", file=out)
    for seat, flow in enumerate(attack_flow(records, len(names))):
        landed = ", ".join(f"{kind} {count}" for kind, count in sorted(flow.landings.items())) or "none"
        why = ", ".join(f"{reason} {count}" for reason, count in sorted(flow.reasons.items())) or "none"
        print(f"  seat {seat}: attacks {flow.attacks} ({flow.units_earned} units, {flow.chains} chained; "
              f"{why}); offset {flow.offset_units}; "
              f"sent {flow.packets_sent} packets / {flow.units_sent} units; "
              f"received {flow.packets_received} / {flow.units_received}; landed {flow.units_landed} units "
              f"({landed})", file=out)
    replay = record(match, PENGO_VERSUS)
    print(f"log hash: {match.log_hash}", file=out)
    if args.out is not None:
        data = encode_replay(replay)
        Path(args.out).write_bytes(data)
        print(f"replay: {args.out} ({len(data)} bytes)", file=out)
    return 0


# ---- floe verify ---------------------------------------------------------------------------------------


def _progress(items: Sequence[T], enabled: bool) -> Iterator[T]:
    """Iterate with a rich progress bar on stderr when it is a terminal, else plainly."""
    if not enabled:
        yield from items
        return
    from rich.console import Console
    from rich.progress import track

    yield from track(items, description="verify", console=Console(stderr=True), transient=True)


def verify_file(path: Path, max_bytes: int, max_frames: int) -> tuple[bool, str]:
    """Read, decode and verify one replay file: (ok, a one-line description)."""
    from protocol.replay_codec import ReplayDecodeError, decode_replay
    from rules.replay import verify

    try:
        size = path.stat().st_size
        if size > max_bytes:
            return False, f"rejected: {size} bytes is over the limit of {max_bytes} bytes"
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
        replay = decode_replay(data, max_bytes)
    except OSError as error:
        return False, f"cannot read: {error.strerror or error}"
    except ReplayDecodeError as error:
        return False, f"rejected: {error}"
    started = time.perf_counter()
    verdict = verify(replay, max_frames)
    elapsed = time.perf_counter() - started
    if not verdict.ok:
        return False, verdict.reason
    result = verdict.result
    assert result is not None
    winner = "draw" if result.winner is None else f"winner {replay.seats[result.winner]}"
    return True, (f"ok: {result.reason}, {winner}, scores {list(result.scores)}, {verdict.frames} frames "
                  f"({_clock(verdict.frames)}) verified in {elapsed:.2f} s")


def _cmd_verify(args: argparse.Namespace) -> int:
    out: TextIO = args.stdout
    paths = [Path(p) for p in args.files]
    failed = 0
    show_bar = not args.no_progress and sys.stderr.isatty()
    for index, path in enumerate(_progress(paths, show_bar), start=1):
        ok, text = verify_file(path, args.max_bytes, args.max_frames)
        failed += not ok
        prefix = "" if show_bar else f"[{index}/{len(paths)}] "
        print(f"{prefix}{path}: {'' if ok else 'FAILED '}{text}", file=out)
    summary = f"verified {len(paths) - failed} of {len(paths)} replays"
    print(summary + (f"; {failed} failed" if failed else ""), file=out)
    return 1 if failed else 0


# ---- floe rules ----------------------------------------------------------------------------------------


def _print_rows(out: TextIO, title: str, rows: list[tuple[str, str, str]]) -> None:
    print(title, file=out)
    name_width = max(len(r[0]) for r in rows)
    value_width = min(28, max(len(r[1]) for r in rows))
    for name, value, comment in rows:
        print(f"  {name:<{name_width}}  {value:<{value_width}}  {comment}".rstrip(), file=out)


def _cmd_rules(args: argparse.Namespace) -> int:
    from rules.registry import UnknownRulesetError, newest
    from server.compendium import compendium

    out: TextIO = args.stdout
    try:
        ruleset = newest(args.ruleset)
    except UnknownRulesetError as error:
        print(f"floe rules: {error}", file=sys.stderr)
        return 2
    book = compendium(ruleset)
    print(book.heading, file=out)
    for section in book.sections:
        print(file=out)
        _print_rows(out, section.title, list(section.rows))
    return 0


# ---- wiring --------------------------------------------------------------------------------------------


def match_seed(text: str) -> int:
    """A match seed: decimal or 0x hex, 0 to 2**32 - 1 (argparse type; its refusal is argparse's message)."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, decimal or 0x hex, got {text!r}") from None
    if value < 0 or value > 0xFFFFFFFF:
        raise argparse.ArgumentTypeError(f"match seeds are 32-bit: 0 to 2**32 - 1, got {text}")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `match`, `verify` and `rules` to the `floe` parser's subcommands."""
    from protocol.replay_codec import MAX_REPLAY_BYTES
    from rules.replay import MAX_REPLAY_FRAMES

    match = subparsers.add_parser("match", help="run a headless versus match between bots; write its replay")
    match.add_argument("--bots", default="random,random",
                       help=f"comma-separated bots, one per seat (2-4): {', '.join(BOT_NAMES)} "
                            "(rules.versus.bots); default random,random")
    match.add_argument("--seed", type=match_seed, default=1,
                       help="match seed, decimal or 0x hex (default 1)")
    match.add_argument("--seats", default=None, help="comma-separated seat names (default: the bot names)")
    match.add_argument("--out", default=None, metavar="FILE.replay", help="write the replay (msgpack) here")
    match.add_argument("--log", action="store_true", help="print every record of the log, frame by frame")
    match.add_argument("--lives", type=int, default=None, help="lives per seat (default: the ruleset's)")
    match.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                       help="time limit in seconds (default: the ruleset's)")
    match.add_argument("--difficulty", default="arcade", help="board difficulty (default arcade)")
    match.set_defaults(versus_run=_cmd_match)

    verify = subparsers.add_parser("verify", help="re-simulate replays; check their results and log hashes")
    verify.add_argument("files", nargs="+", metavar="FILE", help="replay files")
    verify.add_argument("--max-frames", type=int, default=MAX_REPLAY_FRAMES,
                        help=f"refuse replays longer than this (default {MAX_REPLAY_FRAMES})")
    verify.add_argument("--max-bytes", type=int, default=MAX_REPLAY_BYTES,
                        help=f"refuse files larger than this (default {MAX_REPLAY_BYTES})")
    verify.add_argument("--no-progress", action="store_true", help="no progress bar, one line per file")
    verify.set_defaults(versus_run=_cmd_verify)

    rules = subparsers.add_parser("rules", help="print a ruleset's numbers (by default pengo-versus's attack "
                                               "table, versus settings and Pengo's)")
    rules.add_argument("--ruleset", default="pengo-versus",
                       help="a registered ruleset's name (its newest version): pengo-versus, pengo-solo, "
                            "payload, payload-versus")
    rules.set_defaults(versus_run=_cmd_rules)


def run(args: argparse.Namespace, stdout: TextIO | None = None) -> int:
    """Run a parsed versus subcommand; returns the exit status (usage errors exit 2 with a message)."""
    args.stdout = stdout or sys.stdout
    runner: Callable[[argparse.Namespace], int] = args.versus_run
    try:
        return runner(args)
    except ValueError as error:
        print(f"floe {args.command}: error: {error}", file=sys.stderr)
        return 2


def build_parser() -> argparse.ArgumentParser:
    """A parser with only the versus subcommands (for `python -m floe_cli.versus_cmds` and the tests)."""
    parser = argparse.ArgumentParser(prog="floe", description="Versus matches, replays and the rules.")
    register(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    return parser


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None) -> int:
    """Parse and run a versus subcommand."""
    return run(build_parser().parse_args(argv), stdout)


if __name__ == "__main__":
    sys.exit(main())
