"""The store's settings: the embedded store's bound, or the Redis store's URL and key prefix."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StoreSettings:
    """Which store, and its bounds."""

    #: Replays, match records and player records kept by the in-memory store (oldest evicted first).
    store_capacity: int = 10_000
    #: The Redis store's URL (None: the embedded store; `redis+cluster://host:port`: a Redis Cluster, by
    #: any one of its nodes) and its keys' prefix.
    redis_url: str | None = None
    redis_prefix: str = "floe:"
