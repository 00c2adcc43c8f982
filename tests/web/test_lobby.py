"""The lobby and the settings in real Chromium: the live list refreshing and the provisional players, the
invitation's name, a refused origin explained, key rebinding on a non-QWERTY layout, a room of three,
a guest's identity on another browser, and keyboard-only use."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import CDPSession, Page, async_playwright

from server.app import create_app
from server.config import ServerConfig
from server.embed import running_server
from server.node import Node
from server.store.players import Glicko, PlayerRecord, Standing

from .conftest import CHROMIUM, CHROMIUM_ARGS, TEST_LIMITS, BrowserFactory, shot, until
from .test_browser import PLAYER, PLAYING

pytestmark = pytest.mark.asyncio

#: JS: the text of the first live-list entry, or null.
FIRST_LIVE = "() => { const a = document.querySelector('#live a.watch'); return a ? a.textContent : null; }"


def hub_of(page_server: Any) -> Node:
    """The node of the browsers' server."""
    node: Node = page_server.app.state.node
    return node


async def test_live_list_refreshes_and_provisional_players_are_apart(browser: BrowserFactory) -> None:
    """The lobby shown before a match begins lists it without a reload, its age ticking; a player with a
    provisional rating (the only rated one) is listed apart with "?" and the reason, not "nobody rated"."""
    opened = await browser()
    node = hub_of(opened.server)
    standing = Standing(Glicko(1650.0, 200.0, 0.06), wins=1)
    provisional = PlayerRecord("g_pro", "provo", {"pengo-versus": standing})
    await node.stores.players.update_player("g_pro", lambda held: provisional)
    page = await opened.page("/")
    await until(page, "() => document.querySelector('#live li')?.textContent === 'none right now'", 10,
                "an empty list")
    assert "provo 1650? (1 game)" in await page.inner_text("#provisional-board")
    assert "nobody with a settled rating yet" in await page.inner_text("#leaderboard")
    assert "provisional" in await page.inner_text("#provisional-why")
    duel = node.hub.create_bot_duel("lazy", "lazy")
    await until(page, FIRST_LIVE, 15, "the new match listed without a reload")
    first = await page.evaluate(FIRST_LIVE)
    await until(page, f"() => {{ const t = ({FIRST_LIVE})(); return t !== null && t !== {first!r}; }}", 10,
                "the listed age to tick")
    assert duel.id in await page.inner_html("#live")
    await shot(page, "lobby-live-and-provisional")


async def test_an_invitation_asks_for_a_name_first(browser: BrowserFactory) -> None:
    """Opening a room's link in a fresh browser shows a name field (empty, focused) and joins with the
    name typed; in a browser that knows its player's name the field is filled with it."""
    creator = await browser()
    lobby = await creator.page("/")
    await lobby.fill("#name", "ann")
    await lobby.click("#create-room")
    link = await lobby.locator("#invite-link").get_attribute("value")
    assert link is not None
    path = link[link.index("/#"):]
    friend = await (await browser()).page(path)
    await friend.wait_for_selector("#join-form")
    assert await friend.input_value("#name") == ""
    assert await friend.evaluate("() => document.activeElement.id") == "name"
    await shot(friend, "join-asks-a-name")
    await friend.keyboard.type("bea")
    await friend.keyboard.press("Enter")
    await until(friend, "() => window.__floe && window.__floe.stream() && window.__floe.stream().joined", 15,
                "the friend joined")
    assert await friend.evaluate("() => window.__floe.stream().joined.seats") == ["ann", "bea"]
    again = await creator.page(path)
    await again.wait_for_selector("#join-form")
    assert await again.input_value("#name") == "ann"


async def test_a_refused_origin_is_explained_not_reconnected(web_root: Path) -> None:
    """Served to a page whose origin is not in allowed_origins, the lobby says so and a match page shows
    the explanation (the page's origin, FLOE_ORIGINS) instead of connecting or "reconnecting…"."""
    config = ServerConfig().override(allowed_origins=("https://floe.example",), web_root=str(web_root),
                     limits=TEST_LIMITS, verify_pool="thread", secret=b"browser-test-secret-0123456789",
                     tune_gc=False)
    profile = tempfile.mkdtemp(prefix="floe-chromium-")
    try:
        async with running_server(create_app(config)) as server, async_playwright() as playwright:
            context = await playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            try:
                page = await context.new_page()
                await page.goto(server.http_url + "/#/watch/somematch")
                refusal = await page.locator("#origin-refused").inner_text()
                origin = server.http_url.rstrip("/")
                assert origin in refusal and "FLOE_ORIGINS" in refusal
                assert await page.query_selector("#reconnect") is None
                await shot(page, "origin-refused")
                await page.goto(server.http_url + "/#/")
                await page.wait_for_selector("#origin-note #origin-refused")
            finally:
                await context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


async def azerty_key(cdp: CDPSession, kind: str) -> None:
    """A key event as an AZERTY keyboard sends it for the key at KeyQ (it types "a")."""
    text = "a" if kind == "keyDown" else ""
    await cdp.send("Input.dispatchKeyEvent", {"type": kind, "code": "KeyQ", "key": "a", "text": text,
                                              "windowsVirtualKeyCode": 65, "nativeVirtualKeyCode": 65})


async def prevented(page: Page, code: str) -> bool:
    """Would the match page cancel this key's browser default (a shortcut, scrolling)?"""
    script = """(code) => { const e = new KeyboardEvent('keydown', {code, key: 'x', cancelable: true});
      window.dispatchEvent(e); window.dispatchEvent(new KeyboardEvent('keyup', {code, key: 'x'}));
      return e.defaultPrevented; }"""
    return bool(await page.evaluate(script, code))


async def test_rebinding_by_physical_key_works_on_azerty(browser: BrowserFactory) -> None:
    """On the settings screen "left" is rebound with the key at KeyQ, which types "a" (AZERTY): the key is
    kept by its code, every setting is kept, the rules page's how to play and the match's help line name
    Q for left (not A), and in a match that key walks Pengo left and has its browser default cancelled,
    while a key no longer bound (KeyA) does not."""
    page = await (await browser()).page("/#/settings")
    cdp = await page.context.new_cdp_session(page)
    await page.click("#rebind-left")
    await azerty_key(cdp, "keyDown")
    await azerty_key(cdp, "keyUp")
    await until(page, "() => document.querySelector('#keys-left').textContent === 'Q'", 5, "left bound to Q")
    assert "types “a”" in await page.inner_text("#settings-saved")
    await page.evaluate("() => { const v = document.querySelector('#set-volume'); v.value = '30';"
                        " v.dispatchEvent(new Event('input')); }")
    await page.select_option("#set-palette", "deuteranopia")
    await page.select_option("#set-reduced-motion", "on")
    await page.uncheck("#set-wall-shake")
    await page.check("#set-hide-ratings")
    await shot(page, "settings-azerty")
    stored = await page.evaluate("() => Object.fromEntries(Object.keys(localStorage)"
                                 ".filter(k => k.startsWith('floe.')).map(k => [k, localStorage[k]]))")
    assert '"left":["KeyQ"]' in stored["floe.bindings"]
    wanted = {"floe.volume": "30", "floe.palette": "deuteranopia", "floe.reduced-motion": "on",
              "floe.wall-shake": "off", "floe.hide-ratings": "on"}
    assert {key: stored.get(key) for key in wanted} == wanted
    await page.goto(page.url.split("#")[0] + "#/rules")  # how to play names the player's keys
    await until(page, "() => document.querySelector('#how-controls') !== null", 10, "the rules page")
    how = await page.inner_text("#how-controls")
    assert ", Q left," in how and "A left" not in how, how
    await page.goto(page.url.split("#")[0] + "#/")
    await page.fill("#name", "zoe")
    await page.click("#play-lazy")
    await until(page, PLAYING, 20, "play to begin")
    assert await prevented(page, "KeyQ") and not await prevented(page, "KeyA")
    help_line = await page.inner_text("#controls-help")  # and so does the help line under the board
    assert ", Q left," in help_line and "A left" not in help_line and "Space kicks" in help_line, help_line
    for _ in range(4):  # walled in on the left, Pengo kicks the block away and tries again
        await until(page, PLAYING, 10, "the board in play")
        start = await page.evaluate(PLAYER)
        await azerty_key(cdp, "keyDown")
        try:
            await until(page, "(start) => { const s = window.__floe.stream(); "
                        "return s.model.seats[s.joined.seat].records.get(0)[1] < start.x; }", 1.5,
                        "Pengo to walk left", start)
            break
        except AssertionError:
            await page.keyboard.press("Space")
        finally:
            await azerty_key(cdp, "keyUp")
    else:
        raise AssertionError("Pengo never walked left with the key at KeyQ")


async def test_a_room_of_three_starts_with_its_three_players(browser: BrowserFactory) -> None:
    """A room made for 3 players lasting 1 minute, joined by two friends through the one link, starts
    for all three with three boards and the 1-minute limit."""
    creator = await (await browser()).page("/")
    await creator.fill("#name", "ann")
    await creator.select_option("#room-seats", "3")
    await creator.select_option("#room-minutes", "1")
    await creator.click("#create-room")
    link = await creator.locator("#invite-link").get_attribute("value")
    assert link is not None
    assert "2 friends" in await creator.inner_text("#share")
    await creator.click("#enter-room")
    friends = []
    for name in ("bea", "cy"):
        friend = await (await browser()).page(link[link.index("/#"):])
        await friend.fill("#name", name)
        await friend.click("#join-room")
        friends.append(friend)
    for page in (creator, *friends):
        await until(page, PLAYING, 20, "play to begin for every seat")
    # the last to join hears every name (the creator's first `joined` said "open": another fix of issue 19)
    joined = await friends[-1].evaluate("() => { const j = window.__floe.stream().joined; "
                                    "return {seats: j.seats, limit: j.config.rules.time_limit_frames}; }")
    assert joined == {"seats": ["ann", "bea", "cy"], "limit": 3600}
    assert await creator.evaluate("() => window.__floe.stream().joined.seats.length") == 3
    await shot(creator, "room-of-three")


async def test_a_recovery_code_moves_the_guest_to_another_browser(browser: BrowserFactory) -> None:
    """A code made in one browser makes another the same guest (id and name); revoking it there stops
    the other browser's token (401) while the first keeps working."""
    first = await (await browser()).page("/")
    await first.fill("#name", "ann")
    await first.click("#make-code")
    code = await first.locator("#recovery-code").get_attribute("value")
    assert code is not None and code.startswith("rc1.")
    await shot(first, "recovery-code-shown")
    other_browser = await browser()
    other = await other_browser.page("/")
    await other.fill("#recover-input", code)
    await other.click("#use-code")
    await until(other, "() => document.querySelector('#identity-message')?.textContent"
                " === 'You are ann here now.'", 10, "the other browser to become ann")
    guest = "() => JSON.parse(localStorage.getItem('floe.guest')).guest"
    assert await other.evaluate(guest) == await first.evaluate(guest)
    assert await other.input_value("#name") == "ann"
    await shot(other, "recovered-on-another-browser")
    await first.click("#revoke-code")
    await until(first, "() => document.querySelector('#identity-message')?.textContent"
                ".includes('no longer works')", 10, "the revocation")
    status = """() => fetch('/api/rooms', {method: 'POST', headers: {Authorization: 'Bearer '
      + JSON.parse(localStorage.getItem('floe.guest')).token}}).then(r => r.status)"""
    assert await other.evaluate(status) == 401
    # that refusal is the one this test asked for: not a console error of the page's own
    other_browser.errors[:] = [error for error in other_browser.errors if "status of 401" not in error]
    assert await first.evaluate(status) == 200


#: JS: the focused element, its accessible name (label, aria-label or text) and whether its focus shows.
FOCUSED = """() => { const e = document.activeElement; if (!e || e === document.body) return null;
  const labels = e.labels ? Array.from(e.labels).map(l => l.textContent.trim()).join(' ') : '';
  const name = (e.getAttribute('aria-label') || labels || e.textContent || '').trim();
  const style = getComputedStyle(e);
  const ring = style.outlineStyle !== 'none' && style.outlineWidth !== '0px';
  return {id: e.id, tag: e.tagName, name, ring}; }"""


async def tab_to(page: Page, element_id: str, most: int = 60) -> list[dict[str, Any]]:
    """Press Tab until the element `element_id` has the focus; every element focused on the way."""
    seen: list[dict[str, Any]] = []
    for _ in range(most):
        await page.keyboard.press("Tab")
        focused = await page.evaluate(FOCUSED)
        if focused is not None:
            seen.append(focused)
            if focused["id"] == element_id:
                return seen
    raise AssertionError(f"Tab never reached #{element_id}: {[f['id'] or f['name'] for f in seen]}")


async def test_the_lobby_and_settings_by_keyboard_only(browser: BrowserFactory) -> None:
    """With the keyboard alone: every control tabbed through in the lobby and the settings has a name and
    a visible focus ring; Enter opens the settings, Space toggles flashes off, Enter on a key's Change
    then a key rebinds it, and back in the lobby a name typed and Enter on a bot start a match."""
    page = await (await browser()).page("/")
    await page.wait_for_selector("#identity")
    lobby_stops = await tab_to(page, "use-code", most=80)
    await tab_to(page, "settings-link")
    await shot(page, "keyboard-lobby-focus")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#bindings")
    await tab_to(page, "rebind-kick")
    await page.keyboard.press("Enter")
    await page.keyboard.press("KeyK")
    await until(page, "() => document.querySelector('#keys-kick').textContent === 'K'", 5, "kick bound to K")
    settings_stops = await tab_to(page, "set-flashes")
    await page.keyboard.press("Space")
    assert await page.evaluate("() => localStorage.getItem('floe.flashes')") == "off"
    await shot(page, "keyboard-settings-focus")
    unnamed = [stop for stop in lobby_stops + settings_stops if not stop["name"]]
    unringed = [stop for stop in lobby_stops + settings_stops if not stop["ring"]]
    assert unnamed == [] and unringed == [], (unnamed, unringed)
    await tab_to(page, "back-to-lobby")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#identity")
    await tab_to(page, "name")
    await page.keyboard.type("kim")
    await tab_to(page, "play-lazy")
    await page.keyboard.press("Enter")
    await until(page, PLAYING, 20, "play to begin from the keyboard")
