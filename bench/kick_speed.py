"""How fast the rules engine plays one Pengo board: `python -m bench.kick_speed [--seconds N] [--runs N]`.

Each run plays Pengo act 1 at the arcade's settings (factory skill) for `--seconds` game-seconds per seed
with floe_cli's scripted player (it walks, turns and kicks), draining the events after every frame, in
one of two workloads: `step_frame`, one `step_frame()` (13 main-loop passes) a frame, the versus step;
and `tick`, one `tick(1/60)` a frame, as a program written against the seed's API plays (it returns the
state, which the scripted player does not read). A game that ends early is reset and played on, so every
run covers the same game time. The two workloads alternate run by run, on the same seeds and players.
The process is pinned to one core when the OS allows it.

Reported per workload and seed, as the median of the runs: engine frames per second, main-loop passes per
second (780 per game-second, most of them skipped because nothing is due) and the multiple of real time
(game-seconds / wall seconds); then the ratio of the two workloads, one machine-readable line per workload
(`ab <workload> frames_per_second=<median over all runs>`, what `bench.ab` reads), and a cProfile of one
run (top functions by cumulative time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from floe_cli.players import ScriptedPlayer
from rules.kick.game import PASSES_PER_FRAME, KickGame
from rules.kick.presets import PengoOptions, pengo_preset

FRAMES_PER_SECOND = 60
DEFAULT_SEEDS: tuple[int, ...] = (0x365A, 0x0001, 0x1234, 0xBEEF, 0x7A31)
TARGET_REAL_TIME = 300.0
#: How a frame is played: the versus step, and the seed API's tick of one frame's seconds.
WORKLOADS: tuple[str, ...] = ("step_frame", "tick")
#: The most `tick` may cost per frame against `step_frame` (issue 9).
TICK_BOUND = 1.5


@dataclass(frozen=True)
class RunResult:
    """One seed's run of one workload."""

    workload: str
    seed: int
    frames: int
    wall: float
    cpu: float
    games: int
    events: int
    score: int

    @property
    def frames_per_second(self) -> float:
        """Engine frames per wall second."""
        return self.frames / self.wall

    @property
    def passes_per_second(self) -> float:
        """Main-loop passes of game time per wall second."""
        return self.frames * PASSES_PER_FRAME / self.wall

    @property
    def real_time(self) -> float:
        """Game seconds per wall second."""
        return self.frames / FRAMES_PER_SECOND / self.wall

    @property
    def real_time_cpu(self) -> float:
        """Game seconds per second of this process's CPU time (insensitive to other load on the core)."""
        return self.frames / FRAMES_PER_SECOND / self.cpu


def new_game(seed: int) -> KickGame:
    """Pengo, act 1, arcade difficulty and factory skill, on a seed."""
    return KickGame(pengo_preset(PengoOptions(seed=seed, level=1)))


def frame_step(game: KickGame, workload: str) -> Callable[[], object]:
    """What plays one frame of `game` in `workload`."""
    if workload == "tick":
        return partial(game.tick, 1 / FRAMES_PER_SECOND)
    return game.step_frame


def play(game: KickGame, player: ScriptedPlayer, frames: int, workload: str) -> tuple[int, int, int]:
    """Play `frames` frames (resetting after a game over); returns (games started, events, best score)."""
    games, events, best = 1, 0, 0
    act, step, drain = player.act, frame_step(game, workload), game.drain
    for _ in range(frames):
        act(game)
        step()
        events += len(drain())
        if game.status == "lost" or game.status == "complete":
            best = max(best, game.score)
            game.reset()
            games += 1
    return games, events, max(best, game.score)


def run_once(seed: int, seconds: float, workload: str) -> RunResult:
    """Time one seed for `seconds` of game time (the game is built before the clock starts)."""
    frames = round(seconds * FRAMES_PER_SECOND)
    game = new_game(seed)
    player = ScriptedPlayer(seed)
    start, start_cpu = time.perf_counter(), time.process_time()
    games, events, score = play(game, player, frames, workload)
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return RunResult(workload, seed, frames, wall, cpu, games, events, score)


def pin_to_one_core() -> str:
    """Pin this process to one CPU if the OS supports it; returns a description."""
    if hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned (no sched_setaffinity)"


def profile_run(seed: int, seconds: float, top: int, workload: str) -> str:
    """cProfile one run; the `top` functions by cumulative time, as pstats prints them."""
    frames = round(seconds * FRAMES_PER_SECOND)
    game = new_game(seed)
    player = ScriptedPlayer(seed)
    profiler = cProfile.Profile()
    profiler.enable()
    play(game, player, frames, workload)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats(pstats.SortKey.CUMULATIVE).print_stats(top)
    return out.getvalue()


def parse_seeds(text: str) -> list[int]:
    """Seeds from "0x365A,1,0x1234" (argparse type)."""
    return [int(part, 0) for part in text.split(",")]


COLUMNS = (f"{'workload':>10}  {'seed':>6}  {'frames/s':>10}  {'passes/s':>12}  {'x real time':>11}  "
           f"{'x (cpu)':>8}  {'wall s':>7}  games  events  best")


def median_fps(results: Sequence[RunResult]) -> float:
    """The median engine frames per second of `results`."""
    return statistics.median(r.frames_per_second for r in results)


def report_row(label: str, results: Sequence[RunResult], detail: bool = True) -> str:
    """One table row: medians over `results`, plus the first run's games, events and best score."""
    fps = statistics.median(r.frames_per_second for r in results)
    pps = statistics.median(r.passes_per_second for r in results)
    multiple = statistics.median(r.real_time for r in results)
    cpu_multiple = statistics.median(r.real_time_cpu for r in results)
    row = (f"{results[0].workload:>10}  {label:>6}  {fps:10,.0f}  {pps:12,.0f}  {multiple:10,.0f}x  "
           f"{cpu_multiple:7,.0f}x")
    if detail:
        first = results[0]
        wall = statistics.median(r.wall for r in results)
        row += f"  {wall:7.3f}  {first.games:5d}  {first.events:6d}  {first.score:4d}"
    return row


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its report."""
    parser = argparse.ArgumentParser(prog="python -m bench.kick_speed", description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=180.0, help="game seconds per run (default 180)")
    parser.add_argument("--runs", type=int, default=5, help="runs per seed, median reported (default 5)")
    parser.add_argument("--seeds", type=parse_seeds, default=list(DEFAULT_SEEDS),
                        help="comma-separated seeds (default 0x365A,0x0001,0x1234,0xBEEF,0x7A31)")
    parser.add_argument("--top", type=int, default=15, help="profile entries to print (default 15)")
    parser.add_argument("--no-profile", action="store_true", help="skip the cProfile run")
    parser.add_argument("--profile", choices=WORKLOADS, default="step_frame",
                        help="the workload of the cProfile run (default step_frame)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.seconds <= 0:
        parser.error("--runs must be at least 1 and --seconds positive")

    print(f"python {platform.python_version()} on {platform.machine()}, {pin_to_one_core()}")
    print(f"pengo act 1, arcade skill, scripted player, {args.seconds:g} game-seconds per run, "
          f"{args.runs} runs per seed (medians)\n")
    print(COLUMNS)
    everything: dict[str, list[RunResult]] = {workload: [] for workload in WORKLOADS}
    for seed in args.seeds:
        runs: dict[str, list[RunResult]] = {workload: [] for workload in WORKLOADS}
        for index in range(args.runs):  # the workloads take turns going first, so drift touches both
            for workload in WORKLOADS if index % 2 == 0 else WORKLOADS[::-1]:
                runs[workload].append(run_once(seed, args.seconds, workload))
        for workload in WORKLOADS:
            everything[workload].extend(runs[workload])
            print(report_row(f"0x{seed:04X}", runs[workload]))
    for workload in WORKLOADS:
        print(report_row("all", everything[workload], detail=False))
    steps = everything["step_frame"]
    overall = statistics.median(r.real_time for r in steps)
    by_cpu = statistics.median(r.real_time_cpu for r in steps)
    verdict = "meets" if overall >= TARGET_REAL_TIME else "is BELOW"
    print(f"\nstep_frame: median multiple of real time {overall:,.0f}x (wall clock) {verdict} the "
          f"{TARGET_REAL_TIME:.0f}x target; by CPU time {by_cpu:,.0f}x")
    fps = {workload: median_fps(everything[workload]) for workload in WORKLOADS}
    ratio = fps["step_frame"] / fps["tick"]
    bound = "within" if ratio <= TICK_BOUND else "OVER"
    print(f"tick: {ratio:.3f}x the time of step_frame per frame ({bound} the {TICK_BOUND:g}x bound)")
    if hasattr(os, "getloadavg"):
        print(f"(load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs while measuring; "
              "other work on the core lowers the wall-clock figure)")
    if not args.no_profile:
        seed = args.seeds[0]
        print(f"\ncProfile of one {args.profile} run (seed 0x{seed:04X}, {args.seconds:g} game-seconds), "
              f"top {args.top} by cumulative time:")
        print(profile_run(seed, args.seconds, args.top, args.profile))
    print()
    for workload in WORKLOADS:
        print(f"ab {workload} frames_per_second={fps[workload]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
