"""The client on a phone (390 × 844, touch, mobile) in real Chromium: the match fits upright and sideways
with the player's own board large, touches (the pad held, a swipe on the board, the KICK button) reach
the server as the keys' input bytes do, and every page fits the phone's width with finger-sized buttons."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import CDPSession, Page, ViewportSize

from .conftest import BrowserFactory, shot, until
from .test_browser import MOVED, PLAYER, PLAYING

pytestmark = pytest.mark.asyncio

#: An iPhone 12–15's CSS viewport, upright; sideways is the same turned.
PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
                         "device_scale_factor": 3}
SIDEWAYS: ViewportSize = {"width": 844, "height": 390}

#: JS: what of the match page lies outside the window (nothing may: no scroll, no clipped board).
FITS = """() => {
  const box = (selector) => { const e = document.querySelector(selector); if (!e) return null;
    const r = e.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                                               width: r.width, height: r.height}; };
  const root = document.documentElement;
  return {scrollWidth: root.scrollWidth, scrollHeight: root.scrollHeight,
          width: innerWidth, height: innerHeight,
          board: box('canvas#board'), dpad: box('#touch-dpad'), kick: box('#touch-kick'), scrollY: scrollY};
}"""
#: JS: the board and the touch controls are shown, each wholly in the window, and the page fits it (a
#: turned phone's layout settles on the resize after the turn: until then the board is the old shape).
FITTED = f"""() => {{
  const f = ({FITS})();
  if (!f.board || !f.dpad || !f.kick || f.board.width < 50) return false;
  const inside = (b) => b.left >= 0 && b.top >= 0 && b.right <= f.width + 0.5 && b.bottom <= f.height + 0.5;
  return f.scrollWidth <= f.width && f.scrollHeight <= f.height && inside(f.board) && inside(f.dpad)
    && inside(f.kick);
}}"""
KICKED = "() => (window.__floe.stream().seen.get('kick:0') ?? 0) > 0"


def within(box: dict[str, float], fit: dict[str, Any]) -> bool:
    """Whether a box lies wholly in the window."""
    return box["left"] >= 0 and box["top"] >= 0 and box["right"] <= fit["width"] + 0.5 and \
        box["bottom"] <= fit["height"] + 0.5


async def touch(cdp: CDPSession, kind: str, x: float, y: float) -> None:
    """One touch event of one finger, as the phone's screen sends it (start, move or end)."""
    points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
    await cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


async def assert_fits(page: Page, name: str) -> dict[str, Any]:
    """The board and the pad are in the window, nothing scrolls, the pad's targets are finger-sized."""
    await until(page, FITTED, 10, f"the match to fit the window ({name})")
    fit: dict[str, Any] = await page.evaluate(FITS)
    for part in ("board", "dpad", "kick"):
        assert within(fit[part], fit), (part, fit)
    for part in ("dpad", "kick"):
        assert fit[part]["width"] >= 44 and fit[part]["height"] >= 44, (part, fit)
    await shot(page, f"phone-{name}")
    return fit


Points = list[tuple[float, float]]


async def hold_until_moved(page: Page, cdp: CDPSession, aims: Points, path: Points, what: str) -> None:
    """Touch at each aim in turn (moving along `path` from it) and hold until Pengo moves; kick (the KICK
    button) between tries, as a walled-in Pengo must."""
    for _ in range(4):
        await until(page, PLAYING, 10, "the board in play")
        start = await page.evaluate(PLAYER)
        for (x, y), (dx, dy) in zip(aims, path, strict=True):
            await touch(cdp, "touchStart", x, y)
            if (dx, dy) != (0, 0):
                for step in (0.5, 1.0):
                    await touch(cdp, "touchMove", x + dx * step, y + dy * step)
            try:
                await until(page, MOVED, 1.5, f"Pengo to move by {what}", start)
                return
            except AssertionError:
                await page.tap("#touch-kick")
            finally:
                await touch(cdp, "touchEnd", 0, 0)
    raise AssertionError(f"Pengo never moved by {what}")


async def test_a_phone_plays_a_match_by_touch_upright_and_sideways(browser: BrowserFactory) -> None:
    """At 390 × 844 with touch, a bot match fits the window with the own board large over the opponent's
    small one and the pad under them; holding the pad and swiping on the board move Pengo and the KICK
    button kicks (the server's stream shows each); turned sideways it still fits, and touches never
    scroll the page."""
    phone = await browser(**PHONE)
    page = await phone.page("/")
    await page.fill("#name", "thumbs")
    await page.tap("#play-lazy")
    await until(page, PLAYING, 20, "play to begin")
    fit = await assert_fits(page, "upright")
    board = fit["board"]
    # upright: the own board over the opponent's, so the canvas is taller than wide and fills the width
    assert board["height"] > board["width"] and board["width"] >= 0.75 * fit["width"], board
    cdp = await page.context.new_cdp_session(page)

    dpad = fit["dpad"]
    centre = (dpad["left"] + dpad["width"] / 2, dpad["top"] + dpad["height"] / 2)
    reach = dpad["width"] * 0.35
    aims = [(centre[0] - reach, centre[1]), (centre[0] + reach, centre[1]), (centre[0], centre[1] - reach),
            (centre[0], centre[1] + reach)]
    await hold_until_moved(page, cdp, aims, [(0, 0)] * 4, "the pad")

    middle = (board["left"] + board["width"] / 2, board["top"] + board["height"] * 0.7)
    swipes = [(-60.0, 0.0), (60.0, 0.0), (0.0, -60.0), (0.0, 60.0)]
    await hold_until_moved(page, cdp, [middle] * 4, swipes, "a swipe")

    for _ in range(10):
        await until(page, PLAYING, 10, "the board in play")
        await page.tap("#touch-kick")
        try:
            await until(page, KICKED, 1, "a kick")
            break
        except AssertionError:
            continue
    assert await page.evaluate(KICKED), "the KICK button never kicked"
    assert (await page.evaluate(FITS))["scrollY"] == 0, "a touch scrolled the page"

    await page.set_viewport_size(SIDEWAYS)
    fit = await assert_fits(page, "sideways")
    # sideways: the pad's halves either side of the board
    assert fit["dpad"]["right"] <= fit["board"]["left"] and fit["kick"]["left"] >= fit["board"]["right"], fit
    start = await page.evaluate(PLAYER)
    await hold_until_moved(page, cdp, aims_of(fit["dpad"]), [(0, 0)] * 4, "the pad sideways")
    assert (await page.evaluate(PLAYER)) != start


def aims_of(dpad: dict[str, float]) -> list[tuple[float, float]]:
    """The pad's four arrows' points (left, right, up, down)."""
    x, y, reach = dpad["left"] + dpad["width"] / 2, dpad["top"] + dpad["height"] / 2, dpad["width"] * 0.35
    return [(x - reach, y), (x + reach, y), (x, y - reach), (x, y + reach)]


#: JS: the page is no wider than the window, and its smallest button (shown) is finger-sized.
WIDTHS = """() => {
  // the replay timeline's markers are not touch targets on a phone (a finger seeks with the scrub bar)
  const sizes = Array.from(document.querySelectorAll('button:not(.marker), select'))
    .map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0 && r.height > 0)
    .map((r) => Math.min(r.width, r.height));
  return {scrollWidth: document.documentElement.scrollWidth, width: innerWidth,
          smallest: sizes.length ? Math.min(...sizes) : null, buttons: sizes.length};
}"""


async def fits_width(page: Page, name: str) -> None:
    """No horizontal scroll; every shown button at least 44 px each way."""
    widths = await page.evaluate(WIDTHS)
    await shot(page, f"phone-page-{name}")
    assert widths["scrollWidth"] <= widths["width"], (name, widths)
    assert widths["smallest"] is None or widths["smallest"] >= 44, (name, widths)


async def test_every_page_fits_a_phone(browser: BrowserFactory) -> None:
    """At 390 px wide the lobby, the settings, the rules, a match's result and its replay neither scroll
    sideways nor show a button smaller than 44 px."""
    phone = await browser(**PHONE)
    page = await phone.page("/")
    await until(page, "() => document.querySelector('#play-lazy') !== null", 10, "the lobby")
    await fits_width(page, "lobby")
    for route, name in (("#/settings", "settings"), ("#/rules", "rules")):
        await page.goto(f"{phone.server.http_url}/{route}")
        await until(page, "() => document.querySelector('#app').children.length > 0 "
                          "&& !document.querySelector('#rules-loading')", 10, name)
        await fits_width(page, name)
    await page.goto(f"{phone.server.http_url}/#/")
    await page.fill("#name", "small")
    await page.tap("#play-lazy")
    await until(page, PLAYING, 20, "play to begin")
    await page.evaluate("() => window.__floe.leave()")  # forfeit: the result without playing it out
    await until(page, "() => !document.querySelector('#result').classList.contains('hidden') "
                      "&& document.querySelector('#watch-replay')", 20, "the result")
    await fits_width(page, "result")
    await page.tap("#watch-replay")
    await until(page, "() => window.__floe && window.__floe.page === 'replay' && window.__floe.stream()", 30,
                "the replay")
    await fits_width(page, "replay")
    board = await page.evaluate("() => document.querySelector('canvas#board').getBoundingClientRect().right")
    assert board <= 390, board
