"""Payload versus in Chromium: a match against the server's bot played to its end with the page's own
buttons (the lobby's game choice, the draft's offers, the machine's cells, the drop buttons with their
previews), its result checked against the server's record; and a Payload match's replay opened from
the lobby's recent replays and played to its end in the replay viewer.

Screenshots go to `.artifacts/browser/` (payload-versus-*.png).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.async_api import Page

from server.embed import RunningServer
from server.store.base import MatchRecord
from tests.server.helpers import until_awaited

from .conftest import UNIT, BrowserFactory, serving, shot, until

#: JS: the stream has started and the page draws Payload's boards.
STARTED = """() => {
  const s = window.__floe && window.__floe.stream();
  return Boolean(s && s.started && document.getElementById("payload-versus"));
}"""
#: JS: what the page's player sees of its own seat (the model the page draws), and the match's end.
OWN = """() => {
  const s = window.__floe.stream(); const seat = s.joined.seat; const own = s.model.seats[seat];
  return {seat, frame: s.model.frame, run: own.run, summary: own.summary, result: window.__floe.result(),
          match: s.joined.match};
}"""
#: JS: the own seat's state moved on from `key` (the move came back in a frame), or the match ended.
MOVED = """(key) => {
  const s = window.__floe.stream(); const own = s.model.seats[s.joined.seat];
  return window.__floe.result() !== null || JSON.stringify([own.run, own.summary]) !== key;
}"""
#: JS: the own board's column preview is shown on the drop buttons (the engine answered for this run).
PREVIEWED = """(seat) => {
  const hooks = window.__floePayloadVersus; if (!hooks || hooks.columns === null) return false;
  const buttons = [...document.querySelectorAll(`#pv-columns-${seat} button`)];
  return buttons.length === 5 && buttons.every((b, i) => b.dataset.total === String(hooks.columns[i]));
}"""

#: JS: the own board's placement preview for `cell` is shown (the note names the cell, each button a total).
PLACEMENT_PREVIEWED = """([seat, cell]) => {
  const note = document.getElementById(`pv-note-${seat}`).textContent;
  return note.includes(`cell ${cell}:`)
    && [...document.querySelectorAll(`#pv-columns-${seat} button`)]
      .every((b) => b.dataset.total !== undefined);
}"""


def state_key(own: dict[str, Any]) -> str:
    """The JS side's `JSON.stringify([run, summary])` of the own seat (keys in the page's order)."""
    return json.dumps([own["run"], own["summary"]], separators=(",", ":"), ensure_ascii=False)


async def stored(server: RunningServer, match_id: str) -> tuple[MatchRecord, dict[str, Any]]:
    """The finished match's record, once the store has it, and its result."""
    matches = server.app.state.node.stores.matches
    found: list[MatchRecord] = []

    async def written() -> bool:
        record: MatchRecord | None = await matches.get_match(match_id)
        if record is not None:
            found.append(record)
        return record is not None

    await until_awaited(written, 30 * UNIT, f"the record of {match_id}")
    assert found[0].result is not None, found[0]
    return found[0], found[0].result


async def start_bot_match(page: Page, name: str) -> dict[str, Any]:
    """From the lobby: the name, the game Payload versus, the competent bot; the match page drawn."""
    await page.fill("#name", name)
    await page.select_option("#game", "payload-versus")
    await page.click("#play-competent")
    await until(page, STARTED, 30, "the Payload versus match")
    own: dict[str, Any] = await page.evaluate(OWN)
    return own


async def one_move(page: Page, own: dict[str, Any], cells: list[int]) -> str:
    """Play the next move of the own seat with the page's buttons; what it was."""
    seat = own["seat"]
    phase = own["run"]["phase"]
    if phase["phase"] == "draft" and phase["selected"] is None:
        await page.click("#pv-offer-0")
        return "select"
    if phase["phase"] == "draft":
        cell = cells.pop(0) if cells else 17
        await page.hover(f"#pv-cell-{seat}-{cell}")
        await until(page, PLACEMENT_PREVIEWED, 20, "the placement preview", [seat, cell])
        await page.click(f"#pv-cell-{seat}-{cell}")
        return "place"
    if phase["phase"] == "blueprints":
        await page.click("#pv-blueprint-0")
        return "blueprint"
    await until(page, PREVIEWED, 30, "the column preview", seat)
    await page.click(f"#pv-columns-{seat} button.best")
    return "drop"


async def room_of_payload(page: Page, server: RunningServer) -> None:
    """The lobby's game choice makes a private room of Payload versus (two seats: the seat choice is
    held at 2 while Payload is chosen)."""
    await page.fill("#name", "cal")
    await page.select_option("#game", "payload-versus")
    assert await page.evaluate("() => [document.getElementById('room-seats').disabled, "
                               "document.getElementById('room-seats').value]") == [True, "2"]
    await page.click("#create-room")
    await until(page, "() => Boolean(document.getElementById('enter-room'))", 30, "the room's link")
    room = str(await page.get_attribute("#enter-room", "href")).rsplit("/", 1)[-1]
    assert server.app.state.node.hub.matches[room].config.ruleset.name == "payload-versus"
    await page.select_option("#game", "pengo-versus")
    assert await page.evaluate("() => document.getElementById('room-seats').disabled") is False


@pytest.mark.asyncio
async def test_a_payload_versus_match_against_the_bot_played_to_the_end(web_root: Any) -> None:
    """The lobby starts a Payload versus bot match, which another browser watches from its lobby's live
    list (without controls); the page's buttons play every draft, blueprint and drop until the match
    ends; every preview the page showed for a drop equals what the drop paid (previews are exact); every
    keyframe agrees with the model each page built from its stream; the player's and the spectator's
    result is the server's record; the jam queues and both machines are drawn."""
    async with serving(web_root, seconds=50) as make:
        browser = await make()
        page = await browser.page("/")
        own = await start_bot_match(page, "ann")
        match_id = own["match"]
        # a spectator finds the live match in another browser's lobby and watches it: no controls
        watcher = await (await make()).page("/")
        watch = f'a.watch[data-match="{match_id}"]'
        await until(watcher, f"() => Boolean(document.querySelector('{watch}'))", 30, "the live match")
        await watcher.click(watch)
        await until(watcher, STARTED, 30, "the watched match")
        controls = "() => document.querySelectorAll('[id^=pv-offer-], [id^=pv-drop-]').length"
        assert await watcher.evaluate(controls) == 0
        cells = [12, 7, 17, 2, 22, 11, 13]
        made: list[str] = []
        shots = set()
        while own["result"] is None:
            move = await one_move(page, own, cells)
            made.append(move)
            if move not in shots:
                shots.add(move)
                await shot(page, f"payload-versus-{move}")
            await until(page, MOVED, 30, f"the {move} to come back", state_key(own))
            own = await page.evaluate(OWN)
            assert len(made) < 400, "the match never ended"
        await until(page, "() => !document.getElementById('result').classList.contains('hidden')", 20,
                    "the results")
        await shot(page, "payload-versus-over")

        result = own["result"]
        record, recorded = await stored(browser.server, match_id)
        assert record.ruleset == "payload-versus"
        assert result == recorded
        assert {"select", "place", "drop"} <= set(made)

        hooks = await page.evaluate("() => window.__floePayloadVersus")
        checked = [drop for drop in hooks["drops"]
                   if drop["previewed"] is not None and drop["total"] is not None]
        assert checked, hooks["drops"]
        assert all(drop["previewed"] == drop["total"] for drop in checked), checked
        assert hooks["playedBack"] >= 1

        checks = await page.evaluate("() => window.__floe.stream().checks.map((c) => c.differences)")
        assert checks and all(differences == [] for differences in checks), checks
        print(f"payload versus: {len(made)} moves, {len(checked)} drops previewed, {len(checks)} keyframes "
              f"checked, result {result}")
        shown = await page.evaluate("""() => [0, 1].map((seat) => ({
          total: document.getElementById(`pv-total-${seat}`).textContent,
          queue: document.getElementById(`pv-queue-${seat}`).dataset.units,
          units: document.querySelectorAll(`#pv-queue-${seat} .pv-unit`).length }))""")
        assert [int(seat["total"]) for seat in shown] == list(recorded["scores"])
        await until(watcher, "() => window.__floe.result() !== null", 30, "the spectator's result")
        assert await watcher.evaluate("() => window.__floe.result()") == recorded
        agreed = "() => window.__floe.stream().checks.every((c) => !c.differences.length)"
        assert await watcher.evaluate(agreed)
        assert all(seat["units"] >= 4 for seat in shown)  # the cap's slots, drawn on both machines


@pytest.mark.asyncio
async def test_a_payload_versus_replay_opens_from_the_lobby(browser: BrowserFactory) -> None:
    """A Payload versus bot match, a few moves played and then left (a forfeit), is listed in another
    browser's lobby among the recent replays (where a Payload room is made too); opened from there, the
    replay viewer draws both Payload machines and, at its end, the record's scores and the recorded
    result."""
    made = await browser()
    page = await made.page("/")
    own = await start_bot_match(page, "bea")
    match_id = own["match"]
    for _ in range(2):
        await one_move(page, own, [12])
        await until(page, MOVED, 30, "a move to come back", state_key(own))
        own = await page.evaluate(OWN)
    await page.evaluate("() => window.__floe.leave()")
    await until(page, "() => window.__floe.result() !== null", 30, "the forfeit's result")
    record, recorded = await stored(made.server, match_id)

    # another browser (a fresh profile: no guest of its own yet) finds it in the lobby
    page = await (await browser()).page("/")
    await room_of_payload(page, made.server)
    link = f'a.replay[href="#/replay/{match_id}"]'
    await until(page, f"() => Boolean(document.querySelector('{link}'))", 30, "the replay in the lobby")
    await page.click(link)
    await until(page, "() => Boolean(window.__floe && window.__floe.stream && window.__floe.stream() "
                      "&& document.getElementById('payload-versus'))", 30, "the replay viewer")
    await page.click("#replay-end")
    await until(page, "(frame) => window.__floe.stream().model.frame === frame", 30, "the replay's end",
                record.frames)
    totals = await page.evaluate("""() => [0, 1].map((seat) =>
      Number(document.getElementById(`pv-total-${seat}`).textContent))""")
    assert totals == list(recorded["scores"])
    assert await page.evaluate("() => window.__floe.result()") == recorded
    await shot(page, "payload-versus-replay")
