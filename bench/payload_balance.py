"""Payload balance, measured with bots: `python -m bench.payload_balance` writes bench/PAYLOAD-BALANCE.md.

Suites (each run or match seeded from `--seed` and its index; the numbers depend only on the seeds,
never on `--workers`):

- `solo`: the lazy and the competent bot (rules/payload/bots) play `--runs` runs of each difficulty
  through the reducer (rules/payload/run.py), on the same seeds; reported: runs won, rounds cleared,
  the average score. Targets (issue 22): the competent bot wins Easy in ≥ 60 % of runs, the lazy bot in
  ≤ 10 %.
- `versus`: `--matches` Payload versus matches (Easy) through the seam (PayloadMatch, the bots
  speaking the input byte): competent against lazy with seats alternating, and the mirror (competent
  against competent, each seat's bot seeded by `rules.ruleset.seat_seed`). Targets: the competent bot
  beats the lazy one in ≥ 90 % of matches; mirror seats within 45–55 %.
- the engine's speed: drops simulated per second of CPU on the boards the competent bot builds.

Every share carries Wilson's 95 % interval (bench/versus_balance.py's `wilson`).
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.versus_balance import wilson
from rules.payload.bots import POLICIES, make_bot
from rules.payload.content import DIFFICULTIES
from rules.payload.match import PayloadConfig, PayloadMatch
from rules.payload.moves import apply_move
from rules.payload.rng import Mulberry32
from rules.payload.run import RunState, start_run
from rules.payload.simulate import simulate_drop
from rules.payload.types import COLS, Column, DifficultyKey, Rules
from rules.ruleset import seat_seed

REPORT = Path(__file__).with_name("PAYLOAD-BALANCE.md")
VERSUS_SUITES = ("competent-vs-lazy", "mirror")


def run_seed(index: int, base: int) -> int:
    """The seed of the index-th run or match."""
    return (base + index * 0x9E3779B1) & 0xFFFFFFFF


@dataclass(frozen=True)
class SoloRun:
    """One run's outcome."""

    bot: str
    difficulty: DifficultyKey
    won: bool
    rounds: int
    score: int
    boards: tuple[tuple[object, ...], ...] = ()


def play_run(bot: str, difficulty: DifficultyKey, seed: int) -> SoloRun:
    """One run of a bot's policy through the reducer; the boards it dropped on (for the speed test)."""
    policy = POLICIES[bot]
    rng = Mulberry32(seat_seed(seed, 0))
    state: RunState = start_run(difficulty, seed)[0]
    boards: list[tuple[int, tuple[object, ...]]] = []
    while not state.over:
        move = policy(state, rng)
        state = apply_move(state, move)[0]
        if state.round not in {r for r, _ in boards}:
            boards.append((state.round, state.board))
    return SoloRun(bot, difficulty, state.won, state.rounds_cleared, state.total_score,
                   tuple(board for _, board in boards))


@dataclass
class VersusMatchStats:
    """One versus match's outcome."""

    suite: str
    bots: tuple[str, str]
    winner: int | None
    reason: str
    frames: int
    sent: list[int] = field(default_factory=lambda: [0, 0])
    landed: list[int] = field(default_factory=lambda: [0, 0])
    cancelled: list[int] = field(default_factory=lambda: [0, 0])


def play_versus(suite: str, index: int, base: int) -> VersusMatchStats:
    """One Payload versus match between bots, through PayloadMatch and the input byte."""
    seed = run_seed(index, base)
    names = ("competent", "competent") if suite == "mirror" else (
        ("competent", "lazy") if index % 2 == 0 else ("lazy", "competent"))
    match = PayloadMatch(PayloadConfig(), seed, names)
    bots = [make_bot(name, seat_seed(seed, seat)) for seat, name in enumerate(names)]
    stats = VersusMatchStats(suite, names, None, "", 0)
    while match.result is None:
        inputs = [bot.decide(match.seat_view(seat), match.frame) for seat, bot in enumerate(bots)]
        for record in match.step(inputs):
            if record["kind"] == "attack":
                stats.sent[record["seat"]] += record["sent"]
                stats.cancelled[record["seat"]] += record["cancelled"]
            elif record["kind"] == "received":
                stats.landed[record["seat"]] += 1
    result = match.result
    stats.winner, stats.reason, stats.frames = result.winner, result.reason, result.frame
    return stats


def _solo_job(job: tuple[str, DifficultyKey, int]) -> SoloRun:
    return play_run(*job)


def _versus_job(job: tuple[str, int, int]) -> VersusMatchStats:
    return play_versus(*job)


def drop_speed(boards: Sequence[tuple[object, ...]], seconds: float = 2.0) -> tuple[int, float]:
    """Drops simulated in about `seconds` of CPU over these boards (every column), and the CPU time."""
    rules = Rules()
    started = time.process_time()
    drops = 0
    while time.process_time() - started < seconds:
        for board in boards:
            for col in range(COLS):
                simulate_drop(board, Column(col), rules)  # type: ignore[arg-type]
                drops += 1
    return drops, time.process_time() - started


def _share(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.1f} % (Wilson {100 * low:.1f}–{100 * high:.1f} %)" if n else "n/a"


def _met(ok: bool) -> str:
    return "✔" if ok else "✘"


def main(argv: Sequence[str] | None = None) -> None:
    """Run the suites and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400, help="solo runs per bot and difficulty")
    parser.add_argument("--matches", type=int, default=200, help="versus matches per suite")
    parser.add_argument("--seed", type=lambda text: int(text, 0), default=0x5EED)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=REPORT)
    args = parser.parse_args(argv)
    wall = time.time()
    solo_jobs = [(bot, difficulty, run_seed(i, args.seed)) for difficulty in DIFFICULTIES
                 for bot in ("lazy", "competent") for i in range(args.runs)]
    versus_jobs = [(suite, i, args.seed) for suite in VERSUS_SUITES for i in range(args.matches)]
    with multiprocessing.Pool(args.workers) as pool:
        solo = pool.map(_solo_job, solo_jobs, chunksize=8)
        versus = pool.map(_versus_job, versus_jobs, chunksize=4)
    boards = [board for run in solo if run.bot == "competent" and run.difficulty == "easy"
              for board in run.boards][:200]
    drops, cpu = drop_speed(boards)
    lines = report(args, solo, versus, drops, cpu, time.time() - wall)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


def report(args: argparse.Namespace, solo: Sequence[SoloRun], versus: Sequence[VersusMatchStats],
           drops: int, cpu: float, wall: float) -> list[str]:
    """The report's lines (markdown)."""
    out = [
        "# Payload balance, measured with bots",
        "",
        "```sh",
        f"python -m bench.payload_balance --runs {args.runs} --matches {args.matches} --seed {args.seed:#x} "
        f"--workers {args.workers}",
        "```",
        "",
        "Written by `bench/payload_balance.py` (its docstring says what each suite plays). Shares carry",
        "Wilson's 95 % interval. The bots underplay Prism catchers and Spring loops (one part at a",
        "time, no plan), so read the competent bot's figures as the pessimistic bound.",
        "",
        f"Wall time {wall:.0f} s on {args.workers} worker(s).",
        "",
        "## Solo runs",
        "",
        "| difficulty | bot | runs won | rounds cleared (0, 1, 2, …) | average score |",
        "|---|---|---|---|---|",
    ]
    wins: dict[tuple[str, str], tuple[int, int]] = {}
    for difficulty, spec in DIFFICULTIES.items():
        for bot in ("lazy", "competent"):
            runs = [run for run in solo if run.bot == bot and run.difficulty == difficulty]
            won = sum(run.won for run in runs)
            wins[difficulty, bot] = (won, len(runs))
            cleared = [sum(1 for run in runs if run.rounds == k) for k in range(len(spec.rounds) + 1)]
            average = sum(run.score for run in runs) / len(runs)
            out.append(f"| {spec.name} | {bot} | {_share(won, len(runs))} | {', '.join(map(str, cleared))} | "
                       f"{average:.0f} |")
    out += ["", "## Versus (Easy, shared deals)", "",
            "| suite | figure | value |", "|---|---|---|"]
    duel = [m for m in versus if m.suite == "competent-vs-lazy"]
    competent_wins = sum(1 for m in duel if m.winner is not None and m.bots[m.winner] == "competent")
    out.append(f"| competent-vs-lazy | competent wins | {_share(competent_wins, len(duel))} |")
    mirror = [m for m in versus if m.suite == "mirror"]
    seat_wins = [sum(1 for m in mirror if m.winner == seat) for seat in (0, 1)]
    draws = sum(1 for m in mirror if m.winner is None)
    decided = len(mirror) - draws
    for seat in (0, 1):
        out.append(f"| mirror | seat {seat} wins (of all matches) | {_share(seat_wins[seat], len(mirror))} |")
    out.append(f"| mirror | seat 0 wins of decided matches | {_share(seat_wins[0], decided)} |")
    out.append(f"| mirror | draws | {_share(draws, len(mirror))} |")
    for suite, matches in (("competent-vs-lazy", duel), ("mirror", mirror)):
        reasons: dict[str, int] = {}
        for m in matches:
            reasons[m.reason] = reasons.get(m.reason, 0) + 1
        sent = sum(sum(m.sent) for m in matches)
        landed = sum(sum(m.landed) for m in matches)
        cancelled = sum(sum(m.cancelled) for m in matches)
        frames = sum(m.frames for m in matches) / len(matches)
        out.append(f"| {suite} | ends | {', '.join(f'{k} {v}' for k, v in sorted(reasons.items()))} |")
        out.append(f"| {suite} | units sent / cancelled / landed (all matches) | {sent} / {cancelled} / "
                   f"{landed} |")
        out.append(f"| {suite} | average frames (bots move every frame they can) | {frames:.1f} |")
    easy_c, easy_l = wins["easy", "competent"], wins["easy", "lazy"]
    out += ["", "## Targets (issue 22)", "", "| target | figure | met |", "|---|---|---|"]
    out.append(f"| competent wins Easy ≥ 60 % | {_share(*easy_c)} | {_met(easy_c[0] >= 0.6 * easy_c[1])} |")
    out.append(f"| lazy wins Easy ≤ 10 % | {_share(*easy_l)} | {_met(easy_l[0] <= 0.1 * easy_l[1])} |")
    out.append(f"| competent beats lazy in versus ≥ 90 % | {_share(competent_wins, len(duel))} | "
               f"{_met(competent_wins >= 0.9 * len(duel))} |")
    share0 = seat_wins[0] / decided if decided else 0.0
    out.append(f"| mirror seats within 45–55 % (of decided matches) | seat 0 {_share(seat_wins[0], decided)} "
               f"| {_met(0.45 <= share0 <= 0.55)} |")
    out += ["", "## Engine speed", "",
            f"{drops:,} drops (every column of the competent bot's Easy boards) "
            f"in {cpu:.2f} s of CPU: {drops / cpu:,.0f} drops simulated per second (one core)."]
    return out


if __name__ == "__main__":
    main()
