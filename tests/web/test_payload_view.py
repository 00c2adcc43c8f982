"""Payload (practice) in Chromium: a whole run played through the page's buttons, in the browser engine
(rules/payload in Pyodide), checked move by move against CPython's rules/payload.

The page is driven by a simple policy read off what it shows: at a draft, shake the offers once when
Loose Screws allows it, else take the first offer and place it on the first free cell of the column the
column preview says pays most (hovering the cell first: its placement preview must be CPython's
`placement_projection`); at a blueprint, take Loose Screws when offered, else the first; at a drop, the
column whose button the preview marks best. CPython plays the same policy from the same seed: every
move the page makes must be the one CPython makes, every view's round, board and score CPython's, and
the run's final total and share text CPython's. Easy, seed 7 takes Loose Screws and shakes twice (found
by running the policy over seeds 0–39 with CPython). The first drop plays out in full (its floating
labels seen); the others are skipped, which must change no number. Screenshots go to .artifacts/browser/.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pytest
from playwright.async_api import Page

from rules.payload.content import PARTS
from rules.payload.daily import DailyRecord, Streak, daily_seed, daily_variant, share_text
from rules.payload.moves import Drop, Move, Place, Reroll, SelectOffer, TakeBlueprint, apply_move
from rules.payload.plain import run_plain
from rules.payload.preview import column_projection, placement_projection
from rules.payload.run import RunState, start_run
from rules.payload.types import COLS, Blueprints, CellIndex, Column, Draft

from .conftest import BrowserFactory, shot, until

pytestmark = pytest.mark.asyncio

SEED = 7
#: JS: the page's hooks, once it is idle (no engine request, no playback).
IDLE = "() => { const h = window.__floePayload; return h && !h.busy && !h.playing && h.view; }"


def policy(state: RunState) -> Move:
    """The test's policy (the module docstring), as CPython plays it."""
    phase = state.phase
    if isinstance(phase, Draft):
        if "loose_screws" in state.blueprints and phase.rerolls == 0:
            return Reroll()
        if phase.selected is None:
            return SelectOffer(0)
        best = column_projection(state).best
        free = [cell for cell, part in enumerate(state.board) if part is None]
        return Place(CellIndex(next((cell for cell in free if cell % COLS == best), free[0])))
    if isinstance(phase, Blueprints):
        return TakeBlueprint(phase.choices.index("loose_screws") if "loose_screws" in phase.choices else 0)
    return Drop(column_projection(state).best)


async def idle(page: Page, moves: int) -> dict[str, Any]:
    """Wait until the page has made `moves` moves and is idle; its view."""
    view: dict[str, Any] = await until(
        page, "(n) => { const h = window.__floePayload; return h && !h.busy && !h.playing && h.view "
        "&& h.view.moves === n && h.view; }", 20, f"move {moves} shown", moves)
    return view


async def play_move(page: Page, view: dict[str, Any], skip: bool, shoot: str | None = None,
                    ) -> tuple[Move, list[int] | None]:
    """Make the policy's move through the page's buttons (read off what the page shows); the move, and
    the placement preview shown before a part was placed."""
    phase = view["phase"]
    if phase["phase"] == "draft":
        if await page.locator("#payload-reroll").count():
            await page.click("#payload-reroll")
            return Reroll(), None
        if phase["selected"] is None:
            await page.click("#offer-0")
            return SelectOffer(0), None
        best_id = await page.get_attribute("#payload-columns button.best", "id") or ""
        best = int(best_id.removeprefix("drop-"))
        free = await page.eval_on_selector_all(".pl-cell", "cells => cells.filter(c => !c.dataset.part)"
                                               ".map(c => Number(c.dataset.cell))")
        cell = next((c for c in free if c % COLS == best), free[0])
        await page.hover(f"#cell-{cell}")
        preview = await until(page, "(cell) => { const h = window.__floePayload; return h.preview "
                              "&& h.preview.cell === cell && !h.busy && h.preview.totals; }", 10,
                              "the placement preview", cell)
        if shoot is not None:
            await shot(page, shoot)
        await page.click(f"#cell-{cell}")
        return Place(CellIndex(cell)), preview
    if phase["phase"] == "blueprints":
        keys = await page.eval_on_selector_all("#payload-draft [data-blueprint]",
                                               "bs => bs.map(b => b.dataset.blueprint)")
        index = keys.index("loose_screws") if "loose_screws" in keys else 0
        await page.click(f"#blueprint-{index}")
        return TakeBlueprint(index), None
    best_id = await page.get_attribute("#payload-columns button.best", "id") or ""
    column = int(best_id.removeprefix("drop-"))
    await page.click(f"#drop-{column}")
    if skip:
        # skip once the playback is under way (a drop already over has nothing left to skip)
        await until(page, "(n) => window.__floePayload.playing || window.__floePayload.view.moves > n", 10,
                    "the drop under way", view["moves"])
        await page.evaluate("() => { if (window.__floePayload.playing) "
                            "document.getElementById('payload-skip').click(); }")
    return Drop(Column(column)), None


async def test_a_payload_run_played_in_the_browser_matches_cpython(browser: BrowserFactory) -> None:
    """A whole Easy run through the page's buttons equals CPython's run of the same moves."""
    started = time.perf_counter()
    page = await (await browser()).page("/")
    await page.click("#practice-payload")
    await until(page, "() => { const h = window.__floePayload; return h && h.parts > 0 && !h.busy; }", 60,
                "the engine and Payload's content loaded")
    # the compendium: rendered from PARTS as the worker sent it
    await page.click("#payload-compendium summary")
    names = await page.eval_on_selector_all("#payload-parts tr td:nth-child(2)",
                                            "tds => tds.map(td => td.textContent)")
    assert names == [spec.name for spec in PARTS.values()]
    await page.select_option("#payload-difficulty", "easy")
    await page.fill("#payload-seed", str(SEED))
    await page.click("#payload-start")
    state, _ = start_run("easy", SEED)
    view = await idle(page, 0)
    await shot(page, "payload-draft")
    moves: list[Move] = []
    skipped = 0
    while not state.over:
        expected = policy(state)
        drops = sum(isinstance(move, Drop) for move in moves)
        shoot = "payload-placing" if len(moves) == 1 else None
        move, shown = await play_move(page, view, skip=drops > 0, shoot=shoot)
        assert move == expected, (len(moves), move, expected)
        if isinstance(move, Place):
            assert shown == list(placement_projection(state, _offer(state), move.cell).totals)
        if isinstance(move, Drop) and drops == 0:
            # the first drop plays out: a part fires, its label floats over its cell
            await until(page, "() => document.querySelector('.pl-float')", 10, "a floating label")
            await shot(page, "payload-drop-playing")
        before = state.total_score
        state, _ = apply_move(state, move)
        moves.append(move)
        view = await idle(page, len(moves))
        plain = run_plain(state)
        for key in ("round", "board", "phase", "round_score", "total_score", "rounds_cleared", "blueprints"):
            assert view[key] == plain[key], (len(moves), key, view[key], plain[key])
        if not state.over:
            assert view["columns"] == list(column_projection(state).totals)
        if isinstance(move, Drop):
            last = await page.evaluate("() => window.__floePayload.lastDrop")
            assert last["total"] == state.total_score - before, last
            if drops == 0:
                assert not last["skipped"], last
            skipped += last["skipped"]
    assert any(isinstance(move, Reroll) for move in moves), "Loose Screws was never reached"
    assert skipped > 0, "no drop's playback was skipped"
    shared = await until(page, "() => window.__floePayload.shared", 10, "the run-over screen")
    await shot(page, "payload-over")
    assert await page.inner_text("#payload-total") == str(state.total_score)
    assert shared["record"]["score"] == state.total_score
    record = DailyRecord(shared["record"]["date_key"], "easy", "standard", state.won, state.rounds_cleared,
                         state.total_score, shared["record"]["log_hash"])
    assert shared["text"] == share_text(record, Streak())
    assert await page.inner_text("#payload-share") == share_text(record, Streak())
    assert len(shared["moves"]) == len(moves)
    print(f"\nPayload easy seed {SEED}: {len(moves)} moves, total {state.total_score}, "
          f"{state.rounds_cleared} rounds; {time.perf_counter() - started:.1f} s in the browser")

    # the day's run: the day's seed and variant, from rules/payload/daily.py
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    await page.check("#payload-daily")
    await page.select_option("#payload-difficulty", "hard")
    await page.click("#payload-start")
    daily = await until(page, "() => { const h = window.__floePayload; return !h.busy && h.view "
                        "&& h.view.daily && h.view.moves === 0 && h.view; }", 10, "the day's run")
    assert daily["daily"] == today
    assert (daily["seed"], daily["variant"]) == (daily_seed(today), daily_variant(today))
    assert daily["difficulty"] == "hard"
    assert daily["phase"] == run_plain(start_run("hard", daily_seed(today), daily_variant(today))[0])["phase"]


def _offer(state: RunState) -> Any:
    phase = state.phase
    assert isinstance(phase, Draft) and phase.selected is not None
    return phase.offers[phase.selected]
