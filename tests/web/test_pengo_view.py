"""Pengo's board in Chromium: one label over an eliminated board, sprites drawn where the model is at 4×
replay speed, a dying Pengo drawn from the death's timing, the colour-blind palettes and reduced
motion from the settings, the telegraph's count and time to land, and the rules page's "How to play".

The replays are the recorded four-seat stream (clients/web/test/fixtures, kept current by
tests/web/test_recorded_streams.py), served to the replay page in place of the server's re-simulation.
In it seat 3 dies at frame 366 (its READY at 492), seats 0 and 2 await 3 units landing at frame 514,
seat 3 is out of lives at frame 2900 and the match ends at frame 3719 (seat 0 wins by elimination).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import FloatRect, Page, Route

from .conftest import ARTIFACTS, BrowserFactory, shot, until

pytestmark = pytest.mark.asyncio

FIXTURES = Path(__file__).resolve().parents[2] / "clients" / "web" / "test" / "fixtures"
FOUR_SEATS = "spectator-four-seats"
TWO_SEATS = "spectator-competent-mirror"


async def open_replay(page: Page, name: str) -> None:
    """Show the recorded stream `name` in the replay viewer (its stream request answered with the file)."""
    body = (FIXTURES / f"{name}.msgpack").read_bytes()

    async def answer(route: Route) -> None:
        await route.fulfill(status=200, body=body, content_type="application/octet-stream")

    await page.route(f"**/api/replays/{name}/stream", answer)
    await page.evaluate("(name) => { location.hash = `#/replay/${name}`; }", name)
    await until(page, "() => window.__floe && window.__floe.page === 'replay' && window.__floe.stream()", 20,
                "the replay stream")


async def seek(page: Page, frame: int) -> dict[str, Any]:
    """Pause the replay at `frame` and wait for a drawing of it; what that drawing showed."""
    await page.evaluate("(frame) => window.__floe.seek(frame)", frame)
    drawn = "(f) => { const b = window.__floe.board(); return b && b.renderer.lastDrawn.frame === f; }"
    await until(page, drawn, 5, f"a drawing of frame {frame}", frame)
    result: dict[str, Any] = await page.evaluate("() => window.__floe.board().renderer.lastDrawn")
    return result


#: Canvas pixels of one board with its frame (13 cells of 16 and a 4-pixel border each side), and between two.
BOARD_PX = 13 * 16 + 8
GAP_PX = 12
#: Where seat 0's floor starts on the canvas: after its 4-pixel border, below the 34-pixel heads-up.
FLOOR_X, FLOOR_Y = 4, 34 + 4


async def board_shot(page: Page, name: str, seat: int, zoom: int = 3) -> Path:
    """Save seat `seat`'s board, heads-up included, drawn `zoom` times larger (its sprites readable)."""
    await page.set_viewport_size({"width": 3000, "height": 1200})
    box = await page.evaluate("""(zoom) => { const c = document.querySelector('#board');
        c.style.width = `${c.width * zoom}px`; c.style.height = `${c.height * zoom}px`;
        const r = c.getBoundingClientRect();
        return {x: r.left + scrollX, y: r.top + scrollY, h: c.height}; }""", zoom)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    clip: FloatRect = {"x": box["x"] + seat * (BOARD_PX + GAP_PX) * zoom, "y": box["y"],
                       "width": BOARD_PX * zoom, "height": box["h"] * zoom}
    await page.screenshot(path=str(path), clip=clip)
    await page.evaluate("() => dispatchEvent(new Event('resize'))")
    await page.set_viewport_size({"width": 1280, "height": 800})
    return path


async def test_an_eliminated_board_shows_one_label_out_then_the_result(browser: BrowserFactory) -> None:
    """A seat out of lives while the match goes on is labelled OUT alone (no GAME OVER drawn over it), and
    once the match is over every board shows its result alone: WINNER, or GAME OVER for the others."""
    page = await (await browser()).page("/")
    await open_replay(page, FOUR_SEATS)
    drawn = await seek(page, 2950)
    assert drawn["labels"][3] == ["OUT"], drawn["labels"]
    assert all(len(labels) <= 1 for labels in drawn["labels"]), drawn["labels"]
    await shot(page, "pengo-view-out")
    final = await page.evaluate("() => window.__floe.stream() && document.querySelector('#scrub').max")
    drawn = await seek(page, int(final))
    assert drawn["labels"] == [["WINNER"], ["GAME OVER"], ["GAME OVER"], ["GAME OVER"]], drawn["labels"]
    await shot(page, "pengo-view-game-over")


#: JS: each draw while the replay plays, seat `seat`'s Pengo as drawn and as the model has him then
#: (the record at the drawing's two frames and the drawing's alpha), until `count` drawings moved him.
SAMPLE = """async ([seat, count]) => {
  const samples = [];
  let last = null;
  while (samples.filter((s) => s.moved).length < count) {
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const drawing = window.__floe.board().renderer.lastDrawn;
    const stream = window.__floe.stream();
    if (drawing === last || drawing.frame !== stream.model.frame) continue;
    last = drawing;
    const after = stream.model.seats[seat].records.get(0);
    const before = (stream.stateAt(stream.model.frame - 1) ?? stream.model).seats[seat].records.get(0);
    const shown = drawing.sprites[`${seat}:0`];
    if (!after || !before || !shown) continue;
    samples.push({shown, before: [before[1], before[2]], after: [after[1], after[2]], alpha: drawing.alpha,
                  moved: before[1] !== after[1] || before[2] !== after[2]});
  }
  return samples;
}"""


async def test_at_four_times_speed_sprites_are_drawn_where_the_model_is(browser: BrowserFactory) -> None:
    """Played at 4×, Pengo is drawn on every drawing at his position in the model (interpolated between the
    drawing's two frames, within a pixel of rounding), never trailing behind it."""
    page = await (await browser()).page("/")
    await open_replay(page, TWO_SEATS)
    await seek(page, 700)
    for _ in range(2):  # ×1 → ×2 → ×4 (the viewer's keys)
        await page.keyboard.press("ArrowUp")
    await until(page, "() => document.querySelector('#speed').textContent === '×4'", 5, "the speed ×4")
    await page.click("#play-pause")
    samples = await page.evaluate(SAMPLE, [0, 20])
    await shot(page, "pengo-view-4x")
    for sample in samples:
        (bx, by), (ax, ay), alpha = sample["before"], sample["after"], sample["alpha"]
        expected = (bx + (ax - bx) * alpha, by + (ay - by) * alpha)
        shown = sample["shown"]
        assert abs(shown[0] - expected[0]) <= 1 and abs(shown[1] - expected[1]) <= 1, sample
        assert abs(shown[0] - ax) <= 4 and abs(shown[1] - ay) <= 4, sample


async def test_a_dying_pengo_spins_then_lies_flat_on_the_deaths_timing(browser: BrowserFactory) -> None:
    """Seat 3's Pengo, dying from frame 366 until his status ends, is drawn as far through his death as the
    stream's timing says (spinning early on, flattened late), not as a red bar."""
    page = await (await browser()).page("/")
    await open_replay(page, FOUR_SEATS)
    for frame, name in ((400, "spinning"), (470, "flattened")):
        drawn = await seek(page, frame)
        end = await page.evaluate("() => window.__floe.stream().model.seats[3].summary[1]")
        assert end > frame
        assert drawn["dying"]["3"] == pytest.approx((frame - 366) / (end - 366)), drawn["dying"]
        await board_shot(page, f"pengo-view-dying-{name}", 3)


#: JS: the colour of the canvas pixel at (x, y) as "#rrggbb".
PIXEL = """([x, y]) => {
  const canvas = document.querySelector('#board');
  const [r, g, b] = canvas.getContext('2d').getImageData(x, y, 1, 1).data;
  return '#' + [r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('');
}"""


async def test_a_palette_and_reduced_motion_come_from_the_settings(browser: BrowserFactory) -> None:
    """With the deuteranopia palette kept in local storage and the browser asking for reduced motion, the
    board is drawn in that palette with a glyph per block kind, and neither shakes nor flashes; the
    player's "off" overrides the browser's wish."""
    opened = await browser()
    page = await opened.page("/")
    await page.emulate_media(reduced_motion="reduce")
    await page.evaluate("() => localStorage.setItem('floe.palette', 'deuteranopia')")
    await open_replay(page, FOUR_SEATS)
    drawn = await seek(page, 516)  # just after a landing: its garbage would flash
    look = await page.evaluate("() => window.__floe.board().renderer.look")
    assert look["glyphs"] is True and look["shake"] is False and look["flashes"] is False
    x, y = drawn["sprites"]["0:0"]
    body = [FLOOR_X + x + 3, FLOOR_Y + y + 9]  # a pixel of Pengo's body, left of his belly
    assert await page.evaluate(PIXEL, body) == look["colours"]["pengo"] == "#e69f00"
    await shot(page, "pengo-view-deuteranopia-reduced")
    await board_shot(page, "pengo-view-deuteranopia-board", 0)
    await page.evaluate("() => localStorage.setItem('floe.reduced-motion', 'off')")
    await until(page, "() => window.__floe.board().renderer.look.flashes === true", 5,
                "the override to apply")
    await page.evaluate("() => localStorage.setItem('floe.palette', 'high-contrast')")
    await until(page, "() => window.__floe.board().renderer.look.colours.floor === '#000000'", 5,
                "the high-contrast palette")
    await shot(page, "pengo-view-high-contrast")


async def test_the_telegraph_shows_each_attacks_units_and_seconds_to_land(browser: BrowserFactory) -> None:
    """At frame 400 seats 0 and 2 each await 3 units landing at frame 514: the telegraph shows 3 and the
    114 frames left as 1.9 seconds; seats with nothing pending show nothing."""
    page = await (await browser()).page("/")
    await open_replay(page, FOUR_SEATS)
    drawn = await seek(page, 400)
    assert drawn["telegraph"][0] == [{"units": 3, "seconds": "1.9"}]
    assert drawn["telegraph"][2] == [{"units": 3, "seconds": "1.9"}]
    assert drawn["telegraph"][1] == [] and drawn["telegraph"][3] == []
    await shot(page, "pengo-view-telegraph")
    await board_shot(page, "pengo-view-telegraph-board", 0)


async def test_the_rules_page_starts_with_how_to_play_drawn_by_the_renderer(browser: BrowserFactory) -> None:
    """The rules page opens with "How to play" (controls, the telegraph, garbage, nuisance eggs, counter
    gems) pictured on canvases the board's own sprite code drew, then the numbers, with no source file
    names or Z80 addresses in the text."""
    page = await (await browser()).page("/#/rules")
    loaded = "() => document.querySelector('#how-to-play') && document.querySelector('table.rules')"
    await until(page, loaded, 10, "the rules page")
    first = await page.evaluate("() => document.querySelector('#app h2').textContent")
    assert first == "How to play"
    text = await page.inner_text("#how-to-play")
    for words in ("↑ or W up", "Space kicks", "telegraph", "garbage", "nuisance", "counter gem"):
        assert words.lower() in text.lower(), words
    painted = await page.evaluate("""() => [...document.querySelectorAll('#how-to-play canvas')].map((c) => {
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const colours = new Set();
        for (let i = 0; i < data.length; i += 4) {
          colours.add(data[i] * 65536 + data[i + 1] * 256 + data[i + 2]);
        }
        return colours.size; })""")
    assert len(painted) >= 6 and all(count > 3 for count in painted), painted
    body = await page.inner_text("#app")
    assert re.search(r"\$[0-9A-F]{4}", body) is None, re.search(r".{40}\$[0-9A-F]{4}.{20}", body)
    assert re.search(r"\b[\w/]+\.(py|md)\b", body) is None, re.search(r".{40}\.(py|md).{10}", body)
    assert "Attack table" in body
    await shot(page, "pengo-view-rules")
    # the other games' rules are a link away (#/rules/{ruleset}), their compendium from the server
    await page.click("a[data-ruleset='payload-versus']")
    payload = ("() => [...document.querySelectorAll('#app h2')]"
               ".some((h) => h.textContent.includes('Payload versus'))")
    await until(page, payload, 10, "Payload versus's rules page")
    assert await page.evaluate("() => document.querySelectorAll('table.rules tr').length") > 5
    assert await page.evaluate("() => !!document.querySelector(\"a[data-ruleset='pengo-versus']\")")
