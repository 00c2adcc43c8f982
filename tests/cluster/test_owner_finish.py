"""A match whose journal and lease are being dropped (`MatchOwner.finish`, after its record is written)
is not this node's any more from the start: a renewal or a due snapshot that meets its lease gone
while the finish is still under way does not count it as lost (which would drop the ended match from
the hub before its delayed spectators' stream played out, the `over` never sent)."""

from __future__ import annotations

import asyncio

import pytest

from server.cluster.journal import Lease
from server.match.live import Finished, LiveMatch, Seat
from server.match.owner import MatchOwner
from tests.cluster.conftest import Backend
from tests.cluster.test_takeover_match import SETTINGS
from tests.cluster.test_takeover_rulesets import drive
from tests.server.conftest import fast_config
from tests.server.helpers import until_awaited


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["memory", "redis"], indirect=True)
async def test_a_renewal_or_snapshot_refused_while_a_match_is_finished_does_not_lose_it(
        backend: Backend) -> None:
    config = fast_config()
    ended: list[Finished] = []
    live = LiveMatch(config.match, [Seat("a", bot="lazy"), Seat("b", bot="lazy")], 0.0, ended.append,
                     "m-finishing", 77, created_wall=7.0, journaled=True)
    ownership = backend.ownership(SETTINGS)
    owner = MatchOwner(ownership, "node-a", SETTINGS)
    owner.adopt(live)
    await drive(live, owner, range(0, 30))
    owned = owner.owned[live.id]
    assert owned.lease is not None and owner.batches > 0
    owner._snapshots[live.id] = owned  # a snapshot due, for the flusher's next round
    snapshots = owner.snapshots
    gate = asyncio.Event()
    drop = ownership.finish

    async def dropped_then_held(lease: Lease) -> None:  # the journal and lease gone, the call not over
        await drop(lease)
        await gate.wait()

    ownership.finish = dropped_then_held  # type: ignore[method-assign]
    finishing = asyncio.create_task(owner.finish(live))

    async def lease_gone() -> bool:
        return await ownership.holder(live.id) is None

    await until_awaited(lease_gone, 10, "the lease dropped")
    assert await owner.renew(1.0) == []
    assert await owner.flush(1.0) == []
    gate.set()
    await finishing
    assert owner.snapshots == snapshots, "no snapshot written for a match being finished"
    assert live.id not in owner.owned and live.id not in owner.pending
