"""The browser client's draw loop in headless Chromium with a live match: `python -m bench.browser_fps`.

    python -m bench.browser_fps [--seconds 20] [--role player|spectator]

A floe server runs in this process (default settings, 60 frames/s, the client's build at `/`);
Debian's Chromium (headless, launched as tests/web/conftest.py does) opens the lobby, starts a match
against the competent bot (or, with `--role spectator`, watches one that a second page plays) and,
once play has begun, the page's own counters are read over `--seconds`:

- animation frames drawn per second (requestAnimationFrame; the browser's pace, 60 when it keeps up);
- milliseconds per draw (the canvas work of one frame) and the draws per second that cost allows;
- stream records applied per second (60 a second is the match's pace) and milliseconds per record.

It keeps up when it draws about 60 frames a second and applies every record as it comes (records per
second ≈ 60). Results: bench/README.md. Run `make web` first (the client's build).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from dataclasses import replace
from typing import Any

from server.app import DEFAULT_WEB_ROOT, create_app
from server.config import LimitSettings, ServerConfig
from server.embed import running_server

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]
READ = "() => ({drawn: window.__floe.drawnFrames(), t: performance.now(), ...window.__floe.busy()})"
PLAYING = """() => { const s = window.__floe && window.__floe.stream();
  return !!s && s.started && s.vocabulary.word(s.model.seats[0].summary[0]) === "playing"; }"""


async def measure(seconds: float, role: str) -> dict[str, float]:
    """Play (or watch) a match in Chromium and read the page's counters over `seconds`."""
    from playwright.async_api import async_playwright

    limits = LimitSettings(guest_burst_per_address=50)
    config = replace(ServerConfig(), allowed_origins=("*",), limits=limits)
    profile = tempfile.mkdtemp(prefix="floe-fps-")
    try:
        async with running_server(create_app(config)) as server, async_playwright() as playwright:
            context = await playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=ARGS,
                viewport={"width": 1280, "height": 800})
            page = await context.new_page()
            await page.goto(server.http_url + "/")
            await page.click("#play-competent")
            await page.wait_for_function(PLAYING, timeout=30_000)
            if role == "spectator":
                match_id = await page.evaluate("() => window.__floe.stream().joined.match")
                page = await context.new_page()
                await page.goto(f"{server.http_url}/#/watch/{match_id}")
                await page.wait_for_function(PLAYING, timeout=30_000)
            first: dict[str, Any] = await page.evaluate(READ)
            await asyncio.sleep(seconds)
            last: dict[str, Any] = await page.evaluate(READ)
            await context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    elapsed = (last["t"] - first["t"]) / 1000
    draws = last["drawn"] - first["drawn"]
    records = last["records"] - first["records"]
    draw_ms = (last["drawMs"] - first["drawMs"]) / max(1, draws)
    apply_ms = (last["applyMs"] - first["applyMs"]) / max(1, records)
    return {"seconds": elapsed, "fps": draws / elapsed, "draw_ms": draw_ms,
            "draws_possible": 1000 / draw_ms if draw_ms else float("inf"),
            "records_per_s": records / elapsed, "apply_ms": apply_ms}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds measured (default 20)")
    parser.add_argument("--role", choices=("player", "spectator"), default="player")
    args = parser.parse_args()
    if not (DEFAULT_WEB_ROOT / "index.html").is_file():
        print("the client is not built: run `make web`", file=sys.stderr)
        return 2
    figures = asyncio.run(measure(args.seconds, args.role))
    print("| role | seconds | frames drawn/s | ms per draw | draws/s that allows | records/s "
          "| ms per record |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(f"| {args.role} | {figures['seconds']:.1f} | {figures['fps']:.1f} | {figures['draw_ms']:.2f} | "
          f"{figures['draws_possible']:.0f} | {figures['records_per_s']:.1f} | {figures['apply_ms']:.3f} |")
    print(f"ab {args.role} frames_per_second={figures['fps']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
