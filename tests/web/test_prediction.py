"""The predicted board in real Chromium (clients/web/src/net/predict.ts): the browser engine's replica
of a live match, rebuilt from the players' stream, draws your own board ahead of the stream, agrees
with every keyframe, counts the authority's corrections, and ends with the server's result; with the
setting off, or without WebAssembly, the page draws from the stream alone, as before."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from .conftest import BrowserFactory, serving, shot, until
from .test_browser import PLAYING

pytestmark = pytest.mark.asyncio

#: JS: the prediction's state (null: none on this page).
PREDICTION = "() => window.__floe && window.__floe.prediction ? window.__floe.prediction() : undefined"
#: JS: the prediction draws the board.
PREDICTING = "() => { const p = window.__floe && window.__floe.prediction(); return p && p.active; }"
#: JS: the own Pengo's record on the predicted board, as text (null before it is predicted).
OWN_PENGO = """() => { const m = window.__floe.predicted(); const s = window.__floe.stream();
  return m ? JSON.stringify(m.seats[s.joined.seat].records.get(0)) : null; }"""
#: JS: the result, or the own Pengo changed (moved or turned) on the predicted board since `start`: the
#: frame it is drawn on and the stream's newest frame then.
CHANGED = """(start) => { const p = window.__floe.prediction(); const m = window.__floe.predicted();
  if (window.__floe.result() !== null) return true;
  if (!p.active || !m) return false;
  const s = window.__floe.stream(); const pengo = JSON.stringify(m.seats[s.joined.seat].records.get(0));
  return pengo !== start && {frame: p.frame, newest: s.model.frame}; }"""
RESULT = "() => window.__floe.result() !== null"


async def test_the_predicted_board_runs_ahead_agrees_with_the_keyframes_and_ends_with_the_result(
    web_root: Path,
) -> None:
    """Against the competent bot: prediction switches on once the engine is loaded; each key press moves
    or turns your Pengo on the predicted board (the frames it is drawn ahead of the stream are printed:
    the delaying proxy's test measures the latency); no keyframe disagrees;
    the bot's board (predicted by held input) is corrected and counted; the match ends (you leave it)
    with the server's result. Pages with the setting off and without WebAssembly play from the stream
    alone."""
    async with serving(web_root, 120) as make:
        opened = await make()
        page = await opened.page("/")
        await page.fill("#name", "ann")
        await page.click("#play-competent")
        await until(page, PLAYING, 30, "the bot match to start")
        await until(page, PREDICTING, 90, "the prediction to switch on")
        print(f"\nprediction on at frame {await page.evaluate('() => window.__floe.prediction().frame')}")
        keys = ["ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"]
        presses = ahead = 0
        for index in range(8):
            before = await page.evaluate(OWN_PENGO)
            await page.keyboard.down(keys[index % 4])
            moved = await until(page, CHANGED, 20, "the predicted Pengo to move or turn", before)
            await page.keyboard.up(keys[index % 4])
            if moved is True:  # the match ended (the bot won)
                break
            presses += 1
            ahead += moved["frame"] > moved["newest"]
        assert presses >= 3, f"only {presses} key presses were made before the match ended"
        await until(page, "() => window.__floe.prediction().corrections[1] > 0 || window.__floe.result()",
                    30, "a correction of the bot's board")
        await page.evaluate("() => window.__floe.leave()")
        await until(page, RESULT, 30, "the result")
        state = await page.evaluate(PREDICTION)
        hud = await page.text_content("#prediction")
        await shot(page, "predicted-match-over")
        print(f"\n{presses} presses, {ahead} drawn on a frame the stream had not reached; "
              f"predictions {state['made']}, corrections per seat {state['corrections']}, "
              f"desyncs {state['desyncs']}")
        assert state["desyncs"] == [] and state["stopped"] is None, state
        assert state["made"] > 0
        assert state["corrections"][1] > 0, "the bot's predicted board was never corrected: is it counted?"
        assert hud is not None and "corrections: yours" in hud, hud
        await until(page, """() => { const p = window.__floe.prediction();
            const all = p.corrections.reduce((a, b) => a + b, 0);
            return document.querySelector('#prediction').textContent.includes(`all ${all})`); }""",
                    10, "the HUD to show the corrections counted")

        # The setting off, and a browser without WebAssembly: drawn from the stream alone, as before.
        await asyncio.gather(*(thin_match(make, how) for how in ("setting", "no-wasm")))


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
