"""The embedded stores: dicts in this process, bounded by evicting the oldest entries (the default).

Bounds: `capacity` replays, match records and player records each (the least recently written go
first), MAX_LIMIT_KEYS limit keys, DAYS_KEPT × BOARDS_PER_DAY daily boards, each keeping its runs'
replays within the bytes budget `put_daily` is given; MAX_QUEUES ranked queues, each of at most the
capacity `join` is given (the pairings noted there are dropped after `look`'s `stale`). Everything is
gone when the process ends.
"""

from __future__ import annotations

import bisect
import json
import time
from collections import OrderedDict
from dataclasses import replace
from typing import Any

from .base import (
    MatchRecord,
    Pairing,
    PlayerChange,
    ProposedPair,
    QueueEntry,
    QueueView,
    RoomPlace,
    Stores,
)
from .players import DailyEntry, DailyStored, PlayerRecord, board_score

#: Limit keys (buckets, claims, sets) kept before the least recently touched are forgotten.
MAX_LIMIT_KEYS = 100_000
#: Days of daily boards kept (the oldest board is forgotten first).
DAYS_KEPT = 31
#: Daily boards a day has at most: the node's daily ruleset's one and a dealer's (Payload: easy, hard),
#: with room for one more dealer's two.
BOARDS_PER_DAY = 5
#: Ranked queues kept (one per ruleset; the least recently joined is forgotten first).
MAX_QUEUES = 64


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
    """Player records (the `capacity` most recently updated) and two leaderboards per ruleset."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = _check_capacity(capacity)
        self._players: OrderedDict[str, PlayerRecord] = OrderedDict()
        #: (ruleset, provisional) → its board (rulesets: the registry's names the server rates).
        self._boards: dict[tuple[str, bool], _Ranking] = {}

    def _board(self, ruleset: str, provisional: bool) -> _Ranking:
        return self._boards.setdefault((ruleset, provisional), _Ranking())

    async def get_player(self, guest_id: str) -> PlayerRecord | None:
        return self._players.get(guest_id)

    async def update_player(self, guest_id: str, change: PlayerChange) -> PlayerRecord | None:
        held = self._players.get(guest_id)
        new = change(held)
        if new is None:
            return held
        self._players[guest_id] = new
        self._players.move_to_end(guest_id)
        for ruleset, standing in new.ratings.items():
            self._board(ruleset, not standing.provisional).discard(guest_id)
            if standing.played:
                self._board(ruleset, standing.provisional).put(guest_id, standing.glicko.rating)
            else:  # no rated game yet: not on a board
                self._board(ruleset, standing.provisional).discard(guest_id)
        while len(self._players) > self.capacity:
            gone, _ = self._players.popitem(last=False)
            for board in self._boards.values():
                board.discard(gone)
        return new

    async def leaderboard(
        self, ruleset: str, provisional: bool, offset: int, limit: int
    ) -> tuple[list[PlayerRecord], int]:
        board = self._boards.get((ruleset, provisional))
        if board is None:
            return [], 0
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
    """The daily boards of the last DAYS_KEPT days (a board per key: server/http/daily.py `board_key`; at
    most DAYS_KEPT × BOARDS_PER_DAY), each keeping its runs' replays within its budget."""

    def __init__(self) -> None:
        self._days: OrderedDict[str, _Day] = OrderedDict()

    def _day(self, day: str) -> _Day:
        held = self._days.get(day)
        if held is None:
            held = self._days[day] = _Day()
            while len(self._days) > DAYS_KEPT * BOARDS_PER_DAY:
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


class _Queue:
    """One ranked queue: entries by guest (as encoded), the nodes' last looks, the noted pairings."""

    def __init__(self) -> None:
        self.entries: dict[str, str] = {}
        self.nodes: dict[str, float] = {}
        self.pairings: dict[str, tuple[str, float]] = {}
        self.version = 0


class MemoryQueues:
    """The ranked queues of one process (server/store/base.py's QueueStore), MAX_QUEUES of them."""

    def __init__(self) -> None:
        self._queues: OrderedDict[str, _Queue] = OrderedDict()

    def _queue(self, name: str) -> _Queue:
        queue = self._queues.get(name)
        if queue is None:
            queue = self._queues[name] = _Queue()
            while len(self._queues) > MAX_QUEUES:
                self._queues.popitem(last=False)
        return queue

    async def join(self, queue: str, entry: QueueEntry, capacity: int, now: float) -> bool:
        held = self._queue(queue)
        self._queues.move_to_end(queue)
        if entry.guest in held.entries or len(held.entries) >= capacity:
            return False
        held.entries[entry.guest] = entry.encoded()
        held.nodes[entry.node] = now
        held.pairings.pop(entry.guest, None)
        held.version += 1
        return True

    async def leave(self, queue: str, guest: str) -> bool:
        held = self._queue(queue)
        if held.entries.pop(guest, None) is None:
            return False
        held.version += 1
        return True

    async def look(self, queue: str, node: str, guests: tuple[str, ...], known: int, now: float,
                   stale: float) -> QueueView:
        held = self._queue(queue)
        held.nodes[node] = now
        dead = {name for name, seen in held.nodes.items() if seen < now - stale}
        if dead:
            for name in dead:
                del held.nodes[name]
            gone = [guest for guest, text in held.entries.items()
                    if QueueEntry.from_plain(json.loads(text)).node in dead]
            for guest in gone:
                del held.entries[guest]
            held.version += 1
        for guest in [g for g, (_, at) in held.pairings.items() if at < now - stale]:
            del held.pairings[guest]
        entries = None
        if held.version != known:
            entries = tuple(QueueEntry.from_plain(json.loads(text)) for text in held.entries.values())
        pairings = tuple(Pairing.decoded(held.pairings[g][0]) if g in held.pairings else None for g in guests)
        return QueueView(held.version, entries, pairings)

    async def take_pairs(self, queue: str, pairs: tuple[ProposedPair, ...], now: float) -> tuple[bool, ...]:
        held = self._queue(queue)
        taken: list[bool] = []
        for pair in pairs:
            first, second = pair.first, pair.second
            if (held.entries.get(first.guest) != first.encoded()
                    or held.entries.get(second.guest) != second.encoded()):
                taken.append(False)
                continue
            del held.entries[first.guest], held.entries[second.guest]
            for entry, pairing in ((first, pair.first_pairing), (second, pair.second_pairing)):
                if pairing is not None:
                    held.pairings[entry.guest] = (pairing.encoded(), now)
            held.version += 1
            taken.append(True)
        return tuple(taken)

    async def settle(self, queue: str, guest: str, pairing: Pairing, now: float) -> None:
        held = self._queue(queue)
        if guest in held.pairings:
            held.pairings[guest] = (pairing.encoded(), now)

    async def done(self, queue: str, guest: str) -> None:
        self._queue(queue).pairings.pop(guest, None)


class MemoryLobby:
    """The lobby's shared parts in one process (server/store/base.py's LobbyStore): MAX_LIMIT_KEYS rooms
    and answers each (the oldest go first), and mailboxes of the `limit` their asks give."""

    def __init__(self) -> None:
        self._live: dict[str, tuple[float, list[dict[str, Any]]]] = {}
        #: invite -> (place, until); node -> [(request, until)]; ask id -> (reply, until).
        self._rooms: OrderedDict[str, tuple[RoomPlace, float]] = OrderedDict()
        self._asks: dict[str, list[tuple[str, float]]] = {}
        self._answers: OrderedDict[str, tuple[str, float]] = OrderedDict()

    @staticmethod
    def _now() -> float:
        return time.time()

    async def put_live(self, node: str, entries: list[dict[str, Any]], until: float) -> None:
        if entries:
            self._live[node] = (until, [dict(entry) for entry in entries])
        else:
            self._live.pop(node, None)

    async def live_elsewhere(self, node: str, now: float) -> list[dict[str, Any]]:
        for lapsed in [name for name, (until, _) in self._live.items() if until < now]:
            del self._live[lapsed]
        return [dict(entry) for name, (_, entries) in self._live.items() if name != node for entry in entries]

    async def put_room(self, invite: str, place: RoomPlace, ttl: float) -> None:
        self._rooms[invite] = (place, self._now() + ttl)
        self._rooms.move_to_end(invite)
        while len(self._rooms) > MAX_LIMIT_KEYS:
            self._rooms.popitem(last=False)

    async def find_room(self, invite: str) -> RoomPlace | None:
        held = self._rooms.get(invite)
        return held[0] if held is not None and held[1] >= self._now() else None

    async def drop_room(self, invite: str) -> None:
        self._rooms.pop(invite, None)

    async def ask(self, node: str, request: str, limit: int, ttl: float) -> bool:
        now = self._now()
        box = self._asks.setdefault(node, [])
        box[:] = [(text, until) for text, until in box if until >= now]
        if len(box) >= limit:
            return False
        box.append((request, now + ttl))
        return True

    async def take_asks(self, node: str, limit: int) -> list[str]:
        box = self._asks.get(node, [])
        taken, box[:] = box[:limit], box[limit:]
        now = self._now()
        return [text for text, until in taken if until >= now]

    async def answer(self, ask_id: str, reply: str, ttl: float) -> None:
        self._answers[ask_id] = (reply, self._now() + ttl)
        while len(self._answers) > MAX_LIMIT_KEYS:
            self._answers.popitem(last=False)

    async def take_answer(self, ask_id: str) -> str | None:
        held = self._answers.pop(ask_id, None)
        return held[0] if held is not None and held[1] >= self._now() else None


class MemoryStore(Stores):
    """The embedded stores, one of each concern: `capacity` replays, match records, player records
    and pending ranked results each."""

    #: One process's memory: no other process sees it.
    shared = False

    def __init__(self, capacity: int = 10_000) -> None:
        _check_capacity(capacity)
        self.capacity = capacity
        super().__init__(MemoryReplays(capacity), MemoryMatches(capacity), MemoryPlayers(capacity),
                         MemoryRankedLedger(capacity), MemoryDaily(), MemoryLimits(), MemoryQueues(),
                         MemoryLobby())
