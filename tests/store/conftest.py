"""The store suite runs against every store: each test gets a fresh, empty one."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from server.store.base import Store
from server.store.memory import MemoryStore

#: The stores every test of this suite runs against.
STORES = ("memory",)


@pytest_asyncio.fixture(params=STORES)
async def store(request: object) -> AsyncIterator[Store]:
    """A fresh, empty store of each kind."""
    kind = request.param  # type: ignore[attr-defined]
    assert kind == "memory"
    made = MemoryStore(capacity=100)
    try:
        yield made
    finally:
        await made.close()
