"""What the browser engine makes possible, in Debian's Chromium: a replay played from its file in the
engine (no replay stream asked of the server, so no verification slot taken), frame for frame what the
server's stream carries; "play from here", the replay's position continued as a practice board (your
keys, the bot on the other seat); and the daily challenge played by a person in the page, submitted,
verified by the server and on the day's board, with the day's best run as a ghost beside it. One page
does it all: the engine loads once (its cold start is most of the test's time).
"""

from __future__ import annotations

import asyncio
import io
import json
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
import pytest_asyncio
from playwright.async_api import Request

from rules.solo.match import SoloConfig
from server import botclient

from .conftest import Browser, BrowserFactory, serving, shot, until
from .test_engine import LOAD
from .test_live_match import daily_run
from .test_replays import REPLAY_FRAME_RATE, forfeited_bot_match

pytestmark = pytest.mark.asyncio

#: JS: the replay page is shown, played from `source`.
FROM = ("(source) => window.__floe && window.__floe.page === 'replay' && window.__floe.stream()"
        " && window.__floe.source() === source && document.querySelector('#speed')")


#: Frames of the tests' daily run (6 s at 60 frames a second, played in the page in real time).
DAILY_FRAMES = 360


@pytest_asyncio.fixture
async def engine_browser(web_root: Path) -> AsyncIterator[BrowserFactory]:
    async with serving(web_root, frame_rate=REPLAY_FRAME_RATE,
                       daily_config=SoloConfig(time_limit_frames=DAILY_FRAMES)) as make:
        yield make


def server_stream(url: str) -> list[Any]:
    """The server's replay stream, decoded (what the viewer plays without the engine)."""
    with urllib.request.urlopen(url, timeout=60) as answer:  # noqa: S310 - the test server's loopback URL
        data = answer.read()
    return list(msgpack.Unpacker(io.BytesIO(data), raw=False, strict_map_key=False))


def submit_run(url: str, run: bytes, token: str) -> Any:
    """POST a daily run's replay file as a guest; the server's answer."""
    posted = urllib.request.Request(url, data=run, method="POST", headers={
        "Content-Type": "application/msgpack", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(posted, timeout=60) as answer:  # noqa: S310 - the test server's loopback URL
        return json.loads(answer.read())


async def test_replays_practice_and_the_daily_in_the_browser_engine(engine_browser: BrowserFactory) -> None:
    """With the engine loaded, the replay viewer asks the server for the replay file only (no stream
    request); its keyframes (view and checksum) and every frame's inputs, events and actors are the
    server's stream's; stepping works; "play from here" then continues the shown frame in the engine,
    the arrow key held moving seat 0's input, the bot playing seat 1."""
    opened = await engine_browser()
    match_id = await forfeited_bot_match(opened, "engine-replay", 4 * 60)
    page = await opened.page("/")
    asked: list[str] = []

    def note(request: Request) -> None:
        if "/api/replays/" in request.url:
            asked.append(request.url)

    page.on("request", note)
    await until(page, LOAD, 120, "the engine loaded")
    await page.evaluate("(id) => { location.hash = `#/replay/${id}`; }", match_id)
    await until(page, FROM, 30, "the replay played in the engine", "engine")
    assert asked and all(not url.endswith("/stream") for url in asked), asked
    assert "played in your browser" in await page.inner_text("#replay-status")

    # The server's stream, fetched here by the test (not by the page): the same keyframes and frames.
    stream = await asyncio.to_thread(server_stream, f"{opened.server.http_url}/api/replays/{match_id}/stream")
    keyframes = {m["frame"]: m for m in stream if isinstance(m, dict) and m.get("kind") == "keyframe"}
    frames = {m[3]: m[4:] for m in stream if isinstance(m, list)}
    assert await page.evaluate("() => window.__floe.keyframeFrames()") == sorted(keyframes)
    for frame, keyframe in keyframes.items():
        view = await page.evaluate("(f) => window.__floe.keyframeView(f)", frame)
        assert view == keyframe["view"], f"keyframe {frame}"
    final = int(await page.get_attribute("#scrub", "max") or 0)
    assert final == len(frames) > 0
    for frame, (inputs, events, actors) in frames.items():
        body = await page.evaluate("(f) => window.__floe.frameBody(f)", frame)
        expected = {"frame": frame, "inputs": inputs, "events": events, "actors": actors}
        assert body == expected, f"frame {frame}"

    # Stepping: paused at a frame, one step forward, one back.
    here = final // 2
    await page.evaluate("(f) => window.__floe.seek(f)", here)
    await until(page, "(f) => window.__floe.stream().model.frame === f", 5, "the seek", here)
    await page.focus("body")
    await page.keyboard.press("ArrowRight")
    await until(page, "(f) => window.__floe.stream().model.frame === f + 1", 5, "a step", here)
    await page.keyboard.press("ArrowLeft")
    await until(page, "(f) => window.__floe.stream().model.frame === f", 5, "a step back", here)

    # Play from here: the practice board starts at the frame shown and runs on.
    await page.click("#play-from-here")
    await until(page, "(f) => { const p = window.__floe.practice(); return p && p.startFrame === f"
                      " && p.stream.model.frame > f + 30; }", 30, "the practice board running", here)
    await page.keyboard.down("ArrowRight")
    try:
        await until(page, "() => (window.__floe.practice().lastInputs[0] ?? 0) !== 0", 10,
                    "the held key in seat 0's input")
    finally:
        await page.keyboard.up("ArrowRight")
    await until(page, "() => (window.__floe.practice().changes[1] ?? 0) >= 2", 20, "the bot playing seat 1")
    await shot(page, "engine-replay-practice")
    assert all(not url.endswith("/stream") for url in asked), asked
    practice = await page.evaluate("() => { const p = window.__floe.practice();"
                                   " return {frame: p.stream.model.frame, failed: p.failed,"
                                   " changes: p.changes}; }")
    assert practice["failed"] is None, practice
    print(f"\nreplay of {final} frames played in the engine; practice from frame {here} reached "
          f"frame {practice['frame']} (input changes per seat {practice['changes']})")
    await daily_in_the_page(opened, page)


async def daily_in_the_page(opened: Browser, page: Any) -> None:
    """The daily in the page (the engine already loaded): another guest's run (the lazy bot's, submitted
    as `floe daily play` would) is the day's best and drawn as the ghost; the page's own run is played
    from the keyboard, recorded in the engine, submitted, verified by the server and on the day's board."""
    http_url = opened.server.http_url
    challenge = await botclient.http_json(f"{http_url}/api/daily", "GET", None, None)
    _, token = await botclient.new_guest(http_url, "ghost")
    run = await asyncio.to_thread(daily_run, challenge)
    best = await asyncio.to_thread(submit_run, f"{http_url}/api/daily/runs", run, token)
    assert best["ok"] and best["replay"], best

    await page.evaluate("() => { location.hash = '#/daily'; }")
    await until(page, "() => window.__floe && window.__floe.page === 'daily'"
                      " && window.__floe.daily().phase === 'ready'", 30, "the daily ready")
    await page.click("#daily-play")
    await until(page, "() => window.__floe.daily().phase === 'playing' && window.__floe.practice()"
                      " && window.__floe.stream().model.frame > 10", 30, "the daily run playing")
    state = await page.evaluate("() => window.__floe.daily()")
    assert state["ghost"] == best["replay"], state
    await page.keyboard.down("ArrowLeft")
    try:
        await until(page, "() => (window.__floe.practice().lastInputs[0] ?? 0) !== 0", 10,
                    "the key in the run")
    finally:
        await page.keyboard.up("ArrowLeft")
    await page.keyboard.press("Space")
    await shot(page, "engine-daily-ghost")
    await until(page, "() => ['done', 'failed'].includes(window.__floe.daily().phase)", 30,
                "the run submitted")
    state = await page.evaluate("() => window.__floe.daily()")
    assert state["phase"] == "done" and state["submitted"]["ok"], state
    moves = state["replay"]["moves"][0]
    assert moves, "the run's replay carries the keys pressed"
    day = await botclient.http_json(f"{http_url}/api/daily/{challenge['day']}", "GET", None, None)
    assert day["total"] == 2, day
    assert state["submitted"]["score"] in [entry["score"] for entry in day["entries"]], day
    await until(page, "() => document.querySelectorAll('#daily-board li').length === 2", 10,
                "the board shown")
    print(f"daily run in the page: {state['submitted']['score']} points, {len(moves)} moves, "
          f"beside the ghost of {best['replay']}")
