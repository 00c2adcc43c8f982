"""Background work of one process: store reads and writes the match loop never waits for.

The hub's finished-match writes, the lobby's and the ranked queue's store work and the dispatcher's
token checks all run here; `drain` lets what is pending finish when the node stops. A failure is
logged (the loop goes on).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from ..logs import log_event

log = logging.getLogger("floe.hub")


class Background:
    """The pending background tasks of one node."""

    def __init__(self) -> None:
        self.pending: set[asyncio.Task[None]] = set()

    def __bool__(self) -> bool:
        """Is any work still pending?"""
        return bool(self.pending)

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run `work` in the background (the loop never waits for it); a failure is logged."""
        task = asyncio.get_running_loop().create_task(self._logged(work))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    @staticmethod
    async def _logged(work: Coroutine[Any, Any, Any]) -> None:
        try:
            await work
        except Exception:  # noqa: BLE001 - background store work: logged, the loop goes on
            log_event(log, logging.ERROR, "store.work-failed", exc_info=True)

    async def drain(self, timeout: float) -> None:
        """Wait up to `timeout` seconds for the pending work (and the work it spawns) to finish."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.pending and loop.time() < deadline:
            await asyncio.wait(set(self.pending), timeout=deadline - loop.time())
