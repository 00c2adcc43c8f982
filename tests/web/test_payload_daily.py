"""Payload's daily of the server in Chromium (`#/payload/daily`): a guest plays the day's Easy board
(GET /api/daily?ruleset=payload: floe's HMAC day seed) through the page's buttons, the moves the
competent bot chooses (rules/payload/bots/competent.py, played by CPython beside the page from the same
board); at the end the page builds the run's replay file in the engine (each move its input byte, frame
by frame) and submits it; the server verifies it and the day's Easy board lists the score, equal to the
engine's total and to CPython's; the streak and the share text are rules/payload/daily.py's. The same run
sent again is refused 409 `duplicate-run`, as the server says. Drops' playbacks are skipped (the numbers
do not depend on it). Screenshots go to .artifacts/browser/.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import msgpack  # type: ignore[import-untyped]
import pytest
from playwright.async_api import Page

from rules.payload.bots.competent import competent_move
from rules.payload.daily import DailyRecord, Streak, share_text, update_streak
from rules.payload.moves import Drop, Move, Place, Reroll, SelectOffer, Skip, TakeBlueprint, apply_move
from rules.payload.rng import Mulberry32
from rules.payload.ruleset import PAYLOAD
from rules.payload.run import start_run
from rules.payload.types import Blueprints
from rules.replay import Replay, verify

from .conftest import BrowserFactory, shot, until

pytestmark = pytest.mark.asyncio

#: The competent bot's tie-break generator's seed (any: CPython and the page play the moves it picks).
POLICY_SEED = 11


async def idle(page: Page, moves: int) -> dict[str, Any]:
    """Wait until the page has made `moves` moves and is idle; its view."""
    view: dict[str, Any] = await until(
        page, "(n) => { const h = window.__floePayload; return h && !h.busy && !h.playing && h.view "
        "&& h.view.moves === n && h.view; }", 20, f"move {moves} shown", moves)
    return view


async def press(page: Page, move: Move, blueprints: bool) -> None:
    """Make a move through the page's button for it; a drop's playback skipped once under way."""
    match move:
        case SelectOffer(index):
            await page.click(f"#offer-{index}")
        case Place(cell):
            await page.click(f"#cell-{cell}")
        case Skip():
            await page.click("#payload-decline" if blueprints else "#payload-skip-draft")
        case Reroll():
            await page.click("#payload-reroll")
        case TakeBlueprint(index):
            await page.click(f"#blueprint-{index}")
        case Drop(column):
            moves = await page.evaluate("() => window.__floePayload.view.moves")
            await page.click(f"#drop-{column}")
            await until(page, "(n) => window.__floePayload.playing || window.__floePayload.view.moves > n",
                        10, "the drop under way", moves)
            await page.evaluate("() => { if (window.__floePayload.playing) "
                                "document.getElementById('payload-skip').click(); }")


async def test_the_payload_daily_played_in_the_browser_is_verified(browser: BrowserFactory) -> None:
    """The day's Easy run through the page's buttons: submitted, verified, on the board at the engine's
    total; sent again, refused as a duplicate."""
    started = time.perf_counter()
    made = await browser()
    page = await made.page("/")
    await page.fill("#name", "ann")
    await page.click("#daily-payload")
    daily = await until(page, "() => { const h = window.__floePayload; return h && h.daily && h.board "
                        "&& !h.busy && !document.getElementById('payload-start').disabled && h.daily; }", 60,
                        "the engine and the server's Payload daily loaded")
    async with httpx.AsyncClient(base_url=made.server.http_url) as http:
        served = (await http.get("/api/daily", params={"ruleset": "payload"})).json()
    assert daily == served
    assert set(daily["boards"]) == {"easy", "hard"}
    assert await page.inner_text("#payload-day-board") == "no easy runs yet"
    config = PAYLOAD.config_from_plain(daily["boards"]["easy"])
    seed = int(daily["seed"])

    await page.select_option("#payload-difficulty", "easy")
    await page.click("#payload-start")
    view = await idle(page, 0)
    assert view["server"] and view["daily"] == daily["day"]
    assert (view["difficulty"], view["variant"], view["seed"]) == (config.difficulty, config.variant, seed)
    state, _ = start_run(config.difficulty, seed, config.variant)
    rng = Mulberry32(POLICY_SEED)
    moves = 0
    while not state.over:
        move = competent_move(state, rng)
        await press(page, move, isinstance(state.phase, Blueprints))
        state, _ = apply_move(state, move)
        moves += 1
        view = await idle(page, moves)
        assert (view["total_score"], view["round"], view["board"]) == (state.total_score, state.round,
                                                                       list(state.board)), moves
        if moves == 3:
            await shot(page, "payload-daily-playing")

    # the run over: submitted, verified, on the day's Easy board at the engine's total
    submitted = await until(page, "() => { const h = window.__floePayload; return h.shared && h.submitted; }",
                            30, "the run submitted and shared")
    await shot(page, "payload-daily-verified")
    total = await page.inner_text("#payload-total")
    assert total == str(state.total_score)
    assert submitted["ok"] and submitted["score"] == state.total_score, submitted
    assert (submitted["ruleset"], submitted["board"], submitted["day"]) == ("payload", "easy", daily["day"])
    verified = f"Verified by the server: {state.total_score} points (your best today on this board: {{}})."
    assert await page.inner_text("#payload-verified") == verified.format(state.total_score)
    hooks = await page.evaluate("() => window.__floePayload")
    me = await page.evaluate("() => JSON.parse(localStorage.getItem('floe.guest'))")
    async with httpx.AsyncClient(base_url=made.server.http_url) as http:
        path = f"/api/daily/{daily['day']}"
        board = (await http.get(path, params={"ruleset": "payload", "board": "easy"})).json()
        hard = (await http.get(path, params={"ruleset": "payload", "board": "hard"})).json()
        run = msgpack.packb(hooks["replay"])
        again = await http.post("/api/daily/runs", content=run, headers={
            "Content-Type": "application/msgpack", "Authorization": f"Bearer {me['token']}"})
    assert [(entry["name"], entry["score"]) for entry in board["entries"]] == [("ann", state.total_score)]
    assert hard["entries"] == []
    assert [entry["score"] for entry in hooks["board"]] == [state.total_score]
    assert (await page.inner_text("#payload-day-board")).startswith(f"ann {state.total_score}")
    # the replay the page built is the run: its player the guest, its moves reproducing the total
    replay = Replay.from_plain(hooks["replay"])
    assert replay.player == me["guest"] and replay.seats == ("ann",) and replay.seed == seed
    verdict = verify(replay)
    assert verdict.ok and verdict.result is not None and verdict.result.scores == (state.total_score,)
    # a run is submitted once
    assert again.status_code == 409, again.text
    assert again.json()["code"] == "duplicate-run", again.json()

    # the streak (verified runs count) and the share text: rules/payload/daily.py's
    shared = hooks["shared"]
    record = DailyRecord(daily["day"], "easy", config.variant, state.won, state.rounds_cleared,
                         state.total_score, shared["record"]["log_hash"])
    streak = update_streak(Streak(), record)
    assert shared["streak"] == {"current": streak.current, "best": streak.best, "last_date": streak.last_date}
    assert shared["text"] == share_text(record, streak)
    assert await page.inner_text("#payload-share") == share_text(record, streak)
    assert await page.inner_text("#payload-streak") == (
        f"Streak (easy): {streak.current} day{'' if streak.current == 1 else 's'}, best {streak.best}")
    print(f"\nPayload daily easy {daily['day']}: {moves} moves, total {state.total_score}, won {state.won}; "
          f"{time.perf_counter() - started:.1f} s in the browser")
