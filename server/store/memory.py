"""The embedded store: dicts in this process, bounded by evicting the oldest entries (the default)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .base import MatchRecord

#: Limit keys (buckets, claims, sets) kept before the least recently touched are forgotten.
MAX_LIMIT_KEYS = 100_000


class MemoryStore:
    """The embedded store: dicts in this process, bounded by evicting the oldest entries."""

    #: One process's memory: no other process sees it.
    shared = False

    def __init__(self, capacity: int = 10_000) -> None:
        if capacity < 1:
            raise ValueError("capacity must be positive")
        self.capacity = capacity
        self._replays: OrderedDict[str, bytes] = OrderedDict()
        self._matches: OrderedDict[str, MatchRecord] = OrderedDict()
        #: key -> (tokens, stamp); key -> (holder, until); key -> {member: until}.
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._claims: OrderedDict[str, tuple[str, float]] = OrderedDict()
        self._sets: OrderedDict[str, dict[str, float]] = OrderedDict()

    def _trim(self, table: OrderedDict[str, Any]) -> None:
        while len(table) > self.capacity:
            table.popitem(last=False)

    async def put_replay(self, replay_id: str, data: bytes) -> None:
        self._replays[replay_id] = bytes(data)
        self._trim(self._replays)

    async def get_replay(self, replay_id: str) -> bytes | None:
        return self._replays.get(replay_id)

    async def put_match(self, record: MatchRecord) -> bool:
        if record.id in self._matches:
            return False
        self._matches[record.id] = record
        self._trim(self._matches)
        return True

    async def get_match(self, match_id: str) -> MatchRecord | None:
        return self._matches.get(match_id)

    async def recent_matches(self, limit: int) -> list[MatchRecord]:
        return list(reversed(self._matches.values()))[: max(0, limit)]

    @staticmethod
    def _touch(table: OrderedDict[str, Any], key: str, value: Any) -> None:
        table[key] = value
        table.move_to_end(key)
        while len(table) > MAX_LIMIT_KEYS:
            table.popitem(last=False)

    async def take_token(self, key: str, rate: float, burst: float, now: float) -> float:
        tokens, stamp = self._buckets.get(key, (burst, now))
        tokens = min(burst, tokens + max(0.0, now - stamp) * rate)
        if tokens >= 1:
            self._touch(self._buckets, key, (tokens - 1, now))
            return 0.0
        self._touch(self._buckets, key, (tokens, now))
        return (1 - tokens) / rate

    async def claim(self, key: str, holder: str, ttl: float, now: float) -> str:
        held = self._claims.get(key)
        if held is not None and held[0] != holder and held[1] > now:
            return held[0]
        self._touch(self._claims, key, (holder, now + ttl))
        return holder

    async def release(self, key: str, holder: str) -> None:
        held = self._claims.get(key)
        if held is not None and held[0] == holder:
            del self._claims[key]

    async def add_member(self, key: str, member: str, limit: int, ttl: float, now: float) -> bool:
        members = {m: until for m, until in self._sets.get(key, {}).items() if until > now}
        if member not in members and len(members) >= limit:
            self._touch(self._sets, key, members)
            return False
        members[member] = now + ttl
        self._touch(self._sets, key, members)
        return True

    async def remove_member(self, key: str, member: str) -> None:
        members = self._sets.get(key)
        if members is not None:
            members.pop(member, None)

    async def close(self) -> None:
        return None
