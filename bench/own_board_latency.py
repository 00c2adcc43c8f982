"""Key press → your own Pengo drawn moved, through a delaying proxy: `python -m bench.own_board_latency`.

    python -m bench.own_board_latency [--delays 0,25,50,100,150] [--jitter 0] [--presses 20]

A floe server runs in this process (default settings, 60 frames/s, the client's build at `/`); a
delaying proxy (tests/web/delay_proxy.py) puts each one-way delay between it and Debian's Chromium
(headless, launched as tests/web/conftest.py does). For each delay, with prediction on and then off
(the setting), one page plays a match against the lazy bot and presses a direction `--presses` times,
each time once its Pengo has stood still for 12 drawings, holding the key until he is drawn moved (a
press into a block moves nothing and is not counted). The page measures each press itself
(app/match.ts `presses`): from the key event's timestamp to the first animation frame that draws the
moved Pengo, in drawings (1: the first drawing after the key) and milliseconds. Printed per delay and
setting: the presses' median, 90th percentile and maximum in both, and the match's corrections of
your own board per minute of prediction. One browser profile serves the whole run, so the engine loads
cold once and from the browser's cache after that; its start is printed too.

Results and the commands: bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from typing import Any

from playwright.async_api import BrowserContext, Page, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeout

from bench.delay_proxy import delaying_proxy
from server.app import DEFAULT_WEB_ROOT, create_app
from server.config import ServerConfig
from server.embed import running_server
from server.match.settings import LimitSettings

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]
PLAYING = """() => { const s = window.__floe && window.__floe.stream();
  return !!s && s.started && s.vocabulary.word(s.model.seats[s.joined.seat].summary[0]) === "playing"; }"""
#: JS: resolves true once the own Pengo has been drawn at one place for `still` drawings in a row
#: while the board plays (false after `limit` drawings).
STILL = """([still, limit]) => new Promise((resolve) => {
  let last = null, same = 0, seen = 0;
  const look = () => {
    const f = window.__floe; const s = f && f.stream(); const b = f && f.board();
    if (!s || !b || f.result() !== null) return resolve(false);
    const at = b.avatar(s.joined.seat);
    const playing = s.vocabulary.word(s.model.seats[s.joined.seat].summary[0]) === "playing";
    same = at !== null && at === last && playing ? same + 1 : 0;
    last = at; seen += 1;
    if (same >= still) return resolve(true);
    if (seen >= limit) return resolve(false);
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})"""
KEYS = ("ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown")
#: Drawings the Pengo stands still before a press.
STILL_DRAWINGS = 12
#: How long a press is held waiting for the Pengo to move (a press into a block never moves him).
MOVE_WAIT_MS = 2000


async def press_and_measure(page: Page, presses: int, seconds: float) -> list[dict[str, Any]]:
    """Press directions until `presses` presses moved the Pengo (or `seconds` passed or the match
    ended); the page's measurements of those presses."""
    started = time.monotonic()
    index = 0
    while time.monotonic() - started < seconds:
        if len(await page.evaluate("() => window.__floe.presses()")) >= presses:
            break
        if await page.evaluate("() => window.__floe.result() !== null"):
            break
        if not await page.evaluate(STILL, [STILL_DRAWINGS, 600]):
            continue
        measured = len(await page.evaluate("() => window.__floe.presses()"))
        key = KEYS[index % len(KEYS)]
        index += 1
        await page.keyboard.down(key)
        try:
            await page.wait_for_function(f"() => window.__floe.presses().length > {measured}",
                                         timeout=MOVE_WAIT_MS, polling="raf")
        except PlaywrightTimeout:
            pass  # into a block, or dying: nothing moved, nothing measured
        finally:
            await page.keyboard.up(key)
    return list(await page.evaluate("() => window.__floe.presses()"))


def summary(values: list[float]) -> str:
    """Median, 90th percentile and maximum."""
    if not values:
        return "—"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered):.1f} / {p90:.1f} / {ordered[-1]:.1f}"


async def one_match(context: BrowserContext, base: str, prediction: bool, presses: int,
                    seconds: float) -> dict[str, Any]:
    """One match on a page at `base` with the prediction setting on or off: its presses and counters."""
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(base + "/")
    await page.evaluate(f"() => localStorage.setItem('floe.prediction', '{'on' if prediction else 'off'}')")
    await page.fill("#name", "bench")
    await page.click("#play-lazy")
    await page.wait_for_function(PLAYING, timeout=60_000)
    engine_s = None
    if prediction:
        waited = time.monotonic()
        await page.wait_for_function("() => window.__floe.prediction() && window.__floe.prediction().active",
                                     timeout=120_000)
        engine_s = time.monotonic() - waited
    playing_from = await page.evaluate("() => window.__floe.stream().model.frame")
    seat = await page.evaluate("() => window.__floe.stream().joined.seat")
    measured = await press_and_measure(page, presses, seconds)
    state = await page.evaluate("() => window.__floe.prediction ? window.__floe.prediction() : null")
    frames = await page.evaluate("() => window.__floe.stream().model.frame") - playing_from
    await page.evaluate("() => window.__floe.leave()")
    await page.close()
    assert not errors, errors
    return {"presses": measured, "prediction": state, "frames": frames, "engine_s": engine_s, "seat": seat}


async def run(delays: list[int], jitter: int, presses: int, seconds: float) -> None:
    config = ServerConfig().override(allowed_origins=("*",), web_root=str(DEFAULT_WEB_ROOT),
                                     limits=LimitSettings(guest_burst_per_address=100,
                                                          match_burst_per_address=100,
                                                          live_matches_per_address=100),
                                     secret=b"bench-own-board-latency-secret-01")
    app = create_app(config)
    async with running_server(app) as server, async_playwright() as playwright:
        port = int(server.http_url.rsplit(":", 1)[1])
        profile = tempfile.mkdtemp(prefix="floe-bench-")
        context = await playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=ARGS,
            viewport={"width": 1280, "height": 800})
        print(f"keydown → own Pengo drawn moved; {presses} presses a run; jitter ±{jitter} ms; "
              "drawings and ms as median / p90 / max")
        print(f"{'one-way':>8} {'prediction':>10} {'n':>3} {'drawings':>18} {'ms':>22} {'own corr/min':>12} "
              f"{'engine s':>8}")
        try:
            for delay in delays:
                async with delaying_proxy(port, delay / 1000, jitter / 1000) as proxied:
                    for prediction in (True, False):
                        base = f"http://127.0.0.1:{proxied}"
                        got = await one_match(context, base, prediction, presses, seconds)
                        measured = [p for p in got["presses"] if p["predicted"] == prediction]
                        state = got["prediction"]
                        per_minute = "—"
                        if state is not None:
                            own = state["corrections"][got["seat"]]
                            per_minute = f"{own / max(got['frames'], 1) * 3600:.2f}"
                        engine = "—" if got["engine_s"] is None else f"{got['engine_s']:.1f}"
                        print(f"{delay:>6}ms {'on' if prediction else 'off':>10} {len(measured):>3} "
                              f"{summary([float(p['draws']) for p in measured]):>18} "
                              f"{summary([p['ms'] for p in measured]):>22} {per_minute:>12} {engine:>8}",
                              flush=True)
        finally:
            await context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--delays", default="0,25,50,100,150", help="one-way delays, ms, comma-separated")
    parser.add_argument("--jitter", type=int, default=0, help="± ms on each chunk's delay")
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=90, help="the most a run presses for")
    args = parser.parse_args()
    asyncio.run(run([int(d) for d in args.delays.split(",")], args.jitter, args.presses, args.seconds))


if __name__ == "__main__":
    main()
