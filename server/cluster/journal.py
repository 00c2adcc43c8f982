"""Who owns a live match, and the journal a takeover restores it from.

**The lease.** A match is owned by one node through a lease with a TTL (`ClusterSettings.lease_ttl`)
that the owner renews. `acquire` succeeds only when no live lease exists, and gives a *fencing
token*: a number per match that only grows (the first owner gets 1, each later acquisition one
more, whoever makes it). Every write of the journal names its token and is checked atomically with
it (one Lua script on the match's own keys in Redis, one critical section in memory): a write whose
token is not the live lease's is refused with `FencedError`, and nothing changes. So a node that was
paused or cut off past its lease can never write again once another node took the match, and even
before: its lease is gone, its writes are refused, and it stops serving the match (the owner's
signal to let go).

**The journal** of a match holds exactly what a takeover needs:

- the `Header`, written once by the first owner: ruleset name and version, the snapshot format
  (`SNAPSHOT_FORMAT`, marshal's version and the Python that wrote it: a node only takes over a
  match whose ruleset version and snapshot format it plays), seed, config (the ruleset's plain
  form), seats (names, guests, bots), ranked, private, the runner's settings and keyframe phase,
  wall-clock creation, and `extra` (the hub's own fields: an invitation's secret, …);
- `Batch`es, appended with consecutive numbers (`seq`) before the owner sends anything that carries
  their inputs: an input counts as acknowledged once a record carrying it (a frame's `inputs`, on
  either stream) or an `input-late` naming it was sent, so the owner logs each tick's input entries
  (`MatchRunner.take_log`: each seat's entries and how far it is known) and awaits the append before
  it publishes that tick's records. A batch also carries the schedule's frame (`now`) and `marks`:
  the stream numbers after the publication it precedes (players' head, spectators' head and the
  confirmed frame they reached), which the store does not read;
- the newest `JournalSnapshot`, written every `snapshot_every` seconds: a runner `Checkpoint` (the
  state at the start of the newest confirmed keyframe, each seat's inputs from that frame, the
  schedule's frame) with the `seq` of the last batch it includes and the marks then. Writing it
  drops the batches up to that `seq`, so the journal stays within one snapshot and
  `journal_max_batches` batches.

**A takeover** (`load` after `acquire`): the new owner reads the header (refusing a ruleset version
or snapshot format it does not play), makes a fresh runner with the same ruleset, config, seed,
seats, settings and keyframe phase, and `MatchRunner.resume`s it from the snapshot's checkpoint and
the batches after it (an entry the checkpoint already holds is skipped), standing at the last
batch's `now`. Its first `advance` re-simulates from the checkpoint's keyframe: determinism makes
every frame up to the last one published the same record again, so the new owner rebuilds its
resync caches from them and publishes only what comes after the last marks, numbered on from the
logged heads (no gap, no rewind on the spectators' stream). Bots are made again from their seeds:
the moves they made are in the log, the ones after the takeover are the new bot's own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgpack  # type: ignore[import-untyped]

from ..netcode.runner import MARSHAL_VERSION, Checkpoint, SeatInputs, SeatLog, entry_pairs
from ..store.base import StoreError

#: How a snapshot's state is written: marshal's version and the Python that wrote it (marshal's
#: format may change between Python versions; a node with another one does not take the match over).
SNAPSHOT_FORMAT = f"marshal{MARSHAL_VERSION}-py{sys.version_info.major}.{sys.version_info.minor}"


class FencedError(StoreError):
    """A journal write (or renewal) with a fencing token that is not the match's live lease's."""

    def __init__(self, match_id: str, token: int, why: str) -> None:
        super().__init__(f"match {match_id}: the write with fencing token {token} was refused: {why}")
        self.match_id = match_id
        self.token = token
        self.why = why


class JournalError(StoreError):
    """A journal write that breaks the journal's rules (out of order, too large, full, no journal)."""


@dataclass(frozen=True, slots=True)
class Lease:
    """A node's lease on a match, with its fencing token."""

    match_id: str
    node: str
    token: int


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a match's live lease."""

    node: str
    token: int


@dataclass(frozen=True)
class Header:
    """What a match is, written once (see the module docstring)."""

    ruleset: str
    ruleset_version: int
    snapshot_format: str
    seed: int
    config: dict[str, Any]
    seats: tuple[str, ...]
    guests: tuple[str | None, ...]
    bots: tuple[str | None, ...]
    ranked: bool
    private: bool
    created: float
    keyframe_phase: int
    runner: dict[str, int]
    extra: dict[str, Any] = field(default_factory=dict)

    def plain(self) -> dict[str, Any]:
        """msgpack-ready data."""
        return {
            "ruleset": self.ruleset, "ruleset_version": self.ruleset_version,
            "snapshot_format": self.snapshot_format, "seed": self.seed, "config": self.config,
            "seats": list(self.seats), "guests": list(self.guests), "bots": list(self.bots),
            "ranked": self.ranked, "private": self.private, "created": self.created,
            "keyframe_phase": self.keyframe_phase, "runner": self.runner, "extra": self.extra,
        }

    @classmethod
    def from_plain(cls, data: Mapping[str, Any]) -> Header:
        """Rebuild from `plain()`."""
        return cls(
            ruleset=str(data["ruleset"]), ruleset_version=int(data["ruleset_version"]),
            snapshot_format=str(data["snapshot_format"]), seed=int(data["seed"]), config=dict(data["config"]),
            seats=tuple(data["seats"]), guests=tuple(data["guests"]), bots=tuple(data["bots"]),
            ranked=bool(data["ranked"]), private=bool(data["private"]), created=float(data["created"]),
            keyframe_phase=int(data["keyframe_phase"]), runner=dict(data["runner"]),
            extra=dict(data["extra"]),
        )


@dataclass(frozen=True)
class Batch:
    """One tick's logged inputs (see the module docstring)."""

    seq: int
    now: int
    seats: tuple[SeatLog, ...]
    marks: Mapping[str, int] = field(default_factory=dict)


#: One item of `Ownership.append_all`: the writer's lease, the batch's `seq` and its bytes
#: (`encode_batch`, or `encode_logged` straight from a match's seal).
Appending = tuple[Lease, int, bytes]
#: What `Ownership.append_soon` calls back with: `append_all`'s answers, or the error that failed the
#: whole request (the store did not answer, or refused the call itself).
Appended = Callable[[list[Exception | None] | Exception], None]


def appending(lease: Lease, batch: Batch) -> Appending:
    """A batch as an `append_all` item."""
    return lease, batch.seq, encode_batch(batch)


@dataclass(frozen=True)
class JournalSnapshot:
    """A checkpoint, the last batch it includes, and the marks then."""

    seq: int
    checkpoint: Checkpoint
    marks: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Journal:
    """A match's journal as a reader loads it: the header, the newest snapshot (None before the
    first) and the batches after it, in order."""

    header: Header
    snapshot: JournalSnapshot | None
    batches: tuple[Batch, ...]

    @property
    def last_seq(self) -> int:
        """The newest batch's number (0: none yet)."""
        if self.batches:
            return self.batches[-1].seq
        return self.snapshot.seq if self.snapshot is not None else 0

    def marks(self) -> Mapping[str, int]:
        """The marks of the newest write (the last batch's, else the snapshot's)."""
        if self.batches:
            return self.batches[-1].marks
        return self.snapshot.marks if self.snapshot is not None else {}

    def now(self) -> int:
        """The schedule's frame at the newest write."""
        if self.batches:
            return self.batches[-1].now
        return self.snapshot.checkpoint.now if self.snapshot is not None else 0

    def logs(self) -> list[tuple[SeatLog, ...]]:
        """The batches' seat logs, for `MatchRunner.resume`."""
        return [batch.seats for batch in self.batches]


# ---- the encoding (msgpack; the checkpoint's state is marshal bytes inside it) ------------------------


#: One packer for every journal write (making one per call costs as much as the packing itself; the
#: event loop's one thread never packs two things at once).
_PACKER = msgpack.Packer(use_bin_type=True)


def _pack(value: object) -> bytes:
    data: bytes = _PACKER.pack(value)
    return data


def _flat(entries: Sequence[tuple[int, int]]) -> list[int]:
    return [number for entry in entries for number in entry]


def encode_header(header: Header) -> bytes:
    """A header's bytes."""
    return _pack(header.plain())


def decode_header(data: bytes) -> Header:
    """A header from its bytes."""
    return Header.from_plain(msgpack.unpackb(data, raw=False, strict_map_key=False))


def encode_batch(batch: Batch) -> bytes:
    """A batch's bytes: [seq, now, [[entries…], known_until] per seat, marks]."""
    seats = [(_flat(seat.entries), seat.known_until) for seat in batch.seats]
    return encode_logged(batch.seq, batch.now, seats, dict(batch.marks))


def encode_logged(seq: int, now: int, seats: Sequence[tuple[Sequence[int], int]],
                  marks: dict[str, int]) -> bytes:
    """A batch's bytes from its parts as a live match seals them (`MatchRunner.take_log`'s flat entries):
    what an owner appends, with no `Batch` made (it logs one every `send_every` frames a match)."""
    return _pack((seq, now, seats, marks))


def decode_batch(data: bytes) -> Batch:
    """A batch from its bytes."""
    seq, now, seats, marks = msgpack.unpackb(data, raw=False)
    return Batch(int(seq), int(now), tuple(SeatLog.of(flat, known) for flat, known in seats), marks)


def encode_snapshot(snapshot: JournalSnapshot) -> bytes:
    """A snapshot's bytes: [seq, frame, state, [[held, [entries…], known_until] per seat], now, marks]."""
    point = snapshot.checkpoint
    seats = [[seat.held_before, _flat(seat.entries), seat.known_until] for seat in point.seats]
    return _pack([snapshot.seq, point.frame, point.state, seats, point.now, dict(snapshot.marks)])


def decode_snapshot(data: bytes) -> JournalSnapshot:
    """A snapshot from its bytes."""
    seq, frame, state, seats, now, marks = msgpack.unpackb(data, raw=False)
    inputs = tuple(SeatInputs(int(held), entry_pairs(flat), int(known)) for held, flat, known in seats)
    return JournalSnapshot(int(seq), Checkpoint(int(frame), bytes(state), inputs, int(now)), marks)


# ---- the interface ------------------------------------------------------------------------------------


class Ownership(Protocol):
    """Leases on matches and their fenced journals (see the module docstring).

    Every write takes the writer's `Lease` and raises `FencedError` (changing nothing) unless the
    lease is the match's live one; `JournalError` for a write the journal's rules refuse.
    """

    async def acquire(self, match_id: str, node: str) -> Lease | None:
        """Take the match's lease for `ttl` (a new, higher fencing token), or None while another live
        lease holds it (this node's own included: a holder renews, it does not acquire again)."""
        ...

    async def holder(self, match_id: str) -> Holder | None:
        """Who holds the match's live lease, if anyone."""
        ...

    async def renew(self, lease: Lease) -> None:
        """Extend the lease by the TTL from now; FencedError when it is not live any more."""
        ...

    async def renew_all(self, leases: Sequence[Lease]) -> list[Exception | None]:
        """`renew` for many leases at once (one round trip: a node renews all its matches' leases
        together): per lease, its FencedError (or the store's error), or None where it was renewed."""
        ...

    async def release(self, lease: Lease) -> None:
        """Give the lease up (a graceful hand-off): another node may acquire it at once. Nothing
        happens when it is not this lease's any more."""
        ...

    async def create(self, lease: Lease, header: Header) -> None:
        """Start the match's journal with its header (JournalError when it has one already)."""
        ...

    async def append(self, lease: Lease, batch: Batch) -> None:
        """Log a batch; its `seq` must be the last one's + 1 (JournalError otherwise, or when the
        journal holds `journal_max_batches` since its snapshot, or the batch is too large)."""
        ...

    async def append_all(self, items: Sequence[Appending]) -> list[Exception | None]:
        """`append` for many matches at once (one round trip: what a node's tick awaits before it
        publishes), each item already encoded (`Appending`): per item, its FencedError or JournalError,
        or None where it was logged."""
        ...

    def append_soon(self, items: Sequence[Appending], done: Appended) -> bool:
        """`append_all` started now, without awaiting it: `done` gets its answers (or the error that
        failed the request) from the event loop's callback that reads the reply, or at once where
        nothing is awaited (the embedded ownership). False, with nothing started, where this store
        cannot (not connected yet, a Redis Cluster's pipeline, a batch over the size bound): the caller
        awaits `append_all` instead. `done` must not raise."""
        ...

    async def snapshot(self, lease: Lease, snapshot: JournalSnapshot) -> None:
        """Keep a snapshot including the batches up to `snapshot.seq` (the last logged one at most),
        and drop those batches."""
        ...

    async def snapshot_all(self, items: Sequence[tuple[Lease, JournalSnapshot]]) -> list[Exception | None]:
        """`snapshot` for many matches at once (one round trip where the store can): per item, its
        FencedError or JournalError, or None where it was kept. Another error (the store did not
        answer) is raised."""
        ...

    async def load(self, match_id: str) -> Journal | None:
        """The match's journal (None when there is none), read atomically."""
        ...

    async def finish(self, lease: Lease) -> None:
        """The match is over and recorded: drop its journal and lease (the fence stays until it expires)."""
        ...

    async def orphans(self, limit: int) -> list[str]:
        """Matches with a journal whose lease lapsed (takeover candidates), at most `limit`."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


async def snapshot_each(ownership: Ownership,
                        items: Sequence[tuple[Lease, JournalSnapshot]]) -> list[Exception | None]:
    """`Ownership.snapshot_all` one `snapshot` after another (a store with no faster way): each item's
    FencedError or JournalError, or None."""
    out: list[Exception | None] = []
    for lease, snapshot in items:
        try:
            await ownership.snapshot(lease, snapshot)
        except (FencedError, JournalError) as error:
            out.append(error)
        else:
            out.append(None)
    return out
