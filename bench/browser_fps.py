"""The browser client's draw loop in headless Chromium with a live match: `python -m bench.browser_fps`.

    python -m bench.browser_fps [--seconds 20] [--role player|spectator] [--size desktop|phone]
    python -m bench.browser_fps --before /tmp/floe-base/clients/web/dist --rounds 5 --seconds 8 \
        --size desktop --size phone

A floe server runs in this process (default settings, 60 frames/s, a client build at `/`);
Debian's Chromium (headless, launched as tests/web/conftest.py does) opens the lobby, starts a match
against the competent bot (or, with `--role spectator`, watches one that a second page plays) and,
once play has begun, the page's own counters are read over `--seconds`:

- animation frames drawn per second (requestAnimationFrame; the browser's pace, 60 when it keeps up);
- milliseconds per draw (the canvas work of one frame) and the draws per second that cost allows;
- stream records applied per second (60 a second is the match's pace) and milliseconds per record;
- the stream's bytes per second to this viewer (the websocket's received frames).

`--size`: the desktop (1280 × 800) or the phone (390 × 844, touch, 3 device pixels per CSS pixel,
upright); give it twice for both. `--before DIST`: an older client's build (e.g. main's, built in
a separate checkout) measured against this tree's `clients/web/dist` in `--rounds` rounds, the two
alternating which goes first in each round (as bench/ab.py does), each measurement a fresh server and
browser context (one Chromium for the run); printed: every round's figures, then per size and
figure the median of each build, its spread (lowest–highest) and the median ratio new/old (above 1:
the new build costs more).

It keeps up when it draws about 60 frames a second and applies every record as it comes (records per
second ≈ 60). Results: bench/README.md. Run `make web` first (the client's build).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, WebSocket, async_playwright

from server.app import DEFAULT_WEB_ROOT, create_app
from server.config import ServerConfig
from server.embed import running_server
from server.match.settings import LimitSettings

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]
READ = "() => ({drawn: window.__floe.drawnFrames(), t: performance.now(), ...window.__floe.busy()})"
PLAYING = """() => { const s = window.__floe && window.__floe.stream();
  return !!s && s.started && s.vocabulary.word(s.model.seats[0].summary[0]) === "playing"; }"""


#: The browser contexts of each size.
SIZES: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
              "device_scale_factor": 3},
}
#: The figures compared before and after (all costs: lower is better).
COMPARED = ("draw_ms", "apply_ms", "bytes_per_s")


async def measure(seconds: float, role: str, size: str = "desktop", web_root: Path = DEFAULT_WEB_ROOT,
                  browser: Browser | None = None) -> dict[str, float]:
    """Play (or watch) a match in Chromium and read the page's counters over `seconds` (`browser`: one
    already running, whose fresh context this measurement uses; else Chromium is launched for it)."""
    limits = LimitSettings(guest_burst_per_address=50)
    config = ServerConfig().override(allowed_origins=("*",), limits=limits, web_root=str(web_root))
    async with running_server(create_app(config)) as server:
        if browser is not None:
            return await measure_on(browser, server.http_url, seconds, role, size)
        async with async_playwright() as playwright:
            launched = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            try:
                return await measure_on(launched, server.http_url, seconds, role, size)
            finally:
                await launched.close()


async def measure_on(browser: Browser, url: str, seconds: float, role: str, size: str) -> dict[str, float]:
    """One measurement in a fresh browser context (its own profile: a new guest) on the server at `url`."""
    received = [0]

    def count(socket: WebSocket) -> None:
        socket.on("framereceived", lambda payload: received.__setitem__(0, received[0] + len(payload)))

    context = await browser.new_context(**SIZES[size])
    try:
        page = await context.new_page()
        if role == "player":
            page.on("websocket", count)
        await page.goto(url + "/")
        await page.click("#play-competent")
        await page.wait_for_function(PLAYING, timeout=30_000)
        if role == "spectator":
            match_id = await page.evaluate("() => window.__floe.stream().joined.match")
            page = await context.new_page()
            page.on("websocket", count)
            await page.goto(f"{url}/#/watch/{match_id}")
            await page.wait_for_function(PLAYING, timeout=30_000)
        first: dict[str, Any] = await page.evaluate(READ)
        bytes_before = received[0]
        await asyncio.sleep(seconds)
        last: dict[str, Any] = await page.evaluate(READ)
        streamed = received[0] - bytes_before
    finally:
        await context.close()
    elapsed = (last["t"] - first["t"]) / 1000
    draws = last["drawn"] - first["drawn"]
    records = last["records"] - first["records"]
    draw_ms = (last["drawMs"] - first["drawMs"]) / max(1, draws)
    apply_ms = (last["applyMs"] - first["applyMs"]) / max(1, records)
    return {"seconds": elapsed, "fps": draws / elapsed, "draw_ms": draw_ms,
            "draws_possible": 1000 / draw_ms if draw_ms else float("inf"),
            "records_per_s": records / elapsed, "apply_ms": apply_ms, "bytes_per_s": streamed / elapsed}


async def before_and_after(before: Path, sizes: list[str], rounds: int, seconds: float, role: str,
                           ) -> dict[tuple[str, str], list[dict[str, float]]]:
    """Each round, each size: the old build and this tree's, alternating which goes first."""
    builds = {"old": before, "new": DEFAULT_WEB_ROOT}
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            await rounds_on(browser, builds, sizes, rounds, seconds, role, results)
        finally:
            await browser.close()
    return results


async def rounds_on(browser: Browser, builds: dict[str, Path], sizes: list[str], rounds: int, seconds: float,
                    role: str, results: dict[tuple[str, str], list[dict[str, float]]]) -> None:
    """The rounds of `before_and_after` in one running Chromium (a fresh context and server each time)."""
    for number in range(rounds):
        for size in sizes:
            order = ("old", "new") if (number + sizes.index(size)) % 2 == 0 else ("new", "old")
            for name in order:
                figures = await measure(seconds, role, size, builds[name], browser)
                results.setdefault((size, name), []).append(figures)
                print(f"round {number + 1} {size} {name}: fps {figures['fps']:.1f}"
                      f"  ms/draw {figures['draw_ms']:.3f}"
                      f"  ms/record {figures['apply_ms']:.4f}  records/s {figures['records_per_s']:.1f}"
                      f"  bytes/s {figures['bytes_per_s']:.0f}", flush=True)


def summary(results: dict[tuple[str, str], list[dict[str, float]]], sizes: list[str]) -> None:
    """Per size and figure: each build's median and spread, and the median ratio new/old."""
    print("| size | figure | old median (spread) | new median (spread) | new/old median ratio (spread) |")
    print("|---|---|---:|---:|---:|")
    for size in sizes:
        old, new = results[(size, "old")], results[(size, "new")]
        for figure in ("fps", *COMPARED):
            olds = [run[figure] for run in old]
            news = [run[figure] for run in new]
            ratios = [n / o for n, o in zip(news, olds, strict=True) if o]
            digits = 4 if figure == "apply_ms" else 3 if figure == "draw_ms" else 1
            print(f"| {size} | {figure} | {statistics.median(olds):.{digits}f} ({min(olds):.{digits}f}–"
                  f"{max(olds):.{digits}f}) | {statistics.median(news):.{digits}f} ({min(news):.{digits}f}–"
                  f"{max(news):.{digits}f}) | {statistics.median(ratios):.3f} ({min(ratios):.3f}–"
                  f"{max(ratios):.3f}) |")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds measured (default 20)")
    parser.add_argument("--role", choices=("player", "spectator"), default="player")
    parser.add_argument("--size", action="append", choices=tuple(SIZES),
                        help="desktop (default) or phone; twice: both")
    parser.add_argument("--before", type=Path,
                        help="an older client build (its dist/) to measure against this one")
    parser.add_argument("--rounds", type=int, default=5, help="rounds with --before (≥ 5)")
    args = parser.parse_args()
    sizes: list[str] = args.size or ["desktop"]
    for root in (DEFAULT_WEB_ROOT, *([args.before] if args.before else [])):
        if not (root / "index.html").is_file():
            print(f"no client build at {root}: run `make web`", file=sys.stderr)
            return 2
    if args.before is not None:
        print(f"old: {args.before}; new: {DEFAULT_WEB_ROOT}; {args.rounds} rounds of {args.seconds:g} s; "
              f"{args.role}")
        results = asyncio.run(before_and_after(args.before, sizes, args.rounds, args.seconds, args.role))
        summary(results, sizes)
        return 0
    if len(sizes) > 1:
        print("both sizes are measured with --before only; give one --size", file=sys.stderr)
        return 2
    figures = asyncio.run(measure(args.seconds, args.role, sizes[0]))
    print("| role | size | seconds | frames drawn/s | ms per draw | draws/s that allows | records/s "
          "| ms per record | stream bytes/s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {args.role} | {sizes[0]} | {figures['seconds']:.1f} | {figures['fps']:.1f} | "
          f"{figures['draw_ms']:.2f} | "
          f"{figures['draws_possible']:.0f} | {figures['records_per_s']:.1f} | {figures['apply_ms']:.3f} | "
          f"{figures['bytes_per_s']:.0f} |")
    print(f"ab {args.role} frames_per_second={figures['fps']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
