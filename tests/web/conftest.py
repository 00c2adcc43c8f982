"""Browser tests: a real floe server on port 0 and Debian's Chromium driven by Playwright (PyPI).

Chromium is launched as the issue says: `/usr/bin/chromium`, headless, no sandbox, no GPU, no
background networking or component updates, once per test server, each browser of a test a fresh
context of it (an empty profile of its own); browsers are never downloaded (`make test` installs
Debian's chromium when it is missing). Every page's console errors and uncaught exceptions fail the
test that opened it; screenshots go to `.artifacts/browser/`.
Each wait is a condition with a bounded timeout (`UNIT` seconds times a factor), never a sleep.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser as PlaywrightBrowser
from playwright.async_api import BrowserContext, ConsoleMessage, Page, async_playwright

from server.app import DEFAULT_WEB_ROOT, create_app
from server.config import ServerConfig
from server.embed import RunningServer, running_server
from server.match.settings import LimitSettings
from server.match.sources import RandomIds

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
#: Where screenshots are saved (a test artefact; ignored by git).
ARTIFACTS = Path(os.environ.get("FLOE_ARTIFACTS", "")) if os.environ.get("FLOE_ARTIFACTS") else (
    Path(__file__).resolve().parents[2] / ".artifacts" / "browser"
)
#: The unit of every wait, seconds.
UNIT = float(os.environ.get("FLOE_TEST_UNIT", "1.0"))
#: Every page of a test comes from one address: the lobby's per-address rates raised for it.
TEST_LIMITS = LimitSettings(guest_burst_per_address=100, match_burst_per_address=100,
                            live_matches_per_address=100)
#: Seconds a test's match lasts (short: the suite plays them in real time).
MATCH_SECONDS = 40


@dataclass
class Browser:
    """A fresh browser profile on the test server; `page()` opens a page that records console errors."""

    server: RunningServer
    context: BrowserContext
    errors: list[str] = field(default_factory=list)

    async def page(self, path: str = "/") -> Page:
        page = await self.context.new_page()

        def console(message: ConsoleMessage) -> None:
            if message.type == "error":
                self.errors.append(f"{page.url}: {message.text}")

        page.on("console", console)
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        await page.goto(self.server.http_url + path)
        return page


async def shot(page: Page, name: str) -> Path:
    """Save a screenshot of `page` as a test artefact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    await page.screenshot(path=str(path))
    return path


def not_yet_on_type_error(expression: str) -> str:
    """A JS function that reads the page as `expression` does, but counts a TypeError (an element the
    page has not drawn yet: `null.textContent`) as "not yet" instead of ending the wait with an error
    (Playwright's wait fails at once when its function throws, and the page reports the error): under
    load a condition may be looked at before the page has drawn what it names. Other errors still end
    the wait; a bare expression (not a function) is left as it is."""
    if not expression.lstrip().startswith(("(", "async", "function")):
        return expression
    return (f"(arg) => {{ try {{ return ({expression})(arg); }} "
            "catch (error) { if (error instanceof TypeError) return false; throw error; } }")


async def until(page: Page, expression: str, seconds: float, what: str, arg: Any = None) -> Any:
    """Wait until `expression` (a JS function body's return value) is truthy; fail naming `what`."""
    try:
        handle = await page.wait_for_function(not_yet_on_type_error(expression), arg=arg,
                                              timeout=seconds * UNIT * 1000, polling=50)
    except Exception as error:  # noqa: BLE001 - turned into a readable failure
        await shot(page, "failed-" + what.replace(" ", "-")[:40])
        raise AssertionError(f"timed out waiting for {what}: {error}") from None
    return await handle.json_value()


@pytest.fixture(scope="module")
def web_root() -> Path:
    """The client's build, which `make test` makes before the suite."""
    if not (DEFAULT_WEB_ROOT / "index.html").is_file():
        pytest.fail("clients/web is not built: run `make test` (it runs npm ci and the build)")
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium")
    return DEFAULT_WEB_ROOT


BrowserFactory = Callable[..., Awaitable[Browser]]

#: Every test match is dealt from this seed: a board where Pengo starts with room to walk and ice to kick.
BOARD_SEED = 7


class FixedSeed:
    """The server's id source with one seed for every match (the tests' boards are known)."""

    def __init__(self, ids: Any, seed: int) -> None:
        self._ids = ids
        self._seed = seed

    def match_id(self) -> str:
        return str(self._ids.match_id())

    def seed(self) -> int:
        return self._seed

    def guest_id(self) -> str:
        return str(self._ids.guest_id())

    def invite(self) -> str:
        return str(self._ids.invite())


#: The browsers' window unless a test asks for another.
DESKTOP = {"width": 1280, "height": 800}


@asynccontextmanager
async def chromium() -> AsyncIterator[PlaywrightBrowser]:
    """Debian's Chromium launched as the module docstring says, closed on leaving."""
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                    args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()


@asynccontextmanager
async def serving(web_root: Path, seconds: int = MATCH_SECONDS, viewport: dict[str, int] | None = None,
                  **overrides: Any) -> AsyncIterator[BrowserFactory]:
    """A test server whose matches last `seconds` (and other settings), and fresh browsers on it: one
    Chromium, launched at the first, and a new context (an empty profile: its own storage, so its own
    guest) for each; `viewport` their window, a desktop's by default. Fails on any console error."""
    config = ServerConfig().override(allowed_origins=("*",), web_root=str(web_root), limits=TEST_LIMITS,
                     verify_pool="thread", secret=b"browser-test-secret-0123456789", tune_gc=False,
                     **overrides).with_time_limit(seconds)
    opened: list[Browser] = []
    # Every match on the tests' board (the node gives its id source to the hub, the lobby and the queue).
    app = create_app(config, ids=FixedSeed(RandomIds(), BOARD_SEED))
    async with running_server(app) as server, contextlib.AsyncExitStack() as stack:
        launched: list[PlaywrightBrowser] = []

        async def make(**options: Any) -> Browser:
            """A fresh profile; `options`: the context's (a phone's viewport, touch), over the window's."""
            if not launched:
                launched.append(await stack.enter_async_context(chromium()))
            context = await launched[0].new_context(**{"viewport": viewport or DESKTOP, **options})
            made = Browser(server, context)
            opened.append(made)
            return made

        try:
            yield make
        finally:
            for made in opened:
                await made.context.close()
    errors = [error for made in opened for error in made.errors]
    assert errors == [], f"console errors: {errors}"


@pytest_asyncio.fixture
async def browser(web_root: Path) -> AsyncIterator[BrowserFactory]:
    """Open browsers (each a fresh profile: its own guest) on one server; fails on any console error."""
    async with serving(web_root) as make:
        yield make
