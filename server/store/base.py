"""The store interface: finished matches and replays, and the counters the per-guest limits keep.

Implementations: `server/store/memory.py` (the embedded default) and Redis (a later module). Every
method is one round trip keyed by one id (a Redis key `{match-id}:…` keeps a match's keys in one
cluster slot; a limit's key names its guest or address), and nothing needs a cross-key transaction:
recording a match is idempotent (`put_match` returns False for an id already recorded), so a result
is recorded exactly once even when two nodes race to record it, and each limit is one key's atomic
update. Times are wall-clock seconds given by the caller (several nodes share them).
"""

from __future__ import annotations

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
    """Replays and match records, and the counters of the limits."""

    @property
    def shared(self) -> bool:
        """Do other processes use this store too (then they must share the token secret)?"""
        ...

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

    # ---- limits: a token bucket, a claim and a bounded set per key, each updated atomically --------

    async def take_token(self, key: str, rate: float, burst: float, now: float) -> float:
        """Take one token from the bucket `key` (refilled at `rate` a second, at most `burst` held, full
        when first seen): 0.0 when one was taken, else the seconds until one will be there."""
        ...

    async def claim(self, key: str, holder: str, ttl: float, now: float) -> str:
        """Claim `key` for `holder` for `ttl` seconds unless another holder's claim is still live; a
        holder's claim of its own key renews it. Returns who holds the key now."""
        ...

    async def release(self, key: str, holder: str) -> None:
        """Drop `holder`'s claim on `key` (nothing happens if another holder has it)."""
        ...

    async def add_member(self, key: str, member: str, limit: int, ttl: float, now: float) -> bool:
        """Add `member` to the set `key` for `ttl` seconds unless the set already holds `limit` live
        members (a member already in it is renewed); True when it is in the set now."""
        ...

    async def remove_member(self, key: str, member: str) -> None:
        """Take `member` out of the set `key`."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...
