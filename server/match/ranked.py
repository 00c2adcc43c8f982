"""Ranked play: the queue's connections, pairing across nodes on the clock, dodges, and the ratings.

- `queue` (the dispatcher calls `request`) names a two-seat ruleset (absent: the node's; one at
  another pace than the node's, or not of two seats, is refused `malformed`): a guest with a token,
  not seated in a live match, not in a dodge's cooldown, waits in that ruleset's queue at its
  rating in that ruleset (server/store/players.py: a `Standing` per ruleset), one queue at a time
  (one entry per guest across nodes: a bounded set in the store, the `ranked:queue` key), and is
  told `queued`; a connection still following a match that is over or
  cancelled stops following it, so its players may queue again at once. `unqueue` or a closed
  socket takes it out, at no cost.
  While it waits it holds a place among its client address's live matches (as a room waiting does),
  so an address at its share is refused at `queue` (`too-many-matches`), never at pairing, where the
  refusal would cost its opponent the wait.
- The queue is the store's, shared by every node (server/store/base.py's `QueueStore`: one queue per
  ruleset, named by the ruleset; an entry per guest with its rating, wait, node and address).
- Pairing (a *pass*: every `ranked_pair_every` seconds while guests wait on this node, and at once on an
  arrival): the node reads the queue's entries (again only when they changed), and the pure matchmaker
  (server/match/matchmaker.py) pairs the nearest ratings within the widening windows; the node takes
  each pair with one of its own guests in it from the store by one atomic script, which refuses a pair
  whose entries another node took (or changed) meanwhile: whichever nodes race, a guest is paired once.
  The node that took a pair makes its match (1 v 1, the queue's ruleset) and hosts it: the node of the
  arrival that completed the pair, or of the first pass that found it; a full node (`Hub.admit`) leaves
  a pair with another node's guest to that node (a pair of its own two guests is refused `busy`, as on
  one node). It tells its own guests `matched`; for a guest waiting on another node it notes the pairing
  in the store (`pairing`, then `matched` or `refused` once the match is made or refused) and nudges
  that node on the bus (`QueueNudge` on `QUEUE`, server/cluster/bus.py), whose pass it starts at once
  to tell its guest. The news itself is the store's note, not the message: a nudge lost by the bus
  costs only time, as that node's next poll (within `ranked_pair_every`, the look a node with waiting
  guests makes anyway) finds the note. The match is noted in the store's journal of ranked results to
  apply. A node silent for `queue.stale_after` counts as gone: its entries leave the queue. A guest
  that leaves in the instant another node takes its pair is paired all the same (as when `unqueue`
  crosses `matched`); one that leaves while its own node takes the pair is not: its opponent waits
  again in its place.
- Both must connect (`join`) within `ranked_join_timeout`; the match starts only when both are
  connected. Otherwise it is cancelled, and whoever was not connected (or left) when it had to
  start (frozen then: server/match/live.py's `dodgers`) dodged. A ranked match that ends before a
  rated result's minimum of play is aborted (live.py), and who left or never played dodged too.
- A dodge costs the dodger the queue cooldown (`ranked_dodge_cooldown`, doubled for each further
  dodge within `ranked_dodge_memory`, at most `ranked_dodge_cooldown_max`), noted in its player
  record; the player it dodged notes the dodger's guest and address, and is not paired with a guest
  or an address that dodged it `ranked_avoid_after` times within `ranked_dodge_memory`.
- The end (`settle`, from the hub's store write, after the match record is kept): a finished match
  applies its result to both player records' ratings in the match's ruleset, the others unchanged
  (server/match/ratings.py: once per record, whatever retries), and each player still connected
  is sent `rated`; a cancelled one only the cooldowns. The match then leaves the journal.
  `recover` (at start and every `ranked_recovery_every`) applies what a restart or a failure left
  in the journal: a match recorded over is rated (again: no change where it was applied), one
  without a record after `ranked_stale_after` is dropped.

The players of a pair's match must reach its node (HAProxy pins `/ws?match=<id>` to it).

Nothing here awaits on the match loop: store work runs in the node's background tasks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from protocol.codec import error_message
from protocol.errors import ErrorCode
from protocol.messages import Matched, MatchState, Queued, Rated, Unqueued

from ..errors import ServerError
from ..logs import log_event
from ..store.base import (
    MATCHED,
    PAIRING,
    REFUSED,
    LimitStore,
    MatchRecord,
    MatchStore,
    Pairing,
    PlayerStore,
    ProposedPair,
    QueueEntry,
    QueueStore,
    RankedLedger,
)
from ..store.memory import MemoryQueues
from ..store.players import DodgeNote, Glicko, PlayerRecord
from ..tokens import Guest
from .background import Background
from .host import MatchHost, check_seats
from .lobby import Lobby
from .matchmaker import Matchmaker
from .ratings import (
    START,
    address_tag,
    apply_result,
    avoided,
    guest_tag,
    rated_seats,
    rating_before,
    with_dodge,
    with_dodge_note,
)
from .settings import RankedSettings
from .sources import Clock, IdSource

if TYPE_CHECKING:
    from .live import LiveMatch
    from .session import Session

log = logging.getLogger("floe.ranked")

#: The store's set of guests waiting in the ranked queue, across nodes.
QUEUE_KEY = "ranked:queue"
#: Journal entries looked at per recovery pass.
RECOVERY_BATCH = 100


@dataclass
class _Waiting:
    """A connection waiting in a ruleset's queue, for its guest, at its rating there, as its entry."""

    session: Session
    guest: Guest
    glicko: Glicko
    entry: QueueEntry
    #: The ruleset whose queue it waits in (the store's queue name).
    ruleset: str


class RankedLobby:
    """The ranked queue and ranked matches of one node (see the module docstring)."""

    def __init__(
        self,
        hub: MatchHost,
        lobby: Lobby,
        settings: RankedSettings,
        players: PlayerStore,
        ledger: RankedLedger,
        archive: MatchStore,
        limits: LimitStore,
        clock: Clock,
        ids: IdSource,
        background: Background,
        queue: QueueStore | None = None,
        node: str = "node",
    ) -> None:
        """`queue` is the store's shared queues (default: one of this node's own), `node` this node's
        name in its entries. A guest waits in the queue of the ruleset it asks (the hub's when none),
        named by the ruleset."""
        #: The hub that hosts the ranked matches (create_ranked_match, seat_held, matches).
        self.hub = hub
        self.lobby = lobby
        self.config = settings
        self.players = players
        self.ledger = ledger
        self.archive = archive
        self.limits = limits
        self.clock = clock
        self.ids = ids
        self.background = background
        self.queue_store: QueueStore = queue if queue is not None else MemoryQueues()
        self.node = node
        #: The pure pairing's settings and windows (a fresh matchmaker pairs each look's entries).
        self.matchmaker = Matchmaker(settings.queue)
        self._waiting: dict[str, _Waiting] = {}
        #: Guests whose `queue` is being checked against the store, and those that withdrew meanwhile.
        self._admitting: dict[str, Session] = {}
        self._withdrawn: set[str] = set()
        #: Per ruleset, its queue's entries as last read, and their version (the store sends them again
        #: only when they changed).
        self._entries: dict[str, tuple[QueueEntry, ...]] = {}
        self._versions: dict[str, int] = {}
        #: A pairing pass is under way; another is due when it ends.
        self._passing = False
        self._again = False
        self._last_pairing = float("-inf")
        #: Tells another node that the store holds news for its guest (node name); None alone.
        self.nudge: Callable[[str], None] | None = None
        #: Nudges heard that started a pass (stats, tests).
        self.nudged_passes = 0
        self._last_recovery = float("-inf")
        #: Ratings applied and `rated` messages sent by this node (stats, tests).
        self.applied = 0
        self.notified = 0
        #: Pairs this node took from the queue and made a match of (stats, tests).
        self.paired = 0

    # ---- the queue -------------------------------------------------------------------------------------

    def request(self, session: Session, now: float, ruleset: str | None = None) -> None:
        """`queue` of `ruleset` (None: the hub's): check the guest here, then against the store (in the
        background)."""
        session.leave_finished(now)
        guest = session.guest
        if guest is None:
            refusal = error_message(ErrorCode.AUTH, "the ranked queue needs a guest token in hello", "queue")
            session.send(refusal)
            return
        try:
            settings = self.hub.settings_for(ruleset)  # a registered ruleset at this node's pace
            check_seats(settings, 2)
        except ServerError as error:
            session.send(error.to_message("queue"))
            return
        if guest.id in self._waiting or guest.id in self._admitting:
            refusal = error_message(ErrorCode.ALREADY_QUEUED, "already waiting in the ranked queue", "queue")
            session.send(refusal)
            return
        if session.match is not None or self.hub.seat_held(guest.id):
            message = "finish or leave your live match first"
            refusal = error_message(ErrorCode.ALREADY_PLAYING, message, "queue")
            session.send(refusal)
            return
        self._admitting[guest.id] = session
        self._withdrawn.discard(guest.id)
        self.background.spawn(self._admit(session, guest, settings.ruleset.name))

    async def _admit(self, session: Session, guest: Guest, ruleset: str) -> None:
        wall = self.clock.wall()
        settings = self.config.queue
        try:
            player = await self.players.get_player(guest.id)
            if player is not None and player.cooldown_until > wall:
                left = player.cooldown_until - wall
                message = f"you left a found match: the ranked queue takes you again in {left:.0f} s"
                session.send(error_message(ErrorCode.COOLDOWN, message, "queue"))
                return
            capacity, max_wait = settings.capacity, settings.max_wait
            if not await self.limits.add_member(QUEUE_KEY, guest.id, capacity, max_wait, wall):
                message = "already waiting in the ranked queue (maybe on another node), or the queue is full"
                session.send(error_message(ErrorCode.ALREADY_QUEUED, message, "queue"))
                return
            lobby = self.lobby
            try:
                await lobby.reserve_queue(session.peer, guest.id, settings.max_wait)
            except ServerError as error:
                await self.limits.remove_member(QUEUE_KEY, guest.id)
                session.send(error.to_message("queue"))
                return
            if self._gave_up(session, guest):
                await self._release(guest.id, session.peer)
                return
            glicko = player.standing(ruleset).glicko if player is not None else START
            tags = (guest_tag(guest.id), address_tag(session.peer))
            avoid = avoided(player, self.config.ranked_avoid_after, self.config.ranked_dodge_memory, wall)
            entry = QueueEntry(guest.id, guest.name, glicko.rating, glicko.rd, glicko.provisional, wall,
                               self.node, session.peer, tuple(sorted(tags)), tuple(sorted(avoid)))
            if not await self.queue_store.join(ruleset, entry, capacity, wall):
                await self._release(guest.id, session.peer)
                message = f"the ranked queue holds {capacity} guests already (or still your last wait)"
                session.send(error_message(ErrorCode.BUSY, message, "queue"))
                return
            if self._gave_up(session, guest):
                await self.queue_store.leave(ruleset, guest.id)
                await self._release(guest.id, session.peer)
                return
            self._waiting[guest.id] = _Waiting(session, guest, glicko, entry, ruleset)
            session.send(
                Queued(
                    rating=glicko.rating,
                    rd=glicko.rd,
                    provisional=glicko.provisional,
                    window=self.matchmaker.window(0.0),
                    max_wait=settings.max_wait,
                    ruleset=ruleset,
                )
            )
            log_event(log, logging.INFO, "queue.join", guest=guest.id, rating=round(glicko.rating, 1),
                      node=self.node, ruleset=ruleset)
            self._request_pass()
        finally:
            self._admitting.pop(guest.id, None)
            self._withdrawn.discard(guest.id)

    def _gave_up(self, session: Session, guest: Guest) -> bool:
        """Did the connection withdraw (or close, or change guest) while its `queue` was checked?"""
        return guest.id in self._withdrawn or not session.out.open or session.guest is not guest

    async def _release(self, guest_id: str, address: str) -> None:
        """The guest's one place in the queue across nodes and its address's place are given back."""
        await self.limits.remove_member(QUEUE_KEY, guest_id)
        await self.lobby.release_queue(address, guest_id)

    def withdraw(self, session: Session) -> None:
        """`unqueue`: out of the queue (or of the check under way), told `unqueued`."""
        self.forget(session)
        session.send(Unqueued(reason="asked"))

    def forget(self, session: Session) -> None:
        """The connection leaves the queue without a word (its socket closed, or it joined a match)."""
        guest = session.guest
        if guest is None:
            return
        if self._admitting.get(guest.id) is session:
            self._withdrawn.add(guest.id)
        waiting = self._waiting.get(guest.id)
        if waiting is not None and waiting.session is session:
            self._leave_queue(guest.id)

    def holds(self, session: Session) -> bool:
        """Does this connection wait in the queue (or is its `queue` being checked)?"""
        guest = session.guest
        if guest is None:
            return False
        waiting = self._waiting.get(guest.id)
        admitting = self._admitting.get(guest.id) is session
        return admitting or (waiting is not None and waiting.session is session)

    def _leave_queue(self, guest_id: str) -> None:
        waiting = self._waiting.pop(guest_id, None)
        if waiting is not None:
            self.background.spawn(self._leave_store(waiting))

    async def _leave_store(self, waiting: _Waiting) -> None:
        """Out of the shared queue (a guest another node paired meanwhile is in its match already:
        its places went to the match)."""
        await self.queue_store.leave(waiting.ruleset, waiting.guest.id)
        await self._release(waiting.guest.id, waiting.session.peer)

    # ---- the clock -------------------------------------------------------------------------------------

    def tick(self, now: float) -> None:
        """On the hub's clock: now and then a pairing pass (while guests wait here), and a look at the
        journal."""
        if now - self._last_pairing >= self.config.ranked_pair_every:
            self._last_pairing = now
            if self._waiting:
                self._request_pass()
        if now - self._last_recovery >= self.config.ranked_recovery_every:
            self._last_recovery = now
            self.background.spawn(self.recover())

    def nudged(self) -> None:
        """Another node noted a pairing for a guest waiting here: look at the queue now."""
        if self._waiting:
            self.nudged_passes += 1
            self._request_pass()

    def _request_pass(self) -> None:
        """A pairing pass now (or right after the one under way)."""
        if self._passing:
            self._again = True
            return
        self._passing = True
        self.background.spawn(self._passes())

    async def _passes(self) -> None:
        try:
            while True:
                self._again = False
                try:
                    await self._pass()
                except Exception:  # noqa: BLE001 - the store failed this once: the next tick tries again
                    log_event(log, logging.WARNING, "queue.pass-failed", exc_info=True)
                    return
                if not self._again or not self._waiting:
                    return
        finally:
            self._passing = False

    async def _pass(self) -> None:
        """One pairing pass over each queue this node's guests wait in."""
        for ruleset in sorted({waiting.ruleset for waiting in self._waiting.values()}):
            await self._pass_queue(ruleset)

    async def _pass_queue(self, ruleset: str) -> None:
        """One pairing pass of a ruleset's queue: look at the shared queue (noting this node alive),
        tell this node's guests what other nodes paired them into, take out those that waited too
        long, then pair whom the windows allow (pairs with one of this node's guests) and make a match
        of each pair taken."""
        local = tuple(guest for guest, waiting in self._waiting.items() if waiting.ruleset == ruleset)
        if not local:
            return
        wall, settings, store = self.clock.wall(), self.config.queue, self.queue_store
        version = self._versions.get(ruleset, -1)
        view = await store.look(ruleset, self.node, local, version, wall, settings.stale_after)
        if view.entries is not None:
            self._entries[ruleset], self._versions[ruleset] = view.entries, view.version
        entries = self._entries.get(ruleset, ())
        present = {entry.guest for entry in entries}
        for guest_id, pairing in zip(local, view.pairings, strict=True):
            waiting = self._waiting.get(guest_id)
            if waiting is None:
                continue
            if pairing is not None:
                if pairing.state != PAIRING:  # made (or refused) by another node: tell the guest
                    del self._waiting[guest_id]
                    self._tell(waiting, pairing)
                    await store.done(ruleset, guest_id)
                continue
            if guest_id not in present or (wall - waiting.entry.since > settings.max_wait
                                           and await store.leave(ruleset, guest_id)):
                del self._waiting[guest_id]  # waited too long (or dropped as a dead node's)
                await self._release(guest_id, waiting.session.peer)
                waiting.session.send(Unqueued(reason="timeout"))
        for entry in entries:  # left behind by an earlier process of this node's name
            ours = entry.node == self.node
            held = self._waiting.get(entry.guest)
            if ours and (held is None or held.ruleset != ruleset) and entry.guest not in self._admitting:
                await store.leave(ruleset, entry.guest)
        await self._pair(wall, ruleset, entries)

    async def _pair(self, wall: float, ruleset: str, entries: tuple[QueueEntry, ...]) -> None:
        matchmaker = Matchmaker(self.config.queue)
        by_guest: dict[str, QueueEntry] = {}
        for entry in entries:
            if entry.node != self.node or entry.guest in self._waiting:
                by_guest[entry.guest] = entry
                matchmaker.add(entry.guest, entry.rating, entry.since, frozenset(entry.tags),
                               frozenset(entry.avoid))
        try:
            self.hub.admit(2)
            full = False
        except ServerError:
            full = True
        proposals: list[tuple[str, ProposedPair]] = []
        for pair in matchmaker.pair(wall):
            first, second = by_guest[pair.first.guest], by_guest[pair.second.guest]
            if self.node not in (first.node, second.node):
                continue  # their own nodes pair them
            if full and first.node != second.node:
                continue  # a full node leaves a pair with another node's guest to that node
            match_id = self.ids.match_id()
            notes = [None if me.node == self.node else Pairing(match_id, seat, self.node, wall, other)
                     for seat, (me, other) in enumerate(((first, second), (second, first)))]
            proposals.append((match_id, ProposedPair(first, second, notes[0], notes[1])))
        if not proposals:
            return
        taken = await self.queue_store.take_pairs(ruleset, tuple(p for _, p in proposals), wall)
        for (match_id, proposed), took in zip(proposals, taken, strict=True):
            if not took:
                continue
            both = (proposed.first, proposed.second)
            local = {e.guest: self._waiting.pop(e.guest) for e in both
                     if e.node == self.node and e.guest in self._waiting}
            if any(e.node == self.node and e.guest not in local for e in both):
                await self._unpair(ruleset, proposed, local)  # one of ours left while the pair was taken
                continue
            self.paired += 1
            self.background.spawn(self._open(ruleset, match_id, proposed, local))

    async def _unpair(self, ruleset: str, pair: ProposedPair, local: dict[str, _Waiting]) -> None:
        """A pair taken while one of this node's guests left: the other waits again, in its place (a
        join drops the pairing noted for it)."""
        for entry in (pair.first, pair.second):
            if entry.node != self.node or entry.guest in local:
                await self.queue_store.join(ruleset, entry, self.config.queue.capacity, entry.since)
            if entry.guest in local:
                self._waiting[entry.guest] = local[entry.guest]

    def _matched(self, match_id: str, seat: int, opponent: QueueEntry, ruleset: str) -> Matched:
        config = self.config
        return Matched(
            match=match_id,
            seat=seat,
            opponent=opponent.name,
            opponent_rating=opponent.rating,
            join_within=config.ranked_join_timeout,
            opponent_provisional=opponent.provisional,
            min_play=config.ranked_min_play_seconds,
            abort_cooldown=config.ranked_dodge_cooldown,
            ruleset=ruleset,
        )

    def _tell(self, waiting: _Waiting, pairing: Pairing) -> None:
        """A guest of this node paired by another node: its match, or why there is none."""
        if pairing.state == MATCHED:
            matched = self._matched(pairing.match, pairing.seat, pairing.opponent, waiting.ruleset)
            waiting.session.send(matched)
            log_event(log, logging.INFO, "queue.matched-elsewhere", match=pairing.match,
                      guest=waiting.guest.id, by=pairing.by)
            return
        code, message = pairing.error or (ErrorCode.BUSY.value, "the match could not be made")
        try:
            known = ErrorCode(code)
        except ValueError:
            known = ErrorCode.BUSY
        waiting.session.send(error_message(known, message, "queue"))

    def _nudge(self, node: str) -> None:
        if self.nudge is not None:
            self.nudge(node)

    async def _open(
        self, ruleset: str, match_id: str, pair: ProposedPair, local: dict[str, _Waiting]
    ) -> None:
        """Seat a pair (one live match per guest, across nodes), make their match here, tell them: this
        node's guests directly, another node's through the pairing noted for them."""
        first, second = pair.first, pair.second
        addresses = (first.address, second.address)
        for entry in (first, second):  # the match takes the places their waits held
            await self._release(entry.guest, entry.address)
        sides = ((first, second), (second, first))
        try:
            await self.lobby.seat_pair(first.guest, second.guest, match_id, addresses)
            try:
                guests = (Guest(first.guest, first.name), Guest(second.guest, second.name))
                live = self.hub.create_ranked_match(*guests, match_id, addresses, ruleset)
            except ServerError:
                await self.lobby.ended(match_id, (first.guest, second.guest), addresses)
                raise
        except ServerError as error:
            wall = self.clock.wall()
            for seat, (me, other) in enumerate(sides):
                waiting = local.get(me.guest)
                if waiting is not None:
                    waiting.session.send(error.to_message("queue"))
                else:
                    refused = Pairing(match_id, seat, self.node, wall, other, REFUSED,
                                      (error.code.value, error.message))
                    await self.queue_store.settle(ruleset, me.guest, refused, wall)
                    self._nudge(me.node)
            return
        await self.ledger.note_ranked(live.id, self.clock.wall())
        wall = self.clock.wall()
        for seat, (me, other) in enumerate(sides):
            waiting = local.get(me.guest)
            if waiting is not None:
                waiting.session.send(self._matched(live.id, seat, other, ruleset))
            else:
                made = Pairing(live.id, seat, self.node, wall, other, MATCHED)
                await self.queue_store.settle(ruleset, me.guest, made, wall)
                self._nudge(me.node)
        log_event(log, logging.INFO, "queue.matched", match=live.id, guests=[first.guest, second.guest],
                  ratings=[round(first.rating, 1), round(second.rating, 1)], node=self.node, ruleset=ruleset)

    # ---- the end of a ranked match ---------------------------------------------------------------------

    async def settle(self, record: MatchRecord, live: LiveMatch | None) -> None:
        """A ranked match's record is kept: rate it (over) or charge its dodgers (cancelled, aborted)."""
        if record.outcome is MatchState.OVER:
            await self.rate(record, live)
        elif record.outcome is MatchState.CANCELLED and live is not None:
            await self._charge_dodgers(record, live)
        await self.ledger.done_ranked(record.id)

    async def _charge_dodgers(self, record: MatchRecord, live: LiveMatch) -> None:
        """Each dodger pays its (escalating) cooldown; each player it dodged notes it."""
        config, wall = self.config, self.clock.wall()
        for seat in live.dodgers:
            guest = record.guests[seat]
            if guest is None:
                continue
            charge = partial(with_dodge, guest_id=guest, name=record.seats[seat],
                             base=config.ranked_dodge_cooldown, most=config.ranked_dodge_cooldown_max,
                             memory=config.ranked_dodge_memory, now=wall)
            charged = await self.players.update_player(guest, charge)
            until = charged.cooldown_until if charged is not None else wall
            log_event(log, logging.INFO, "queue.dodge", match=record.id, guest=guest, until=round(until),
                      aborted=record.aborted)
            address = live.seats[seat].address or ""
            note = DodgeNote(guest, address, wall)
            for other, other_guest in enumerate(record.guests):
                if other_guest is not None and other not in live.dodgers:
                    noted = partial(with_dodge_note, guest_id=other_guest, name=record.seats[other],
                                    note=note, now=wall)
                    await self.players.update_player(other_guest, noted)

    async def rate(self, record: MatchRecord, live: LiveMatch | None = None) -> list[PlayerRecord]:
        """Apply a finished ranked match to both players' records (a no-op where it is applied already);
        tell each connected player `rated` when its record took it now. The records as they stand."""
        seats = rated_seats(record)
        if seats is None:
            return []
        wall = self.clock.wall()
        out: list[PlayerRecord] = []
        for seat, guest, _ in seats:
            opponent = await self.players.get_player(seats[1 - seat][1])
            before = rating_before(opponent, record.id, record.ruleset)
            took: list[bool] = []

            def change(held: PlayerRecord | None, seat: int = seat, before: Glicko = before,
                       took: list[bool] = took) -> PlayerRecord | None:
                new = apply_result(held, record, seat, before, wall)
                took.append(new is not None)
                return new

            player = await self.players.update_player(guest, change)
            assert player is not None
            out.append(player)
            if took and took[-1]:
                self.applied += 1
                self._notify(live, seat, player, record)
        return out

    def _notify(self, live: LiveMatch | None, seat: int, player: PlayerRecord, record: MatchRecord) -> None:
        game = player.game(record.id)
        connection = live.seats[seat].connection if live is not None else None
        if game is None or connection is None:
            return
        standing = player.standing(record.ruleset)
        connection.send(
            Rated(
                match=record.id,
                change=game.after.rating - game.before.rating,
                rating=standing.glicko.rating,
                rd=standing.glicko.rd,
                provisional=standing.provisional,
                games=standing.played,
                ruleset=record.ruleset,
            )
        )
        self.notified += 1

    async def recover(self) -> None:
        """Apply what the journal still holds (see the module docstring)."""
        wall = self.clock.wall()
        try:
            for match_id, noted in await self.ledger.pending_ranked(RECOVERY_BATCH):
                if match_id in self.hub.matches:
                    continue
                record = await self.archive.get_match(match_id)
                if record is None:
                    if wall - noted > self.config.ranked_stale_after:
                        await self.ledger.done_ranked(match_id)
                    continue
                if record.outcome is MatchState.OVER:
                    await self.rate(record)
                await self.ledger.done_ranked(match_id)
        except Exception:  # noqa: BLE001 - the next pass tries again
            log_event(log, logging.ERROR, "ranked.recovery-failed", exc_info=True)

    # ---- reading -----------------------------------------------------------------------------------------

    def waiting(self) -> int:
        """Guests in this node's queue."""
        return len(self._waiting)

