"""Redis for the tests: the server at FLOE_TEST_REDIS (default redis://127.0.0.1:6379/0), one key
prefix per test (other suites share this Redis), and the skip rule: a test that needs Redis is
skipped only outside CI (`CI` is not "true") when nothing answers; under CI it fails instead."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import redis.asyncio as aioredis

from server.store.redis import RedisStore

REDIS_URL = os.environ.get("FLOE_TEST_REDIS", "redis://127.0.0.1:6379/0")


async def redis_or_skip() -> aioredis.Redis:
    """A client of the test Redis; skips the test when it does not answer (never under CI=true)."""
    client = aioredis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        await client.ping()
    except (OSError, aioredis.ConnectionError) as error:
        await client.aclose()
        if os.environ.get("CI") == "true":
            raise AssertionError(f"CI=true and Redis at {REDIS_URL} does not answer: {error}") from None
        pytest.skip(f"Redis at {REDIS_URL} does not answer ({error}); CI runs these")
    return client


def unique_prefix() -> str:
    """A key prefix no other test uses."""
    return f"floe-test:{uuid.uuid4().hex[:12]}:"


async def drop_prefix(client: aioredis.Redis, prefix: str) -> None:
    """Delete every key under `prefix`."""
    async for key in client.scan_iter(match=f"{prefix}*", count=500):
        await client.delete(key)


@asynccontextmanager
async def redis_store(prefix: str | None = None, **bounds: object) -> AsyncIterator[RedisStore]:
    """A RedisStore on its own prefix (given, or a fresh one), its keys deleted afterwards."""
    probe = await redis_or_skip()
    await probe.aclose()
    prefix = prefix or unique_prefix()
    store = RedisStore.from_url(REDIS_URL, prefix, **bounds)
    try:
        yield store
    finally:
        cleaner = aioredis.Redis.from_url(REDIS_URL)
        await drop_prefix(cleaner, prefix)
        await cleaner.aclose()
        await store.close()
