"""The store suite runs against every store: each test gets a fresh, empty one (Redis: its own prefix)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from server.store.base import Stores
from server.store.memory import MemoryStore
from tests.redis_helpers import redis_store

#: The stores every test of this suite runs against.
STORES = ("memory", "redis")


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
    assert kind == "redis"
    async with redis_store(archive_capacity=100, recent_limit=100, leaderboard_capacity=100) as redis:
        yield redis
