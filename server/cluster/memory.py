"""The embedded implementations (one process): leases and journals in dicts, a bus that delivers in
this process. The same rules as Redis (server/cluster/redis.py), checked the same way, so the suite
runs on both; `clock` (monotonic seconds) is injected so a test can let a lease lapse."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from .bus import Handler, Subscription, check_channel, check_message
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
from .settings import ClusterSettings


async def outcome(call: Awaitable[None], *refusals: type[Exception]) -> Exception | None:
    """One item of a many-at-once call, in turn (the embedded backends' `…_all`): its refusal, or None."""
    try:
        await call
    except refusals as error:
        return error
    return None


@dataclass
class _Match:
    """One match's lease and journal (kept encoded, as Redis keeps them: a reader gets copies)."""

    fence: int = 0
    holder: Holder | None = None
    until: float = 0.0
    header: bytes | None = None
    snapshot: bytes | None = None
    seq: int = 0
    batches: list[bytes] = field(default_factory=list)


class MemoryOwnership:
    """Leases and fenced journals in this process (see server/cluster/journal.py)."""

    def __init__(
        self, settings: ClusterSettings | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.settings = settings or ClusterSettings()
        self._clock = clock
        self._matches: dict[str, _Match] = {}

    def view(self, settings: ClusterSettings) -> MemoryOwnership:
        """The same leases and journals, written with other settings (as another node would)."""
        other = MemoryOwnership(settings, self._clock)
        other._matches = self._matches
        return other

    def _live(self, match_id: str) -> tuple[_Match, Holder | None]:
        entry = self._matches.setdefault(match_id, _Match())
        if entry.holder is not None and self._clock() >= entry.until:
            entry.holder = None
        return entry, entry.holder

    def _fenced(self, lease: Lease) -> _Match:
        entry, holder = self._live(lease.match_id)
        if holder is None:
            raise FencedError(lease.match_id, lease.token, "the lease lapsed")
        if holder.token != lease.token:
            raise FencedError(lease.match_id, lease.token,
                              f"the lease is held by node {holder.node} with token {holder.token}")
        return entry

    async def acquire(self, match_id: str, node: str) -> Lease | None:
        entry, holder = self._live(match_id)
        if holder is not None:
            return None
        entry.fence += 1
        entry.holder = Holder(node, entry.fence)
        entry.until = self._clock() + self.settings.lease_ttl
        return Lease(match_id, node, entry.fence)

    async def holder(self, match_id: str) -> Holder | None:
        if match_id not in self._matches:
            return None
        return self._live(match_id)[1]

    async def renew(self, lease: Lease) -> None:
        self._fenced(lease).until = self._clock() + self.settings.lease_ttl

    async def renew_all(self, leases: Sequence[Lease]) -> list[Exception | None]:
        return [await outcome(self.renew(lease), FencedError) for lease in leases]

    async def release(self, lease: Lease) -> None:
        entry, holder = self._live(lease.match_id)
        if holder is not None and holder.token == lease.token:
            entry.holder = None

    async def create(self, lease: Lease, header: Header) -> None:
        entry = self._fenced(lease)
        if entry.header is not None:
            raise JournalError(f"match {lease.match_id} has a journal already")
        entry.header = encode_header(header)

    async def append(self, lease: Lease, batch: Batch) -> None:
        self._append(lease, batch.seq, encode_batch(batch))

    def _append(self, lease: Lease, seq: int, data: bytes) -> None:
        if len(data) > self.settings.journal_max_batch_bytes:
            raise JournalError(f"match {lease.match_id}: a batch of {len(data)} bytes is over "
                               f"{self.settings.journal_max_batch_bytes}")
        entry = self._fenced(lease)
        _check_append(lease.match_id, entry.header is not None, entry.seq, seq, len(entry.batches),
                      self.settings.journal_max_batches)
        entry.batches.append(data)
        entry.seq = seq

    async def append_all(self, items: Sequence[Appending]) -> list[Exception | None]:
        return self._append_items(items)

    def append_soon(self, items: Sequence[Appending], done: Appended) -> bool:
        done(self._append_items(items))
        return True

    def _append_items(self, items: Sequence[Appending]) -> list[Exception | None]:
        out: list[Exception | None] = []
        for lease, seq, data in items:
            try:
                self._append(lease, seq, data)
            except (FencedError, JournalError) as error:
                out.append(error)
            else:
                out.append(None)
        return out

    async def snapshot(self, lease: Lease, snapshot: JournalSnapshot) -> None:
        data = encode_snapshot(snapshot)
        if len(data) > self.settings.journal_max_snapshot_bytes:
            raise JournalError(f"match {lease.match_id}: a snapshot of {len(data)} bytes is over "
                               f"{self.settings.journal_max_snapshot_bytes}")
        entry = self._fenced(lease)
        base = entry.seq - len(entry.batches)  # the seq the snapshot held includes
        _check_snapshot(lease.match_id, entry.header is not None, base, entry.seq, snapshot.seq)
        entry.snapshot = data
        del entry.batches[: snapshot.seq - base]

    async def snapshot_all(self, items: Sequence[tuple[Lease, JournalSnapshot]]) -> list[Exception | None]:
        return await snapshot_each(self, items)

    async def load(self, match_id: str) -> Journal | None:
        entry = self._matches.get(match_id)
        if entry is None or entry.header is None:
            return None
        snapshot = decode_snapshot(entry.snapshot) if entry.snapshot is not None else None
        return Journal(decode_header(entry.header), snapshot, tuple(decode_batch(b) for b in entry.batches))

    async def finish(self, lease: Lease) -> None:
        self._fenced(lease)
        del self._matches[lease.match_id]  # a stale holder's later write finds no lease: refused

    async def orphans(self, limit: int) -> list[str]:
        found = []
        for match_id, entry in self._matches.items():
            if entry.header is not None and self._live(match_id)[1] is None:
                found.append(match_id)
                if len(found) >= limit:
                    break
        return found

    async def close(self) -> None:
        self._matches.clear()


def _check_append(match_id: str, created: bool, last: int, seq: int, held: int, most: int) -> None:
    """The journal's rules for an append (the Redis script checks the same)."""
    if not created:
        raise JournalError(f"match {match_id} has no journal")
    if seq != last + 1:
        raise JournalError(f"match {match_id}: batch {seq} is out of order (the last logged is {last})")
    if held >= most:
        raise JournalError(f"match {match_id}: {held} batches since the snapshot, the most kept: "
                           "snapshot first")


def _check_snapshot(match_id: str, created: bool, base: int, last: int, seq: int) -> None:
    """The journal's rules for a snapshot (the Redis script checks the same)."""
    if not created:
        raise JournalError(f"match {match_id} has no journal")
    if not base <= seq <= last:
        raise JournalError(f"match {match_id}: a snapshot including batch {seq} is outside {base} … {last}")


class MemoryBus:
    """A bus inside one process: a publish reaches this process's subscribers of the channel, each
    message delivered soon after (on the event loop, in publish order), never inside `publish`."""

    def __init__(self, settings: ClusterSettings | None = None) -> None:
        self.settings = settings or ClusterSettings()
        self._handlers: dict[str, list[Handler]] = {}
        self._pending = 0

    async def publish(self, channel: str, data: bytes) -> None:
        check_channel(channel)
        check_message(data, self.settings.bus_max_message_bytes)
        if self._pending >= self.settings.bus_queue:
            raise OverflowError(f"the embedded bus holds {self._pending} messages: publish refused")
        handlers = tuple(self._handlers.get(channel, ()))
        if handlers:
            self._pending += 1
            asyncio.get_running_loop().call_soon(self._deliver, handlers, channel, data)

    async def publish_all(self, items: Sequence[tuple[str, bytes]]) -> list[Exception | None]:
        return [await outcome(self.publish(channel, data), ValueError, OverflowError)
                for channel, data in items]

    def _deliver(self, handlers: tuple[Handler, ...], channel: str, data: bytes) -> None:
        self._pending -= 1
        for handler in handlers:
            handler(channel, data)

    async def subscribe(self, channel: str, handler: Handler) -> Subscription:
        check_channel(channel)
        if channel not in self._handlers and len(self._handlers) >= self.settings.bus_max_channels:
            raise OverflowError(f"this node follows {len(self._handlers)} channels: subscription refused")
        self._handlers.setdefault(channel, []).append(handler)
        return Subscription(channel, handler)

    async def unsubscribe(self, subscription: Subscription) -> None:
        handlers = self._handlers.get(subscription.channel)
        if handlers and subscription.handler in handlers:
            handlers.remove(subscription.handler)
            if not handlers:
                del self._handlers[subscription.channel]

    async def close(self) -> None:
        self._handlers.clear()
