"""A shared store that fails for a while, with errors of its client's own kinds (redis-py's
ConnectionError is not the built-in one): the node's flusher, renewer and scanner log the outage and
go on; once the store answers again the match is logged and published again and its lease renewed,
and nothing the failed rounds sealed was published unlogged."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from server.cluster.journal import Appended, Appending, Lease
from server.cluster.memory import MemoryBus, MemoryOwnership
from server.match.live import LiveMatch
from server.match.owner import Owned
from server.node import Node
from tests.cluster.conftest import GENEROUS
from tests.server.conftest import fast_config
from tests.server.helpers import until

pytestmark = pytest.mark.asyncio

#: Generous leases, renewed and scanned often (each task meets the outage within a few rounds).
SETTINGS = replace(GENEROUS, lease_renew_every=0.05, orphan_scan_every=0.05)


class FailingOwnership(MemoryOwnership):
    """The embedded ownership, failing every append, renewal and scan while `down`."""

    def __init__(self) -> None:
        super().__init__(SETTINGS)
        self.down = False
        self.refused = {"append": 0, "renew": 0, "scan": 0}

    def _check(self, what: str) -> None:
        if self.down:
            self.refused[what] += 1
            raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    async def append_all(self, items: Sequence[Appending]) -> list[Exception | None]:
        self._check("append")
        return await super().append_all(items)

    def append_soon(self, items: Sequence[Appending], done: Appended) -> bool:
        if self.down:  # as the line does: the request is written, its reply is the error
            self.refused["append"] += 1
            done(RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."))
            return True
        return super().append_soon(items, done)

    async def renew_all(self, leases: Sequence[Lease]) -> list[Exception | None]:
        self._check("renew")
        return await super().renew_all(leases)

    async def orphans(self, limit: int) -> list[str]:
        self._check("scan")
        return await super().orphans(limit)


async def test_the_node_s_background_tasks_outlive_an_outage_of_the_store() -> None:
    ownership = FailingOwnership()
    config = fast_config().override(cluster=SETTINGS).with_time_limit(600)  # the duel outlasts the test
    node = Node(config, ownership=ownership, bus=MemoryBus(SETTINGS))
    await node.start()
    try:
        shared = node.shared
        assert shared is not None
        lost: list[str] = []
        lose = shared.owner._lose

        def counted_lose(owned: Owned, why: str) -> LiveMatch:
            lost.append(why)
            return lose(owned, why)

        shared.owner._lose = counted_lose  # type: ignore[method-assign]
        live = node.hub.create_bot_duel("lazy", "lazy")
        await until(lambda: shared.owner.batches > 5, 20, "the match logged")
        ownership.down = True
        await until(lambda: all(count >= 2 for count in ownership.refused.values()), 20,
                    "appends, renewals and scans refused")
        published = live.players.head
        await until(lambda: len(live.sealed) > 2, 20, "publications sealed while the store is down")
        assert live.players.head == published  # nothing sealed went out unlogged
        assert not any(task.done() for task in shared._tasks)
        ownership.down = False
        logged = shared.owner.batches
        await until(lambda: shared.owner.batches > logged + 5 and not live.sealed, 20,
                    "logged and published again")
        assert live.players.head > published
        assert lost == []
        if live.ended_at is None:  # (a lazy duel may end on its own, its lease then dropped)
            owned = shared.owner.owned[live.id]
            renewed = owned.renewed
            await until(lambda: owned.renewed > renewed or live.ended_at is not None, 20,
                        "the lease renewed again")
        assert lost == []
        assert not any(task.done() for task in shared._tasks)
    finally:
        await node.stop()
