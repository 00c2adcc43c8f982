"""The stores by concern: replays, finished matches, players and their ratings, the ranked results
still to apply, the daily boards, and the limits' primitives (rate tokens, claims, members, generations).

Each concern is a small protocol with two implementations, embedded (`server/store/memory.py`, the
default) and Redis (`server/store/redis.py`); `Stores` is the bundle of one of each that the composition
root builds and passes around (each part of the server takes only the stores it uses). Every
method is keyed by one id (a Redis key `{match-id}:…` keeps a match's keys in one cluster slot, a
player's record is keyed by the player, a day's board by the day; a limit's key names its guest or
address), and nothing needs a cross-slot transaction: recording a match is idempotent (`put_match`
returns False for an id already recorded), so a result is recorded exactly once even when two nodes
race to record it; a rating update is one player record's atomic read-modify-write that notes the
match it applied (server/match/ratings.py), so it is exactly-once per record; each limit is one
key's atomic update. Times are wall-clock seconds given by the caller (several nodes share them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol.messages import MatchState

from .players import DailyEntry, DailyStored, PlayerRecord, run_day

#: A change to one player's record: the record as stored (None: none yet) → the new one, or None to
#: leave it. It may run more than once (a concurrent write makes the store retry), so it must depend
#: on its argument only.
PlayerChange = Callable[[PlayerRecord | None], PlayerRecord | None]


class StoreError(Exception):
    """The store could not do what was asked (unreachable, or a record too contended to update)."""


#: The ruleset of a record written before records named theirs: every match was pengo-versus then.
LEGACY_RULESET = "pengo-versus"


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
    #: A ranked match (its result moves the players' ratings).
    ranked: bool = False
    #: A ranked match that ended before a rated result's minimum of play (recorded as cancelled).
    aborted: bool = False
    #: Played from a room (by invitation): its replay is reachable by id but not listed.
    private: bool = False
    #: The ruleset the match was played under (rules/registry.py's name; its version is the replay's).
    ruleset: str = LEGACY_RULESET
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
            "ranked": self.ranked,
            "aborted": self.aborted,
            "private": self.private,
            "ruleset": self.ruleset,
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> MatchRecord:
        """Rebuild from `plain()` (a store's own data)."""
        return cls(
            id=str(data["id"]),
            seats=tuple(data["seats"]),
            guests=tuple(data["guests"]),
            outcome=MatchState(data["outcome"]),
            result=data["result"],
            replay=data["replay"],
            created=float(data["created"]),
            ended=float(data["ended"]),
            frames=int(data["frames"]),
            ranked=bool(data.get("ranked", False)),
            aborted=bool(data.get("aborted", False)),
            private=bool(data.get("private", False)),
            ruleset=str(data.get("ruleset", LEGACY_RULESET)),
        )


class ReplayStore(Protocol):
    """Finished matches' replays (a daily run's replay is the daily boards': see `Stores.replay`)."""

    async def put_replay(self, replay_id: str, data: bytes) -> None:
        """Keep a replay's msgpack bytes."""
        ...

    async def get_replay(self, replay_id: str) -> bytes | None:
        """A match's replay bytes, or None."""
        ...


class MatchStore(Protocol):
    """The records of finished matches."""

    async def put_match(self, record: MatchRecord) -> bool:
        """Record a finished match once: False (and nothing changes) when the id is already recorded."""
        ...

    async def get_match(self, match_id: str) -> MatchRecord | None:
        """A recorded match, or None."""
        ...

    async def recent_matches(self, limit: int) -> list[MatchRecord]:
        """The most recently recorded matches, newest first."""
        ...


class PlayerStore(Protocol):
    """Players: one record per guest, updated atomically; the leaderboard follows the records."""

    async def get_player(self, guest_id: str) -> PlayerRecord | None:
        """A player's record, or None."""
        ...

    async def update_player(self, guest_id: str, change: PlayerChange) -> PlayerRecord | None:
        """Apply `change` to a player's record atomically (see PlayerChange); the record as it stands
        after (None when there is none). The leaderboard takes the new rating."""
        ...

    async def leaderboard(self, provisional: bool, offset: int, limit: int) -> tuple[list[PlayerRecord], int]:
        """A page of players by rating (highest first): the ranked ones, or the provisional ones
        (shown apart); and how many there are in that list."""
        ...


class RankedLedger(Protocol):
    """Ranked results still to apply (a journal that survives a restart)."""

    async def note_ranked(self, match_id: str, now: float) -> None:
        """Note a ranked match whose result is still to be applied to its players' ratings."""
        ...

    async def pending_ranked(self, limit: int) -> list[tuple[str, float]]:
        """The oldest noted ranked matches still to apply: (match id, when noted)."""
        ...

    async def done_ranked(self, match_id: str) -> None:
        """The ranked match's result was applied (or there is none to apply)."""
        ...


class DailyStore(Protocol):
    """Daily boards: one guest's best verified run per day, its replay within a bytes budget."""

    async def put_daily(self, day: str, entry: DailyEntry, replay: bytes, budget: int) -> DailyStored:
        """Keep a verified run whose replay id is `entry.replay` (`daily_run_id`), atomically.

        A run whose id the day has seen already is refused (`duplicate`, nothing changes): a run is
        submitted once, and a kept replay is never overwritten. Otherwise the id is noted; if the run
        beats the guest's best it becomes the guest's entry and its `replay` bytes are kept (the old
        best's are dropped); a run that does not is not kept. Past `budget` bytes of the day's kept
        replays, the lowest-ranked runs' replays are dropped (their entries keep the score, with
        `replay` None) until the day is within it.
        """
        ...

    async def daily_board(self, day: str, offset: int, limit: int) -> tuple[list[DailyEntry], int]:
        """A page of the day's board (best first) and how many guests are on it."""
        ...

    async def daily_entry(self, day: str, guest_id: str) -> DailyEntry | None:
        """A guest's best run of the day, or None."""
        ...

    async def run_replay(self, day: str, run_id: str) -> bytes | None:
        """A run's replay bytes while its day keeps them, or None."""
        ...


class LimitStore(Protocol):
    """The limits' primitives: a token bucket, a claim, a bounded set and a generation per key, each
    updated atomically."""

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

    async def generation(self, key: str, now: float) -> int:
        """The generation `key` holds (0 when none is live): the oldest one still accepted
        (server/tokens.py: which tokens of a guest are still good)."""
        ...

    async def advance_generation(self, key: str, expected: int, new: int, ttl: float, now: float) -> bool:
        """Set `key` to `new` for `ttl` seconds if it holds `expected` (0: none live); True when set."""
        ...


class Stores:
    """One store of each concern, embedded or on Redis, as the composition root builds them."""

    #: Do other processes use these stores too (then they must share the token secret)?
    shared: bool = False

    def __init__(self, replays: ReplayStore, matches: MatchStore, players: PlayerStore, ranked: RankedLedger,
                 daily: DailyStore, limits: LimitStore) -> None:
        self.replays = replays
        self.matches = matches
        self.players = players
        self.ranked = ranked
        self.daily = daily
        self.limits = limits

    async def replay(self, replay_id: str) -> bytes | None:
        """Any replay by its id: a daily run's from its day's board (`daily_run_id` names the day), a
        match's from the replays."""
        day = run_day(replay_id)
        if day is not None:
            return await self.daily.run_replay(day, replay_id)
        return await self.replays.get_replay(replay_id)

    async def close(self) -> None:
        """Release connections."""
        return None
