"""What a wake-up and a journal round trip cost a node in CPU time on this machine (issue 20):
`python -m bench.round_trip_cpu`.

    .venv/bin/python -m bench.round_trip_cpu                  # 240 wake-ups a second, 120 round trips, 5 s
    .venv/bin/python -m bench.round_trip_cpu --rounds 4 --seconds 8

A node's CPU per match-second is not its instructions alone: a node sleeps between its clock's tick
slices (240 wake-ups a second at 60 Hz with 4 slices) and, sharing its matches, once more for each
journal reply (120 a second). This measures both on uvloop's loop, as `floe serve` runs: a process
that only sleeps `--wakeups` times a second, then the same with a round trip on the journal's line
(server/cluster/line.py: one `EVALSHA` of a script that returns 1) every `--wakeups / --trips`
wake-ups. The difference over the round trips is what one costs in CPU (user and kernel), which a
count of instructions does not see: the kernel's side of the socket calls and the wake-up from idle
(on a shared VM, waking an idle virtual CPU and finding its caches cold). Rounds alternate the two.
The Redis is the machine's (127.0.0.1:6379). Results: bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import statistics
import time

from server.cluster.line import ScriptLine
from server.embed import event_loop_factory

SCRIPT = "return 1"
SHA = hashlib.sha1(SCRIPT.encode()).hexdigest()


async def run(wakeups: int, trips: int, seconds: float) -> tuple[float, float, int]:
    """CPU ms a second (all, kernel) and the round trips made, sleeping `wakeups` times a second."""
    line = ScriptLine({"host": "127.0.0.1", "port": 6379})
    try:
        await line.evalsha(SHA, SCRIPT, [])  # connected and loaded before the window
        every = wakeups // trips if trips else 0
        loop = asyncio.get_running_loop()
        cpu0, times0, start = time.process_time(), os.times(), loop.time()
        made = count = 0
        while loop.time() - start < seconds:
            count += 1
            if every and count % every == 0:
                await line.evalsha(SHA, SCRIPT, [])
                made += 1
            await asyncio.sleep(1 / wakeups)
        cpu1, times1 = time.process_time(), os.times()
        return 1000 * (cpu1 - cpu0) / seconds, 1000 * (times1.system - times0.system) / seconds, made
    finally:
        line.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wakeups", type=int, default=240)
    parser.add_argument("--trips", type=int, default=120)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    idle: list[float] = []
    per_trip: list[float] = []
    for index in range(args.rounds):
        figures = {}
        for trips in (0, args.trips) if index % 2 == 0 else (args.trips, 0):
            with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
                figures[trips] = runner.run(run(args.wakeups, trips, args.seconds))
        (quiet, quiet_sys, _), (busy, busy_sys, made) = figures[0], figures[args.trips]
        idle.append(1000 * quiet / args.wakeups)
        per_trip.append(1000 * (busy - quiet) * args.seconds / max(made, 1))
        print(f"round {index + 1}: {args.wakeups} wake-ups/s: {quiet:.2f} CPU ms/s ({quiet_sys:.2f} kernel); "
              f"with {made / args.seconds:.0f} round trips/s: {busy:.2f} ({busy_sys:.2f} kernel)", flush=True)
    print(f"a wake-up: median {statistics.median(idle):.1f} µs of CPU "
          f"(spread {min(idle):.1f}–{max(idle):.1f}); "
          f"a round trip on top: median {statistics.median(per_trip):.1f} µs "
          f"(spread {min(per_trip):.1f}–{max(per_trip):.1f})")


if __name__ == "__main__":
    main()
