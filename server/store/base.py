"""The stores by concern: replays, finished matches, players and their ratings, the ranked results
still to apply, the daily boards, and the limits' primitives (rate tokens, claims, members, generations).

The ranked queues (`QueueStore`) are shared the same way: one queue per ruleset, whose keys share
one slot, paired by one atomic script (see the protocol); so are the lobby's live list and rooms
(`LobbyStore`: each node's listed matches, rooms by invitation, a mailbox of joins per node).

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

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol.messages import MatchState

from .players import LEGACY_RULESET, DailyEntry, DailyStored, PlayerRecord, run_day

#: A change to one player's record: the record as stored (None: none yet) → the new one, or None to
#: leave it. It may run more than once (a concurrent write makes the store retry), so it must depend
#: on its argument only.
PlayerChange = Callable[[PlayerRecord | None], PlayerRecord | None]


class StoreError(Exception):
    """The store could not do what was asked (unreachable, or a record too contended to update)."""


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

    async def leaderboard(
        self, ruleset: str, provisional: bool, offset: int, limit: int
    ) -> tuple[list[PlayerRecord], int]:
        """A page of players by their rating in `ruleset` (highest first): the ranked ones, or the
        provisional ones (shown apart); and how many there are in that list. A player is on a
        ruleset's board once it played a rated game of it."""
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


@dataclass(frozen=True)
class QueueEntry:
    """A guest waiting in a ranked queue, as every node sees it: who, at what rating, since when (wall
    seconds), on which node, from which client address, and the matchmaker's tags (who it is) and
    avoid (who it must not be paired with)."""

    guest: str
    name: str
    rating: float
    rd: float
    provisional: bool
    since: float
    node: str
    address: str
    tags: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()

    def plain(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {"guest": self.guest, "name": self.name, "rating": self.rating, "rd": self.rd,
                "provisional": self.provisional, "since": self.since, "node": self.node,
                "address": self.address, "tags": list(self.tags), "avoid": list(self.avoid)}

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> QueueEntry:
        """Rebuild from `plain()`."""
        return cls(str(data["guest"]), str(data["name"]), float(data["rating"]), float(data["rd"]),
                   bool(data["provisional"]), float(data["since"]), str(data["node"]), str(data["address"]),
                   tuple(str(t) for t in data["tags"]), tuple(str(t) for t in data["avoid"]))

    def encoded(self) -> str:
        """The entry as the store keeps it (one canonical JSON text: a pairing names entries by it)."""
        return json.dumps(self.plain(), separators=(",", ":"), sort_keys=True)


#: A pairing's states: its match is being made, was made, or was refused (`Pairing.error` says why).
PAIRING, MATCHED, REFUSED = "pairing", "matched", "refused"


@dataclass(frozen=True)
class Pairing:
    """What a paired guest's own node learns from the queue: its match (made by the node `by`), its
    seat, its opponent, and the state of the match's making."""

    match: str
    seat: int
    by: str
    at: float
    opponent: QueueEntry
    state: str = PAIRING
    #: A refusal's error code and message (state REFUSED).
    error: tuple[str, str] | None = None

    def encoded(self) -> str:
        """The pairing as the store keeps it."""
        return json.dumps({"match": self.match, "seat": self.seat, "by": self.by, "at": self.at,
                           "opponent": self.opponent.plain(), "state": self.state,
                           "error": list(self.error) if self.error is not None else None},
                          separators=(",", ":"))

    @classmethod
    def decoded(cls, text: str | bytes) -> Pairing:
        """From `encoded()`."""
        data = json.loads(text)
        error = data.get("error")
        return cls(str(data["match"]), int(data["seat"]), str(data["by"]), float(data["at"]),
                   QueueEntry.from_plain(data["opponent"]), str(data["state"]),
                   (str(error[0]), str(error[1])) if error else None)


@dataclass(frozen=True)
class QueueView:
    """One look at a queue: its version, its entries (None: unchanged since the version the caller
    knew), and the pairings of the guests the caller asked about (None where there is none)."""

    version: int
    entries: tuple[QueueEntry, ...] | None
    pairings: tuple[Pairing | None, ...]


@dataclass(frozen=True)
class ProposedPair:
    """Two entries to pair into `match` (by the node taking the pair), and the pairing to note for
    each guest whose node is another (None: the taking node tells that guest itself)."""

    first: QueueEntry
    second: QueueEntry
    first_pairing: Pairing | None
    second_pairing: Pairing | None


class QueueStore(Protocol):
    """The ranked queues shared by every node: one per ruleset (`queue`), each a bounded set of
    entries, and the pairings noted for guests whose node did not make their match.

    Pairing is optimistic: a node reads the entries (`look`), runs the pure matchmaker over them and
    takes each pair it found with `take_pairs`, which removes both entries and notes the pairings
    atomically only if both entries are still there as read; so two nodes racing for one guest never
    both pair it. Each node looks only while it has guests waiting, and proposes only pairs with one
    of its guests in them."""

    async def join(self, queue: str, entry: QueueEntry, capacity: int, now: float) -> bool:
        """Add an entry unless the guest waits already or the queue holds `capacity` entries (False)."""
        ...

    async def leave(self, queue: str, guest: str) -> bool:
        """Take the guest's entry out; False when it was not there (paired meanwhile, or dropped)."""
        ...

    async def look(self, queue: str, node: str, guests: tuple[str, ...], known: int, now: float,
                   stale: float) -> QueueView:
        """Note that `node` is alive at `now`; drop the entries of nodes not seen for `stale` seconds
        and the pairings noted longer ago than that; the entries (unless the queue's version is
        still `known`) and the pairings noted for `guests`."""
        ...

    async def take_pairs(self, queue: str, pairs: tuple[ProposedPair, ...], now: float) -> tuple[bool, ...]:
        """Take each pair whose two entries are still there as given: out of the queue, their pairings
        noted; True for each pair taken."""
        ...

    async def settle(self, queue: str, guest: str, pairing: Pairing, now: float) -> None:
        """Replace the guest's noted pairing (its match made, or refused), if it is still noted."""
        ...

    async def done(self, queue: str, guest: str) -> None:
        """The guest's node has told it its pairing: the note is dropped."""
        ...


@dataclass(frozen=True)
class RoomPlace:
    """Where a room waits: its match and the node that hosts it (the room's record, by invitation)."""

    match: str
    node: str


class LobbyStore(Protocol):
    """What the lobbies of several nodes share: each node's part of the live list, where each room
    waits (by its invitation), and each node's mailbox of room joins asked of it by other nodes, with
    their answers. Every key is one node's, one invitation's or one ask's."""

    async def put_live(self, node: str, entries: list[dict[str, Any]], until: float) -> None:
        """Set the node's part of the live list (its listed matches), valid until `until` (wall
        seconds) unless set again; an empty list drops the node's part."""
        ...

    async def live_elsewhere(self, node: str, now: float) -> list[dict[str, Any]]:
        """Every other node's listed matches still valid at `now` (a lapsed part is dropped)."""
        ...

    async def put_room(self, invite: str, place: RoomPlace, ttl: float) -> None:
        """Note where the room behind `invite` waits, for `ttl` seconds."""
        ...

    async def find_room(self, invite: str) -> RoomPlace | None:
        """Where the room behind `invite` waits, or None."""
        ...

    async def drop_room(self, invite: str) -> None:
        """The room behind `invite` is gone."""
        ...

    async def ask(self, node: str, request: str, limit: int, ttl: float) -> bool:
        """Put a request in the node's mailbox (kept `ttl` seconds), unless `limit` requests wait there
        already (False)."""
        ...

    async def take_asks(self, node: str, limit: int) -> list[str]:
        """Take up to `limit` requests from the node's mailbox, oldest first."""
        ...

    async def answer(self, ask_id: str, reply: str, ttl: float) -> None:
        """Leave the answer to a request (kept `ttl` seconds)."""
        ...

    async def take_answer(self, ask_id: str) -> str | None:
        """Take the answer to a request, or None (not yet, or never)."""
        ...


class Stores:
    """One store of each concern, embedded or on Redis, as the composition root builds them."""

    #: Do other processes use these stores too (then they must share the token secret)?
    shared: bool = False

    def __init__(self, replays: ReplayStore, matches: MatchStore, players: PlayerStore, ranked: RankedLedger,
                 daily: DailyStore, limits: LimitStore, queue: QueueStore, lobby: LobbyStore) -> None:
        self.replays = replays
        self.matches = matches
        self.players = players
        self.ranked = ranked
        self.daily = daily
        self.limits = limits
        self.queue = queue
        self.lobby = lobby

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
