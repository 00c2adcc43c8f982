"""The predicted board in real Chromium (clients/web/src/net/predict.ts), 100 ms ± 10 ms one way from
the server (a delaying proxy, bench/delay_proxy.py): the browser engine's replica of a live match,
rebuilt from the players' stream, draws your own Pengo moved on the very frame the authority moves him
— checked frame by frame from the page's own log (app/match.ts `frameLog`: each press's frame, each
drawing's frame and avatar, the stream's avatar at each confirmed frame), not from a clock, so it holds
on a loaded machine — long before a round trip could; it agrees with every keyframe, counts the
authority's corrections, and the match ends with the server's result. With the setting off, or
without WebAssembly, the page draws from the stream alone, as before."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

from bench.delay_proxy import delaying_proxy
from bench.own_board_latency import AUTHORITY_CAUGHT_UP, moved_by_the_authority, press_and_measure
from tests.server.helpers import until as until_true

from .conftest import UNIT, BrowserFactory, serving, shot, until
from .test_browser import PLAYING

pytestmark = pytest.mark.asyncio

#: JS: the prediction's state (null: none on this page).
PREDICTION = "() => window.__floe && window.__floe.prediction ? window.__floe.prediction() : undefined"
#: JS: the prediction draws the board.
PREDICTING = "() => { const p = window.__floe && window.__floe.prediction(); return p && p.active; }"
RESULT = "() => window.__floe.result() !== null"
#: One-way delay and jitter, seconds.
DELAY = 0.100
JITTER = 0.010
#: Presses checked frame by frame (each one the authority moved your Pengo on: a press into a block,
#: or one the server applied late, is not one of them).
CHECKED = 5
#: The most frames a press may be stamped past the frame the page showed when the key came: the next
#: frame or two (the page draws the frame it stamps next; a stamp may fall between a drawing and the
#: key, and a loaded machine may draw a frame late). Drawn from the stream alone, it is a round trip
#: and the clock's lead past it (about 20 frames at 100 ms).
PRESS_SPAN = 3


async def test_at_100_ms_your_pengo_moves_on_the_frame_the_authority_moves_him(web_root: Path) -> None:
    """Against the lazy bot (its attacks seldom hold your Pengo up), 100 ± 10 ms away: prediction switches
    on once the engine is loaded; whenever the authority moved your Pengo on a press's frame, the page's
    first drawing past that frame is the predicted board with him moved, where the authority has him, and
    the press was stamped for the frame the page was showing (at most `PRESS_SPAN` past it): the key
    answers on the next frame, in the page's frames (how many drawings and milliseconds that takes is this
    machine's speed: printed here, measured in bench/own_board_latency.py); no keyframe disagrees; the
    bot's board (predicted by held input) is corrected and counted on the HUD; leaving ends the match with
    the server's result (or the bot's win, when it comes first). Meanwhile pages with the setting off and
    without WebAssembly play from the stream alone."""
    async with serving(web_root, 120) as make:
        opened = await make()
        port = int(opened.server.http_url.rsplit(":", 1)[1])
        async with delaying_proxy(port, DELAY, JITTER) as proxied:
            page = await opened.page("/")
            await page.goto(f"http://127.0.0.1:{proxied}/")
            await page.fill("#name", "ann")
            await page.click("#play-lazy")
            await until(page, PLAYING, 30, "the bot match to start")
            await until(page, PREDICTING, 120, "the prediction to switch on")
            checked, story = await press_until_checked(page, CHECKED, 90 * UNIT)
            presses = [press for press in await page.evaluate("() => window.__floe.presses()")
                       if press["predicted"]]
            # the thin pages play while this match ends (not while the presses are measured)
            thin = asyncio.gather(*(thin_match(make, how) for how in ("setting", "no-wasm")))
            await until(page, "() => window.__floe.prediction().corrections[1] > 0 || window.__floe.result()",
                        30, "a correction of the bot's board")
            state = await page.evaluate(PREDICTION)
            # On a slow machine the bot may have eliminated ann before this point: then no leave
            left = not await page.evaluate("() => Boolean(window.__floe.result())")
            if left:
                await page.evaluate("() => window.__floe.leave()")
            await until(page, RESULT, 30, "the result")
            result = await page.evaluate("() => window.__floe.result()")
            await until(page, """() => { const p = window.__floe.prediction();
                const all = p.corrections.reduce((a, b) => a + b, 0);
                return document.querySelector('#prediction').textContent.includes(`all ${all})`); }""",
                        10, "the HUD to show the corrections counted")
            await shot(page, "predicted-match-100ms")
        await thin
    draws = [press["draws"] for press in presses]
    print(f"\n100 ± 10 ms one way: {len(draws)} presses, drawings to your Pengo moved {sorted(draws)} "
          f"(ms {sorted(round(press['ms']) for press in presses)}); the authority moved him on the "
          f"press's frame {len(checked)} times, stamped past the page's frame by "
          f"{[c['span'] for c in checked]}; "
          f"corrections per seat {state['corrections']}, desyncs {state['desyncs']}, "
          f"predictions {state['made']}, worker {state['work']}")
    assert len(checked) >= 3, f"only {len(checked)} presses moved the Pengo on their frame: {story}"
    for press in checked:
        # the page drew the frame after the press's as the authority has it: him moved, there
        assert press["drawnPredicted"], press
        assert press["drawnAvatar"] != press["keyAvatar"], f"drawn unmoved on the frame he moved: {press}"
        assert press["drawnAvatar"] == press["authority"], f"drawn elsewhere than the authority's: {press}"
        # and that frame is the page's next: the key went on the frame the page was showing
        assert press["span"] <= PRESS_SPAN, f"stamped {press['span']} frames past the page's: {press}"
    assert state["desyncs"] == [] and state["stopped"] is None, state
    assert state["corrections"][1] > 0, "the bot's predicted board was never corrected: is it counted?"
    if left:
        assert result["outcomes"][0] == "forfeited" and result["winner"] == 1, result
    else:
        assert result["outcomes"] == ["lost", "won"] and result["winner"] == 1, result


Checked = tuple[list[dict[str, Any]], list[str]]


async def press_until_checked(page: Page, wanted: int, seconds: float) -> Checked:
    """Press directions, one at a time, until `wanted` presses moved your Pengo on their frame in the
    authority's stream (or `seconds` passed, or the match ended): those presses (each checked while
    the page's log still holds its frames), and every press's story."""
    loop = asyncio.get_running_loop()
    ends = loop.time() + seconds
    checked: dict[int, dict[str, Any]] = {}
    story: dict[int, str] = {}
    while True:
        await until(page, AUTHORITY_CAUGHT_UP, 30, "the authority to confirm the last press's frame")
        log: dict[str, Any] = await page.evaluate("() => window.__floe.frames()")
        checked.update((press["stamped"], press) for press in moved_by_the_authority(log))
        for frame, told in explain(log).items():  # the telling with the most of the authority's frames
            if told.count("None") < story.get(frame, "None" * 99).count("None"):
                story[frame] = told
        if len(checked) >= wanted or loop.time() > ends:
            break
        if await page.evaluate("() => window.__floe.result() !== null"):
            break
        measured = len(await page.evaluate("() => window.__floe.presses()"))
        await press_and_measure(page, measured + 1, ends - loop.time())
    return list(checked.values()), [story[frame] for frame in sorted(story)]


def around(authority: dict[int, str | None], frame: int) -> list[str | None]:
    """The authority's avatar from the frame before `frame` to 5 after it."""
    return [authority.get(frame + step) for step in range(-1, 6)]


def explain(log: dict[str, Any]) -> dict[int, str]:
    """Each press in frames, with the authority's avatar from the frame before it on (a failure's story),
    by its stamped frame."""
    authority = {frame: avatar for frame, avatar in log["authority"]}
    return {press["stamped"]: f"{press} authority {around(authority, press['stamped'])}"
            for press in log["presses"]}


async def thin_match(make: BrowserFactory, how: str) -> None:
    """A bot match on a page without prediction (`how`: the setting off, or no WebAssembly): it plays
    from the stream (drawn, no prediction), and leaving it gives the result."""
    other = await make()
    if how == "setting":
        await other.context.add_init_script("localStorage.setItem('floe.prediction', 'off')")
    else:
        await other.context.add_init_script("delete globalThis.WebAssembly")
    thin = await other.page("/")
    await thin.fill("#name", f"thin-{how}")
    await thin.click("#play-lazy")
    await until(thin, PLAYING, 30, f"the thin page's match to start ({how})")
    assert await thin.evaluate(PREDICTION) is None, how
    await until(thin, "() => window.__floe.drawnFrames() > 0", 10, f"the thin page's drawing ({how})")
    await thin.evaluate("() => window.__floe.leave()")
    await until(thin, RESULT, 30, f"the thin page's result ({how})")


async def test_a_reconnect_past_the_history_rebuilds_the_replica(web_root: Path) -> None:
    """The page's replica runs; its socket drops and it stays offline until the players' stream passed
    its history (40 records here): back, its `join` asked for `replica`, the resync carries the match's
    state, the replica is rebuilt from it and the page predicts again (no keyframe disagrees after)."""
    async with serving(web_root, 120, history=40) as make:
        opened = await make()
        page = await opened.page("/")
        await page.fill("#name", "ann")
        await page.click("#play-lazy")
        await until(page, PLAYING, 30, "the bot match to start")
        await until(page, PREDICTING, 120, "the prediction to switch on")
        hub = opened.server.app.state.node.hub
        (live,) = hub.matches.values()
        head = live.players.head
        await page.context.set_offline(True)
        connection = live.seats[0].connection
        assert connection is not None
        connection.out.close(1001)  # the server lets the socket go: the page tries to come back, offline

        def away() -> bool:
            return live.seats[0].connection is None and live.players.head > head + 41

        await until_true(away, 30 * UNIT, "the stream passing its history while the page is away")
        await page.context.set_offline(False)
        await until(page, "() => window.__floe.prediction().restores > 0", 60, "the replica rebuilt")
        await until(page, PREDICTING, 60, "the prediction to switch on again")
        rebuilt = await page.evaluate(PREDICTION)
        made = rebuilt["made"]
        await until(page, f"() => window.__floe.prediction().made > {made} + 30", 60, "predictions after it")
        state = await page.evaluate(PREDICTION)
        # the page's attempts while offline failed, as they should (the console says so)
        opened.errors[:] = [error for error in opened.errors if "ERR_INTERNET_DISCONNECTED" not in error]
    assert state["restores"] >= 1 and state["stopped"] is None and state["desyncs"] == [], state
