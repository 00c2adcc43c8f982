"""A hub whose matches are shared with other nodes (issue 20): every match it makes is journaled and
owned through a lease (server/match/owner.py, driven by server/match/shared.py), and it takes over
the matches of nodes that died.

    hub = NodeHub(config, store, ownership, node="node-a", settings=ClusterSettings())

What it adds to `Hub`: new matches are journaled and adopted; each clock wake-up tells the flusher
that sealed publications wait; a match taken over is registered like one made here (its own slice);
a match lost is forgotten (its clients were closed with 1001 and reconnect to its owner); a finished
match's journal and lease are dropped once its record is written; `stop(hand_off=True)` (SIGTERM)
gives every lease up so another node takes the matches at once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..cluster.journal import Ownership
from ..cluster.settings import ClusterSettings
from ..config import ServerConfig
from ..logs import log_event
from ..store.base import Store
from .hub import Hub
from .live import Finished, LiveMatch
from .owner import MatchOwner
from .shared import SharedMatches
from .sources import Clock, IdSource

log = logging.getLogger("floe.node")


class NodeHub(Hub):
    """A Hub on shared leases and journals (see the module docstring)."""

    def __init__(
        self,
        config: ServerConfig,
        store: Store,
        ownership: Ownership,
        node: str,
        settings: ClusterSettings | None = None,
        clock: Clock | None = None,
        ids: IdSource | None = None,
    ) -> None:
        super().__init__(config, store, clock, ids)
        self.node = node
        self.cluster_settings = settings or ClusterSettings()
        self.owner = MatchOwner(ownership, node, self.cluster_settings)
        self.shared = SharedMatches(
            self.owner, self.cluster_settings, config, self.now, self.current_tick, self.register, self.drop,
            self._finished, lambda match_id: match_id in self.matches,
        )

    def current_tick(self) -> int:
        """The frame tick the clock is on."""
        return self._last_subtick // self.slices

    async def start(self) -> None:
        await super().start()
        self.shared.start()
        log_event(log, logging.INFO, "node.start", node=self.node)

    async def stop(self, hand_off: bool = True) -> None:
        """Stop; with `hand_off` every lease is given up after the last flush (another node takes the
        matches over at once instead of after the lease's TTL)."""
        self.shared.draining = True
        await self.shared.stop()
        if hand_off:
            try:
                await asyncio.wait_for(self.owner.release_all(), self.cluster_settings.stop_timeout)
            except (TimeoutError, OSError, ConnectionError) as error:
                log_event(log, logging.WARNING, "node.hand-off-failed", node=self.node, why=repr(error))
        await super().stop()

    def new_match(self, *args: Any, **kwargs: Any) -> LiveMatch:
        live = super().new_match(*args, **kwargs)
        live.journaled = True
        self.owner.adopt(live)
        return live

    def _on_tick(self, subtick: int) -> None:
        super()._on_tick(subtick)
        self.shared.ticked()

    def register(self, live: LiveMatch) -> None:
        """A match taken over from another node: hosted here from now on."""
        self.matches[live.id] = live
        index = min(range(self.slices), key=lambda i: len(self._slices[i]))
        self._slices[index][live.id] = live
        self._slice_of[live.id] = index

    def drop(self, live: LiveMatch) -> None:
        """A match this node lost (another node owns it now)."""
        self._forget(live.id)

    async def _write(self, finished: Finished, live: LiveMatch | None) -> None:
        await super()._write(finished, live)
        if live is not None:
            await self.owner.finish(live)
