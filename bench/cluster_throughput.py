"""How many matches two nodes on one Redis sustain against one (issue 20): `-m bench.cluster_throughput`.

    python -m bench.cluster_throughput                          # 40 80 120 160 200 matches, 8 s windows
    python -m bench.cluster_throughput --matches 60 120 180 --seconds 10

Server-side lazy-bot duels (no client load), the children of bench/cluster_cpu.py (one `Node`
each, default settings). For each total of `--matches`, in turn:

- `one`: one node on Redis hosting them all (its matches shared: leases, journal);
- `two`: two nodes on one Redis prefix, each hosting half.

A setup *sustains* a total when its matches keep their pace and no node lost a match: the
match-seconds played in the window are at least `--keep` (0.95) of the window's length times the
matches (a loop that falls behind lets each match's schedule slip, so a node past its capacity plays
fewer frames than the clock's; the frames of a match taken over count where they run), and no lease
lapsed (a loop too late to renew it). The nodes' admission budget (`capacity_board_frames`, 50 duels
a node by default) is lifted so that what is found is what the loop keeps up with, not what the
node admits. Printed per total: the pace each setup kept, its CPU ms per match-second and the
matches lost; then the largest total each sustained. On a machine of N cores the pair can use two
where the one node uses one (a node is one event loop): the two-node throughput is the cluster's,
not a node's. Results: bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics

from bench.cluster_cpu import FRAME_HZ_OF_MATCH, drop, result, spawn

SETUPS = ("one", "two")


def measure(setup: str, total: int, args: argparse.Namespace) -> tuple[float, float, int]:
    """The pace kept (match-seconds per window-second per match), the CPU ms per match-second, and the
    matches a node lost (its lease lapsed: a loop too late to renew it)."""
    prefix = f"floe-tput-{secrets.token_hex(4)}"
    nodes = 1 if setup == "one" else 2
    settings = [f"capacity_board_frames={10**9}", *args.set]  # past the admission budget
    child = argparse.Namespace(matches=total // nodes, seconds=args.seconds, warmup=args.warmup, set=settings,
                               plain=False)
    try:
        popens = [spawn("redis", prefix, child) for _ in range(nodes)]
        figures = [result(popen) for popen in popens]
    finally:
        asyncio.run(drop(prefix))
    played = sum(f["hosted_match_seconds"] for f in figures)  # a match taken over counts where it runs
    pace = played / (statistics.mean(f["wall"] for f in figures) * total)
    cpu = sum(f["cpu"] for f in figures) * 1000 / max(played, 1e-9)
    return pace, cpu, int(sum(f["lost"] for f in figures))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, nargs="+", default=[40, 80, 120, 160, 200])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--keep", type=float, default=0.95)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=NUMBER")
    args = parser.parse_args(argv)
    print(f"lazy-bot duels, {args.seconds} s windows after {args.warmup} s; sustained: pace ≥ {args.keep}",
          flush=True)
    best = dict.fromkeys(SETUPS, 0)
    for total in args.matches:
        row = []
        for setup in SETUPS:
            pace, cpu, lost = measure(setup, total, args)
            if pace >= args.keep and not lost:
                best[setup] = max(best[setup], total)
            row.append(f"{setup}: pace {pace:.3f} ({cpu:.2f} CPU ms/match-s, {lost} lost)")
        print(f"{total:>4} matches  " + "  ".join(row), flush=True)
    print("sustained: " + ", ".join(f"{setup} {best[setup]} matches" for setup in SETUPS)
          + f" (frame rate {FRAME_HZ_OF_MATCH} Hz)")


if __name__ == "__main__":
    main()
