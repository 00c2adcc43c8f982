"""The shared stores on Redis (redis-py's asyncio client): what several nodes need to agree on.

    stores = RedisStore.from_url("redis://127.0.0.1:6379/0")       # `floe serve --redis URL`
    stores = RedisStore.from_url("redis+cluster://127.0.0.1:7000")   # a Redis Cluster (any one node)

A URL whose scheme is `redis+cluster` (`rediss+cluster` with TLS) names a Redis Cluster: redis-py's
asyncio `RedisCluster` is given one node and discovers the others (`connect_url`); every other URL is
one Redis. Nothing else differs: every key below keeps its hash tag, so no command spans two slots
(the pipelines that touch several keys are not transactions, and the cluster client splits them).

One class per concern of server/store/base.py (`RedisReplays`, `RedisMatches`, `RedisPlayers`,
`RedisRankedLedger`, `RedisDaily`, `RedisLimits`), on one client and one key prefix; `RedisStore` is
their bundle.

Keys (every one under `prefix`, default "floe:"; the part in braces is the Redis Cluster hash tag,
so nothing spans two slots):

- `{match-id}:record`, `{match-id}:replay`: a finished match's record (JSON, written once: SET NX)
  and its replay (msgpack); kept `archive_ttl` (30 days), the oldest beyond `archive_capacity`
  (100,000) evicted;
- `matches:recent` (list), `matches:archive` (sorted set by end time: the eviction order): the
  newest `recent_limit` (1,000) ids, and every kept id;
- `player:{guest}`: a player's record (JSON, server/store/players.py), updated with WATCH/MULTI on
  that one key; kept `player_ttl` (365 days) after its last update, GAMES_KEPT games inside;
- `leaderboard:ranked`, `leaderboard:provisional` (pengo-versus's, the names of the one board there
  was), `leaderboard:{ruleset}:ranked`, `:provisional` (every other ruleset's): guest → rating
  (sorted sets) of the players with a rated game of that ruleset, set after each record update;
  the best `leaderboard_capacity` (10,000) of each;
- `ranked:pending`: ranked matches whose result is still to apply (sorted set by when noted),
  emptied as results apply (the lobby drops stale ones);
- `daily:{day}:board` (sorted set), `daily:{day}:entries` (hash): a day's best run per guest;
  `daily:{day}:replays` (hash run id → replay bytes), `:kept` (sorted set of those runs by board
  score), `:owners` (hash run id → guest), `:bytes` (their total), `:seen` (set of the day's run
  ids): the kept replays within the day's bytes budget and the runs submitted; all updated
  together by one script (one slot: the day is their hash tag) and kept `day_ttl` (31 days);
- `bucket:{key}`, `claim:{key}`, `set:{key}`: the limit primitives, one script on one key each,
  expiring when nothing in them is live any more;
- `{queue:<ruleset>}:entries`, `:owners`, `:nodes`, `:pairings`, `:paired-at`, `:version`: a
  ranked queue (`RedisQueues`): its entries (at most the queue's capacity), the nodes looking at it,
  the pairings noted for guests of other nodes (dropped after `look`'s `stale`); each operation one
  script on that one slot, the keys expiring QUEUE_KEYS_TTL after the last join or look;
- `lobby:live` (hash node → its listed matches, with until when), `room:{invite}` (where a room
  waits, for its timeout), `mailbox:{node}` (room joins asked of a node: at most the lobby's
  `room_asks_max`, expiring with the last ask), `answer:{ask-id}`: the lobby's shared parts
  (`RedisLobby`);
- `gen:{key}`: a generation (an integer; `token:{guest}` is the oldest token generation of a guest
  still accepted), set by one script, expiring with the newest token.

Times are the caller's wall-clock seconds (every node's clock), as the interface says; Redis' own
expiry only collects what is no longer live. `round_trips` counts the requests sent (a pipeline or a
script is one), for the benchmark.
"""

from __future__ import annotations

import json
import math
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import WatchError

from .base import (
    MatchRecord,
    Pairing,
    PlayerChange,
    ProposedPair,
    QueueEntry,
    QueueView,
    RoomPlace,
    StoreError,
    Stores,
)
from .players import LEGACY_RULESET, DailyEntry, DailyStored, PlayerRecord, board_score

DAY = 24 * 3600.0
#: URL schemes that name a Redis Cluster, and the scheme redis-py reads for its node.
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}

#: A client of one Redis or of a Redis Cluster.
Client = aioredis.Redis | RedisCluster


def cluster_url(url: str) -> tuple[str, bool]:
    """The URL redis-py reads, and whether it names a Redis Cluster (`redis+cluster://…`)."""
    scheme, sep, rest = url.partition("://")
    plain = CLUSTER_SCHEMES.get(scheme.lower())
    if sep and plain is not None:
        return f"{plain}://{rest}", True
    return url, False


def connect_url(url: str) -> Client:
    """A client of the Redis or Redis Cluster `url` names (connections open on first use)."""
    plain, cluster = cluster_url(url)
    if cluster:
        return RedisCluster.from_url(plain)
    return aioredis.Redis.from_url(plain)

#: Attempts at one player record's read-modify-write before giving up as too contended (each round of
#: racing writers lets at least one through, so this many writers at once all get through).
MAX_UPDATE_ATTEMPTS = 32

_TAKE_TOKEN = """
local held = redis.call('HMGET', KEYS[1], 't', 's')
local rate, burst, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens, stamp = tonumber(held[1]), tonumber(held[2])
if tokens == nil then tokens, stamp = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 's', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return string.format('%.17g', wait)
"""

_CLAIM = """
local held = redis.call('HMGET', KEYS[1], 'h', 'u')
if held[1] and held[1] ~= ARGV[1] and tonumber(held[2]) > tonumber(ARGV[3]) then return held[1] end
redis.call('HSET', KEYS[1], 'h', ARGV[1], 'u', string.format('%.17g', tonumber(ARGV[3]) + tonumber(ARGV[2])))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return ARGV[1]
"""

_RELEASE = """
if redis.call('HGET', KEYS[1], 'h') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""

_ADD_MEMBER = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
local present = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not present and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return 1
"""

_ADVANCE_GENERATION = """
local held = tonumber(redis.call('GET', KEYS[1]) or '0')
if held ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""

_PUT_DAILY = """
local board, entries, replays, kept = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owners, total, seen = KEYS[5], KEYS[6], KEYS[7]
local guest, entry, score, run, budget = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[5], tonumber(ARGV[7])
if redis.call('SADD', seen, run) == 0 then return {0, redis.call('HGET', entries, guest)} end
redis.call('PEXPIRE', seen, ARGV[4])
local function drop(gone)
  redis.call('DECRBY', total, redis.call('HSTRLEN', replays, gone))
  redis.call('HDEL', replays, gone)
  redis.call('ZREM', kept, gone)
  local owner = redis.call('HGET', owners, gone)
  redis.call('HDEL', owners, gone)
  local held = owner and redis.call('HGET', entries, owner)
  if held then
    local decoded = cjson.decode(held)
    if decoded['replay'] == gone then
      decoded['replay'] = cjson.null
      redis.call('HSET', entries, owner, cjson.encode(decoded))
    end
  end
end
local best = redis.call('ZSCORE', board, guest)
if best and tonumber(best) >= score then return {1, redis.call('HGET', entries, guest)} end
local old = redis.call('HGET', entries, guest)
if old then
  local old_run = cjson.decode(old)['replay']
  if old_run ~= cjson.null and redis.call('HEXISTS', replays, old_run) == 1 then drop(old_run) end
end
redis.call('ZADD', board, ARGV[3], guest)
redis.call('HSET', entries, guest, entry)
redis.call('HSET', replays, run, ARGV[6])
redis.call('ZADD', kept, ARGV[3], run)
redis.call('HSET', owners, run, guest)
local bytes = redis.call('INCRBY', total, string.len(ARGV[6]))
while bytes > budget do
  drop(redis.call('ZRANGE', kept, 0, 0)[1])
  bytes = tonumber(redis.call('GET', total))
end
for i = 1, 7 do redis.call('PEXPIRE', KEYS[i], ARGV[4]) end
return {1, redis.call('HGET', entries, guest)}
"""


_QUEUE_JOIN = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[6], ARGV[1], ARGV[4])
redis.call('HSET', KEYS[2], ARGV[4], ARGV[5])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('INCR', KEYS[5])
for i = 1, 6 do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
return 1
"""

_QUEUE_LEAVE = """
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[6], ARGV[1])
redis.call('INCR', KEYS[5])
return 1
"""

_QUEUE_LOOK = """
local cutoff = tonumber(ARGV[2]) - tonumber(ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local nodes = redis.call('HGETALL', KEYS[2])
local dead, any = {}, false
for i = 1, #nodes, 2 do
  if tonumber(nodes[i + 1]) < cutoff then
    dead[nodes[i]] = true
    any = true
    redis.call('HDEL', KEYS[2], nodes[i])
  end
end
if any then
  local owners = redis.call('HGETALL', KEYS[6])
  for i = 1, #owners, 2 do
    if dead[owners[i + 1]] then
      redis.call('HDEL', KEYS[1], owners[i])
      redis.call('HDEL', KEYS[6], owners[i])
    end
  end
  redis.call('INCR', KEYS[5])
end
local old = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', '(' .. string.format('%.17g', cutoff))
for _, guest in ipairs(old) do
  redis.call('HDEL', KEYS[3], guest)
  redis.call('ZREM', KEYS[4], guest)
end
local version = tonumber(redis.call('GET', KEYS[5]) or '0')
local entries = false
if version ~= tonumber(ARGV[4]) then entries = redis.call('HVALS', KEYS[1]) end
local pairings = {}
if #ARGV > 5 then pairings = redis.call('HMGET', KEYS[3], unpack(ARGV, 6)) end
for i = 1, 6 do redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
return {version, entries, pairings}
"""

_QUEUE_TAKE = """
local taken = {}
for i = 0, tonumber(ARGV[2]) - 1 do
  local b = 2 + i * 6
  local first, second = ARGV[b + 1], ARGV[b + 3]
  local held_first, held_second = redis.call('HGET', KEYS[1], first), redis.call('HGET', KEYS[1], second)
  if held_first == ARGV[b + 2] and held_second == ARGV[b + 4] then
    redis.call('HDEL', KEYS[1], first, second)
    redis.call('HDEL', KEYS[6], first, second)
    for k, guest in ipairs({first, second}) do
      local noted = ARGV[b + 4 + k]
      if noted ~= '' then
        redis.call('HSET', KEYS[3], guest, noted)
        redis.call('ZADD', KEYS[4], ARGV[1], guest)
      end
    end
    redis.call('INCR', KEYS[5])
    taken[#taken + 1] = 1
  else
    taken[#taken + 1] = 0
  end
end
return taken
"""

_QUEUE_SETTLE = """
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
return 1
"""

_QUEUE_DONE = """
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return 1
"""

_ASK = """
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""

#: A ranked queue's keys live this long after its last join or look (they only collect an abandoned queue).
QUEUE_KEYS_TTL = DAY


def _json(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode("utf-8")


def _ms(seconds: float) -> int:
    return max(1, math.ceil(seconds * 1000))


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


async def _page(part: _RedisPart, board: str, offset: int, limit: int) -> tuple[list[Any], int]:
    """A page of a sorted set, highest first, and its size (one round trip)."""
    offset, limit = max(0, offset), max(0, limit)
    async with part.redis.pipeline(transaction=False) as pipe:
        pipe.zrevrange(board, offset, offset + limit - 1)
        pipe.zcard(board)
        part.trips.count += 1
        answers: list[Any] = await pipe.execute()
    members, total = answers
    return (members if limit else []), int(total)


class _Trips:
    """Requests sent to Redis by a bundle's stores (a pipeline, a transaction or a script counts once)."""

    def __init__(self) -> None:
        self.count = 0


class _RedisPart:
    """A store of one concern on a shared client, key prefix and request counter."""

    def __init__(self, client: Client, prefix: str, trips: _Trips) -> None:
        self.redis = client
        self.prefix = prefix
        self.trips = trips

    def _match_key(self, match_id: str, part: str) -> str:
        return f"{self.prefix}{{{match_id}}}:{part}"

    def _player_key(self, guest_id: str) -> str:
        return f"{self.prefix}player:{{{guest_id}}}"

    def _board_key(self, ruleset: str, provisional: bool) -> str:
        """A ruleset's leaderboard; LEGACY_RULESET's keeps the name it had when there was one board."""
        of = "" if ruleset == LEGACY_RULESET else f"{ruleset}:"
        return f"{self.prefix}leaderboard:{of}{'provisional' if provisional else 'ranked'}"

    def _day_key(self, day: str, part: str) -> str:
        return f"{self.prefix}daily:{{{day}}}:{part}"

    def _limit_key(self, kind: str, key: str) -> str:
        return f"{self.prefix}{kind}:{{{key}}}"

    async def _call(self, command: str, *args: Any) -> Any:
        """One command, one round trip."""
        self.trips.count += 1
        return await self.redis.execute_command(command, *args)


class RedisReplays(_RedisPart):
    """Match replays: `{match-id}:replay`, kept `archive_ttl` (evicted with their record)."""

    def __init__(self, client: Client, prefix: str, trips: _Trips, *, archive_ttl: float) -> None:
        super().__init__(client, prefix, trips)
        self.archive_ttl = archive_ttl

    async def put_replay(self, replay_id: str, data: bytes) -> None:
        key = self._match_key(replay_id, "replay")
        await self._call("SET", key, bytes(data), "PX", _ms(self.archive_ttl))

    async def get_replay(self, replay_id: str) -> bytes | None:
        data = await self._call("GET", self._match_key(replay_id, "replay"))
        return None if data is None else bytes(data)


class RedisMatches(_RedisPart):
    """Match records: `{match-id}:record`, `matches:recent`, `matches:archive`."""

    def __init__(self, client: Client, prefix: str, trips: _Trips, *, archive_ttl: float,
                 archive_capacity: int, recent_limit: int) -> None:
        super().__init__(client, prefix, trips)
        self.archive_ttl = archive_ttl
        self.archive_capacity = archive_capacity
        self.recent_limit = recent_limit

    async def put_match(self, record: MatchRecord) -> bool:
        key = self._match_key(record.id, "record")
        if not await self._call("SET", key, _json(record.plain()), "NX", "PX", _ms(self.archive_ttl)):
            return False
        recent, archive = f"{self.prefix}matches:recent", f"{self.prefix}matches:archive"
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.lpush(recent, record.id)
            pipe.ltrim(recent, 0, self.recent_limit - 1)
            pipe.zadd(archive, {record.id: record.ended})
            pipe.zcard(archive)
            self.trips.count += 1
            *_, kept = await pipe.execute()
        if kept > self.archive_capacity:
            self.trips.count += 1
            evicted: list[Any] = await self.redis.zpopmin(archive, kept - self.archive_capacity)
            if evicted:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for member, _ in evicted:
                        old = _text(member)
                        pipe.delete(self._match_key(old, "record"))
                        pipe.delete(self._match_key(old, "replay"))
                    self.trips.count += 1
                    await pipe.execute()
        return True

    async def get_match(self, match_id: str) -> MatchRecord | None:
        data = await self._call("GET", self._match_key(match_id, "record"))
        return None if data is None else MatchRecord.from_plain(json.loads(data))

    async def recent_matches(self, limit: int) -> list[MatchRecord]:
        if limit <= 0:
            return []
        ids = await self._call("LRANGE", f"{self.prefix}matches:recent", 0, limit - 1)
        if not ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id in ids:
                pipe.get(self._match_key(_text(match_id), "record"))
            self.trips.count += 1
            found = await pipe.execute()
        return [MatchRecord.from_plain(json.loads(data)) for data in found if data is not None]


class RedisPlayers(_RedisPart):
    """Player records (`player:{guest}`) and the leaderboards per ruleset (`leaderboard:…`, above)."""

    def __init__(self, client: Client, prefix: str, trips: _Trips, *, player_ttl: float,
                 leaderboard_capacity: int) -> None:
        super().__init__(client, prefix, trips)
        self.player_ttl = player_ttl
        self.leaderboard_capacity = leaderboard_capacity

    async def get_player(self, guest_id: str) -> PlayerRecord | None:
        data = await self._call("GET", self._player_key(guest_id))
        return None if data is None else PlayerRecord.from_plain(json.loads(data))

    async def update_player(self, guest_id: str, change: PlayerChange) -> PlayerRecord | None:
        key = self._player_key(guest_id)
        for _ in range(MAX_UPDATE_ATTEMPTS):
            async with self.redis.pipeline(transaction=True) as pipe:
                try:
                    self.trips.count += 2
                    await pipe.watch(key)
                    data = await pipe.get(key)
                    held = None if data is None else PlayerRecord.from_plain(json.loads(data))
                    new = change(held)
                    if new is None:
                        await pipe.unwatch()  # type: ignore[no-untyped-call]
                        return held
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.set(key, _json(new.plain()), px=_ms(self.player_ttl))
                    self.trips.count += 1
                    await pipe.execute()
                except WatchError:
                    continue
            await self._index(new)
            return new
        raise StoreError(f"the record of {guest_id!r} changed under {MAX_UPDATE_ATTEMPTS} attempts in a row")

    async def _index(self, record: PlayerRecord) -> None:
        """Put the player in each of its rulesets' leaderboards at its rating there (and out of the
        other of that ruleset), keeping the best; a player with no rated game yet (a dodger's
        cooldown, a dodged player's note) is on no board."""
        if not record.ratings:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for ruleset, standing in sorted(record.ratings.items()):
                board = self._board_key(ruleset, standing.provisional)
                if standing.played:
                    pipe.zadd(board, {record.id: standing.glicko.rating})
                else:
                    pipe.zrem(board, record.id)
                pipe.zrem(self._board_key(ruleset, not standing.provisional), record.id)
                pipe.zremrangebyrank(board, 0, -self.leaderboard_capacity - 1)
            self.trips.count += 1
            await pipe.execute()

    async def leaderboard(
        self, ruleset: str, provisional: bool, offset: int, limit: int
    ) -> tuple[list[PlayerRecord], int]:
        ids, total = await _page(self, self._board_key(ruleset, provisional), offset, limit)
        if not ids:
            return [], total
        async with self.redis.pipeline(transaction=False) as pipe:
            for guest in ids:
                pipe.get(self._player_key(_text(guest)))
            self.trips.count += 1
            found = await pipe.execute()
        return [PlayerRecord.from_plain(json.loads(data)) for data in found if data is not None], total


class RedisRankedLedger(_RedisPart):
    """Ranked results still to apply: `ranked:pending`."""

    async def note_ranked(self, match_id: str, now: float) -> None:
        await self._call("ZADD", f"{self.prefix}ranked:pending", "NX", now, match_id)

    async def pending_ranked(self, limit: int) -> list[tuple[str, float]]:
        if limit <= 0:
            return []
        self.trips.count += 1
        found: list[Any] = await self.redis.zrange(
            f"{self.prefix}ranked:pending", 0, limit - 1, withscores=True
        )
        return [(_text(member), float(score)) for member, score in found]

    async def done_ranked(self, match_id: str) -> None:
        await self._call("ZREM", f"{self.prefix}ranked:pending", match_id)


class RedisDaily(_RedisPart):
    """The daily boards: `daily:{day}:…`, all of a day updated together by one script."""

    def __init__(self, client: Client, prefix: str, trips: _Trips, *, day_ttl: float) -> None:
        super().__init__(client, prefix, trips)
        self.day_ttl = day_ttl
        self._put_daily = client.register_script(_PUT_DAILY)

    async def put_daily(self, day: str, entry: DailyEntry, replay: bytes, budget: int) -> DailyStored:
        parts = ("board", "entries", "replays", "kept", "owners", "bytes", "seen")
        run_id = entry.replay
        assert run_id is not None
        self.trips.count += 1
        fresh, best = await self._put_daily(
            keys=[self._day_key(day, part) for part in parts],
            args=[entry.guest, _json(entry.plain()), board_score(entry), _ms(self.day_ttl), run_id,
                  bytes(replay), budget],
        )
        held = None if best is None else DailyEntry.from_plain(json.loads(best))
        return DailyStored(held, duplicate=not fresh)

    async def daily_board(self, day: str, offset: int, limit: int) -> tuple[list[DailyEntry], int]:
        guests, total = await _page(self, self._day_key(day, "board"), offset, limit)
        if not guests:
            return [], total
        found = await self._call("HMGET", self._day_key(day, "entries"), *guests)
        return [DailyEntry.from_plain(json.loads(data)) for data in found if data is not None], total

    async def daily_entry(self, day: str, guest_id: str) -> DailyEntry | None:
        data = await self._call("HGET", self._day_key(day, "entries"), guest_id)
        return None if data is None else DailyEntry.from_plain(json.loads(data))

    async def run_replay(self, day: str, run_id: str) -> bytes | None:
        data = await self._call("HGET", self._day_key(day, "replays"), run_id)
        return None if data is None else bytes(data)


class RedisLimits(_RedisPart):
    """The limit primitives: `bucket:{key}`, `claim:{key}`, `set:{key}`, `gen:{key}`."""

    def __init__(self, client: Client, prefix: str, trips: _Trips) -> None:
        super().__init__(client, prefix, trips)
        self._take_token = client.register_script(_TAKE_TOKEN)
        self._claim = client.register_script(_CLAIM)
        self._release = client.register_script(_RELEASE)
        self._add_member = client.register_script(_ADD_MEMBER)
        self._advance_generation = client.register_script(_ADVANCE_GENERATION)

    async def take_token(self, key: str, rate: float, burst: float, now: float) -> float:
        self.trips.count += 1
        wait = await self._take_token(
            keys=[self._limit_key("bucket", key)], args=[rate, burst, repr(now), _ms(burst / rate + 1)]
        )
        return float(wait)

    async def claim(self, key: str, holder: str, ttl: float, now: float) -> str:
        self.trips.count += 1
        held = await self._claim(
            keys=[self._limit_key("claim", key)], args=[holder, ttl, repr(now), _ms(ttl)]
        )
        return _text(held)

    async def release(self, key: str, holder: str) -> None:
        self.trips.count += 1
        await self._release(keys=[self._limit_key("claim", key)], args=[holder])

    async def add_member(self, key: str, member: str, limit: int, ttl: float, now: float) -> bool:
        self.trips.count += 1
        added = await self._add_member(
            keys=[self._limit_key("set", key)], args=[member, limit, repr(now + ttl), repr(now), _ms(ttl)]
        )
        return bool(added)

    async def remove_member(self, key: str, member: str) -> None:
        await self._call("ZREM", self._limit_key("set", key), member)

    async def generation(self, key: str, now: float) -> int:
        held = await self._call("GET", self._limit_key("gen", key))
        return 0 if held is None else int(held)

    async def advance_generation(self, key: str, expected: int, new: int, ttl: float, now: float) -> bool:
        self.trips.count += 1
        done = await self._advance_generation(
            keys=[self._limit_key("gen", key)], args=[expected, new, _ms(ttl)]
        )
        return bool(done)


class RedisQueues(_RedisPart):
    """The ranked queues: `{queue:<name>}:entries` (hash guest → entry), `:owners` (guest → node),
    `:nodes` (node → its last look, wall seconds), `:pairings` (guest → pairing) and `:paired-at`
    (sorted set: when each was noted), `:version` (counts the entries' changes); one slot per queue,
    each operation one script."""

    _PARTS = ("entries", "nodes", "pairings", "paired-at", "version", "owners")

    def __init__(self, client: Client, prefix: str, trips: _Trips) -> None:
        super().__init__(client, prefix, trips)
        self._join = client.register_script(_QUEUE_JOIN)
        self._leave = client.register_script(_QUEUE_LEAVE)
        self._look = client.register_script(_QUEUE_LOOK)
        self._take = client.register_script(_QUEUE_TAKE)
        self._settle = client.register_script(_QUEUE_SETTLE)
        self._done = client.register_script(_QUEUE_DONE)

    def _keys(self, queue: str) -> list[str]:
        return [f"{self.prefix}{{queue:{queue}}}:{part}" for part in self._PARTS]

    async def _run(self, script: Any, queue: str, args: list[Any]) -> Any:
        self.trips.count += 1
        return await script(keys=self._keys(queue), args=args)

    async def join(self, queue: str, entry: QueueEntry, capacity: int, now: float) -> bool:
        args = [entry.guest, entry.encoded(), capacity, entry.node, repr(now), _ms(QUEUE_KEYS_TTL)]
        return bool(await self._run(self._join, queue, args))

    async def leave(self, queue: str, guest: str) -> bool:
        return bool(await self._run(self._leave, queue, [guest]))

    async def look(self, queue: str, node: str, guests: tuple[str, ...], known: int, now: float,
                   stale: float) -> QueueView:
        args = [node, repr(now), repr(stale), known, _ms(QUEUE_KEYS_TTL), *guests]
        version, entries, pairings = await self._run(self._look, queue, args)
        seen = None if entries is None else tuple(QueueEntry.from_plain(json.loads(text)) for text in entries)
        noted = tuple(None if text is None else Pairing.decoded(text) for text in pairings)
        return QueueView(int(version), seen, noted)

    async def take_pairs(self, queue: str, pairs: tuple[ProposedPair, ...], now: float) -> tuple[bool, ...]:
        if not pairs:
            return ()
        args: list[Any] = [repr(now), len(pairs)]
        for pair in pairs:
            args += [pair.first.guest, pair.first.encoded(), pair.second.guest, pair.second.encoded()]
            args += [p.encoded() if p is not None else "" for p in (pair.first_pairing, pair.second_pairing)]
        taken = await self._run(self._take, queue, args)
        return tuple(bool(t) for t in taken)

    async def settle(self, queue: str, guest: str, pairing: Pairing, now: float) -> None:
        await self._run(self._settle, queue, [guest, pairing.encoded(), repr(now)])

    async def done(self, queue: str, guest: str) -> None:
        await self._run(self._done, queue, [guest])


class RedisLobby(_RedisPart):
    """The lobby's shared parts: `lobby:live` (hash node → its listed matches and until when),
    `room:{invite}` (where a room waits; PX its timeout), `mailbox:{node}` (a list of room joins asked
    of the node), `answer:{ask-id}` (PX the answer's TTL)."""

    @property
    def _live_key(self) -> str:
        return f"{self.prefix}lobby:live"

    async def put_live(self, node: str, entries: list[dict[str, Any]], until: float) -> None:
        if not entries:
            await self._call("HDEL", self._live_key, node)
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(self._live_key, node, _json({"until": until, "entries": entries}))
            pipe.pexpire(self._live_key, _ms(DAY))
            self.trips.count += 1
            await pipe.execute()

    async def live_elsewhere(self, node: str, now: float) -> list[dict[str, Any]]:
        parts = await self._call("HGETALL", self._live_key)
        found: list[dict[str, Any]] = []
        lapsed: list[str] = []
        pairs = parts.items() if isinstance(parts, dict) else zip(parts[::2], parts[1::2], strict=True)
        for name, data in pairs:
            held = json.loads(data)
            if float(held["until"]) < now:
                lapsed.append(_text(name))
            elif _text(name) != node:
                found.extend(held["entries"])
        if lapsed:
            await self._call("HDEL", self._live_key, *lapsed)
        return found

    async def put_room(self, invite: str, place: RoomPlace, ttl: float) -> None:
        data = _json({"match": place.match, "node": place.node})
        await self._call("SET", self._limit_key("room", invite), data, "PX", _ms(ttl))

    async def find_room(self, invite: str) -> RoomPlace | None:
        data = await self._call("GET", self._limit_key("room", invite))
        if data is None:
            return None
        held = json.loads(data)
        return RoomPlace(str(held["match"]), str(held["node"]))

    async def drop_room(self, invite: str) -> None:
        await self._call("DEL", self._limit_key("room", invite))

    async def ask(self, node: str, request: str, limit: int, ttl: float) -> bool:
        self.trips.count += 1
        return bool(await self._ask(keys=[self._limit_key("mailbox", node)], args=[request, limit, _ms(ttl)]))

    async def take_asks(self, node: str, limit: int) -> list[str]:
        taken = await self._call("LPOP", self._limit_key("mailbox", node), limit)
        return [_text(text) for text in taken or []]

    async def answer(self, ask_id: str, reply: str, ttl: float) -> None:
        await self._call("SET", self._limit_key("answer", ask_id), reply, "PX", _ms(ttl))

    async def take_answer(self, ask_id: str) -> str | None:
        data = await self._call("GETDEL", self._limit_key("answer", ask_id))
        return None if data is None else _text(data)

    def __init__(self, client: Client, prefix: str, trips: _Trips) -> None:
        super().__init__(client, prefix, trips)
        self._ask = client.register_script(_ASK)


class RedisStore(Stores):
    """The stores of every concern on one Redis (see the module docstring for the keys and bounds)."""

    #: Other processes use it too: they must share the token secret.
    shared = True

    def __init__(
        self,
        client: Client,
        prefix: str = "floe:",
        *,
        archive_ttl: float = 30 * DAY,
        archive_capacity: int = 100_000,
        recent_limit: int = 1000,
        leaderboard_capacity: int = 10_000,
        player_ttl: float = 365 * DAY,
        day_ttl: float = 31 * DAY,
    ) -> None:
        if "{" in prefix or "}" in prefix:
            raise ValueError("the key prefix may not hold braces (they are the keys' hash tags)")
        for name, value in (("archive_capacity", archive_capacity), ("recent_limit", recent_limit),
                            ("leaderboard_capacity", leaderboard_capacity)):
            if value < 1:
                raise ValueError(f"{name} must be positive")
        self.redis = client
        self.prefix = prefix
        self._trips = _Trips()
        parts = (client, prefix, self._trips)
        super().__init__(
            RedisReplays(*parts, archive_ttl=archive_ttl),
            RedisMatches(*parts, archive_ttl=archive_ttl, archive_capacity=archive_capacity,
                         recent_limit=recent_limit),
            RedisPlayers(*parts, player_ttl=player_ttl, leaderboard_capacity=leaderboard_capacity),
            RedisRankedLedger(*parts),
            RedisDaily(*parts, day_ttl=day_ttl),
            RedisLimits(*parts),
            RedisQueues(*parts),
            RedisLobby(*parts),
        )

    @classmethod
    def from_url(cls, url: str, prefix: str = "floe:", **bounds: Any) -> RedisStore:
        """The stores on the Redis (or the Redis Cluster: `redis+cluster://`) at `url` (connections open
        on first use)."""
        return cls(connect_url(url), prefix, **bounds)

    @property
    def round_trips(self) -> int:
        """Requests sent to Redis by these stores (a pipeline, a transaction or a script counts once)."""
        return self._trips.count

    async def close(self) -> None:
        await self.redis.aclose()
