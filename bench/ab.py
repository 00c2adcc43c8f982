"""Old commit against the new tree, side by side in one run: the "no slower" measurement.

    python -m bench.ab --old 7ae5f47 --rounds 5 --metric 'cpu_ms_per_match_s=([0-9.]+)' \
        -- bench.server_capacity --matches 50 --seconds 15
    python -m bench.ab --old 7ae5f47 --workload new --higher-is-better \
        --metric 'ab frames_per_second=([0-9.]+)' -- bench.kick_speed --runs 1 --no-profile

The old revision is checked out once as a git worktree (under the system's temp folder) and both
trees run the same `python -m MODULE ARGS…` with this interpreter, alternating which goes first in
each round, so that the machine's drift between rounds touches both alike. `--workload own` runs
each tree's own module (the server bench: each tree's server under each tree's bench);
`--workload new` runs the new tree's module file against the old tree's packages (the same
workload code measuring two engines). The metric is the first group of a regular expression matched
against the command's output (the last match counts; thousands separators are dropped). Printed:
every round's two values and their ratio (new/old for a cost, old/new for a speed: above 1 is
slower either way), then the median ratio and its spread (lowest and highest). The verdict "no
slower" is a median ratio ≤ 1.05.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The bound of "no slower" (DEVELOPERS.md): the median ratio of old to new.
NO_SLOWER = 1.05


def worktree(revision: str) -> Path:
    """A checkout of `revision` (made once, reused by later runs)."""
    sha = subprocess.run(
        ["git", "rev-parse", "--verify", f"{revision}^{{commit}}"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout.strip()
    path = Path(tempfile.gettempdir()) / "floe-ab" / sha[:12]
    if not (path / ".git").exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "worktree", "add", "--detach", str(path), sha], cwd=ROOT, check=True,
                       capture_output=True)
    return path


def command(tree: Path, module: str, args: list[str], workload: str) -> list[str]:
    """The command that runs `module` with `tree`'s packages first on the path."""
    if workload == "own" or tree == ROOT:
        return [sys.executable, "-m", module, *args]
    script = ROOT / (module.replace(".", "/") + ".py")
    launcher = (
        "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = sys.argv[1]; "
        "runpy.run_path(sys.argv.pop(1), run_name='__main__')"
    )
    return [sys.executable, "-c", launcher, str(tree), str(script), *args]


def measure(tree: Path, module: str, args: list[str], workload: str, metric: re.Pattern[str]) -> float:
    """Run once in `tree`; the metric's value (the last match in the output)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(command(tree, module, args, workload), cwd=tree, env=env, capture_output=True,
                          text=True)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {module} failed ({done.returncode}):\n{output[-3000:]}")
    found = metric.findall(output)
    if not found:
        raise SystemExit(f"{tree}: no match for {metric.pattern!r} in the output:\n{output[-3000:]}")
    value = found[-1][0] if isinstance(found[-1], tuple) else found[-1]
    return float(value.replace(",", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the revision to compare against (a commit)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, each running both trees (≥ 5)")
    parser.add_argument("--metric", required=True, help="a regular expression whose first group is the value")
    parser.add_argument("--higher-is-better", action="store_true", help="the metric is a speed, not a cost")
    parser.add_argument("--workload", choices=("own", "new"), default="own")
    parser.add_argument("module", help="the benchmark module (after --)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    options = parser.parse_args(argv)
    metric = re.compile(options.metric, re.MULTILINE)
    old = worktree(options.old)
    trees = {"old": old, "new": ROOT}
    ratios: list[float] = []
    print(f"old {options.old} at {old}; new: {ROOT}; {options.module} {' '.join(options.args)}")
    for round_number in range(options.rounds):
        order = ("old", "new") if round_number % 2 == 0 else ("new", "old")
        values = {name: measure(trees[name], options.module, options.args, options.workload, metric)
                  for name in order}
        ratio = values["old"] / values["new"] if options.higher_is_better else values["new"] / values["old"]
        ratios.append(ratio)
        print(f"round {round_number + 1} ({order[0]} first): old {values['old']:.4g}  new {values['new']:.4g}"
              f"  ratio {ratio:.3f}", flush=True)
    median = statistics.median(ratios)
    verdict = "no slower" if median <= NO_SLOWER else "SLOWER"
    print(f"median ratio {median:.3f} (spread {min(ratios):.3f}–{max(ratios):.3f}, {len(ratios)} rounds; "
          f"above 1 is slower): {verdict}")
    return 0 if median <= NO_SLOWER else 1


if __name__ == "__main__":
    sys.exit(main())
