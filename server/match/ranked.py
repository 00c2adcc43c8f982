"""Ranked play on one node: the queue's connections, pairing on the clock, dodges, and the ratings.

- `queue` (the dispatcher calls `request`): a guest with a token, not seated in a live match, not
  in a dodge's cooldown, waits (one entry per guest across nodes: a bounded set in the store, the
  `ranked:queue` key) and is told `queued`; a connection still following a match that is over or
  cancelled stops following it, so its players may queue again at once. `unqueue` or a closed
  socket takes it out, at no cost.
  While it waits it holds a place among its client address's live matches (as a room waiting does),
  so an address at its share is refused at `queue` (`too-many-matches`), never at pairing, where the
  refusal would cost its opponent the wait.
- Pairing (`tick`, every `ranked_pair_every` seconds, and at once on an arrival): the pure
  matchmaker (server/match/matchmaker.py) pairs the nearest ratings within the widening windows;
  each pair gets a ranked match (1 v 1, the server's ruleset) and a `matched` each, and the match is
  noted in the store's journal of ranked results to apply. Pairing is per node: guests waiting on
  different nodes are not paired with each other.
- Both must connect (`join`) within `ranked_join_timeout`; the match starts only when both are
  connected. Otherwise it is cancelled, and whoever was not connected (or left) when it had to
  start (frozen then: server/match/live.py's `dodgers`) dodged. A ranked match that ends before a
  rated result's minimum of play is aborted (live.py), and who left or never played dodged too.
- A dodge costs the dodger the queue cooldown (`ranked_dodge_cooldown`, doubled for each further
  dodge within `ranked_dodge_memory`, at most `ranked_dodge_cooldown_max`), noted in its player
  record; the player it dodged notes the dodger's guest and address, and is not paired with a guest
  or an address that dodged it `ranked_avoid_after` times within `ranked_dodge_memory`.
- The end (`settle`, from the hub's store write, after the match record is kept): a finished match
  applies its result to both player records (server/match/ratings.py: once per record, whatever
  retries), and each player still connected is sent `rated`; a cancelled one only the cooldowns.
  The match then leaves the journal. `recover` (at start and every `ranked_recovery_every`) applies
  what a restart or a failure left in the journal: a match recorded over is rated (again: no
  change where it was applied), one without a record after `ranked_stale_after` is dropped.

Nothing here awaits on the match loop: store work runs in the node's background tasks.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from protocol.codec import error_message
from protocol.errors import ErrorCode
from protocol.messages import Matched, MatchState, Queued, Rated, Unqueued

from ..errors import ServerError
from ..logs import log_event
from ..store.base import LimitStore, MatchRecord, MatchStore, PlayerStore, RankedLedger
from ..store.players import DodgeNote, Glicko, PlayerRecord
from ..tokens import Guest
from .background import Background
from .host import MatchHost
from .lobby import Lobby
from .matchmaker import Matchmaker, QueueFullError
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
    """A connection waiting in the queue, for its guest, at its rating."""

    session: Session
    guest: Guest
    glicko: Glicko


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
    ) -> None:
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
        self.queue = Matchmaker(settings.queue)
        self._waiting: dict[str, _Waiting] = {}
        #: Guests whose `queue` is being checked against the store, and those that withdrew meanwhile.
        self._admitting: dict[str, Session] = {}
        self._withdrawn: set[str] = set()
        self._last_pairing = float("-inf")
        self._last_recovery = float("-inf")
        #: Ratings applied and `rated` messages sent by this node (stats, tests).
        self.applied = 0
        self.notified = 0

    # ---- the queue -------------------------------------------------------------------------------------

    def request(self, session: Session, now: float) -> None:
        """`queue`: check the guest here, then against the store (in the background)."""
        session.leave_finished(now)
        guest = session.guest
        if guest is None:
            refusal = error_message(ErrorCode.AUTH, "the ranked queue needs a guest token in hello", "queue")
            session.send(refusal)
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
        self.background.spawn(self._admit(session, guest))

    async def _admit(self, session: Session, guest: Guest) -> None:
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
            if guest.id in self._withdrawn or not session.out.open or session.guest is not guest:
                await self.limits.remove_member(QUEUE_KEY, guest.id)
                await lobby.release_queue(session.peer, guest.id)
                return
            glicko = player.glicko if player is not None else START
            tags = frozenset((guest_tag(guest.id), address_tag(session.peer)))
            avoid = avoided(player, self.config.ranked_avoid_after, self.config.ranked_dodge_memory, wall)
            try:
                self.queue.add(guest.id, glicko.rating, self.hub.now(), tags, avoid)
            except QueueFullError as error:
                await self.limits.remove_member(QUEUE_KEY, guest.id)
                await lobby.release_queue(session.peer, guest.id)
                session.send(error_message(ErrorCode.BUSY, str(error), "queue"))
                return
            self._waiting[guest.id] = _Waiting(session, guest, glicko)
            session.send(
                Queued(
                    rating=glicko.rating,
                    rd=glicko.rd,
                    provisional=glicko.provisional,
                    window=self.queue.window(0.0),
                    max_wait=settings.max_wait,
                )
            )
            log_event(log, logging.INFO, "queue.join", guest=guest.id, rating=round(glicko.rating, 1))
            self._pair(self.hub.now())
        finally:
            self._admitting.pop(guest.id, None)
            self._withdrawn.discard(guest.id)

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
        self.queue.remove(guest_id)
        self.background.spawn(self.limits.remove_member(QUEUE_KEY, guest_id))
        if waiting is not None:
            self.background.spawn(self.lobby.release_queue(waiting.session.peer, guest_id))

    # ---- the clock -------------------------------------------------------------------------------------

    def tick(self, now: float) -> None:
        """On the hub's clock: expire, pair, and now and then look at the journal."""
        if now - self._last_pairing >= self.config.ranked_pair_every:
            for gone in self.queue.expired(now):
                waiting = self._waiting.get(gone.guest)
                self._leave_queue(gone.guest)
                if waiting is not None:
                    waiting.session.send(Unqueued(reason="timeout"))
            self._pair(now)
        if now - self._last_recovery >= self.config.ranked_recovery_every:
            self._last_recovery = now
            self.background.spawn(self.recover())

    def _pair(self, now: float) -> None:
        self._last_pairing = now
        for pair in self.queue.pair(now):
            first, second = self._waiting.pop(pair.first.guest), self._waiting.pop(pair.second.guest)
            for guest_id in (pair.first.guest, pair.second.guest):
                self.background.spawn(self.limits.remove_member(QUEUE_KEY, guest_id))
            self.background.spawn(self._open(first, second))

    async def _open(self, first: _Waiting, second: _Waiting) -> None:
        """Seat a pair (one live match per guest, across nodes), make their match, tell them."""
        match_id = self.ids.match_id()
        addresses = (first.session.peer, second.session.peer)
        for waiting in (first, second):  # the match takes the places their waits held
            await self.lobby.release_queue(waiting.session.peer, waiting.guest.id)
        try:
            await self.lobby.seat_pair(first.guest.id, second.guest.id, match_id, addresses)
            try:
                live = self.hub.create_ranked_match(first.guest, second.guest, match_id, addresses)
            except ServerError:
                await self.lobby.ended(match_id, (first.guest.id, second.guest.id), addresses)
                raise
        except ServerError as error:
            for waiting in (first, second):
                waiting.session.send(error.to_message("queue"))
            return
        await self.ledger.note_ranked(live.id, self.clock.wall())
        for seat, (me, other) in enumerate(((first, second), (second, first))):
            me.session.send(
                Matched(
                    match=live.id,
                    seat=seat,
                    opponent=other.guest.name,
                    opponent_rating=other.glicko.rating,
                    join_within=self.config.ranked_join_timeout,
                    opponent_provisional=other.glicko.provisional,
                    min_play=self.config.ranked_min_play_seconds,
                    abort_cooldown=self.config.ranked_dodge_cooldown,
                )
            )
        log_event(log, logging.INFO, "queue.matched", match=live.id, guests=[first.guest.id, second.guest.id],
                  ratings=[round(first.glicko.rating, 1), round(second.glicko.rating, 1)])

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
            before = rating_before(opponent, record.id)
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
                self._notify(live, seat, player, record.id)
        return out

    def _notify(self, live: LiveMatch | None, seat: int, player: PlayerRecord, match_id: str) -> None:
        game = player.game(match_id)
        connection = live.seats[seat].connection if live is not None else None
        if game is None or connection is None:
            return
        connection.send(
            Rated(
                match=match_id,
                change=game.after.rating - game.before.rating,
                rating=player.glicko.rating,
                rd=player.glicko.rd,
                provisional=player.provisional,
                games=player.played,
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

