"""Leases, journals and the bus on Redis: one Redis, or a Redis Cluster (redis-py's cluster client).

    client = connect("redis://127.0.0.1:6379/0")                 # or connect(url, cluster=True)
    ownership = RedisOwnership(client, "floe:")
    bus = RedisBus(client)

Keys of a match (every one under `prefix`; `{m:<id>}` is the Redis Cluster hash tag, so they share a
slot and each write is one script on that slot):

- `{m:<id>}:lease`: "token|node", with Redis' own expiry (PX `lease_ttl`): Redis' clock decides
  when a lease lapsed, not the nodes';
- `{m:<id>}:fence`: the fencing counter (INCR on each acquisition; outlives the journal by
  `journal_ttl` so tokens never go back);
- `{m:<id>}:journal`: a hash of the header, the snapshot, `seq` (the last batch logged) and `base`
  (the last batch the snapshot includes); `{m:<id>}:log`: the batches after the snapshot (a list);
  both expire `journal_ttl` after the last write.

And one key of all matches, `{matches}:owned`: a sorted set of the journaled matches by the wall
time their lease was last taken or renewed plus the TTL (a hint for `orphans`; a candidate is
taken only through `acquire`'s own check of the lease). It is written beside each acquisition and
renewal (a second command, never in one transaction with a match's keys: no cross-slot operation).

Every write script first checks that the lease holds the writer's token and refuses otherwise (a
`FencedError` saying who holds it, or that it lapsed); the journal's rules (order, bounds) are
checked in the same script, so a refused write changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

import msgpack  # type: ignore[import-untyped]
import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import SSLConnection
from redis.exceptions import NoScriptError

from ..store.redis import cluster_url
from .bus import Handler, Subscription, check_channel, check_message, match_tag
from .journal import (
    Appended,
    Appending,
    Batch,
    FencedError,
    Header,
    Holder,
    Journal,
    JournalError,
    JournalSnapshot,
    Lease,
    decode_batch,
    decode_header,
    decode_snapshot,
    encode_batch,
    encode_header,
    encode_snapshot,
    snapshot_each,
)
from .line import ScriptLine
from .settings import ClusterSettings

log = logging.getLogger("floe.cluster")

Client = aioredis.Redis | RedisCluster


def connect(url: str, cluster: bool = False) -> Client:
    """A client of the Redis at `url` (a cluster's node when `cluster`: the others are discovered)."""
    if cluster:
        return RedisCluster.from_url(url)
    return aioredis.Redis.from_url(url)


#: Every write script starts with this: the lease must hold the token (ARGV[1]).
_FENCE = """
local held = redis.call('GET', KEYS[1])
if not held then return {0, 'lapsed'} end
local sep = string.find(held, '|', 1, true)
if string.sub(held, 1, sep - 1) ~= ARGV[1] then return {0, 'held', held} end
"""

_ACQUIRE = """
local held = redis.call('GET', KEYS[1])
if held then return {0, held} end
local token = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], token .. '|' .. ARGV[1], 'PX', ARGV[2])
return {1, token}
"""

_RENEW = _FENCE + """
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1}
"""

_RELEASE = _FENCE + """
redis.call('DEL', KEYS[1])
return {1}
"""

# KEYS: lease, journal, log. ARGV: token, header, keep ms.
_CREATE = _FENCE + """
if redis.call('HEXISTS', KEYS[2], 'header') == 1 then return {0, 'exists'} end
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[2], 'header', ARGV[2], 'seq', 0, 'base', 0)
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return {1}
"""

# KEYS: lease, journal, log. ARGV: token, seq, batch, most batches, keep ms.
_APPEND = _FENCE + """
local last = tonumber(redis.call('HGET', KEYS[2], 'seq'))
if not last then return {0, 'none'} end
if tonumber(ARGV[2]) ~= last + 1 then return {0, 'order', last} end
local held = redis.call('LLEN', KEYS[3])
if held >= tonumber(ARGV[4]) then return {0, 'full', held} end
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[2], 'seq', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[5])
return {1}
"""

# One Redis (not a cluster): many matches' appends in one script call, the fence and checks of
# `_APPEND` for each. ARGV: the key prefix, most batches, keep ms, and one msgpack array of every item's
# match id, token, seq and batch in turn (one argument, not four an item: packing each argument is most
# of redis-py's cost of a call). The keys are built here from the prefix and the ids, which a single
# Redis allows (this script is never sent to a cluster, whose scripts must name their keys and cannot
# span slots). The answer: the refused items only, each `{index (1-based), why, detail}` (an empty
# array when every item was logged: the usual answer is the cheapest to read).
_APPEND_MANY = """
local prefix, most, keep = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local items = cmsgpack.unpack(ARGV[4])
local refused = {}
for i = 1, #items, 4 do
  local tag = prefix .. '{m:' .. items[i] .. '}:'
  local lease, journal, log = tag .. 'lease', tag .. 'journal', tag .. 'log'
  local token, seq, batch = tostring(items[i + 1]), items[i + 2], items[i + 3]
  local index = (i + 3) / 4
  local held = redis.call('GET', lease)
  if not held then
    refused[#refused + 1] = {index, 'lapsed'}
  elseif string.sub(held, 1, string.find(held, '|', 1, true) - 1) ~= token then
    refused[#refused + 1] = {index, 'held', held}
  else
    local last = tonumber(redis.call('HGET', journal, 'seq'))
    if not last then
      refused[#refused + 1] = {index, 'none'}
    elseif seq ~= last + 1 then
      refused[#refused + 1] = {index, 'order', last}
    else
      local count = redis.call('LLEN', log)
      if count >= most then
        refused[#refused + 1] = {index, 'full', count}
      else
        redis.call('RPUSH', log, batch)
        redis.call('HSET', journal, 'seq', seq)
        redis.call('PEXPIRE', journal, keep)
        redis.call('PEXPIRE', log, keep)
      end
    end
  end
end
return refused
"""

# One Redis (not a cluster): many leases renewed in one script call, each fenced as `_RENEW`, and the
# owned index moved on for those renewed. ARGV: the key prefix, the TTL in ms, the owned index's key,
# its new score (the node's clock + the TTL), and one msgpack array of every lease's match id and
# token in turn (keys built here, as `_APPEND_MANY` does). The answer: the refused leases only, each
# `{index (1-based), why, detail}`.
_RENEW_MANY = """
local prefix, ttl, owned, expiry = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local items = cmsgpack.unpack(ARGV[5])
local refused = {}
for i = 1, #items, 2 do
  local lease = prefix .. '{m:' .. items[i] .. '}:lease'
  local index = (i + 1) / 2
  local held = redis.call('GET', lease)
  if not held then
    refused[#refused + 1] = {index, 'lapsed'}
  elseif string.sub(held, 1, string.find(held, '|', 1, true) - 1) ~= items[i + 1] then
    refused[#refused + 1] = {index, 'held', held}
  else
    redis.call('PEXPIRE', lease, ttl)
    redis.call('ZADD', owned, expiry, items[i])
  end
end
return refused
"""

#: Items one `_APPEND_MANY` call takes at most (Redis runs a script alone: this bounds the pause).
APPEND_MANY_ITEMS = 256

# KEYS: lease, journal, log. ARGV: token, seq, snapshot, keep ms.
_SNAPSHOT = _FENCE + """
local state = redis.call('HMGET', KEYS[2], 'seq', 'base')
local last, base = tonumber(state[1]), tonumber(state[2])
if not last then return {0, 'none'} end
local seq = tonumber(ARGV[2])
if seq < base or seq > last then return {0, 'range', base, last} end
redis.call('LTRIM', KEYS[3], seq - base, -1)
redis.call('HSET', KEYS[2], 'snapshot', ARGV[3], 'base', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {1}
"""

# KEYS: lease, journal, log.
_FINISH = _FENCE + """
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return {1}
"""

# KEYS: journal, log. A consistent read of both.
_LOAD = """
local state = redis.call('HMGET', KEYS[1], 'header', 'snapshot')
if not state[1] then return {} end
return {state[1], state[2] or '', redis.call('LRANGE', KEYS[2], 0, -1)}
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


#: The many-item scripts' argument packer (one for the process: making one per call costs as much as
#: the packing). Lua's cmsgpack reads no bin type: bytes go as msgpack's raw strings.
_LUA_PACKER = msgpack.Packer(use_bin_type=False)


def _for_lua(items: list[Any]) -> bytes:
    """One msgpack array argument for `_APPEND_MANY` or `_RENEW_MANY`."""
    data: bytes = _LUA_PACKER.pack(items)
    return data


def _refusals(refused: Sequence[Sequence[Any]]) -> Iterator[tuple[int, list[Any]]]:
    """A many-item script's refusals (`{index (1-based), why, detail}`): each item's 0-based index and
    its answer in a single script's shape (`{0, why, detail}`, what `_fence_refusal` reads)."""
    for position, why, *detail in refused:
        yield int(position) - 1, [0, why, *detail]


class RedisOwnership:
    """Leases and fenced journals on Redis (see the module docstring and server/cluster/journal.py)."""

    def __init__(self, client: Client, prefix: str = "floe:", settings: ClusterSettings | None = None,
                 clock: Any = time.time) -> None:
        self.redis = client
        self.prefix = prefix
        self.settings = settings or ClusterSettings()
        self._clock = clock
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        self._create = client.register_script(_CREATE)
        self._append = client.register_script(_APPEND)
        self._append_many = client.register_script(_APPEND_MANY)
        self._renew_many = client.register_script(_RENEW_MANY)
        self._snapshot = client.register_script(_SNAPSHOT)
        self._finish = client.register_script(_FINISH)
        self._load = client.register_script(_LOAD)
        #: Requests sent (a script or a pipeline is one), for the benchmark.
        self.round_trips = 0
        #: The scripts `append_all` and `renew_all` loaded (they send EVALSHA in a pipeline).
        self._loaded: set[str] = set()
        #: The journal's own connection on one Redis (server/cluster/line.py); None on a cluster.
        self._line: ScriptLine | None = None
        #: A Redis Cluster's client (redis-py's classes are Protocols: an isinstance check costs as much
        #: as a small request's packing, so it is made once).
        self.sharded = isinstance(client, RedisCluster)
        if not isinstance(client, RedisCluster):
            pool = client.connection_pool
            self._line = ScriptLine(pool.connection_kwargs, issubclass(pool.connection_class, SSLConnection))

    @classmethod
    def from_url(cls, url: str, prefix: str = "floe:", cluster: bool = False,
                 settings: ClusterSettings | None = None) -> RedisOwnership:
        """Ownership on the Redis at `url` (connections open on first use): a Redis Cluster when
        `cluster` or when the URL says so (`redis+cluster://`, server/store/redis.py)."""
        plain, named = cluster_url(url)
        return cls(connect(plain, cluster or named), prefix, settings)

    # ---- keys --------------------------------------------------------------------------------------------

    def _key(self, match_id: str, part: str) -> str:
        return f"{self.prefix}{match_tag(match_id)}:{part}"

    def _keys(self, match_id: str) -> list[str]:
        """The lease, the journal and the log (every write script's keys)."""
        return [self._key(match_id, "lease"), self._key(match_id, "journal"), self._key(match_id, "log")]

    @property
    def _owned(self) -> str:
        return f"{self.prefix}{{matches}}:owned"

    def _ms(self, seconds: float) -> int:
        return max(1, round(seconds * 1000))

    async def _write(self, script: Any, lease: Lease, keys: list[str], *args: Any) -> list[Any]:
        """Run a fenced script (on the journal's line on one Redis: a snapshot a match every
        `snapshot_every`, a header, a finish); FencedError when the lease is not the writer's."""
        self.round_trips += 1
        if self._line is not None:
            answer = await self._line.evalsha(script.sha, script.script, [lease.token, *args], keys)
        else:
            answer = await script(keys=keys, args=[lease.token, *args])
        return self._fence_refusal(lease, answer)

    def _fence_refusal(self, lease: Lease, answer: Any) -> list[Any]:
        """A fenced script's answer; FencedError when it refused the writer's token."""
        if int(answer[0]) == 1:
            return list(answer)
        why = _text(answer[1])
        if why == "lapsed":
            raise FencedError(lease.match_id, lease.token, "the lease lapsed")
        if why == "held":
            token, _, node = _text(answer[2]).partition("|")
            raise FencedError(lease.match_id, lease.token,
                              f"the lease is held by node {node} with token {token}")
        return list(answer)

    def _journal_refusal(self, lease: Lease, answer: list[Any]) -> None:
        if int(answer[0]) == 1:
            return
        why, match = _text(answer[1]), lease.match_id
        if why == "none":
            raise JournalError(f"match {match} has no journal")
        if why == "exists":
            raise JournalError(f"match {match} has a journal already")
        if why == "order":
            last = int(answer[2])
            raise JournalError(f"match {match}: a batch is out of order (the last logged is {last})")
        if why == "full":
            raise JournalError(f"match {match}: {int(answer[2])} batches since the snapshot, the most kept: "
                               "snapshot first")
        if why == "range":
            base, last = int(answer[2]), int(answer[3])
            raise JournalError(f"match {match}: a snapshot's batch is outside {base} … {last}")
        raise JournalError(f"match {match}: refused ({why})")

    # ---- the lease ---------------------------------------------------------------------------------------

    async def acquire(self, match_id: str, node: str) -> Lease | None:
        if "|" in node:
            raise ValueError("a node name may not hold '|'")
        self.round_trips += 1
        answer = await self._acquire(
            keys=[self._key(match_id, "lease"), self._key(match_id, "fence")],
            args=[node, self._ms(self.settings.lease_ttl), self._ms(self.settings.journal_ttl)],
        )
        if int(answer[0]) != 1:
            return None
        await self._note_owned(match_id)
        return Lease(match_id, node, int(answer[1]))

    async def _note_owned(self, match_id: str) -> None:
        self.round_trips += 1
        await self.redis.zadd(self._owned, {match_id: self._clock() + self.settings.lease_ttl})

    async def holder(self, match_id: str) -> Holder | None:
        self.round_trips += 1
        held = await self.redis.get(self._key(match_id, "lease"))
        if held is None:
            return None
        token, _, node = _text(held).partition("|")
        return Holder(node, int(token))

    async def renew(self, lease: Lease) -> None:
        await self._write(self._renew, lease, [self._key(lease.match_id, "lease")],
                          self._ms(self.settings.lease_ttl))
        await self._note_owned(lease.match_id)

    async def renew_all(self, leases: Sequence[Lease]) -> list[Exception | None]:
        """`renew` for many leases at once: on one Redis one script call (each lease fenced as `renew`,
        the owned index moved on for those renewed, in the same call); on a cluster two round trips (a
        pipeline of the fenced renewals, one per master, then the owned index of those renewed). Each
        lease's FencedError, or None."""
        if not leases:
            return []
        if self.sharded:
            return await self._renew_pipelined(leases)
        out: list[Exception | None] = [None] * len(leases)
        flat: list[str] = []
        for lease in leases:
            flat += (lease.match_id, str(lease.token))
        self.round_trips += 1
        args: list[Any] = [self.prefix, self._ms(self.settings.lease_ttl), self._owned,
                           repr(self._clock() + self.settings.lease_ttl), _for_lua(flat)]
        assert self._line is not None  # one Redis: on the journal's own connection (redis-py's costs 3×)
        refused = await self._line.evalsha(self._renew_many.sha, _RENEW_MANY, args)
        for index, answer in _refusals(refused):
            try:
                self._fence_refusal(leases[index], answer)
            except FencedError as error:
                out[index] = error
        return out

    async def _renew_pipelined(self, leases: Sequence[Lease]) -> list[Exception | None]:
        """`renew_all` on a cluster: a pipeline of `_RENEW`s by their sha, then the owned index."""
        await self._load_script(_RENEW)
        pipe = self.redis.pipeline(transaction=False)
        ttl = self._ms(self.settings.lease_ttl)
        for lease in leases:
            key = self._key(lease.match_id, "lease")
            pipe.execute_command("EVALSHA", self._renew.sha, 1, key, lease.token, ttl)
        self.round_trips += 1
        answers = await pipe.execute(raise_on_error=False)
        out: list[Exception | None] = []
        for lease, answer in zip(leases, answers, strict=True):
            try:
                if isinstance(answer, NoScriptError):  # a master restarted: this one alone, loading it
                    await self.renew(lease)
                elif isinstance(answer, Exception):
                    raise answer
                else:
                    self._fence_refusal(lease, answer)
                out.append(None)
            except Exception as error:  # noqa: BLE001 - each lease's own outcome, given back
                out.append(error)
        renewed = [lease.match_id for lease, error in zip(leases, out, strict=True) if error is None]
        if renewed:  # only those: a lapsed lease's index entry must not be pushed on (it is an orphan)
            self.round_trips += 1
            expiry = self._clock() + self.settings.lease_ttl
            await self.redis.zadd(self._owned, dict.fromkeys(renewed, expiry))
        return out

    async def _load_script(self, script: str) -> None:
        """Load a script once (on every master of a cluster) before sending it by its sha in a pipeline."""
        if script not in self._loaded:
            self.round_trips += 1
            await self.redis.script_load(script)
            self._loaded.add(script)

    async def release(self, lease: Lease) -> None:
        try:
            await self._write(self._release, lease, [self._key(lease.match_id, "lease")])
        except FencedError:
            return
        self.round_trips += 1
        await self.redis.zadd(self._owned, {lease.match_id: self._clock()})  # an orphan from now on

    # ---- the journal ------------------------------------------------------------------------------------

    async def create(self, lease: Lease, header: Header) -> None:
        answer = await self._write(self._create, lease, self._keys(lease.match_id), encode_header(header),
                                   self._ms(self.settings.journal_ttl))
        self._journal_refusal(lease, answer)

    async def append(self, lease: Lease, batch: Batch) -> None:
        await self._append_one(lease, batch.seq, encode_batch(batch))

    async def _append_one(self, lease: Lease, seq: int, data: bytes) -> None:
        if len(data) > self.settings.journal_max_batch_bytes:
            raise self._too_big(lease, len(data))
        answer = await self._write(self._append, lease, self._keys(lease.match_id), seq, data,
                                   self.settings.journal_max_batches, self._ms(self.settings.journal_ttl))
        self._journal_refusal(lease, answer)

    async def append_all(self, items: Sequence[Appending]) -> list[Exception | None]:
        """`append` for many matches in one round trip: on one Redis one script call per
        `APPEND_MANY_ITEMS` items (each item fenced and checked as `append` does); on a cluster, whose
        scripts cannot span slots, a pipeline (one per master). Each item's error (FencedError,
        JournalError), or None where it was logged."""
        if not items:
            return []
        if self.sharded:
            return await self._append_pipelined(items)
        out: list[Exception | None] = [None] * len(items)
        for sent, flat in self._calls(items, out):
            await self._append_many_call(items, sent, flat, out)
        return out

    def append_soon(self, items: Sequence[Appending], done: Appended) -> bool:
        """`append_all`'s one script call written on the line now (server/cluster/line.py
        `evalsha_soon`), on one Redis whose line is open, for at most `APPEND_MANY_ITEMS` items (else
        False: `append_all`)."""
        line = self._line
        if line is None or len(items) > APPEND_MANY_ITEMS:
            return False
        out: list[Exception | None] = [None] * len(items)
        calls = self._calls(items, out)
        if not calls:  # nothing to send: every item is over the size bound
            done(out)
            return True
        [(sent, flat)] = calls
        if not line.evalsha_soon(self._append_many.sha, self._append_many_args(flat),
                                 partial(self._appended_soon, items, sent, out, done)):
            return False
        self.round_trips += 1
        return True

    def _appended_soon(self, items: Sequence[Appending], sent: Sequence[int], out: list[Exception | None],
                       done: Appended, reply: Any) -> None:
        if isinstance(reply, Exception):
            done(reply)
            return
        self._refused_items(items, sent, reply, out)
        done(out)

    def _calls(self, items: Sequence[Appending],
               out: list[Exception | None]) -> list[tuple[Sequence[int], list[Any]]]:
        """`_APPEND_MANY`'s calls for `items`: each call's item indexes and their fields, at most
        `APPEND_MANY_ITEMS` a call; an item over the size bound is not sent (its error into `out`)."""
        most = self.settings.journal_max_batch_bytes
        if len(items) <= APPEND_MANY_ITEMS:  # one call (a node's every request but the largest)
            flat: list[Any] = [part for lease, seq, data in items
                               for part in (lease.match_id, lease.token, seq, data)]
            if max(map(len, flat[3::4]), default=0) <= most:
                return [(range(len(items)), flat)] if items else []
        calls: list[tuple[Sequence[int], list[Any]]] = []
        sent: list[int] = []
        flat = []
        for index, (lease, seq, data) in enumerate(items):
            if len(data) > most:
                out[index] = self._too_big(lease, len(data))
                continue
            if len(sent) == APPEND_MANY_ITEMS:
                calls.append((sent, flat))
                sent, flat = [], []
            sent.append(index)
            flat += (lease.match_id, lease.token, seq, data)
        if sent:
            calls.append((sent, flat))
        return calls

    def _append_many_args(self, flat: list[Any]) -> list[Any]:
        return [self.prefix, self.settings.journal_max_batches, self._ms(self.settings.journal_ttl),
                _for_lua(flat)]

    async def _append_many_call(self, items: Sequence[Appending], sent: Sequence[int], flat: list[Any],
                                out: list[Exception | None]) -> None:
        """One `_APPEND_MANY` call on the journal's line for the items `sent` (their fields in `flat`):
        each refused item's error into `out`."""
        self.round_trips += 1
        assert self._line is not None
        refused = await self._line.evalsha(self._append_many.sha, _APPEND_MANY, self._append_many_args(flat))
        self._refused_items(items, sent, refused, out)

    def _refused_items(self, items: Sequence[Appending], sent: Sequence[int], refused: Any,
                       out: list[Exception | None]) -> None:
        """An `_APPEND_MANY` reply's refusals: each refused item's error into `out`."""
        for position, answer in _refusals(refused):
            index = sent[position]
            lease = items[index][0]
            try:
                self._journal_refusal(lease, self._fence_refusal(lease, answer))
            except (FencedError, JournalError) as error:
                out[index] = error

    def _too_big(self, lease: Lease, size: int) -> JournalError:
        return JournalError(f"match {lease.match_id}: a batch of {size} bytes is over "
                            f"{self.settings.journal_max_batch_bytes}")

    async def _append_pipelined(self, items: Sequence[Appending]) -> list[Exception | None]:
        """`append_all` on a cluster: a pipeline of `_APPEND`s by their sha."""
        out: list[Exception | None] = [None] * len(items)
        await self._load_script(_APPEND)
        pipe = self.redis.pipeline(transaction=False)
        sent = []
        for index, (lease, seq, data) in enumerate(items):
            if len(data) > self.settings.journal_max_batch_bytes:
                out[index] = self._too_big(lease, len(data))
                continue
            # EVALSHA by name: redis-py's cluster pipeline refuses its `evalsha` method, not the command
            # (routed by its keys, which share one slot).
            pipe.execute_command("EVALSHA", self._append.sha, 3, *self._keys(lease.match_id), lease.token,
                                 seq, data, self.settings.journal_max_batches,
                                 self._ms(self.settings.journal_ttl))
            sent.append(index)
        self.round_trips += 1
        answers = await pipe.execute(raise_on_error=False)
        for index, answer in zip(sent, answers, strict=True):
            lease, seq, data = items[index]
            try:
                if isinstance(answer, NoScriptError):  # a master restarted: one by one, loading it
                    await self._append_one(lease, seq, data)
                    continue
                if isinstance(answer, Exception):
                    raise answer
                self._journal_refusal(lease, self._fence_refusal(lease, answer))
            except Exception as error:  # noqa: BLE001 - each item's own outcome, given back
                out[index] = error
        return out

    def _snapshot_args(self, lease: Lease, snapshot: JournalSnapshot) -> list[Any]:
        """`_SNAPSHOT`'s arguments after the token: the snapshot's number, bytes and the journal's TTL
        (JournalError when it is over the size bound)."""
        data = encode_snapshot(snapshot)
        if len(data) > self.settings.journal_max_snapshot_bytes:
            raise JournalError(f"match {lease.match_id}: a snapshot of {len(data)} bytes is over "
                               f"{self.settings.journal_max_snapshot_bytes}")
        return [snapshot.seq, data, self._ms(self.settings.journal_ttl)]

    async def snapshot(self, lease: Lease, snapshot: JournalSnapshot) -> None:
        answer = await self._write(self._snapshot, lease, self._keys(lease.match_id),
                                   *self._snapshot_args(lease, snapshot))
        self._journal_refusal(lease, answer)

    async def snapshot_all(self, items: Sequence[tuple[Lease, JournalSnapshot]]) -> list[Exception | None]:
        """`snapshot` for many matches: on one Redis, every `_SNAPSHOT` call written at once on the
        journal's line (one round trip); on a cluster, one after another."""
        if self._line is None:
            return await snapshot_each(self, items)
        out: list[Exception | None] = [None] * len(items)
        sent: list[int] = []
        calls: list[tuple[list[str], list[Any]]] = []
        for index, (lease, snapshot) in enumerate(items):
            try:
                args = [lease.token, *self._snapshot_args(lease, snapshot)]
            except JournalError as error:
                out[index] = error
                continue
            calls.append((self._keys(lease.match_id), args))
            sent.append(index)
        if not calls:
            return out
        self.round_trips += 1
        answers = await self._line.evalsha_all(self._snapshot.sha, _SNAPSHOT, calls)
        for index, answer in zip(sent, answers, strict=True):
            if isinstance(answer, Exception):
                raise answer
            lease = items[index][0]
            try:
                self._journal_refusal(lease, self._fence_refusal(lease, answer))
            except (FencedError, JournalError) as error:
                out[index] = error
        return out

    async def load(self, match_id: str) -> Journal | None:
        self.round_trips += 1
        keys = self._keys(match_id)[1:]
        answer = await self._load(keys=keys, args=[])
        if not answer:
            return None
        header, snapshot, batches = answer
        return Journal(
            decode_header(header),
            decode_snapshot(snapshot) if snapshot else None,
            tuple(decode_batch(data) for data in batches),
        )

    async def finish(self, lease: Lease) -> None:
        await self._write(self._finish, lease, self._keys(lease.match_id))
        self.round_trips += 1
        await self.redis.zrem(self._owned, lease.match_id)

    async def orphans(self, limit: int) -> list[str]:
        self.round_trips += 1
        # The index's times are the nodes' clocks, a lease's expiry Redis': candidates up to
        # `lease_margin` early, each checked against its lease (the authority) below.
        soon = self._clock() + self.settings.lease_margin
        if self._line is not None:  # every `orphan_scan_every`: on the journal's own connection
            found = await self._line.call("ZRANGEBYSCORE", self._owned, "-inf", repr(soon), "LIMIT", 0, limit)
        else:
            found = await self.redis.zrangebyscore(self._owned, "-inf", soon, start=0, num=limit)
        orphans = []
        for raw in found:
            match_id = _text(raw)
            self.round_trips += 1
            if not await self.redis.exists(self._key(match_id, "journal")):
                await self.redis.zrem(self._owned, match_id)  # finished or expired: not a match any more
            elif await self.holder(match_id) is None:
                orphans.append(match_id)
        return orphans

    async def close(self) -> None:
        if self._line is not None:
            self._line.close()
        await self.redis.aclose()


class RedisBus:
    """The bus on Redis pub/sub: sharded (`SPUBLISH`/`SSUBSCRIBE`, each channel on the shard of its
    hash tag) on a Redis Cluster, plain (`PUBLISH`/`SUBSCRIBE`) on one Redis. One subscriber
    connection per shard, with one reader task each, calls the handlers (server/cluster/bus.py)."""

    def __init__(self, client: Client, prefix: str = "", settings: ClusterSettings | None = None) -> None:
        self.redis = client
        #: Put before every channel name (pub/sub ignores the database number: this keeps deployments
        #: or test runs sharing one Redis apart).
        self.prefix = prefix
        self.settings = settings or ClusterSettings()
        self.sharded = isinstance(client, RedisCluster)
        self._handlers: dict[str, list[Handler]] = {}
        #: Shard ("host:port", or "" on one Redis) → its subscriber connection and reader task.
        self._shards: dict[str, tuple[PubSub, asyncio.Task[None] | None]] = {}
        self._channel_shard: dict[str, str] = {}
        #: Channels whose subscription Redis has not confirmed yet (the reader resolves them).
        self._confirming: dict[str, asyncio.Future[None]] = {}
        self._subscribing = asyncio.Lock()

    async def publish(self, channel: str, data: bytes) -> None:
        check_channel(channel)
        check_message(data, self.settings.bus_max_message_bytes)
        if self.sharded:
            await self.redis.execute_command("SPUBLISH", self.prefix + channel, data)
        else:
            await self.redis.publish(self.prefix + channel, data)

    async def publish_all(self, items: Sequence[tuple[str, bytes]]) -> list[Exception | None]:
        out: list[Exception | None] = [None] * len(items)
        pipe = self.redis.pipeline(transaction=False)
        sent: list[int] = []
        for index, (channel, data) in enumerate(items):
            try:
                check_channel(channel)
                check_message(data, self.settings.bus_max_message_bytes)
            except ValueError as error:
                out[index] = error
                continue
            command = "SPUBLISH" if self.sharded else "PUBLISH"
            pipe.execute_command(command, self.prefix + channel, data)
            sent.append(index)
        if sent:
            answers = await pipe.execute(raise_on_error=False)
            for index, answer in zip(sent, answers, strict=True):
                if isinstance(answer, Exception):
                    out[index] = answer
        return out

    async def _pubsub_for(self, channel: str) -> tuple[str, PubSub]:
        host, port = "", 0
        if isinstance(self.redis, RedisCluster):
            await self.redis.initialize()  # the slots map (once; later calls return at once)
            node = self.redis.get_node_from_key(self.prefix + channel)
            if node is None:
                raise ConnectionError(f"no cluster node serves the channel {channel}")
            host, port = str(node.host), int(node.port)
        name = f"{host}:{port}" if host else ""
        held = self._shards.get(name)
        if held is not None:
            return name, held[0]
        # On a cluster, a plain client of the shard's node: its SSUBSCRIBE holds that node's channels.
        pubsub = aioredis.Redis(host=host, port=port).pubsub() if host else self.redis.pubsub()
        self._shards[name] = (pubsub, None)
        return name, pubsub

    async def subscribe(self, channel: str, handler: Handler) -> Subscription:
        check_channel(channel)
        # One subscription at a time: two at once on one shard's connection could each start a reader,
        # or miss their confirmation (seen with a node subscribing to two matches' channels together).
        async with self._subscribing:
            return await self._subscribe(channel, handler)

    async def _subscribe(self, channel: str, handler: Handler) -> Subscription:
        handlers = self._handlers.get(channel)
        if handlers is None:
            if len(self._handlers) >= self.settings.bus_max_channels:
                raise OverflowError(f"this node follows {len(self._handlers)} channels: subscription refused")
            handlers = self._handlers[channel] = []
            name, pubsub = await self._pubsub_for(channel)
            self._channel_shard[channel] = name
            confirmed = self._confirming[channel] = asyncio.get_running_loop().create_future()
            if self.sharded:
                await pubsub.ssubscribe(self.prefix + channel)
            else:
                await pubsub.subscribe(self.prefix + channel)
            task = self._shards[name][1]
            if task is None or task.done():
                self._shards[name] = (pubsub, asyncio.create_task(self._read(pubsub), name=f"bus-{name}"))
            try:  # "from now on": what is published after this returns reaches the handler
                await asyncio.wait_for(confirmed, self.settings.bus_subscribe_timeout)
            finally:
                self._confirming.pop(channel, None)
        handlers.append(handler)
        return Subscription(channel, handler)

    async def _read(self, pubsub: PubSub) -> None:
        """Deliver a shard's messages to their handlers until the shard's subscriber has no channel."""
        while pubsub.subscribed:
            message = await pubsub.get_message(timeout=None)
            if message is None:
                continue
            kind = _text(message["type"])
            channel = _text(message["channel"])[len(self.prefix):]
            if kind in ("subscribe", "ssubscribe"):
                confirming = self._confirming.get(channel)
                if confirming is not None and not confirming.done():
                    confirming.set_result(None)
                continue
            if kind not in ("message", "smessage"):
                continue
            for handler in tuple(self._handlers.get(channel, ())):
                try:
                    handler(channel, message["data"])
                except Exception:  # one handler's failure must not stop the shard's delivery
                    log.exception("bus handler failed on %s", channel)

    async def unsubscribe(self, subscription: Subscription) -> None:
        async with self._subscribing:
            await self._unsubscribe(subscription)

    async def _unsubscribe(self, subscription: Subscription) -> None:
        handlers = self._handlers.get(subscription.channel)
        if not handlers or subscription.handler not in handlers:
            return
        handlers.remove(subscription.handler)
        if handlers:
            return
        del self._handlers[subscription.channel]
        name = self._channel_shard.pop(subscription.channel)
        pubsub = self._shards[name][0]
        if self.sharded:
            await pubsub.sunsubscribe(self.prefix + subscription.channel)
        else:
            await pubsub.unsubscribe(self.prefix + subscription.channel)

    async def close(self) -> None:
        for pubsub, task in self._shards.values():
            if task is not None:
                task.cancel()
            await pubsub.aclose()  # type: ignore[no-untyped-call,unused-ignore]  # typed from redis-py 8.2
        for _, task in self._shards.values():
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):  # closing: nothing to deliver
                    await task
        if self.sharded:
            for pubsub, _ in self._shards.values():
                if pubsub.connection_pool is not None:
                    await pubsub.connection_pool.disconnect()
        self._shards.clear()
        self._handlers.clear()
        self._channel_shard.clear()
