"""A node's side of shared matches (issue 20): the leases of the matches it runs, their journals, and
taking over a match whose owner died. The hub drives it from one background task; it never touches a
socket.

- `adopt(live)`: a journaled match this node runs from its start takes its lease and writes its
  header (lazily, in the first `flush`, so making a match stays synchronous).
- `flush_soon(now)`, the fast path, after the clock wake-up that ticked a publishing group's last
  slice (server/match/hub.py; `journal_slices`): the sealed publications of the owned matches go to
  the journal in one request written at once (`Ownership.append_soon`: no task wakes, nothing is
  awaited) and are published from its reply's callback (`LiveMatch.publish_sealed`):
  an input is acknowledged only after it is logged. What it cannot do is `flush(now)`'s, run by the
  node's flusher task: a new match's lease and header, the snapshots due (every `snapshot_every`
  seconds a match's runner checkpoint), and the same appends awaited (`append_all`) on a store that
  cannot write without an `await` (a Redis Cluster's pipeline) or failed the last fast request. A write
  refused for its fencing token means another node owns the match now (or its lease lapsed): the
  match is *lost* and this node must stop serving it (the hub drops it and closes its connections;
  its clients reconnect to the owner).
- `renew(now)`: every owned lease is renewed; one this node could not renew within `lease_ttl -
  lease_margin` of its last renewal is lost as well, whatever Redis says later (a paused node stops
  on its own clock before another can take over).
- `take_over(match_id, tick, now)`: acquire an orphan's lease (its owner's lapsed), load its journal,
  refuse a match of a ruleset version this build does not have (rules/registry.py: any registered
  ruleset and version is taken, whatever the node's default), or of another snapshot format (releasing
  the lease for a node that does: so a rolling upgrade moves matches only between nodes that play
  them), and rebuild it (`LiveMatch.resumed`): snapshot, logged inputs, the
  same stream numbers.
- `finish(live)`: a finished match's journal and lease are dropped once its record is written (the
  match is not this node's from then on: a renewal or a snapshot refused meanwhile does not drop it,
  its delayed spectators' stream plays out).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from rules.registry import lookup
from rules.ruleset import Bot, seat_seed

from ..cluster.journal import (
    SNAPSHOT_FORMAT,
    Appending,
    FencedError,
    Header,
    Journal,
    JournalSnapshot,
    Lease,
    Ownership,
)
from ..cluster.settings import ClusterSettings
from ..logs import log_event
from ..netcode.runner import MatchRunner, RunnerSettings
from .histogram import WindowHistogram
from .live import Finished, LiveMatch, Sealed
from .settings import MatchSettings, RankedSettings

log = logging.getLogger("floe.owner")

#: Requests whose wait for the journal `stats` reports percentiles of (the newest; at 60 a second, the
#: last 10 s).
WAIT_SAMPLES = 600


def header_of(live: LiveMatch) -> Header:
    """What a match is, for its journal."""
    config, runner = live.config, live.config.runner
    return Header(
        ruleset=config.ruleset.name, ruleset_version=config.ruleset.version, snapshot_format=SNAPSHOT_FORMAT,
        seed=live.seed, config=config.ruleset.config_plain(config.match_config),
        seats=tuple(seat.name for seat in live.seats), guests=tuple(seat.guest for seat in live.seats),
        bots=tuple(seat.bot for seat in live.seats), ranked=live.ranked, private=live.private,
        created=live.created_wall, keyframe_phase=live.seed,
        runner={"rollback_window": runner.rollback_window, "max_ahead": runner.max_ahead,
                "keyframe_every": runner.keyframe_every, "snapshot_every": runner.snapshot_every},
        extra={"invite": live.invite},
    )


@dataclass
class Owned:
    """A match this node owns: its lease (None until the first flush took it), the last batch number
    logged, and when it last renewed and snapshotted."""

    live: LiveMatch
    lease: Lease | None = None
    seq: int = 0
    renewed: float = 0.0
    snapshotted: float = 0.0
    #: The marks of the last batch logged: a snapshot carries them (it replaces that batch for a reader).
    marks: dict[str, int] = field(default_factory=dict)


#: What a flush took out of its matches: each match with its sealed publications, in order.
Taken = list[tuple[Owned, list[Sealed]]]


def _taken(pending: Iterable[Owned], owned: dict[str, Owned]) -> tuple[list[Appending], Taken, list[Owned]]:
    """The sealed publications of the pending matches still owned and leased, as one request's items,
    and which match each came from (taken out of the matches: `_put_back` returns them); the pending
    matches with no lease yet (their publications stay: `flush` takes the lease first)."""
    items: list[Appending] = []
    taken: Taken = []
    unleased: list[Owned] = []
    for one in pending:
        live = one.live
        sealed = live.sealed
        if not sealed or owned.get(live.id) is not one:
            continue
        lease = one.lease
        if lease is None:
            unleased.append(one)
            continue
        live.sealed = []
        for unit in sealed:
            items.append((lease, unit.seq, unit.data))
        taken.append((one, sealed))
    return items, taken, unleased


class MatchOwner:
    """The leases and journals of one node's shared matches (see the module docstring)."""

    def __init__(self, ownership: Ownership, node: str, settings: ClusterSettings,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.ownership = ownership
        self.node = node
        self.settings = settings
        #: The node's monotonic clock (seconds): how long publications wait for the journal.
        self.clock = clock
        self.owned: dict[str, Owned] = {}
        #: Owned matches that sealed a publication since the last flush (only those are looked at).
        self.pending: dict[str, Owned] = {}
        #: Wakes the flusher (`flush`): what `flush_soon` leaves to it.
        self.on_pending: Callable[[], None] = lambda: None
        #: A fast request failed (the store's error) / matches lost in a fast request's reply.
        self.on_failed: Callable[[Exception], None] = lambda error: None
        self.on_lost: Callable[[list[LiveMatch]], None] = lambda lost: None
        #: The flush under way ("fast": a request `flush_soon` wrote; "slow": `flush`), if any.
        self._flushing: str | None = None
        #: Resolved when a fast request's reply is handled (what `flush` waits for).
        self._settled: asyncio.Future[None] | None = None
        #: Whether `flush_soon` may write (not after a failed request, until a `flush` went through).
        self._fast = True
        #: `flush_soon` was called while a flush was under way: that flush's end writes what is pending.
        self._owed = False
        #: Matches whose snapshot is due (written by the next `flush`).
        self._snapshots: dict[str, Owned] = {}
        #: Set when the node stops sharing: `flush_soon` writes nothing more.
        self.stopped = False
        #: When the oldest pending publication was sealed, and the last `WAIT_SAMPLES` waits from a
        #: request's oldest seal to its publication (seconds: `stats`, on /health).
        self._pending_since = 0.0
        self.waits = WindowHistogram(WAIT_SAMPLES)
        #: Counters for stats and tests.
        self.batches = 0
        self.snapshots = 0
        self.taken_over = 0

    def adopt(self, live: LiveMatch) -> None:
        """Run `live` as a shared match (it must be journaled); its lease is taken in the next flush."""
        if not live.journaled:
            raise ValueError(f"match {live.id} is not journaled")
        if live.id not in self.owned:
            self._track(Owned(live))

    def _track(self, owned: Owned) -> None:
        """Own a match: its seals mark it pending and wake the flusher."""
        self.owned[owned.live.id] = owned
        owned.live.on_sealed = partial(self._sealed, owned)
        if owned.live.sealed:
            self._sealed(owned)

    def _sealed(self, owned: Owned) -> None:
        """`owned` sealed a publication (its `on_sealed`, every `send_every` frames): `flush_soon`, after
        the wake-up that ends its publishing group, logs it."""
        pending = self.pending
        if not pending:
            self._pending_since = self.clock()
        pending[owned.live.id] = owned  # one no longer owned is left out when the flush takes them

    async def _lease(self, owned: Owned, now: float) -> bool:
        """Take a new match's lease and write its header; False when another node holds it."""
        lease = await self.ownership.acquire(owned.live.id, self.node)
        if lease is None:
            return False
        await self.ownership.create(lease, header_of(owned.live))
        owned.lease, owned.renewed, owned.snapshotted = lease, now, now
        return True

    def flush_soon(self, now: float) -> None:
        """The fast path, run after the clock wake-up that ticked a publishing group's last slice
        (`Hub.after_group`): the pending publications' batches written now in one request
        (`Ownership.append_soon`: no task, nothing awaited) and published from its reply's callback.
        Left to `flush` (`on_pending` wakes the flusher): a match with no lease yet, and everything when
        the store cannot (or failed the last fast request); while a flush is under way it is owed, and
        that flush's end writes what is pending then. Snapshots due are written by `flush` too (the
        reply wakes the flusher for them)."""
        self._owed = self._flushing is not None and bool(self.pending)
        if self._owed or not self.pending or self.stopped:
            return
        if not self._fast:
            self.on_pending()
            return
        pending, self.pending = self.pending, {}
        since = self._pending_since
        items, taken, unleased = _taken(pending.values(), self.owned)
        if unleased:  # new matches: `flush` takes their leases and logs them
            for owned in unleased:
                self.pending[owned.live.id] = owned
            self.on_pending()
        if not items:
            return
        self._flushing = "fast"
        if not self.ownership.append_soon(items, partial(self._appended, taken, now, since)):
            self._flushing = None
            self._put_back(taken, since)
            self.on_pending()

    def _appended(self, taken: Taken, now: float, since: float,
                  answers: list[Exception | None] | Exception) -> None:
        """A fast request's reply (see `flush_soon`): publish what was logged, and go on."""
        self._idle()
        try:
            if isinstance(answers, Exception):
                self._put_back(taken, since)
                self._fast = False  # the flusher's rounds until the store answers again
                self.on_failed(answers)
                return
            lost: list[LiveMatch] = []
            self._settle(taken, answers, since, now, lost)
            if lost:
                self.on_lost(lost)
            if self._snapshots:
                self.on_pending()
            elif self._owed:
                self.flush_soon(now)
        except Exception as error:  # noqa: BLE001 - called from the store's read callback: never raise there
            log_event(log, logging.ERROR, "owner.publish-failed", exc_info=True, why=repr(error))

    def _idle(self) -> None:
        """No flush is under way any more: a `flush` waiting for it goes on."""
        self._flushing = None
        settled, self._settled = self._settled, None
        if settled is not None and not settled.done():
            settled.set_result(None)

    async def flush(self, now: float) -> list[LiveMatch]:
        """Log and publish every sealed publication (after a fast request still under way, and taking
        the leases of new matches), then write the snapshots due; the matches lost (see the module
        docstring)."""
        await self.settled()
        self._flushing = "slow"
        try:
            return await self._flush(now)
        finally:
            self._idle()
            if self._owed:  # a group's seals came meanwhile (`flush_soon` left them to this flush's end)
                self.flush_soon(now)

    @property
    def flushing(self) -> bool:
        """Is a flush under way (a fast request waiting for its reply, or `flush`)?"""
        return self._flushing is not None

    async def settled(self) -> None:
        """Return once no flush is under way (a fast request's reply handled, a `flush` done)."""
        while self._flushing is not None:
            if self._settled is None:
                self._settled = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._settled)

    async def _flush(self, now: float) -> list[LiveMatch]:
        lost: list[LiveMatch] = []
        pending, self.pending, since = self.pending, {}, self._pending_since
        self._owed = False  # what a group's end left to this flush is in it
        for owned in pending.values():
            if (owned.lease is None and self.owned.get(owned.live.id) is owned and owned.live.sealed
                    and not await self._lease(owned, now)):
                lost.append(self._lose(owned, "another node holds its lease"))
        items, taken, _ = _taken(pending.values(), self.owned)  # unleased now: lost above, or nothing sealed
        try:
            answers = await self.ownership.append_all(items) if items else []
        except BaseException:
            self._put_back(taken, since)
            raise
        self._fast = True
        self._settle(taken, answers, since, now, lost)
        due, self._snapshots = self._snapshots, {}
        await self._snapshot_all(due.values(), now, lost)
        return lost

    def _settle(self, taken: Taken, answers: list[Exception | None], since: float, now: float,
                lost: list[LiveMatch]) -> None:
        """Publish what the store logged (a match's publications up to the first refused: the match is
        lost then, its later ones are not published either) and count the request's wait (from
        `since`, its oldest seal); note the matches whose last snapshot is `snapshot_every` old (a
        running match seals every `send_every` frames, so each is looked at that often)."""
        if not taken:
            return
        if any(answers):
            taken = self._logged(taken, answers, lost)
            self.batches += sum(len(sealed) for _, sealed in taken)
        else:
            self.batches += len(answers)  # one answer a batch
        every = self.settings.snapshot_every
        for owned, sealed in taken:
            publish = owned.live.publish_sealed
            for unit in sealed:
                publish(unit, now)
            last = sealed[-1]
            owned.seq, owned.marks = last.seq, last.marks
            if now - owned.snapshotted >= every:
                self._snapshots[owned.live.id] = owned
        self.waits.add(self.clock() - since)

    def _logged(self, taken: Taken, answers: list[Exception | None], lost: list[LiveMatch]) -> Taken:
        """What the store logged of a request some of whose batches it refused: each match's
        publications up to its first refused one (none: left out); a match with a refused one is lost."""
        logged: Taken = []
        at = 0
        for owned, sealed in taken:
            refused, at = answers[at:at + len(sealed)], at + len(sealed)
            kept = sealed
            for index, error in enumerate(refused):
                if error is not None:
                    why = str(error) if isinstance(error, FencedError) else f"a batch was refused: {error}"
                    lost.append(self._lose(owned, why))
                    kept = sealed[:index]
                    break
            if kept:
                logged.append((owned, kept))
        return logged

    def stats(self) -> dict[str, Any]:
        """Numbers for /health: the batches logged, snapshots written and matches taken over, and how
        long publications waited for the journal (from a request's oldest seal to its publication:
        the publishing group's spread, `journal_slices`, and the store's round trip)."""
        return {"batches": self.batches, "snapshots": self.snapshots, "taken_over": self.taken_over,
                "wait_ms": self.waits.summary_ms()}

    def _put_back(self, taken: Taken, since: float) -> None:
        """The store did not answer a flush: nothing of it was published, so its publications go back,
        in order and before any sealed since, to be logged (with the same numbers) and published by the
        next flush (their wait counted from `since`, when the oldest was sealed). (Had the store logged
        them and only the answer been lost, the next flush's batches are refused as out of order and
        the match moves to a node that restores it from the journal.)"""
        self._pending_since = min(since, self._pending_since) if self.pending else since
        for owned, sealed in taken:
            owned.live.sealed[:0] = sealed
            if self.owned.get(owned.live.id) is owned:
                self.pending[owned.live.id] = owned

    async def _snapshot_all(self, due: Iterable[Owned], now: float, lost: list[LiveMatch]) -> None:
        """Write the snapshots due in one request (`Ownership.snapshot_all`: the matches that started
        together fall due together, every `snapshot_every`); a refused one's match is lost, another
        error is raised once the others are settled."""
        writing: list[tuple[Owned, Lease, JournalSnapshot]] = []
        for owned in due:
            runner, lease = owned.live.runner, owned.lease
            if (runner is None or lease is None or owned.live.sealed
                    or self.owned.get(owned.live.id) is not owned):  # lost since it was due
                continue
            owned.snapshotted = now
            # Older than the last keyframe the spectators were sent: the new owner rebuilds their history
            # from it, so a spectator that lost what was in flight when the owner died still finds its
            # number there (a keyframe interval more to re-simulate, a few milliseconds).
            checkpoint = runner.checkpoint(owned.live.spectators_keyframe() - 1)
            writing.append((owned, lease, JournalSnapshot(owned.seq, checkpoint, owned.marks)))
        if not writing:
            return
        answers = await self.ownership.snapshot_all([(lease, snapshot) for _, lease, snapshot in writing])
        failed: Exception | None = None
        for (owned, _, _), error in zip(writing, answers, strict=True):
            if error is None:
                self.snapshots += 1
            elif isinstance(error, FencedError):
                if self.owned.get(owned.live.id) is owned:  # not finished while the snapshot was out
                    lost.append(self._lose(owned, str(error)))
            else:
                failed = failed or error
        if failed is not None:
            raise failed

    async def renew(self, now: float) -> list[LiveMatch]:
        """Renew every lease; the matches lost (refused, or not renewed in time on this node's clock)."""
        lost = []
        deadline = self.settings.lease_ttl - self.settings.lease_margin
        held = [owned for owned in self.owned.values() if owned.lease is not None]
        try:
            answers: list[Exception | None] = await self.ownership.renew_all(
                [owned.lease for owned in held if owned.lease is not None])
        except Exception as error:  # noqa: BLE001 - whatever the store's client raises: the deadline below
            answers = [error] * len(held)
        for owned, answer in zip(held, answers, strict=True):
            if self.owned.get(owned.live.id) is not owned:  # finished (or lost) while the renewal was out
                continue
            if answer is None:
                owned.renewed = now
            elif isinstance(answer, FencedError):
                lost.append(self._lose(owned, str(answer)))
            elif now - owned.renewed > deadline:
                lost.append(self._lose(owned, f"not renewed for {now - owned.renewed:.1f} s: {answer}"))
        return lost

    def _lose(self, owned: Owned, why: str) -> LiveMatch:
        self.owned.pop(owned.live.id, None)
        self.pending.pop(owned.live.id, None)
        log_event(log, logging.WARNING, "owner.lost", match=owned.live.id, node=self.node, why=why)
        return owned.live

    async def finish(self, live: LiveMatch) -> None:
        """The match ended and its record is written: drop its journal and lease. It is not this
        node's from the start (a renewal or a snapshot under way meanwhile, refused once the lease is
        gone, must not count it as lost: an ended match still plays its delayed stream out)."""
        owned = self.owned.pop(live.id, None)
        self.pending.pop(live.id, None)
        self._snapshots.pop(live.id, None)
        if owned is None or owned.lease is None:
            return
        try:
            await self.ownership.finish(owned.lease)
        except FencedError as error:
            log_event(log, logging.WARNING, "owner.finish-refused", match=live.id, why=str(error))

    async def release_all(self) -> None:
        """Give every lease up (a graceful hand-off: another node takes the matches over at once)."""
        for owned in list(self.owned.values()):
            if owned.lease is not None:
                await self.ownership.release(owned.lease)
        self.owned.clear()

    async def take_over(
        self, match_id: str, config: MatchSettings, tick: int, now: float,
        on_finished: Callable[[Finished], None], ranked_rules: RankedSettings | None = None,
        min_play_frames: int = 0,
    ) -> LiveMatch | None:
        """Take an orphan over (see the module docstring); None when it is not this node's to take."""
        lease = await self.ownership.acquire(match_id, self.node)
        if lease is None:
            return None
        journal = await self.ownership.load(match_id)
        if journal is None:
            await self.ownership.release(lease)
            return None
        try:
            live = resume(journal, match_id, config, tick, now, on_finished, ranked_rules, min_play_frames)
        except ValueError as error:
            log_event(log, logging.WARNING, "owner.cannot-resume", match=match_id, node=self.node,
                      why=str(error))
            await self.ownership.release(lease)
            return None
        self._track(Owned(live, lease, journal.last_seq, now, now, dict(journal.marks())))
        self.taken_over += 1
        log_event(log, logging.INFO, "owner.took-over", match=match_id, node=self.node, token=lease.token,
                  frame=live.current_frame())
        return live


def resume(journal: Journal, match_id: str, config: MatchSettings, tick: int, now: float,
           on_finished: Callable[[Finished], None], ranked_rules: RankedSettings | None = None,
           min_play_frames: int = 0) -> LiveMatch:
    """Rebuild a running match from its journal on this node (ValueError when this node cannot)."""
    header = journal.header
    if header.snapshot_format != SNAPSHOT_FORMAT:
        raise ValueError(f"snapshot format {header.snapshot_format}, this node reads {SNAPSHOT_FORMAT}")
    ruleset = lookup(header.ruleset, header.ruleset_version)  # UnknownRulesetError is a ValueError
    pace = config.pace
    config = config.for_ruleset(ruleset)
    if config.pace != pace:
        raise ValueError(f"{ruleset.name} plays at {config.pace} frames a second, this node's loop at {pace}")
    settings = replace(config.runner, **{k: v for k, v in header.runner.items()
                                         if k in RunnerSettings.__dataclass_fields__})
    match_config = ruleset.config_from_plain(header.config)
    config = replace(config, match_config=match_config, runner=settings)
    names = list(header.seats)
    bots: dict[int, Bot[object]] = {index: ruleset.make_bot(bot, seat_seed(header.seed, index))
                                    for index, bot in enumerate(header.bots) if bot is not None}
    runner = MatchRunner(ruleset.new_match(match_config, header.seed, names), ruleset.inputs, settings, bots,
                         keyframe_phase=header.keyframe_phase, journal=True)
    if journal.snapshot is not None:
        checkpoint = journal.snapshot.checkpoint
    else:  # no snapshot yet: the match's start is the checkpoint
        scratch = MatchRunner(ruleset.new_match(match_config, header.seed, names), ruleset.inputs, settings,
                              keyframe_phase=header.keyframe_phase, journal=True)
        scratch.advance(0)
        checkpoint = scratch.checkpoint()
    runner.resume(checkpoint, journal.logs(), journal.now())
    return LiveMatch.resumed(config, journal, match_id, tick, now, on_finished, runner, ranked_rules,
                             min_play_frames)
