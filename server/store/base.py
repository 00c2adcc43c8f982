"""Where finished matches go: one async interface, an in-memory implementation (the default).

The interface is shaped for the Redis store that comes later: every method is one round trip keyed
by a match or replay id (a Redis key `{match-id}:…` keeps a match's keys in one cluster slot), and
recording a match is idempotent (`put_match` returns False for an id already recorded), so a result
is recorded exactly once even when two nodes race to record it. Ratings will join the interface as
per-player records that note which match results they applied.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol.messages import MatchState


@dataclass(frozen=True)
class MatchRecord:
    """A match that ended (or was cancelled): who played, how it ended, and its replay's id."""

    id: str
    seats: tuple[str, ...]
    guests: tuple[str | None, ...]
    outcome: MatchState
    result: dict[str, Any] | None
    replay: str | None
    created: float
    ended: float
    frames: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def plain(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "id": self.id,
            "seats": list(self.seats),
            "guests": list(self.guests),
            "outcome": self.outcome.value,
            "result": self.result,
            "replay": self.replay,
            "created": self.created,
            "ended": self.ended,
            "frames": self.frames,
        }


class Store(Protocol):
    """Replays and match records (ratings later)."""

    async def put_replay(self, replay_id: str, data: bytes) -> None:
        """Keep a replay's msgpack bytes."""
        ...

    async def get_replay(self, replay_id: str) -> bytes | None:
        """A replay's bytes, or None."""
        ...

    async def put_match(self, record: MatchRecord) -> bool:
        """Record a finished match once: False (and nothing changes) when the id is already recorded."""
        ...

    async def get_match(self, match_id: str) -> MatchRecord | None:
        """A recorded match, or None."""
        ...

    async def recent_matches(self, limit: int) -> list[MatchRecord]:
        """The most recently recorded matches, newest first."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


class MemoryStore:
    """The embedded store: dicts in this process, bounded by evicting the oldest entries."""

    def __init__(self, capacity: int = 10_000) -> None:
        if capacity < 1:
            raise ValueError("capacity must be positive")
        self.capacity = capacity
        self._replays: OrderedDict[str, bytes] = OrderedDict()
        self._matches: OrderedDict[str, MatchRecord] = OrderedDict()

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

    async def close(self) -> None:
        return None
