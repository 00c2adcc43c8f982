"""The live match page in real Chromium (issue 19): a room's waiting page and its seat names, rematch
offers between two browsers, a dropped opponent's countdown and the dropped player's banner, the
connection information during play, the ranked match's card, the results screen and its statistics,
and the daily challenge's confirmation."""

from __future__ import annotations

import re
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, WebSocketRoute

from protocol.replay_codec import decode_replay, encode_replay
from rules.registry import lookup
from rules.replay import input_rows, record
from rules.ruleset import seat_seed
from rules.solo.match import SoloConfig
from rules.versus.events import BoardRecord, Landing, Offset, Queued
from server import botclient

from .conftest import Browser, BrowserFactory, shot, until
from .conftest import serving as conftest_serving
from .test_browser import PLAYING

pytestmark = pytest.mark.asyncio

RESULT_SHOWN = "() => !document.querySelector('#result').classList.contains('hidden')"


async def accept_invitation(friend: Page) -> None:
    """The invitation's page asks the name first (filled with the one the lobby was given): join."""
    await until(friend, "() => document.querySelector('#name')?.value === 'friend'", 10,
                "the link's page asking the name, filled with the one typed")
    await friend.click("#join-room")


def serving(web_root: Path, seconds: int, **overrides: Any) -> AbstractAsyncContextManager[BrowserFactory]:
    """conftest's test server (matches lasting `seconds`, other settings) with taller browser windows."""
    return conftest_serving(web_root, seconds, viewport={"width": 1280, "height": 900}, **overrides)


async def create_room(host: Page) -> str:
    """"host" makes a private room in the lobby and enters it; the room's invitation link."""
    await host.fill("#name", "host")
    await host.click("#create-room")
    await until(host, "() => document.querySelector('#invite-link') !== null", 10, "the share link")
    link = await host.input_value("#invite-link")
    await host.click("#enter-room")
    return link


async def room_match(browser: BrowserFactory) -> tuple[Browser, Page, Browser, Page]:
    """A private room made by "host" in the lobby and joined by "friend" through its link; both play."""
    host_browser = await browser()
    host = await host_browser.page("/")
    link = await create_room(host)
    friend_browser = await browser()
    friend = await friend_browser.page("/")
    await friend.fill("#name", "friend")
    await friend.evaluate("(link) => { location.href = link; }", link)
    await accept_invitation(friend)
    for page in (host, friend):
        await until(page, PLAYING, 20, "the room's match to start")
    return host_browser, host, friend_browser, friend


async def test_a_room_creator_waits_with_the_link_then_sees_the_friends_name(web_root: Path) -> None:
    """The creator's waiting page says "waiting for your friend" with the invitation link and a copy
    button that puts it on the clipboard; once the friend joins, the creator's page names the friend (in
    the strip, the status line and the names the board draws), not "open"."""
    async with serving(web_root, 40) as browser:
        host_browser = await browser()
        await host_browser.context.grant_permissions(["clipboard-read", "clipboard-write"])
        host = await host_browser.page("/")
        link = await create_room(host)
        await until(host, "() => document.querySelector('#waiting') !== null", 10, "the waiting page")
        assert "Waiting for your friend" in await host.inner_text("#waiting")
        assert await host.input_value("#waiting-link") == link
        await host.click("#copy-invite")
        await until(host, "() => document.querySelector('#copy-state').textContent.includes('Copied')", 5,
                    "the copy to be confirmed")
        assert await host.evaluate("() => navigator.clipboard.readText()") == link
        await shot(host, "live-room-waiting")
        friend = await (await browser()).page("/")
        await friend.fill("#name", "friend")
        await friend.evaluate("(link) => { location.href = link; }", link)
        await accept_invitation(friend)
        for page in (host, friend):
            await until(page, PLAYING, 20, "the room's match to start")
        await until(host, "() => document.querySelector('#seat-1').textContent.startsWith('friend')", 10,
                    "the friend's name on the creator's page")
        assert await host.locator("#waiting").count() == 0
        assert "host vs friend" in await host.inner_text("#match-status")
        assert "open" not in await host.inner_text("#hud")
        await shot(host, "live-room-names")


async def test_a_rematch_is_offered_declined_expires_and_is_accepted(web_root: Path) -> None:
    """After a room's match, "Rematch" reaches the other browser, which declines it (both say so); an
    offer left unanswered expires (both say so); an accepted offer takes both pages to the new match."""
    async with serving(web_root, 4, rematch_offer_seconds=4.0) as browser:
        _, host, _, friend = await room_match(browser)
        first = await host.evaluate("() => window.__floe.stream().joined.match")
        for page in (host, friend):
            await until(page, RESULT_SHOWN, 20, "the result")
        state = "(text) => document.querySelector('#rematch-state').textContent.includes(text)"
        await host.click("#rematch")
        await until(friend, state, 10, "the offer on the friend's page", "host offers a rematch")
        await until(host, state, 10, "the offer's confirmation", "waiting for friend")
        await shot(friend, "live-rematch-offered")
        await friend.click("#rematch-decline")
        await until(host, state, 10, "the decline on the host's page", "friend declined the rematch")
        await until(friend, state, 10, "the decline on the friend's page", "You declined the rematch")
        await shot(host, "live-rematch-declined")
        await friend.click("#rematch")
        await until(host, state, 10, "the friend's offer", "friend offers a rematch")
        for page in (host, friend):
            await until(page, state, 10, "the offer to expire", "expired")
        await host.click("#rematch")
        await until(friend, state, 10, "the second offer", "host offers a rematch")
        await friend.click("#rematch-accept")
        for page in (host, friend):
            await until(page, "(first) => window.__floe && window.__floe.stream() "
                        "&& window.__floe.stream().joined.match !== first", 10, "the rematch's page", first)
            await until(page, PLAYING, 20, "the rematch to start")
        seats = await host.evaluate("() => window.__floe.stream().joined.seats")
        assert seats == ["host", "friend"]
        await shot(friend, "live-rematch-started")


async def test_a_dropped_player_and_its_opponent_see_the_countdown_and_the_rule(web_root: Path) -> None:
    """While the friend's connection is down, its page shows a banner with the grace countdown and the
    forfeit rule, above the board (not over it); the host's page shows "friend reconnecting — N s left"
    with the rule, from `status.grace`; both go once the friend is back. Before that, each page shows its
    ping and the opponent's connection (bars and ms) and the frame time."""
    async with serving(web_root, 40) as browser:
        _, host, _, friend = await room_match(browser)
        for page, other in ((host, 1), (friend, 0)):
            await until(page, "(seat) => /\\d+ ms/.test(document.querySelector('#seat-' + seat).textContent)",
                        10, "the opponent's lag", other)
            await until(page, "() => /ping .*\\d+ ms/.test(document.querySelector('#hud').textContent)", 10,
                        "the page's own ping")
            await until(page, "() => /draw \\d+\\.\\d+ ms\\/frame/.test(document.querySelector('#frame-time')"
                        ".textContent)", 10, "the frame time")
            bars = await page.get_attribute(f"#seat-{other}", "data-bars")
            assert bars is not None and 1 <= int(bars) <= 4
        await shot(host, "live-connection-info")
        network = {"down": True}

        async def friends_network(route: WebSocketRoute) -> None:
            """The friend's new websockets: refused while its network is down, else through."""
            if network["down"]:
                await route.close()
            else:
                route.connect_to_server()

        await friend.route_web_socket(re.compile(r"/ws"), friends_network)
        await friend.evaluate("() => window.__floe.dropConnection()")
        banner = ("() => { const b = document.querySelector('#reconnect'); "
                  "return !b.classList.contains('hidden') && /\\d+ s left/.test(b.textContent) "
                  "&& b.textContent.includes('within 30 s forfeits'); }")
        await until(friend, banner, 5, "the dropped player's banner")
        away = ("() => /friend reconnecting — \\d+ s left .*within 30 s forfeits/"
                ".test(document.querySelector('#opponent-away').textContent)")
        await until(host, away, 10, "the opponent's countdown")
        first = await host.inner_text("#opponent-away")
        await until(host, "(first) => document.querySelector('#opponent-away').textContent !== first", 5,
                    "the countdown to count", first)
        banner_box = await friend.locator("#reconnect").bounding_box()
        board_box = await friend.locator("#board").bounding_box()
        assert banner_box is not None and board_box is not None
        assert banner_box["y"] + banner_box["height"] <= board_box["y"], (banner_box, board_box)
        await shot(friend, "live-dropped-banner")
        await shot(host, "live-opponent-reconnecting")
        network["down"] = False
        # the page retries every 4 s at most (net/session.ts RECONNECT_WAITS_MS): on a loaded machine the
        # retry and the resume take several of those
        await until(friend, "() => document.querySelector('#reconnect').classList.contains('hidden')", 30,
                    "the banner to go once the connection is back")
        await until(host, "() => document.querySelector('#opponent-away').classList.contains('hidden')", 10,
                    "the countdown to go once the friend is back")


async def test_a_ranked_match_shows_its_card_then_the_rating_change(web_root: Path) -> None:
    """Two guests queue; each match page shows a card with the opponent's name, rating (hidden on the
    page of the player whose settings hide ratings during play), provisional mark and connection, the
    abort rule with this server's minimum of play (4 s) and cooldown (120 s), and its forfeit rule
    (25 s); both play past the minimum, and the results show the rating change and the statistics."""
    async with serving(web_root, 7, ranked_min_play_seconds=4.0, ranked_dodge_cooldown=120.0,
                       reconnect_grace=25.0) as browser:
        pages = []
        for name in ("rae", "sam"):
            page = await (await browser()).page("/")
            await page.fill("#name", name)
            if name == "sam":  # sam asked the settings to hide ratings during play
                await page.evaluate("() => localStorage.setItem('floe.hide-ratings', 'on')")
            await page.click("#queue")
            pages.append(page)
        for page in pages:
            await until(page, "() => document.querySelector('#ranked-card') !== null", 30, "the ranked card")
        card = await pages[0].inner_text("#ranked-card")
        assert "sam" in card and "1500?" in card and "(provisional)" in card, card
        hidden = await pages[1].inner_text("#ranked-card")
        assert "rae" in hidden and "hidden (settings)" in hidden and "1500" not in hidden, hidden
        assert "both players move and 4 s of play run" in card and "cannot queue for 120 s" in card, card
        assert "25 s to come back" in card and "within 25 s forfeits" in card, card
        for page in pages:
            await until(page, PLAYING, 30, "the ranked match to start")
        for page in pages:  # a move from each (before the match's 7 s run out), so the match is rated
            await page.keyboard.down("ArrowLeft")
        await until(pages[0], "() => /\\d+ ms/.test(document.querySelector('#card-lag').textContent)", 10,
                    "the opponent's lag on the card")
        await shot(pages[0], "live-ranked-card")
        for page in pages:
            await until(page, RESULT_SHOWN, 30, "the result")
            await page.keyboard.up("ArrowLeft")
            rated = ("() => /Rating [+-]\\d+\\.\\d: now \\d+/"
                     ".test(document.querySelector('#rating-change')?.textContent ?? '')")
            await until(page, rated, 15, "the rating change")
            assert await page.locator("#match-stats tbody tr").count() == 6
        await shot(pages[0], "live-ranked-results")


def replay_stats(data: bytes) -> list[dict[str, int]]:
    """Each seat's statistics from a replay, re-simulated with the rules package (the expected table)."""
    replay = decode_replay(data)
    ruleset = lookup(replay.ruleset, replay.ruleset_version)
    match = ruleset.new_match(ruleset.config_from_plain(replay.config), replay.seed, replay.seats)
    stats = [dict.fromkeys(("sent", "received", "cancelled", "crushes", "lines", "deaths"), 0)
             for _ in replay.seats]
    for inputs in input_rows(replay):
        if match.result is not None:
            break
        for entry in match.step(inputs):
            if isinstance(entry, Queued):
                stats[entry.source]["sent"] += entry.units
            elif isinstance(entry, Landing):
                stats[entry.seat]["received"] += entry.units
            elif isinstance(entry, Offset):
                stats[entry.seat]["cancelled"] += entry.units
            elif isinstance(entry, BoardRecord):
                kind = entry.event.kind
                if kind == "crush":
                    stats[entry.seat]["crushes"] += len(entry.event.ids)  # type: ignore[union-attr]
                elif kind == "line":
                    stats[entry.seat]["lines"] += 1
                elif kind == "death":
                    stats[entry.seat]["deaths"] += 1
    return stats


async def test_the_results_show_each_seats_statistics_from_the_log(web_root: Path) -> None:
    """After a match against the competent bot, the results table's numbers (attacks sent, received,
    cancelled, crushes, diamond lines, deaths) are those of the match's log, re-simulated here from its
    replay with the rules package."""
    async with serving(web_root, 10) as browser:  # the last 10 s-match whose table has a death in it
        made = await browser()
        page = await made.page("/")
        await page.fill("#name", "ann")
        await page.click("#play-competent")
        await until(page, PLAYING, 20, "the bot match to start")
        await until(page, RESULT_SHOWN, 60, "the result")
        match_id = await page.evaluate("() => window.__floe.stream().joined.match")
        table = await page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
            '#match-stats tbody tr')].map((row) => [row.dataset.stat,
            [...row.querySelectorAll('td')].map((cell) => Number(cell.textContent))]))""")
        await shot(page, "live-results")
        status, data = await botclient.http_bytes(f"{made.server.http_url}/api/replays/{match_id}")
        assert status == 200
        expected = replay_stats(data)
        shown = [{key: table[key][seat] for key in expected[seat]} for seat in range(len(expected))]
        print("results table", shown)
        assert shown == expected
        assert sum(expected[1].values()) > 0, "the bot's column is all zero: nothing was checked"


def daily_run(challenge: dict[str, Any]) -> bytes:
    """A daily run played by the lazy bot with the rules package (what `floe daily play` writes)."""
    ruleset = lookup(str(challenge["ruleset"]), int(challenge["ruleset_version"]))
    config = ruleset.config_from_plain(challenge["config"])
    seed = int(challenge["seed"])
    match = ruleset.new_match(config, seed, ["ann"])
    player = ruleset.make_bot("lazy", seat_seed(seed, 0))
    while match.result is None:
        match.step([player.decide(match.seat_view(0), match.frame)])
    return encode_replay(record(match, ruleset))


async def test_the_daily_confirmation_says_the_best_score(web_root: Path, tmp_path: Path) -> None:
    """A daily run submitted in the lobby is confirmed with its score and the day's best as a number of
    points (not "[object Object]")."""
    async with serving(web_root, 40, daily_config=SoloConfig(time_limit_frames=600)) as browser:
        made = await browser()
        page = await made.page("/")
        await page.fill("#name", "ann")
        async with httpx.AsyncClient(base_url=made.server.http_url) as http:
            challenge = (await http.get("/api/daily")).json()
        run = daily_run(challenge)
        result = decode_replay(run).result
        assert result is not None
        score = result.scores[0]
        path = tmp_path / "today.replay"
        path.write_bytes(run)
        await page.set_input_files("#daily-file", str(path))
        await until(page, "() => document.querySelector('#daily-result').textContent.length > 0", 30,
                    "the confirmation")
        text = await page.inner_text("#daily-result")
        await shot(page, "live-daily-confirmation")
        assert text == f"Verified: {score} points (your best today: {score} points)", text
