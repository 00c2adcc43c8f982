"""Key press → your own Pengo drawn moved, through a delaying proxy: `python -m bench.own_board_latency`.

    python -m bench.own_board_latency [--delays 0,25,50,100,150] [--jitter 10] [--presses 20]
        [--corrections-seconds 60]

A floe server runs in this process (default settings, 60 frames/s, the client's build at `/`); a
delaying proxy (tests/web/delay_proxy.py) puts each one-way delay between it and Debian's Chromium
(headless, launched as tests/web/conftest.py does). For each delay, with prediction on and then off
(the setting), one page plays a match against the lazy bot and presses a direction `--presses` times,
each time once its Pengo has stood still for 12 drawings, holding the key until he is drawn moved (a
press into a block moves nothing and is not counted). The page measures each press itself
(app/match.ts `presses`): from the key event's timestamp to the first animation frame that draws the
moved Pengo, in drawings (1: the first drawing after the key) and milliseconds. Printed per delay and
setting: the presses' median, 90th percentile and maximum in both, the match's corrections of your
own board per minute of prediction, the server's `input-late` replies, the clock's lead, and the
worker's work (rollbacks a second, milliseconds per advance). Then one longer match at 50 ± 10 ms
against the competent bot, pressing all along, for the own-board corrections a minute. One browser
profile serves the whole run, so the engine loads cold once and from the browser's cache after that;
its download (bytes the engine's files took on the cold load) and its start are printed too.

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
#: JS: the stream has confirmed the frame the page drew after its last press.
AUTHORITY_CAUGHT_UP = """() => { const log = window.__floe.frames();
  const drawn = log.presses.filter((press) => press.drawnFrame >= 0);
  const last = log.authority[log.authority.length - 1];
  return drawn.length === 0 || (last !== undefined && last[0] >= drawn[drawn.length - 1].drawnFrame); }"""
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


def moved_by_the_authority(log: dict[str, Any]) -> list[dict[str, Any]]:
    """The presses whose stamped frame moved your Pengo in the authority's stream (his avatar at the start
    of the frame after it differs from the one at its start), each with the authority's avatar on the
    frame the page drew first after it, and how far past the page's frame the key was stamped."""
    authority = {frame: avatar for frame, avatar in log["authority"]}
    checked = []
    for press in log["presses"]:
        stamped = press["stamped"]
        if stamped < 0 or stamped not in authority or stamped + 1 not in authority:
            continue
        if authority[stamped + 1] == authority[stamped] or press["drawnFrame"] not in authority:
            continue
        checked.append({**press, "authority": authority[press["drawnFrame"]],
                        "span": stamped - press["keyFrame"]})
    return checked


def summary(values: list[float]) -> str:
    """Median, 90th percentile and maximum."""
    if not values:
        return "—"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered):.1f} / {p90:.1f} / {ordered[-1]:.1f}"


async def one_match(context: BrowserContext, base: str, prediction: bool, presses: int,
                    seconds: float, bot: str = "lazy") -> dict[str, Any]:
    """One match on a page at `base` with the prediction setting on or off: its presses and counters."""
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(base + "/")
    await page.evaluate(f"() => localStorage.setItem('floe.prediction', '{'on' if prediction else 'off'}')")
    await page.fill("#name", "bench")
    await page.click(f"#play-{bot}")
    await page.wait_for_function(PLAYING, timeout=60_000)
    engine_s = None
    load_ms = None
    if prediction:
        waited = time.monotonic()
        await page.wait_for_function("() => window.__floe.prediction() && window.__floe.prediction().active",
                                     timeout=120_000)
        engine_s = time.monotonic() - waited
        load_ms = await page.evaluate("async () => (await window.__floeEngine.load()).ms")
    playing_from = await page.evaluate("() => window.__floe.stream().model.frame")
    seat = await page.evaluate("() => window.__floe.stream().joined.seat")
    pressing_from = time.monotonic()
    measured = await press_and_measure(page, presses, seconds)
    pressed_s = time.monotonic() - pressing_from
    await page.wait_for_function(AUTHORITY_CAUGHT_UP, timeout=30_000)
    log = await page.evaluate("() => window.__floe.frames()")
    state = await page.evaluate("() => window.__floe.prediction ? window.__floe.prediction() : null")
    frames = await page.evaluate("() => window.__floe.stream().model.frame") - playing_from
    await page.evaluate("() => window.__floe.leave()")
    await page.close()
    assert not errors, errors
    return {"presses": measured, "prediction": state, "frames": frames, "engine_s": engine_s, "seat": seat,
            "pressed_s": pressed_s, "log": log, "load_ms": load_ms}


def at_once(log: dict[str, Any]) -> str:
    """Of the presses the authority moved your Pengo on (his avatar after the press's frame differs from
    the one before it), how many the page drew moved on its first drawing past that frame: `k/n`.
    (A press the rules answer later, or not at all, is the rules' own delay, the same with prediction
    on or off: it makes the tails of the drawings.)"""
    moved = moved_by_the_authority(log)
    drawn = [press for press in moved if press["drawnAvatar"] != press["keyAvatar"]]
    return f"{len(drawn)}/{len(moved)}"


def work_line(state: dict[str, Any] | None, seconds: float) -> str:
    """`input-late` replies, the clock's lead, rollbacks a second and ms per advance in the worker."""
    if state is None:
        return f"{'—':>5} {'—':>5} {'—':>8} {'—':>8} {'—':>8}"
    work = state["work"]
    per_advance = work["workerMs"] / max(work["advances"], 1)
    return (f"{state['late']:>5} {state['lead'] if state['lead'] is not None else '—':>5} "
            f"{work['rollbacks'] / max(seconds, 1e-9):>8.1f} {per_advance:>8.2f} {work['workerMaxMs']:>8.1f}")


async def run(delays: list[int], jitter: int, presses: int, seconds: float,
              corrections_seconds: float) -> None:
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
        engine_bytes: list[int] = []

        async def counted(request: Any) -> None:
            if "/engine/" in request.url:
                sizes = await request.sizes()
                engine_bytes.append(int(sizes["responseBodySize"]))

        context.on("requestfinished", counted)
        print(f"keydown → own Pengo drawn moved; {presses} presses a run; jitter ±{jitter} ms; "
              "drawings and ms as median / p90 / max; at once = of the presses the authority moved on their "
              "frame, those drawn moved on the first drawing past it; late = input-late replies, "
              "lead = the clock's lead (frames), rb/s = the worker's rollbacks a second, "
              "ms/adv = its milliseconds per advance, max ms = its longest advance")
        print(f"{'one-way':>8} {'prediction':>10} {'n':>3} {'drawings':>18} {'ms':>22} {'own corr/min':>12} "
              f"{'engine s':>8} {'at once':>7} {'late':>5} {'lead':>5} {'rb/s':>8} {'ms/adv':>8} "
              f"{'max ms':>8}")
        printed_download = False
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
                              f"{summary([p['ms'] for p in measured]):>22} {per_minute:>12} {engine:>8} "
                              f"{at_once(got['log']):>7} "
                              f"{work_line(state, got['pressed_s'])}", flush=True)
                        if engine_bytes and got["engine_s"] is not None and not printed_download:
                            print(f"  the engine's download on the cold load: {len(engine_bytes)} files, "
                                  f"{sum(engine_bytes) / 1e6:.2f} MB", flush=True)
                            printed_download = True
                        if got["load_ms"] is not None:
                            print(f"  the engine's start in its worker (Pyodide loaded, the rules imported): "
                                  f"{got['load_ms'] / 1000:.1f} s", flush=True)
            if corrections_seconds > 0:
                async with delaying_proxy(port, 0.050, 0.010) as proxied:
                    got = await one_match(context, f"http://127.0.0.1:{proxied}", True, 10_000,
                                          corrections_seconds, bot="competent")
                state = got["prediction"]
                minutes = got["frames"] / 3600
                own = state["corrections"][got["seat"]]
                print(f"own-board corrections at 50 ± 10 ms against the competent bot: {own} in "
                      f"{minutes:.2f} min of play ({own / max(minutes, 1e-9):.2f} a minute), "
                      f"{len(got['presses'])} presses; the bot's board {sum(state['corrections']) - own}; "
                      f"{work_line(state, got['pressed_s'])} (late, lead, rb/s, ms/adv, max ms)", flush=True)
        finally:
            await context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--delays", default="0,25,50,100,150", help="one-way delays, ms, comma-separated")
    parser.add_argument("--jitter", type=int, default=10, help="± ms on each chunk's delay")
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=90, help="the most a run presses for")
    parser.add_argument("--corrections-seconds", type=float, default=60,
                        help="how long the match at 50 ± 10 ms counting own-board corrections presses "
                        "(0: no such match)")
    args = parser.parse_args()
    asyncio.run(run([int(d) for d in args.delays.split(",")], args.jitter, args.presses, args.seconds,
                    args.corrections_seconds))


if __name__ == "__main__":
    main()
