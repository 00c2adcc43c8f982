"""A statistical profiler for one process: SIGPROF every `interval` seconds of CPU, the Python stack counted.

cProfile traces every call, which slows call-heavy code (the rules engine) several times more than
the rest and skews the shares. A sampler costs a stack walk every half millisecond of CPU and leaves
the shares as they are. Each sample counts once for the innermost function ("own") and once for
every distinct function on its stack ("inclusive"); time spent in C (a system call, msgpack) counts
for the Python function that called it. Samples land only between bytecodes of the main thread, so
an idle event loop takes none (the CPU timer does not run while the process sleeps).
"""

from __future__ import annotations

import signal
import time
from collections import Counter
from pathlib import Path
from types import FrameType, TracebackType

#: Stack frames looked at per sample (deeper frames are the event loop's, the same for every sample).
MAX_DEPTH = 48


def _label(frame: FrameType) -> str:
    code = frame.f_code
    path = Path(code.co_filename)
    place = "/".join(path.parts[-2:]) if path.parent.name else path.name
    return f"{place}:{code.co_name}"


class Sampler:
    """Counts Python stacks while active: `with Sampler(): ...`, then `table()`."""

    def __init__(self, interval: float = 0.0005) -> None:
        self.interval = interval
        self.samples = 0
        self.cpu = 0.0
        self.own: Counter[str] = Counter()
        #: Own samples by (function, its caller): which call site the time is spent for.
        self.own_by_caller: Counter[tuple[str, str]] = Counter()
        self.inclusive: Counter[str] = Counter()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.samples += 1
        seen: set[str] = set()
        depth = 0
        while frame is not None and depth < MAX_DEPTH:
            label = _label(frame)
            if depth == 0:
                self.own[label] += 1
                if frame.f_back is not None:
                    self.own_by_caller[label, _label(frame.f_back)] += 1
            if label not in seen:
                seen.add(label)
                self.inclusive[label] += 1
            frame = frame.f_back
            depth += 1

    def __enter__(self) -> Sampler:
        self.cpu = -time.process_time()
        signal.signal(signal.SIGPROF, self._on_signal)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, signal.SIG_DFL)
        self.cpu += time.process_time()

    def table(self, rows: int = 40) -> str:
        """The functions holding the most samples, inclusive and own, as a markdown table."""
        total = max(1, self.samples)
        # The kernel's profiling timer ticks at its own resolution (often 4 ms), whatever was asked.
        every = self.cpu / total * 1000
        lines = [
            f"{self.samples} samples over {self.cpu:.1f} s of CPU (one per {every:.1f} ms)",
            "",
            "| function (file:name) | inclusive | own |",
            "|---|---:|---:|",
        ]
        for label, count in self.inclusive.most_common(rows):
            lines.append(f"| `{label}` | {count / total:.1%} | {self.own[label] / total:.1%} |")
        lines += ["", "| most own time | own |", "|---|---:|"]
        for label, count in self.own.most_common(rows):
            lines.append(f"| `{label}` | {count / total:.1%} |")
        lines += ["", "| most own time, by caller | own |", "|---|---:|"]
        for (label, caller), count in self.own_by_caller.most_common(rows):
            lines.append(f"| `{label}` ← `{caller}` | {count / total:.1%} |")
        return "\n".join(lines)
