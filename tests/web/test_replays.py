"""The replay viewer and watching in real Chromium: keys and speeds, frame steps back exact, the
timeline's event markers, the player's own list of matches, a forfeited match's replay naming its
winner, the spectator count and a ranked match's delay, and the text summary beside the canvas."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
import pytest_asyncio
from playwright.async_api import Page

from protocol.messages import MatchState
from server import botclient
from server.node import Node
from tests.server import helpers
from tests.server.helpers import until as server_until

from .conftest import Browser, BrowserFactory, serving, shot, until

pytestmark = pytest.mark.asyncio

#: Seconds of the markers test's bot duel (server-side bots: its events are the seed's, the same each run).
DUEL_SECONDS = 12
#: Frames a second of the server in the tests that only watch a replay: its match is played by Python
#: bots (no page follows it live), so it need not run in real time (the server tests' rate).
REPLAY_FRAME_RATE = 150
#: JS: the replay page has its stream and its controls.
REPLAY_READY = ("() => window.__floe && window.__floe.page === 'replay' && window.__floe.stream()"
                " && document.querySelector('#speed')")
#: JS: the replay's model as plain data and its frame.
SHOWN = "() => ({frame: window.__floe.stream().model.frame, plain: window.__floe.stream().model.plain()})"


async def forfeited_bot_match(opened: Browser, name: str, frames: int, token: str | None = None) -> str:
    """A match against the lazy bot whose seat a Python bot (`botclient.play`) plays for `frames` frames
    and then leaves (a forfeit): its id, once it is over. With `token`, the seat is that guest's."""
    server = opened.server
    if token is None:
        _, token = await botclient.new_guest(server.http_url, name)
    seated = await botclient.http_json(f"{server.http_url}/api/bot-matches", "POST", {"bot": "lazy"}, token)
    return await play_and_leave(opened, token, str(seated["match"]), frames)


async def play_and_leave(opened: Browser, token: str, match_id: str, frames: int) -> str:
    """Play `match_id`'s seat of `token` with the competent bot for `frames` frames, then leave (forfeit)."""

    def leave(run: botclient.BotRun) -> bool:
        return run.mirror is not None and run.mirror.match.frame >= frames

    run = await botclient.play(opened.server.ws_url, token, match_id, "competent", leave=leave)
    assert run.session.over is not None and run.session.over.result is not None
    return match_id


@pytest_asyncio.fixture
async def replay_browser(web_root: Path) -> AsyncIterator[BrowserFactory]:
    """Browsers on a test server whose clock runs at REPLAY_FRAME_RATE (for replays made by bots)."""
    async with serving(web_root, frame_rate=REPLAY_FRAME_RATE) as make:
        yield make


async def open_replay(page: Page, match_id: str) -> None:
    await page.evaluate("(id) => { location.hash = `#/replay/${id}`; }", match_id)
    await until(page, REPLAY_READY, 30, "the replay viewer")


async def test_replay_keys_speeds_and_exact_frame_steps(replay_browser: BrowserFactory) -> None:
    """In the replay viewer, space pauses and plays, → and ← step one frame and a step back shows exactly
    the model the step forward came from, ↑/↓ and +/- walk the speeds ×0.25 … ×16 (shown on the page),
    and Home/End go to the first and last frame."""
    opened = await replay_browser()
    match_id = await forfeited_bot_match(opened, "keys", 3 * 60)
    page = await opened.page("/")
    await open_replay(page, match_id)
    final = int(await page.get_attribute("#scrub", "max") or 0)
    assert final > 0
    await page.focus("body")
    await until(page, "() => window.__floe.displayFrame() > 0", 10, "the replay to play")
    # Space toggles: the button's label flips each time (the replay may have played to its end already).
    for _ in range(2):
        label = await page.inner_text("#play-pause")
        await page.keyboard.press("Space")
        await until(page, "(label) => document.querySelector('#play-pause').textContent !== label", 5,
                    "space to toggle play", label)
    if await page.inner_text("#play-pause") == "Pause":
        await page.keyboard.press("Space")
    await until(page, "() => document.querySelector('#play-pause').textContent === 'Play'", 5, "the pause")
    paused_at = await page.evaluate("() => window.__floe.displayFrame()")
    await page.keyboard.press("Home")
    await until(page, "() => window.__floe.stream().model.frame === 0", 5, "Home: frame 0")
    for _ in range(3):
        await page.keyboard.press("ArrowRight")
    await until(page, "() => window.__floe.stream().model.frame === 3", 5, "three steps forward")
    before = await page.evaluate(SHOWN)
    await page.keyboard.press("ArrowRight")
    await until(page, "() => window.__floe.stream().model.frame === 4", 5, "a fourth step")
    assert await page.evaluate(SHOWN) != before
    await page.keyboard.press("ArrowLeft")
    await until(page, "() => window.__floe.stream().model.frame === 3", 5, "a step back")
    assert await page.evaluate(SHOWN) == before, "a step back shows exactly the frame it left"
    await page.keyboard.press("End")
    await until(page, "(final) => window.__floe.stream().model.frame === final", 5, "End: the last frame",
                final)
    seen = [await page.inner_text("#speed")]
    for key in ("ArrowUp", "ArrowUp", "+", "ArrowUp", "ArrowUp"):
        await page.keyboard.press(key)
        seen.append(await page.inner_text("#speed"))
    assert seen == ["×1", "×2", "×4", "×8", "×16", "×16"]
    for key in ("ArrowDown", "-", "-", "-", "-", "-", "ArrowDown"):
        await page.keyboard.press(key)
        seen.append(await page.inner_text("#speed"))
    assert seen[6:] == ["×8", "×4", "×2", "×1", "×0.5", "×0.25", "×0.25"]
    await page.keyboard.press("Home")
    await page.keyboard.press("ArrowUp")
    await page.keyboard.press("ArrowUp")
    await page.keyboard.press("ArrowUp")  # ×2
    await page.keyboard.press("Space")
    await until(page, "() => window.__floe.displayFrame() > 30", 10, "playing again")
    await shot(page, "replay-keys")
    print(f"paused at {paused_at:.1f}, final frame {final}, speeds {seen}")


@pytest_asyncio.fixture
async def duel_browser(web_root: Path) -> AsyncIterator[BrowserFactory]:
    """Browsers on a test server whose matches last DUEL_SECONDS at REPLAY_FRAME_RATE (a bot duel's)."""
    async with serving(web_root, seconds=DUEL_SECONDS, frame_rate=REPLAY_FRAME_RATE) as make:
        yield make


async def bot_duel(opened: Browser) -> str:
    """A duel of two server-side bots (competent against lazy) played to its end and written: its id. Its
    play is the seed's alone (no client's timing), so the events its replay marks are the same each run."""
    node: Node = opened.server.app.state.node
    live = node.hub.create_bot_duel("competent", "lazy")
    await server_until(lambda: live.state == MatchState.OVER and not node.background,
                       60, "the bot duel played to its end and written")
    return live.id


async def test_replay_timeline_markers_seek_to_their_event(duel_browser: BrowserFactory) -> None:
    """The scrub bar carries a marker per death, landing, big attack and round clear of the replay's
    events; clicking one (and the ] and [ keys) shows the frame just after its event."""
    opened = await duel_browser()
    match_id = await bot_duel(opened)
    page = await opened.page("/")
    await open_replay(page, match_id)
    markers = await page.evaluate("""() => [...document.querySelectorAll('#markers .marker')].map((m) =>
        ({frame: Number(m.dataset.frame), kind: m.dataset.kind, label: m.getAttribute('aria-label')}))""")
    kinds = {marker["kind"] for marker in markers}
    print(f"{len(markers)} markers: " + ", ".join(f"{m['kind']}@{m['frame']}" for m in markers[:12]))
    assert markers, "no markers on the timeline"
    assert kinds <= {"death", "landing", "attack", "round-clear"}
    assert all(marker["label"] for marker in markers)
    # The stream's own events at each marked frame (from the replay file, decoded on the server side).
    status, data = await botclient.http_bytes(f"{opened.server.http_url}/api/replays/{match_id}/stream")
    assert status == 200
    marked = marked_frames(data)
    assert [(m["frame"], m["kind"]) for m in markers] == marked
    await page.click("#play-pause")
    target = markers[len(markers) // 2]
    await page.click(f"#markers .marker[data-frame='{target['frame']}'] >> nth=0")
    await until(page, "(f) => window.__floe.stream().model.frame === f + 1", 5, "the marker's frame",
                target["frame"])
    await page.focus("body")
    await page.keyboard.press("Home")
    await page.keyboard.press("]")
    await until(page, "(f) => window.__floe.stream().model.frame === f + 1", 5, "] to the first marker",
                markers[0]["frame"])
    summary = await page.inner_text("#summary")
    assert "Last:" in summary, summary
    await shot(page, "replay-markers")


def marked_frames(data: bytes) -> list[tuple[int, str]]:
    """The (frame, kind) of every event the viewer should mark, read from the replay stream's bytes."""
    tables: dict[str, Any] = {}
    found: list[tuple[int, str]] = []
    for value in msgpack.Unpacker(io.BytesIO(data), raw=False, strict_map_key=False):
        if isinstance(value, dict) and value.get("kind") == "joined":
            tables = value["tables"]
        elif isinstance(value, list):
            frame, events = value[3], value[5]
            for event in events:
                kind, fields = tables["events"][event[0]]
                named = dict(zip(fields, event[1:], strict=False))
                if kind in ("death", "landing", "round-clear") or (kind == "attack" and named["units"] >= 6):
                    found.append((frame, kind))
    return found


async def start_bot_match(page: Page, name: str) -> str:
    """From the lobby: a name, then a match against the lazy bot, until it is joined; its id."""
    await page.fill("#name", name)
    await page.click("#play-lazy")
    await until(page, "() => window.__floe && window.__floe.stream() && window.__floe.stream().started", 20,
                "the match to start")
    return str(await page.evaluate("() => window.__floe.stream().joined.match"))


async def test_a_forfeited_match_is_in_my_list_and_its_replay_names_the_winner(
    browser: BrowserFactory,
) -> None:
    """A match this browser played is listed in the lobby's "Your matches" with its date, opponent and
    result once its player left (a forfeit: the seat taken over by a Python client that leaves), and its
    replay says who won by forfeit and who left."""
    opened = await browser()
    page = await opened.page("/")
    match_id = await start_bot_match(page, "quitter")
    token = await page.evaluate("() => JSON.parse(localStorage.getItem('floe.guest')).token")
    played = await page.evaluate("() => JSON.parse(localStorage.getItem('floe.played'))")
    assert [entry["match"] for entry in played] == [match_id] and played[0]["seat"] == 0
    await play_and_leave(opened, token, match_id, 0)  # takes the seat over (the page is told) and leaves
    await page.evaluate("() => { location.hash = '#/'; }")
    await until(page, "() => document.querySelector('#my-rating').textContent !== ''", 10,
                "the lobby's rating line")
    # The lobby asks for this guest's rating, which it has none of yet: a 404 the browser logs (the
    # lobby's, not this test's concern; reported to the lead).
    opened.errors[:] = [error for error in opened.errors if "status of 404" not in error]
    item = f"#my-replays li[data-match='{match_id}'] a.replay"
    await until(page, f"() => document.querySelector(\"{item}\") !== null", 10, "the match in my list")
    text = await page.inner_text(item)
    assert "vs lazy-bot" in text and "lost: you left" in text, text
    assert text[:4].isdigit() and text[4] == "-", text  # the date first
    await shot(page, "lobby-my-matches")
    await page.click(item)
    await until(page, REPLAY_READY, 30, "the replay viewer")
    status = await page.inner_text("#replay-status")
    assert "lazy-bot wins by forfeit (quitter left)" in status, status
    result = await page.evaluate("() => window.__floe.result()")
    assert result["reason"] == "forfeit" and result["winner"] == 1, result
    await page.focus("body")
    await page.keyboard.press("End")
    await until(page, "() => document.querySelector('#summary').textContent.includes('wins by forfeit')", 5,
                "the summary to say the result at the end")
    summary = await page.inner_text("#summary")
    assert "quitter: 0 points" in summary and "forfeited" in summary, summary
    await shot(page, "replay-forfeit")


async def test_the_spectator_count_and_a_ranked_matchs_delay_are_shown(browser: BrowserFactory) -> None:
    """The match page shows how many watch (from `joined`/`status` spectators) to its player and its
    spectator, with the text summary beside the board; a ranked match's spectator is told it watches
    10 s behind (`joined.delay`)."""
    player_browser = await browser()
    page = await player_browser.page("/")
    match_id = await start_bot_match(page, "watched")
    await until(page, "() => document.querySelector('#watching').textContent === 'nobody watching'", 10,
                "nobody watching yet")
    watcher = await (await browser()).page(f"/#/watch/{match_id}")
    await until(watcher,
                "() => document.querySelector('#watching').textContent === '1 watching (you included)'",
                10, "the spectator's count")
    await until(page, "() => document.querySelector('#watching').textContent === '1 watching'", 10,
                "the player's count (a status)")
    await until(watcher, "() => document.querySelector('#summary').textContent.includes('watched: ')", 10,
                "the spectator's text summary")
    summary = await watcher.inner_text("#summary")
    assert "lazy-bot: " in summary and " left." in summary, summary
    assert await watcher.get_attribute("#summary", "aria-live") == "polite"
    await shot(watcher, "watch-count")
    await shot(page, "play-watched")

    started = time.monotonic()
    node = player_browser.server.app.state.node
    tokens = [(await botclient.new_guest(player_browser.server.http_url, name))[1] for name in ("rae", "sam")]
    bots = [asyncio.create_task(botclient.play(player_browser.server.ws_url, token, None, "competent"))
            for token in tokens]
    try:
        await helpers.until(lambda: any(m.ranked for m in node.hub.matches.values()), 20 * helpers.UNIT,
                            "the ranked match")
        ranked_id = next(m.id for m in node.hub.matches.values() if m.ranked)
        print(f"the ranked match after {time.monotonic() - started:.1f} s")
        ranked = await (await browser()).page(f"/#/watch/{ranked_id}")
        await until(ranked,
                    "() => document.querySelector('#watching').textContent.includes('watching 10 s behind')",
                    10, "the ranked delay stated")
        assert await ranked.evaluate("() => window.__floe.stream().joined.delay") == 10
        await shot(ranked, "watch-ranked-delay")
        print(f"the delay stated after {time.monotonic() - started:.1f} s")
    finally:
        for bot in bots:
            bot.cancel()
        await asyncio.gather(*bots, return_exceptions=True)


async def test_the_replay_controls_are_labelled_buttons_reached_by_keyboard(
    replay_browser: BrowserFactory,
) -> None:
    """Every replay control is a button with an aria-label (the scrub bar is labelled too), the tab key
    reaches each in order, Enter on a focused one acts, and the text summary beside the canvas is an
    aria-live region that says the score, lives, time and last event."""
    opened = await replay_browser()
    match_id = await forfeited_bot_match(opened, "access", 2 * 60)
    page = await opened.page("/")
    await open_replay(page, match_id)
    controls = await page.evaluate("""() => [...document.querySelectorAll('.controls > *')].map((c) =>
        ({tag: c.tagName, id: c.id, label: c.getAttribute('aria-label')}))""")
    buttons = [control for control in controls if control["tag"] == "BUTTON"]
    assert [b["id"] for b in buttons] == [
        "replay-start", "step-back", "play-pause", "step-forward", "replay-end", "slower", "faster"]
    assert all(b["label"] for b in buttons), buttons
    assert await page.get_attribute("#scrub", "aria-label")
    assert await page.get_attribute("#board", "aria-hidden") == "true"
    await page.focus("body")
    reached = []
    for _ in range(12):
        await page.keyboard.press("Tab")
        reached.append(await page.evaluate("() => document.activeElement.id"))
    wanted = [b["id"] for b in buttons] + ["scrub"]
    first_round = reached[: reached.index("scrub") + 1] if "scrub" in reached else reached
    assert [focused for focused in first_round if focused in wanted] == wanted, reached
    await page.focus("#play-pause")
    await page.keyboard.press("Enter")  # pause
    await until(page, "() => document.querySelector('#play-pause').textContent === 'Play'", 5,
                "Enter to pause")
    await page.focus("#replay-start")
    await page.keyboard.press("Enter")
    await page.focus("#step-forward")
    await page.keyboard.press("Enter")
    await page.keyboard.press("Enter")
    await until(page, "() => window.__floe.stream().model.frame === 2", 5, "Enter on the step button, twice")
    await until(page, "() => document.querySelector('#summary').textContent.includes('left.')", 5,
                "the summary")
    summary = await page.inner_text("#summary")
    assert "access: 0 points, 4 lives" in summary and "lazy-bot: " in summary, summary
    assert await page.get_attribute("#summary", "aria-live") == "polite"
    await shot(page, "replay-keyboard-focus")
