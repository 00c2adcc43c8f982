"""The screenshots in clients/web/README.md, made again: `python -m tests.web.screenshots`.

A floe server runs in this process with the browser tests' settings (the same dealt board, a short
match) and the client's build at `/`; Debian's Chromium (as tests/web/conftest.py launches it) takes:

- `lobby.png`: the lobby on a desktop (1280 × 800);
- `match.png`: a match against the competent bot, a few seconds in, Pengo walked about with the keys;
- `results.png`: that match's results when the player forfeits it (who won, each seat's statistics);
- `replay.png`: that match's replay, paused half way;
- `payload-versus.png`: a Payload versus match against the competent bot, the first part placed and a
  drop being played back (its floating labels), the bot's machine beside, both jam queues;
- `phone-upright.png` and `phone-sideways.png`: a match on a phone (390 × 844, touch), both ways up.

They go to clients/web/docs/ (or `--out`). Build the client first (`make web`).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Page, Playwright, async_playwright

from server.app import DEFAULT_WEB_ROOT, create_app
from server.config import ServerConfig
from server.embed import running_server
from server.match.sources import RandomIds

from .conftest import BOARD_SEED, CHROMIUM, CHROMIUM_ARGS, MATCH_SECONDS, TEST_LIMITS, FixedSeed
from .test_browser import PLAYING
from .test_phone import PHONE, SIDEWAYS

OUT = Path(__file__).resolve().parents[2] / "clients" / "web" / "docs"
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}
#: The phone's shots at 2 device pixels per CSS pixel (3 makes files over the README's budget).
PHONE_SHOT = {**PHONE, "device_scale_factor": 2}


async def context(playwright: Playwright, profiles: list[str], options: dict[str, Any]) -> BrowserContext:
    profile = tempfile.mkdtemp(prefix="floe-shots-")
    profiles.append(profile)
    return await playwright.chromium.launch_persistent_context(
        profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, **options)


async def bot_match(page: Page, url: str, name: str, bot: str) -> None:
    await page.goto(url + "/")
    await page.fill("#name", name)
    await page.click(f"#play-{bot}")
    await page.wait_for_function(PLAYING, timeout=30_000)


#: JS: the frame the page's model is at.
FRAME = "() => window.__floe.stream().model.frame"


async def frames_pass(page: Page, count: int) -> None:
    """Wait until the page's match has gone `count` frames further."""
    start = await page.evaluate(FRAME)
    await page.wait_for_function(f"(start) => ({FRAME})() >= start + {count}", arg=start, timeout=30_000)


async def drawings_pass(page: Page, count: int) -> None:
    """Wait until the page has drawn `count` more times (its layout settled on what it shows)."""
    start = await page.evaluate("() => window.__floe.drawnFrames()")
    await page.wait_for_function(f"(start) => window.__floe.drawnFrames() >= start + {count}", arg=start,
                                 timeout=30_000)


async def wander(page: Page, seconds: float) -> None:
    """Walk Pengo about with the arrows and kick now and then (a picture of play, not a test): each
    arrow held 24 frames of the match, then a kick and a frame."""
    keys = ["ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"]
    for step in range(int(seconds / 0.5)):
        key = keys[step % len(keys)]
        await page.keyboard.down(key)
        await frames_pass(page, 24)
        await page.keyboard.up(key)
        await page.keyboard.press("Space")
        await frames_pass(page, 6)


async def payload_versus(page: Page, url: str, save: Callable[[Page, str], Awaitable[None]]) -> None:
    """A Payload versus bot match from the lobby's game choice: a part picked and placed with the page's
    buttons, then a drop down the best column, shot while it plays back."""
    await page.goto(url + "/")
    await page.select_option("#game", "payload-versus")
    await page.click("#play-competent")
    await page.wait_for_selector("#pv-offer-0", timeout=30_000)
    await page.click("#pv-offer-0")
    await page.wait_for_selector("#pv-board-0.placing", timeout=30_000)
    await page.hover("#pv-cell-0-12")
    await page.wait_for_function(
        "() => document.getElementById('pv-note-0').textContent.includes('cell 12:')", timeout=30_000)
    await page.click("#pv-cell-0-12")
    await page.wait_for_selector("#pv-columns-0 button.best:not([disabled])", timeout=30_000)
    await page.click("#pv-columns-0 button.best")
    await page.wait_for_selector("#pv-board-0 .pl-float", timeout=30_000)
    await save(page, "payload-versus")


async def take(out: Path) -> list[Path]:
    config = ServerConfig().override(allowed_origins=("*",), web_root=str(DEFAULT_WEB_ROOT),
                     limits=TEST_LIMITS, verify_pool="thread", secret=b"screenshots-secret-0123456789abc",
                     tune_gc=False,
                     ).with_time_limit(MATCH_SECONDS)
    # Every match on the tests' board (the node gives its id source to the hub, the lobby and the queue).
    app = create_app(config, ids=FixedSeed(RandomIds(), BOARD_SEED))
    out.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    profiles: list[str] = []

    async def save(page: Page, name: str) -> None:
        path = out / f"{name}.png"
        await page.screenshot(path=str(path))
        made.append(path)

    try:
        async with running_server(app) as server, async_playwright() as playwright:
            url = server.http_url
            desktop = await context(playwright, profiles, DESKTOP)
            page = await desktop.new_page()
            await page.goto(url + "/")
            await page.wait_for_selector("#play-competent")
            await save(page, "lobby")
            await bot_match(page, url, "ann", "competent")
            await wander(page, 8)
            await save(page, "match")
            await page.evaluate("() => window.__floe.leave()")
            await page.wait_for_selector("#watch-replay", timeout=20_000)
            await page.wait_for_selector("table.stats", timeout=20_000)
            await save(page, "results")
            await page.click("#watch-replay")
            await page.wait_for_function("() => window.__floe && window.__floe.page === 'replay' "
                                         "&& window.__floe.stream()", timeout=30_000)
            await page.evaluate("() => window.__floe.seek("
                                "Math.floor(Number(document.querySelector('#scrub').max) * 0.6))")
            await page.evaluate("() => document.activeElement && document.activeElement.blur()")
            await page.wait_for_function("() => window.__floe.drawnFrames() > 5")
            await save(page, "replay")
            await payload_versus(page, url, save)
            await desktop.close()

            phone = await context(playwright, profiles, PHONE_SHOT)
            page = await phone.new_page()
            await bot_match(page, url, "thumbs", "competent")
            await page.wait_for_selector("#touch-kick")
            await frames_pass(page, 180)
            await save(page, "phone-upright")
            await page.set_viewport_size(SIDEWAYS)
            await page.wait_for_function("() => document.documentElement.scrollHeight <= innerHeight")
            await drawings_pass(page, 30)
            await save(page, "phone-sideways")
            await phone.close()
    finally:
        for profile in profiles:
            shutil.rmtree(profile, ignore_errors=True)
    return made


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the PNG files go (default {OUT})")
    args = parser.parse_args()
    if not (DEFAULT_WEB_ROOT / "index.html").is_file():
        print("the client is not built: run `make web`", file=sys.stderr)
        return 2
    for path in asyncio.run(take(args.out)):
        print(f"{path} {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
