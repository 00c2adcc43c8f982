"""The embedded stores: dicts in this process, bounded by evicting the oldest entries (the default).

Bounds: `capacity` replays, match records and player records each (the least recently written go
first), MAX_LIMIT_KEYS limit keys, DAYS_KEPT daily boards, each keeping its runs' replays within the
bytes budget `put_daily` is given. Everything is gone when the process ends.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from dataclasses import replace
from typing import Any

from .base import MatchRecord, PlayerChange, Stores
from .players import DailyEntry, DailyStored, PlayerRecord, board_score

#: Limit keys (buckets, claims, sets) kept before the least recently touched are forgotten.
MAX_LIMIT_KEYS = 100_000
#: Daily boards kept (the oldest day is forgotten first).
DAYS_KEPT = 31


class _Ranking:
    """Members ordered by a score, highest first (a sorted set): bisect on (−score, member)."""

    def __init__(self) -> None:
        self._order: list[tuple[float, str]] = []
        self._score: dict[str, float] = {}

    def put(self, member: str, score: float) -> None:
        self.discard(member)
        self._score[member] = score
        bisect.insort(self._order, (-score, member))

    def discard(self, member: str) -> None:
        score = self._score.pop(member, None)
        if score is not None:
            index = bisect.bisect_left(self._order, (-score, member))
            del self._order[index]

    def lowest(self) -> str:
        return self._order[-1][1]

    def page(self, offset: int, limit: int) -> list[str]:
        return [member for _, member in self._order[max(0, offset) : max(0, offset) + max(0, limit)]]

    def __len__(self) -> int:
        return len(self._order)


class _Day:
    """One day's board, its runs' kept replays (within a bytes budget) and the run ids it has seen."""

    def __init__(self) -> None:
        self.entries: dict[str, DailyEntry] = {}
        self.board = _Ranking()
        self.replays: dict[str, bytes] = {}
        #: Kept replays by their run's board score (the lowest is dropped first), and whose they are.
        self.kept = _Ranking()
        self.owners: dict[str, str] = {}
        self.kept_bytes = 0
        self.seen: set[str] = set()

    def drop(self, run_id: str) -> None:
        """Forget a kept replay; its run's entry (if it is still the guest's) keeps no replay."""
        self.kept_bytes -= len(self.replays.pop(run_id))
        self.kept.discard(run_id)
        guest = self.owners.pop(run_id)
        entry = self.entries.get(guest)
        if entry is not None and entry.replay == run_id:
            self.entries[guest] = replace(entry, replay=None)


def _check_capacity(capacity: int) -> int:
    if capacity < 1:
        raise ValueError("capacity must be positive")
    return capacity


def _trim(table: OrderedDict[str, Any], capacity: int) -> None:
    while len(table) > capacity:
        table.popitem(last=False)


class MemoryReplays:
    """Match replays, the `capacity` most recently written."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = _check_capacity(capacity)
        self._replays: OrderedDict[str, bytes] = OrderedDict()

    async def put_replay(self, replay_id: str, data: bytes) -> None:
        self._replays[replay_id] = bytes(data)
        _trim(self._replays, self.capacity)

    async def get_replay(self, replay_id: str) -> bytes | None:
        return self._replays.get(replay_id)


class MemoryMatches:
    """Match records, the `capacity` most recently written."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = _check_capacity(capacity)
        self._matches: OrderedDict[str, MatchRecord] = OrderedDict()

    async def put_match(self, record: MatchRecord) -> bool:
        if record.id in self._matches:
            return False
        self._matches[record.id] = record
        _trim(self._matches, self.capacity)
        return True

    async def get_match(self, match_id: str) -> MatchRecord | None:
        return self._matches.get(match_id)

    async def recent_matches(self, limit: int) -> list[MatchRecord]:
        return list(reversed(self._matches.values()))[: max(0, limit)]


class MemoryPlayers:
    """Player records (the `capacity` most recently updated) and the two leaderboards."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = _check_capacity(capacity)
        self._players: OrderedDict[str, PlayerRecord] = OrderedDict()
        self._boards = {False: _Ranking(), True: _Ranking()}

    async def get_player(self, guest_id: str) -> PlayerRecord | None:
        return self._players.get(guest_id)

    async def update_player(self, guest_id: str, change: PlayerChange) -> PlayerRecord | None:
        held = self._players.get(guest_id)
        new = change(held)
        if new is None:
            return held
        self._players[guest_id] = new
        self._players.move_to_end(guest_id)
        self._boards[not new.provisional].discard(guest_id)
        if new.played:
            self._boards[new.provisional].put(guest_id, new.glicko.rating)
        else:  # no rated game yet (a dodger's cooldown, a dodged player's note): not on a board
            self._boards[new.provisional].discard(guest_id)
        while len(self._players) > self.capacity:
            gone, _ = self._players.popitem(last=False)
            for board in self._boards.values():
                board.discard(gone)
        return new

    async def leaderboard(self, provisional: bool, offset: int, limit: int) -> tuple[list[PlayerRecord], int]:
        board = self._boards[provisional]
        return [self._players[guest] for guest in board.page(offset, limit)], len(board)


class MemoryRankedLedger:
    """Ranked matches whose result is still to apply, at most `capacity` (the oldest dropped)."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = _check_capacity(capacity)
        self._pending: dict[str, float] = {}

    async def note_ranked(self, match_id: str, now: float) -> None:
        self._pending.setdefault(match_id, now)
        while len(self._pending) > self.capacity:
            del self._pending[min(self._pending, key=self._pending.__getitem__)]

    async def pending_ranked(self, limit: int) -> list[tuple[str, float]]:
        return sorted(self._pending.items(), key=lambda item: (item[1], item[0]))[: max(0, limit)]

    async def done_ranked(self, match_id: str) -> None:
        self._pending.pop(match_id, None)


class MemoryDaily:
    """The daily boards of the last DAYS_KEPT days, each keeping its runs' replays within its budget."""

    def __init__(self) -> None:
        self._days: OrderedDict[str, _Day] = OrderedDict()

    def _day(self, day: str) -> _Day:
        held = self._days.get(day)
        if held is None:
            held = self._days[day] = _Day()
            while len(self._days) > DAYS_KEPT:
                self._days.popitem(last=False)
        return held

    async def put_daily(self, day: str, entry: DailyEntry, replay: bytes, budget: int) -> DailyStored:
        held = self._day(day)
        run_id = entry.replay
        assert run_id is not None
        best = held.entries.get(entry.guest)
        if run_id in held.seen:
            return DailyStored(best, duplicate=True)
        held.seen.add(run_id)
        if not entry.beats(best):
            return DailyStored(best)
        if best is not None and best.replay is not None:
            held.drop(best.replay)
        score = board_score(entry)
        held.entries[entry.guest] = entry
        held.board.put(entry.guest, score)
        held.replays[run_id] = bytes(replay)
        held.kept.put(run_id, score)
        held.owners[run_id] = entry.guest
        held.kept_bytes += len(replay)
        while held.kept_bytes > budget:
            held.drop(held.kept.lowest())
        return DailyStored(held.entries[entry.guest])

    async def daily_board(self, day: str, offset: int, limit: int) -> tuple[list[DailyEntry], int]:
        held = self._days.get(day)
        if held is None:
            return [], 0
        return [held.entries[guest] for guest in held.board.page(offset, limit)], len(held.board)

    async def daily_entry(self, day: str, guest_id: str) -> DailyEntry | None:
        held = self._days.get(day)
        return None if held is None else held.entries.get(guest_id)

    async def run_replay(self, day: str, run_id: str) -> bytes | None:
        held = self._days.get(day)
        return None if held is None else held.replays.get(run_id)


class MemoryLimits:
    """Buckets, claims, sets and generations, MAX_LIMIT_KEYS keys of each (the least recently touched go)."""

    def __init__(self) -> None:
        #: key -> (tokens, stamp); key -> (holder, until); key -> {member: until}.
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._claims: OrderedDict[str, tuple[str, float]] = OrderedDict()
        self._sets: OrderedDict[str, dict[str, float]] = OrderedDict()
        #: key -> (generation, until).
        self._generations: OrderedDict[str, tuple[int, float]] = OrderedDict()

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

    async def generation(self, key: str, now: float) -> int:
        held = self._generations.get(key)
        return held[0] if held is not None and held[1] > now else 0

    async def advance_generation(self, key: str, expected: int, new: int, ttl: float, now: float) -> bool:
        if await self.generation(key, now) != expected:
            return False
        self._touch(self._generations, key, (new, now + ttl))
        return True


class MemoryStore(Stores):
    """The embedded stores, one of each concern: `capacity` replays, match records, player records
    and pending ranked results each."""

    #: One process's memory: no other process sees it.
    shared = False

    def __init__(self, capacity: int = 10_000) -> None:
        _check_capacity(capacity)
        self.capacity = capacity
        super().__init__(MemoryReplays(capacity), MemoryMatches(capacity), MemoryPlayers(capacity),
                         MemoryRankedLedger(capacity), MemoryDaily(), MemoryLimits())
