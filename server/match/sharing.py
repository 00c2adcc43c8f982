"""Matches shared with other nodes (issue 20), wired onto a hub through its hooks: every match the hub
makes is journaled and owned through a lease (server/match/owner.py), the flusher, renewer and
scanner run beside the clock (server/match/shared.py), and matches of nodes that died are taken over.

    shared = share_matches(hub, ownership, node="node-a", settings=ClusterSettings())
    await hub.start(); shared.start()
    ...
    await shared.stop(); await shared.owner.release_all()   # a hand-off (SIGTERM); then hub.stop()

The hooks: a new match is journaled and adopted (`on_new`); the hub publishes `journal_slices`
neighbouring tick slices' matches on the same tick (`Hub.group_publications`) and after the wake-up
that ticked the last slice of such a publishing group, what its matches sealed is logged and then
published (`after_group`: `MatchOwner.flush_soon`), the flusher doing what that cannot
(`MatchOwner.on_pending`); a recorded match's journal and lease are dropped
(`on_recorded`); a match taken over is hosted like one made here (`Hub.host`); a lost one is
forgotten (`Hub.forget`), its clients closed with 1001 (they reconnect, reaching its owner).
"""

from __future__ import annotations

import asyncio
import logging

from ..cluster.journal import Ownership
from ..cluster.settings import ClusterSettings
from ..logs import log_event
from ..store.base import MatchRecord
from .hub import Hub
from .live import LiveMatch
from .owner import MatchOwner
from .shared import SharedMatches

log = logging.getLogger("floe.sharing")


def share_matches(hub: Hub, ownership: Ownership, node: str, settings: ClusterSettings) -> SharedMatches:
    """Make `hub`'s matches shared (see the module docstring); start the result after the hub."""
    owner = MatchOwner(ownership, node, settings, clock=hub.now)
    shared = SharedMatches(owner, settings, hub.settings, hub.now, lambda: hub._last_subtick // hub.slices,
                           hub.host, hub.forget, hub._finished, lambda match_id: match_id in hub.matches,
                           hub.ranked_rules, hub.min_play_frames)

    def journaled(live: LiveMatch) -> None:
        live.journaled = True
        owner.adopt(live)

    async def recorded(record: MatchRecord, live: LiveMatch | None) -> None:
        if live is not None:
            await owner.finish(live)

    hub.on_new.append(journaled)
    owner.on_pending = shared.wake
    owner.on_failed = shared.failed
    owner.on_lost = shared.drop_lost
    hub.group_publications(hub.settings.journal_slices)
    hub.after_group.append(owner.flush_soon)
    hub.on_recorded.append(recorded)
    return shared


async def hand_off(shared: SharedMatches) -> None:
    """Stop sharing and give every lease up (SIGTERM): another node takes the matches over at its next
    scan; within `stop_timeout`."""
    shared.draining = True
    await shared.stop()
    try:
        await asyncio.wait_for(shared.owner.release_all(), shared.settings.stop_timeout)
    except (TimeoutError, OSError, ConnectionError) as error:
        log_event(log, logging.WARNING, "sharing.hand-off-failed", node=shared.owner.node, why=repr(error))
