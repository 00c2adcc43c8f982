"""The store suite runs against every store: each test gets a fresh, empty one (Redis, and a three-master
Redis Cluster started for the session: its own prefix)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from redis.asyncio.cluster import RedisCluster

from server.store.base import Stores
from server.store.memory import MemoryStore
from server.store.redis import RedisStore
from tests.cluster_helpers import RunningCluster, redis_cluster
from tests.redis_helpers import redis_store, unique_prefix

#: The stores every test of this suite runs against.
STORES = ("memory", "redis", "cluster")


@pytest.fixture(scope="session")
def cluster() -> Iterator[RunningCluster]:
    """A three-master Redis Cluster for the session (each store on its own prefix)."""
    with redis_cluster() as running:
        yield running


@pytest_asyncio.fixture(params=STORES)
async def store(request: object) -> AsyncIterator[Stores]:
    """A fresh, empty store of each kind (the Redis one with small bounds, to see them hold)."""
    kind = request.param  # type: ignore[attr-defined]
    if kind == "memory":
        made = MemoryStore(capacity=100)
        try:
            yield made
        finally:
            await made.close()
        return
    if kind == "cluster":
        running = request.getfixturevalue("cluster")  # type: ignore[attr-defined]
        client = RedisCluster.from_url(running.url)
        made_cluster = RedisStore(client, unique_prefix(), archive_capacity=100,
                                  recent_limit=100, leaderboard_capacity=100)
        try:
            yield made_cluster
        finally:
            await made_cluster.close()
        return
    assert kind == "redis"
    async with redis_store(archive_capacity=100, recent_limit=100, leaderboard_capacity=100) as redis:
        yield redis
