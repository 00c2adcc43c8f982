"""How fast a replay verifies: `python -m bench.replay_verify [--runs N] [--seed N] [--bots A,B]
[--version V]`.

It plays one 3-minute 1 v 1 match with the bots (competent vs competent by default, seated as
`floe match` seats them), taking the first seed from `--seed` on whose match lasts the full time
limit (the default rules: 3 minutes, 3 lives), records it, encodes it with msgpack, and then times
`decode_replay` + `verify` — the whole of what `floe verify` and the server's verifier do per replay —
`--runs` times.

Reported: the replay's size, the median and best wall and CPU seconds of a verification, the
multiple of real time (180 s of play / seconds to verify; the target, ≥100×, is judged on the median
CPU time, which a shared machine disturbs less than the wall clock), and where the time
goes (the boards and the attack exchange, versus hashing the canonical log: measured by timing
`chain_hash` during one extra run). The process is pinned to one CPU when the OS allows it.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench.kick_speed import pin_to_one_core
from floe_cli.versus_cmds import play_match
from protocol.replay_codec import decode_replay, encode_replay
from rules.registry import lookup
from rules.replay import Replay, record, verify
from rules.versus import match as match_module
from rules.versus.bots import Bot, seat_seed
from rules.versus.ruleset import PENGO_VERSUS
from rules.versus.tables import FRAME_HZ
from rules.versus.view import SeatView

TARGET = 100.0
MATCH_SECONDS = 180


@dataclass(frozen=True)
class Timing:
    """One verification: wall and CPU seconds."""

    wall: float
    cpu: float


def three_minute_match(
    bots: Sequence[str], first_seed: int, tries: int = 50, version: int = PENGO_VERSUS.version
) -> tuple[Replay, str]:
    """The replay of the first match from `first_seed` on that lasts all 3 minutes, and how it was played."""
    names = list(bots)
    ruleset = lookup(PENGO_VERSUS.name, version)
    config = ruleset.default_config()
    how = f"bots {','.join(bots)}, default rules of {ruleset.name} {ruleset.version}"
    for seed in range(first_seed, first_seed + tries):
        players: list[Bot[SeatView]] = [
            ruleset.make_bot(n, seat_seed(seed, seat)) for seat, n in enumerate(names)
        ]
        match, _ = play_match(players, seed, names, config)
        result = match.result
        assert result is not None
        if result.reason == "time" and result.frame == MATCH_SECONDS * FRAME_HZ:
            return record(match, ruleset), f"{how}, seed {seed}"
    raise RuntimeError(f"no 3-minute match in seeds {first_seed}..{first_seed + tries - 1}")


def time_verification(data: bytes) -> Timing:
    """Decode and verify once; raises if the replay does not verify."""
    start, start_cpu = time.perf_counter(), time.process_time()
    verdict = verify(decode_replay(data))
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    if not verdict.ok:
        raise RuntimeError(f"the replay does not verify: {verdict.reason}")
    return Timing(wall, cpu)


def hashing_share(data: bytes) -> tuple[float, float]:
    """(seconds in chain_hash, total seconds) of one verification, by wrapping the hash function."""
    namespace = vars(match_module)
    original: Callable[..., bytes] = namespace["chain_hash"]
    spent = 0.0

    def timed(*args: Any) -> bytes:
        nonlocal spent
        start = time.perf_counter()
        try:
            return original(*args)
        finally:
            spent += time.perf_counter() - start

    namespace["chain_hash"] = timed
    try:
        total = time_verification(data).wall
    finally:
        namespace["chain_hash"] = original
    return spent, total


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the report."""
    parser = argparse.ArgumentParser(prog="python -m bench.replay_verify", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="verifications to time (default 7)")
    parser.add_argument("--seed", type=int, default=1, help="first match seed to try (default 1)")
    parser.add_argument(
        "--bots", default="competent,competent", help="two bots (default competent,competent)"
    )
    parser.add_argument(
        "--version", type=int, default=PENGO_VERSUS.version,
        help=f"the pengo-versus version to play and verify (default {PENGO_VERSUS.version})",
    )
    args = parser.parse_args(argv)
    bots = [name.strip() for name in args.bots.split(",")]
    if len(bots) != 2:
        parser.error("--bots: a 1 v 1 match needs two bots")
    pinned = pin_to_one_core()
    replay, how = three_minute_match(bots, args.seed, version=args.version)
    data = encode_replay(replay)
    print(
        f"python {platform.python_version()} on {platform.machine()}, {pinned}, load average "
        f"{os.getloadavg()[0]:.1f}"
        if hasattr(os, "getloadavg")
        else ""
    )
    print(
        f"match: {how}; {replay.final_frame} frames ({MATCH_SECONDS} s), {replay.result.reason}, scores "
        f"{list(replay.result.scores)}; moves {[len(m) for m in replay.moves]}; replay {len(data):,} bytes"
    )
    timings = [time_verification(data) for _ in range(args.runs)]
    walls = sorted(t.wall for t in timings)
    cpus = sorted(t.cpu for t in timings)
    median_wall, median_cpu = statistics.median(walls), statistics.median(cpus)
    print(f"verify (decode + re-simulate + compare), {args.runs} runs:")
    print(
        f"  wall: median {median_wall:.3f} s, best {walls[0]:.3f} s -> {MATCH_SECONDS / median_wall:,.0f}x "
        f"real time (best {MATCH_SECONDS / walls[0]:,.0f}x)"
    )
    print(
        f"  cpu:  median {median_cpu:.3f} s, best {cpus[0]:.3f} s -> {MATCH_SECONDS / median_cpu:,.0f}x "
        f"real time (best {MATCH_SECONDS / cpus[0]:,.0f}x)"
    )
    hashing, total = hashing_share(data)
    share = 100 * hashing / total
    print(f"  of one run's {total:.3f} s, hashing the log took {hashing:.3f} s ({share:.0f}%)")
    multiple = MATCH_SECONDS / median_cpu
    print(f"ab verify real_time_multiple={multiple:.1f}")
    verdict = "met" if multiple >= TARGET else "NOT met"
    print(
        f"target >= {TARGET:.0f}x real time (CPU time, median; the wall clock moves with the machine's "
        f"load): {verdict}"
    )
    return 0 if multiple >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
