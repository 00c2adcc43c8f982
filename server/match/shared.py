"""The hub's background side of shared matches (server/match/owner.py): three tasks beside the frame
clock, which itself never waits.

- the flusher: what the owner's fast path (`MatchOwner.flush_soon`, run by the hub after each clock
  wake-up: the sealed publications written to the journal at once and published from the reply's
  callback) leaves to it (`wake`): a new match's lease and header, the snapshots due, a store that
  failed a request or cannot take one without an `await`;
- the renewer: every `lease_renew_every` seconds every lease is renewed;
- the scanner: every `orphan_scan_every` seconds, matches whose lease lapsed are taken over.

A match lost (its lease taken, refused or not renewed in time) is dropped from this node: its
connections are closed with 1001 (going away), and its clients reconnect, reaching the owner. A store
that does not answer (whatever its client raises: redis-py's errors are not the built-in ones) is
logged (once per outage) and retried, and no task ends on it; meanwhile nothing is published, so
nothing unlogged is ever acknowledged, and a node cut off past its lease drops its matches on its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from protocol.errors import CloseCode

from ..cluster.settings import ClusterSettings
from ..logs import log_event
from .live import Finished, LiveMatch
from .owner import MatchOwner
from .settings import MatchSettings, RankedSettings

log = logging.getLogger("floe.shared")

#: Seconds the flusher waits after a failed round before it tries again (the store did not answer).
RETRY_AFTER = 0.2


class SharedMatches:
    """Drives a node's MatchOwner (see the module docstring)."""

    def __init__(
        self,
        owner: MatchOwner,
        settings: ClusterSettings,
        config: MatchSettings,
        now: Callable[[], float],
        tick: Callable[[], int],
        register: Callable[[LiveMatch], None],
        drop: Callable[[LiveMatch], None],
        on_finished: Callable[[Finished], None],
        known: Callable[[str], bool],
        ranked_rules: RankedSettings | None = None,
        min_play_frames: int = 0,
    ) -> None:
        self.owner = owner
        self.settings = settings
        self.config = config
        self._now, self._tick = now, tick
        self._register, self._drop, self._on_finished, self._known = register, drop, on_finished, known
        self.ranked_rules, self.min_play_frames = ranked_rules, min_play_frames
        self._due = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._failing: set[str] = set()
        #: Stop taking matches over (a node shutting down).
        self.draining = False
        self._stopping = False

    def wake(self) -> None:
        """The owner left a flush to the flusher (see the module docstring)."""
        self._due.set()

    def failed(self, error: Exception) -> None:
        """The owner's fast request failed (the store did not answer): logged, and the flusher retries."""
        self._failed("flush", error)
        self._due.set()

    def start(self) -> None:
        """Start the three tasks."""
        self._tasks = [
            asyncio.create_task(self._flusher(), name="floe-shared-flush"),
            asyncio.create_task(self._every(self.settings.lease_renew_every, self._renew),
                                name="floe-shared-renew"),
            asyncio.create_task(self._every(self.settings.orphan_scan_every, self._scan),
                                name="floe-shared-scan"),
        ]

    async def stop(self) -> None:
        """Stop the tasks: the flusher ends after one last round (what is sealed is logged and sent),
        all within `stop_timeout` (a task still waiting on the store then is cancelled)."""
        self._stopping = True
        self.owner.stopped = True  # the last flush is the flusher's
        self._due.set()
        for task in self._tasks[1:]:
            task.cancel()
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=self.settings.stop_timeout)
            for task in pending:
                task.cancel()
        for task in self._tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                log_event(log, logging.WARNING, "shared.stop-failed", why=repr(task.exception()))
        self._tasks = []

    def drop_lost(self, lost: list[LiveMatch]) -> None:
        """Drop matches this node lost: their connections closed with 1001 (they reconnect to the owner)."""
        for live in lost:
            for out in {*live.players.subscribers, *live.spectators.subscribers}:
                out.close(CloseCode.GOING_AWAY)
            for seat in live.seats:
                if seat.connection is not None and seat.connection.match is live:
                    seat.connection.out.close(CloseCode.GOING_AWAY)
            live.close_all()
            self._drop(live)

    def _failed(self, what: str, error: Exception) -> None:
        if what not in self._failing:
            self._failing.add(what)
            log_event(log, logging.WARNING, "shared.store-failed", what=what, why=repr(error))

    async def _flusher(self) -> None:
        while True:
            await self._due.wait()
            self._due.clear()
            try:
                self.drop_lost(await self.owner.flush(self._now()))
                self._failing.discard("flush")
            except Exception as error:  # noqa: BLE001 - the store's client raises its own kinds; retried
                self._failed("flush", error)
                if self._stopping:
                    return
                await asyncio.sleep(RETRY_AFTER)
                self._due.set()
            if self._stopping:
                return

    async def _every(self, seconds: float, work: Callable[[], Awaitable[None]]) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await work()
            except Exception as error:  # noqa: BLE001 - as the flusher's: logged once an outage, retried
                self._failed(getattr(work, "__name__", "work"), error)

    async def _renew(self) -> None:
        self.drop_lost(await self.owner.renew(self._now()))
        self._failing.discard("_renew")

    async def _scan(self) -> None:
        if self.draining:
            return
        for match_id in await self.owner.ownership.orphans(self.settings.orphan_scan_limit):
            if self._known(match_id):
                continue
            live = await self.owner.take_over(match_id, self.config, self._tick(), self._now(),
                                              self._on_finished, self.ranked_rules, self.min_play_frames)
            if live is not None:
                self._register(live)
        self._failing.discard("_scan")
