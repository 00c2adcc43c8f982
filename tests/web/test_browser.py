"""The browser client in real Chromium: the lobby, a bot match played with keys and a gamepad, a
spectator seeing the same boards, the result, the replay scrubbed to a frame, a room shared by link."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

from protocol.replay_codec import decode_replay
from rules.registry import lookup
from rules.replay import input_rows
from server import botclient

from .conftest import BrowserFactory, shot, until

pytestmark = pytest.mark.asyncio

#: JS: the seat this page plays, its Pengo's pixel position, its score and its board's status.
PLAYER = """() => {
  const s = window.__floe.stream(); const seat = s.joined.seat; const model = s.model.seats[seat];
  const pengo = model.records.get(0);
  return {x: pengo[1], y: pengo[2], score: model.summary[5], status: s.vocabulary.word(model.summary[0])};
}"""
PLAYING = """() => {
  const s = window.__floe && window.__floe.stream();
  if (!s || !s.started) return false;
  const model = s.model.seats[s.joined.seat ?? 0];
  return s.vocabulary.word(model.summary[0]) === "playing";
}"""
MOVED = """(start) => {
  const s = window.__floe.stream(); const pengo = s.model.seats[s.joined.seat].records.get(0);
  return pengo[1] !== start.x || pengo[2] !== start.y;
}"""


def plain(value: Any) -> Any:
    """Tuples as lists, recursively (as JSON carries them)."""
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def view_plain(view: dict[str, Any]) -> list[dict[str, Any]]:
    """A keyframe view in the client model's plain form (records and blocks sorted by id)."""
    seats = []
    for seat in view["seats"]:
        flat = seat["blocks"]
        blocks = sorted(plain(flat[i : i + 5]) for i in range(0, len(flat), 5))
        seats.append({"summary": plain(seat["summary"]), "records": sorted(plain(seat["records"])),
                      "blocks": blocks})
    return seats


async def start_bot_match(page: Page, name: str, bot: str = "competent") -> str:
    """From the lobby: a name, then a match against a bot, until play begins; its id."""
    await page.fill("#name", name)
    await page.click(f"#play-{bot}")
    await until(page, PLAYING, 20, "play to begin")
    return str(await page.evaluate("() => window.__floe.stream().joined.match"))


async def walk(page: Page) -> None:
    """Hold each arrow in turn until Pengo has moved, once his board is in play (not READY, not dying);
    walled in on every side, he kicks (space) the block he faces out of the way and tries again."""
    for _ in range(4):
        await until(page, PLAYING, 10, "the board in play")
        start = await page.evaluate(PLAYER)
        for key in ("ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"):
            await page.keyboard.down(key)
            try:
                await until(page, MOVED, 1.5, f"Pengo to move with {key}", start)
                return
            except AssertionError:
                await page.keyboard.press("Space")
            finally:
                await page.keyboard.up(key)
    raise AssertionError("Pengo moved with no arrow key")


#: JS: a direction in which Pengo, standing on a cell, faces an ice block with a block or the wall behind
#: it (a kick shatters it and scores), or null.
BREAKABLE = """() => {
  const s = window.__floe.stream(); const seat = s.model.seats[s.joined.seat];
  const pengo = seat.records.get(0);
  if (pengo[1] % 16 || pengo[2] % 16) return null;
  const cx = pengo[1] / 16, cy = pengo[2] / 16;
  const at = (x, y) => [...seat.blocks.values()].find((b) => b.x === x && b.y === y && !b.sliding);
  const steps = {left: [-1, 0], right: [1, 0], up: [0, -1], down: [0, 1]};
  for (const [name, [dx, dy]] of Object.entries(steps)) {
    const block = at(cx + dx, cy + dy);
    if (!block || block.material !== "ice" || block.breaking) continue;
    const bx = cx + 2 * dx, by = cy + 2 * dy;
    if (bx < 0 || by < 0 || bx >= seat.cols || by >= seat.rows || at(bx, by)) return name;
  }
  return null;
}"""
CENTRED = """() => {
  const s = window.__floe.stream(); const pengo = s.model.seats[s.joined.seat].records.get(0);
  return pengo[1] % 16 === 0 && pengo[2] % 16 === 0;
}"""
FACING = """(direction) => {
  const s = window.__floe.stream(); const pengo = s.model.seats[s.joined.seat].records.get(0);
  return s.vocabulary.word(pengo[3]) === direction;
}"""
KEY = {"left": "ArrowLeft", "right": "ArrowRight", "up": "ArrowUp", "down": "ArrowDown"}


async def score(page: Page) -> None:
    """Face an ice block that has something behind it and kick (space): it shatters and scores; walk on
    (arrows) while no such block is next to Pengo."""
    for _ in range(40):
        await until(page, PLAYING, 10, "the board in play")  # a death's READY takes no keys
        await until(page, CENTRED, 2, "Pengo to stand on a cell")  # he walks on to the next centre
        direction = await page.evaluate(BREAKABLE)
        if direction is None:
            await walk(page)
            continue
        await page.keyboard.down(KEY[direction])
        try:
            await until(page, FACING, 1, "Pengo to face the block", direction)
        except AssertionError:
            continue
        finally:
            await page.keyboard.up(KEY[direction])
        await page.keyboard.press("Space")
        try:
            await until(page, f"() => ({PLAYER})().score > 0", 2, "the kick to score")
            return
        except AssertionError:
            continue
    seen = await page.evaluate("() => Object.fromEntries(window.__floe.stream().seen)")
    raise AssertionError(f"no kick scored; the events seen: {seen}")


async def test_a_bot_match_played_with_keys_watched_and_replayed(browser: BrowserFactory) -> None:
    """The lobby starts a match against the lazy bot; the arrows move Pengo and kicks score; a
    spectator's page builds the same boards as the player's and as every server keyframe; the player
    leaves (a forfeit: the match need not be played out) and the result names the bot the winner and
    offers the replay, whose scrubbed frame shows the board the server's simulation has at that frame."""
    player_browser = await browser()
    page = await player_browser.page("/")
    for selector in ("#name", "#play-competent", "#play-lazy", "#create-room", "#live", "#replays"):
        assert await page.locator(selector).count() == 1, selector
    await shot(page, "lobby")
    match_id = await start_bot_match(page, "ann", "lazy")  # the lazy bot attacks less: the kicks have room
    await walk(page)
    await score(page)
    await shot(page, "match-player")

    spectator_browser = await browser()
    lobby = await spectator_browser.page("/")
    await until(lobby, f"() => document.querySelector('a.watch[href=\"#/watch/{match_id}\"]') !== null", 10,
                "the match in the live list")
    await lobby.click(f"a.watch[href='#/watch/{match_id}']")
    watcher = lobby
    two_checks = "() => window.__floe && window.__floe.stream() && window.__floe.stream().checks.length >= 2"
    await until(watcher, two_checks, 10, "the spectator to check two keyframes")
    await shot(watcher, "match-spectator")
    checks = await watcher.evaluate("() => window.__floe.stream().checks")
    mine = {check["frame"]: check for check in await page.evaluate("() => window.__floe.stream().checks")}
    assert [c["differences"] for c in checks] == [[] for _ in checks]
    assert all(check["differences"] == [] for check in mine.values())
    shared = [check for check in checks if check["frame"] in mine]
    assert shared, "no keyframe both pages checked"
    for check in shared:
        assert check["model"] == mine[check["frame"]]["model"], check["frame"]

    await page.evaluate("() => window.__floe.leave()")  # forfeit: the result without playing it out
    await until(page, "() => !document.querySelector('#result').classList.contains('hidden')", 15,
                "the result")
    await shot(page, "result")
    text = await page.inner_text("#result")
    assert "lazy-bot wins" in text, text
    assert await page.locator("#rematch").count() == 1
    assert await page.get_attribute("#download-replay", "href") == f"/api/replays/{match_id}"
    await until(watcher, "() => window.__floe.result() !== null", 10, "the spectator's result")

    await page.click("#watch-replay")
    await until(page, "() => window.__floe && window.__floe.page === 'replay' && window.__floe.stream()", 30,
                "the replay stream")
    await page.click("#play-pause")  # pause, then scrub to a frame inside the match (it ended at `final`)
    final = int(await page.get_attribute("#scrub", "max") or 0)
    assert final > 4 * 60, final
    chosen = final // 2 + 37
    await page.evaluate(
        """(frame) => { const scrub = document.querySelector('#scrub'); scrub.value = String(frame);
                        scrub.dispatchEvent(new Event('input')); }""", chosen)
    at_frame = "(frame) => window.__floe.stream().model.frame === frame"
    await until(page, at_frame, 5, "the scrubbed frame", chosen)
    await shot(page, "replay-scrubbed")
    shown = await page.evaluate("() => window.__floe.stream().model.plain()")
    status, data = await botclient.http_bytes(f"{player_browser.server.http_url}/api/replays/{match_id}")
    assert status == 200
    replay = decode_replay(data)
    ruleset = lookup(replay.ruleset, replay.ruleset_version)
    match = ruleset.new_match(ruleset.config_from_plain(replay.config), replay.seed, replay.seats)
    for frame, inputs in enumerate(input_rows(replay)):
        if frame == chosen:
            break
        match.step(inputs)
    assert match.frame == chosen
    assert shown == view_plain(match.keyframe_view())


GAMEPAD = """
window.__pad = {axes: [0, 0],
                buttons: Array.from({length: 17}, () => ({pressed: false, touched: false, value: 0}))};
navigator.getGamepads = () => [{id: "floe test pad", index: 0, connected: true, mapping: "standard",
                               timestamp: performance.now(), axes: window.__pad.axes,
                               buttons: window.__pad.buttons}];
"""


async def test_a_gamepad_moves_pengo_and_kicks(browser: BrowserFactory) -> None:
    """With a gamepad present (an init script provides navigator.getGamepads), its stick moves Pengo and
    its first button kicks."""
    opened = await browser()
    await opened.context.add_init_script(GAMEPAD)
    page = await opened.page("/")
    await start_bot_match(page, "pad")
    start = await page.evaluate(PLAYER)
    moved = False
    for axes in ([-1, 0], [1, 0], [0, -1], [0, 1]):
        await page.evaluate("(axes) => { window.__pad.axes = axes; }", axes)
        try:
            await until(page, MOVED, 1.5, "Pengo to move with the stick", start)
            moved = True
            break
        except AssertionError:
            continue
    assert moved, "the stick moved Pengo in no direction"
    await page.evaluate("() => { window.__pad.axes = [0, 0]; }")
    for _ in range(10):
        await page.evaluate("() => { window.__pad.buttons[0].pressed = true; }")
        await until(page, "() => true", 1, "a frame")
        await page.evaluate("() => { window.__pad.buttons[0].pressed = false; }")
        try:
            await until(page, "() => (window.__floe.stream().seen.get('kick:0') ?? 0) > 0", 0.6, "a kick")
            break
        except AssertionError:
            continue
    assert await page.evaluate("() => window.__floe.stream().seen.get('kick:0') ?? 0") > 0
    await shot(page, "gamepad")


async def test_a_private_room_is_joined_by_its_link(browser: BrowserFactory) -> None:
    """A room made in the lobby gives a share link; a second browser that opens it takes the other seat
    and the match starts on both pages."""
    host = await (await browser()).page("/")
    await host.fill("#name", "host")
    await host.click("#create-room")
    await until(host, "() => document.querySelector('#invite-link') !== null", 10, "the share link")
    link = await host.input_value("#invite-link")
    assert "#/join/" in link
    guest_page = await (await browser()).page("/")
    await guest_page.fill("#name", "friend")  # the name the guest is made with
    await guest_page.evaluate("(link) => { location.href = link; }", link)
    await until(guest_page, "() => document.querySelector('#name')?.value === 'friend'", 10,
                "the link's page asking the name, filled with the one typed")
    await guest_page.click("#join-room")
    await host.click("#enter-room")
    for page in (host, guest_page):
        await until(page, PLAYING, 20, "the room's match to start")
    names = await host.evaluate("() => window.__floe.stream().joined.seats")
    assert names[0] == "host" and len(names) == 2
    await shot(guest_page, "room-guest")


async def test_the_docs_render_under_their_content_security_policy(browser: BrowserFactory) -> None:
    """/docs, under its policy (this server's files and its one inline script by hash), renders the API
    and opens an operation with no console error (a refused script or style would log one)."""
    page = await (await browser()).page("/docs")
    await until(page, "() => document.querySelector('.swagger-ui .info .title') !== null", 10, "the docs")
    await page.click(".opblock-summary >> nth=0")
    await until(page, "() => document.querySelector('.opblock-body') !== null", 10, "an operation to open")


async def test_a_dropped_connection_shows_a_banner_and_resumes(browser: BrowserFactory) -> None:
    """When the socket drops, the page shows the reconnect banner, reconnects by itself and resumes the
    stream with `since`: no gap, no resync, and its model still agrees with every keyframe."""
    page = await (await browser()).page("/")
    await start_bot_match(page, "flaky")
    where = "() => [window.__floe.stream().lastN, window.__floe.stream().model.frame]"
    seen, frame = await page.evaluate(where)
    await page.evaluate("() => window.__floe.dropConnection()")
    await until(page, "() => !document.querySelector('#reconnect').classList.contains('hidden')", 5,
                "the reconnect banner")
    await shot(page, "reconnecting")
    await until(page, "() => document.querySelector('#reconnect').classList.contains('hidden')", 10,
                "the banner to go once the connection is back")
    await until(page, "(seen) => window.__floe.stream().lastN > seen + 10", 10, "the stream to go on", seen)
    await until(page, "(f) => window.__floe.stream().checks.filter((c) => c.frame > f).length > 0", 10,
                "a keyframe after the drop", frame)
    checks = await page.evaluate("() => window.__floe.stream().checks")
    assert all(check["differences"] == [] for check in checks)
    assert await page.evaluate("() => window.__floe.stream().resyncs") == 0


async def test_two_browsers_queue_for_a_ranked_match_and_play_it(browser: BrowserFactory) -> None:
    """Two guests press "Find a ranked match" in the lobby; the queue pairs them, both pages go to the
    match and it starts; the lobby shows the leaderboard and the daily challenge."""
    pages = []
    for name in ("rae", "sam"):
        page = await (await browser()).page("/")
        await page.fill("#name", name)
        assert await page.locator("#leaderboard").count() == 1 and await page.locator("#daily").count() == 1
        await page.click("#queue")
        pages.append(page)
    await shot(pages[0], "ranked-lobby")
    for page in pages:
        await until(page, PLAYING, 30, "the ranked match to start")
    seats = await pages[0].evaluate("() => window.__floe.stream().joined.seats")
    assert sorted(seats) == ["rae", "sam"]
    assert "ranked=1" in pages[0].url
    await shot(pages[1], "ranked-match")


async def test_the_ranked_queue_plays_the_game_chosen_with_its_own_rating(browser: BrowserFactory) -> None:
    """The ranked section's game choice: two guests who choose Payload versus are paired in its queue
    into a Payload versus match (one queue and one rating per ruleset); the leaderboard shown is that
    game's."""
    pages: list[Page] = []
    for name in ("una", "vic"):
        page = await (await browser()).page("/")
        await page.fill("#name", name)
        await page.select_option("#ranked-game", "payload-versus")
        await until(page, "() => document.querySelector('#leaderboard').dataset.ruleset === 'payload-versus'",
                    10, "the Payload leaderboard")
        await page.click("#queue")
        if not pages:  # the first waits alone: its game is held while it waits in that game's queue
            await until(page, "() => document.querySelector('#ranked-game').disabled", 10, "the game held")
        pages.append(page)
    started = ("() => { const s = window.__floe && window.__floe.stream();"
               " return !!(s && s.joined && s.joined.ruleset === 'payload-versus'); }")
    for page in pages:
        await until(page, started, 30, "the ranked Payload match")
        assert "ranked=1" in page.url
    seats = await pages[0].evaluate("() => window.__floe.stream().joined.seats")
    assert sorted(seats) == ["una", "vic"]
