"""Fixtures of the server tests: real servers on port 0 (floe's listener, uvicorn behind it), and a log
guard (a logged ERROR fails)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import pytest
import pytest_asyncio

from server.app import create_app
from server.config import ServerConfig
from server.embed import RunningServer, running_server
from server.match.settings import LimitSettings
from server.netcode.runner import RunnerSettings
from server.store.base import Stores

#: The lobby's rate limits raised for tests that make many guests and matches from one address (the
#: limits' own tests use the defaults).
TEST_LIMITS = LimitSettings(
    match_burst_per_guest=1000, match_burst_per_address=1000, guest_burst_per_address=1000,
    live_matches_per_address=1000,
)

#: Frames per second in the networked tests: fast enough to be quick, slow enough that the bots, the
#: spectator and the server sharing this one process keep up (no test asserts a speed).
TEST_FRAME_RATE = 150

#: The node's budget at the tests' frame rate: the 50 1 v 1 matches of the default (which counts 60
#: frames a second), so the fast clock does not make a test node hold fewer matches than a real one.
TEST_CAPACITY = 50 * 2 * TEST_FRAME_RATE


def fast_config(**overrides: object) -> ServerConfig:
    """A server config for tests: a fast clock, short matches and grace periods, thread-pool verify."""
    config = ServerConfig().override(
        frame_rate=TEST_FRAME_RATE,
        runner=RunnerSettings(rollback_window=8, max_ahead=120, keyframe_every=60),
        rate_per_second=4 * TEST_FRAME_RATE,
        rate_burst=4 * TEST_FRAME_RATE,
        reconnect_grace=30.0,
        linger=30.0,
        verify_pool="thread",
        secret=b"test-secret-0123456789abcdef",
        limits=TEST_LIMITS,
        capacity_board_frames=TEST_CAPACITY,
        # every socket of a test comes from one address: their shared budget is that of the 64 sockets
        # an address may hold, each at its own rate (the abuse tests set the default)
        message_rate_per_address=64 * 4 * TEST_FRAME_RATE,
        message_burst_per_address=64 * 4 * TEST_FRAME_RATE,
        tune_gc=False,
    ).with_time_limit(8)
    return config.override(**overrides)


class ErrorGuard(logging.Handler):
    """Collects ERROR records of the floe, uvicorn and websockets loggers."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def no_logged_errors() -> Iterator[ErrorGuard]:
    """Any ERROR logged by the server during a test fails it (python-chess's RaiseLogHandler idea)."""
    guard = ErrorGuard()
    loggers = [logging.getLogger(name) for name in ("floe", "uvicorn", "uvicorn.error", "websockets")]
    for logger in loggers:
        logger.addHandler(guard)
    try:
        yield guard
    finally:
        for logger in loggers:
            logger.removeHandler(guard)
    messages = [f"{r.name}: {r.getMessage()}" for r in guard.records]
    assert not messages, f"errors were logged: {messages}"


StartServer = Callable[..., Awaitable[RunningServer]]


@pytest_asyncio.fixture
async def start_server() -> AsyncIterator[StartServer]:
    """Start real servers (127.0.0.1, port 0) in the test's loop; all stop after the test."""
    async with contextlib.AsyncExitStack() as stack:

        async def start(config: ServerConfig | None = None, store: Stores | None = None) -> RunningServer:
            app = create_app(config or fast_config(), store)
            return await stack.enter_async_context(running_server(app))

        yield start
