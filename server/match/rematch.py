"""Rematch offers: after a room or a ranked match ends, any of its players offers the others a rematch.

    rematch (seat A) ──► rematch-offer to all ──► rematch-answer (every other seat, accept)
                                                   └─► rematch-ready to all: join the new match
                                             (one declines) rematch-refused "declined" to all
                     (not all answered in rematch_offer_seconds) rematch-refused "expired" to all

A match of 2 seats has one other player to answer; a room of 3 or 4 needs every other player's accept
(each answers once; the first decline ends the offer). The rematch is a private room between the same
players, each seated at once in their seat of the ended match, made by the lobby under a room's bounds
(the node's budget `busy`, the offerer's creation rate `rate-limited`, one live match per guest
`already-playing`, the addresses' live matches `too-many-matches`): a refusal reaches all as
`rematch-refused` "refused" with that code, and nothing is counted. A rematch is never rated, a
ranked match's included: a rated game comes only from the queue, whose rating window, avoid list and
abort rule (issue 18) a rematch would step around (two accounts could rematch each other at will to
farm a rating).

Bounds: one offer waits at a time per match (an offer of another seat while one waits is that seat's
accept: crossing offers start the rematch); each seat makes at most `rematch_offers_per_seat` offers of
one match; an offer waits `rematch_offer_seconds`; offers are made while the ended match is kept
(`linger`), and only when every other player is still connected. Offers live here, apart from the
match: the hub forgets a match's entry with the match once no offer of it waits.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from protocol.codec import error_message
from protocol.errors import ErrorCode
from protocol.messages import (
    MatchState,
    RematchAnswer,
    RematchOffer,
    RematchReady,
    RematchRefused,
    ServerMessage,
)

from ..errors import ServerError
from ..logs import log_event
from .background import Background
from .lobby import Lobby
from .session import Session
from .settings import LobbySettings, MatchSettings

if TYPE_CHECKING:
    from .live import LiveMatch

log = logging.getLogger("floe.rematch")


@dataclass
class Offer:
    """A rematch offer waiting for its answer."""

    seat: int
    expires_at: float
    #: The other seats that accepted so far (the rematch is made when every other seat has).
    accepted: set[int] = field(default_factory=set)


@dataclass
class Rematchable:
    """What a rematch of one ended match needs, and where its offers stand."""

    match: str
    guests: tuple[str, ...]
    names: tuple[str, ...]
    #: Each seat's connection to tell (the one that last offered or answered, else the seat's).
    sessions: list[Session | None]
    offers: list[int] = field(default_factory=list)
    pending: Offer | None = None
    #: The lobby is making the rematch now.
    making: bool = False
    #: The rematch's id, once made.
    rematch: str | None = None
    #: The hub forgot the ended match (the entry goes once no offer of it waits).
    forgotten: bool = False
    #: The ended match's settings (its ruleset and config): the rematch plays the same game.
    settings: MatchSettings | None = None


class Rematches:
    """Every ended match's rematch offers on this node (see the module docstring)."""

    def __init__(
        self, matches: Mapping[str, LiveMatch], lobby: Lobby, settings: LobbySettings, linger: float,
        background: Background,
    ) -> None:
        #: The hub's live matches (an ended one lingers there while it can be offered again).
        self.matches = matches
        self.lobby = lobby
        self.config = settings
        #: Seconds an ended match stays on the hub (an offer is made within them).
        self.linger = linger
        self.background = background
        self._entries: dict[str, Rematchable] = {}

    def __len__(self) -> int:
        return len(self._entries)

    # ---- messages ------------------------------------------------------------------------------------

    def offer(self, session: Session, match_id: str, now: float) -> None:
        """Seat `session`'s guest offers a rematch of `match_id` (or accepts the other's waiting offer)."""
        entry, seat = self._entry_of(session, match_id, "rematch")
        if entry is None or seat is None:
            return
        entry.sessions[seat] = session
        if entry.rematch is not None:  # made already: tell again where it is
            session.send(RematchReady(match=entry.match, rematch=entry.rematch, seat=seat))
            return
        if entry.making:
            self._refuse(session, "the rematch is being made", "rematch")
            return
        pending = entry.pending
        if pending is not None:
            if pending.seat == seat:
                self._refuse(session, "your rematch offer waits for its answer", "rematch")
            elif seat in pending.accepted:
                self._refuse(session, "you accepted the rematch: it waits for the others", "rematch")
            else:
                self._accepted(entry, pending, seat)
            return
        most = self.config.rematch_offers_per_seat
        if entry.offers[seat] >= most:
            self._refuse(session, f"a player offers a rematch of one match {most} times at most", "rematch")
            return
        others = [other for other in range(len(entry.guests)) if other != seat]
        if not all(self._reachable(entry, other, match_id) for other in others):
            gone = "the other player is" if len(others) == 1 else "another player is"
            self._refuse(session, f"{gone} not connected any more", "rematch")
            return
        entry.offers[seat] += 1
        seconds = self.config.rematch_offer_seconds
        entry.pending = Offer(seat, now + seconds)
        log_event(log, logging.INFO, "rematch.offer", match=entry.match, seat=seat)
        self._tell(entry, RematchOffer(match=entry.match, seat=seat, name=entry.names[seat], expires=seconds))

    def answer(self, session: Session, message: RematchAnswer, now: float) -> None:
        """Another player accepts or declines the waiting offer (each answers once)."""
        entry = self._entries.get(message.match)
        guest = session.guest
        pending = entry.pending if entry is not None else None
        seat = entry.guests.index(guest.id) if entry is not None and guest is not None and (
            guest.id in entry.guests) else None
        if entry is None or pending is None or seat is None or seat == pending.seat or (
                seat in pending.accepted):
            self._refuse(session, "no rematch offer waits for your answer on that match", "rematch-answer")
            return
        entry.sessions[seat] = session
        if message.accept:
            self._accepted(entry, pending, seat)
            return
        entry.pending = None
        log_event(log, logging.INFO, "rematch.declined", match=entry.match, seat=seat)
        self._tell(entry, RematchRefused(match=entry.match, reason="declined"))
        self._drop_if_done(entry)

    # ---- the clock and the hub -------------------------------------------------------------------------

    def tick(self, now: float) -> None:
        """Expire the offers past their time."""
        due = [e for e in self._entries.values() if e.pending is not None and e.pending.expires_at <= now]
        for entry in due:
            entry.pending = None
            log_event(log, logging.INFO, "rematch.expired", match=entry.match)
            self._tell(entry, RematchRefused(match=entry.match, reason="expired"))
            self._drop_if_done(entry)

    def forget(self, match_id: str) -> None:
        """The hub forgot the ended match: its entry goes (at once, or when its offer is answered)."""
        entry = self._entries.get(match_id)
        if entry is not None:
            entry.forgotten = True
            self._drop_if_done(entry)

    # ---- inside ----------------------------------------------------------------------------------------

    def _entry_of(self, session: Session, match_id: str, ref: str) -> tuple[Rematchable | None, int | None]:
        """The entry of a match the session's guest played, ended, every seat a guest; else refused (None)."""
        guest = session.guest
        if guest is None:
            session.send(error_message(ErrorCode.AUTH, "a rematch needs a guest token in hello", ref))
            return None, None
        entry = self._entries.get(match_id)
        if entry is not None:
            if guest.id not in entry.guests:
                session.send(error_message(ErrorCode.NOT_SEATED, "you played no seat of that match", ref))
                return None, None
            return entry, entry.guests.index(guest.id)
        live = self.matches.get(match_id)
        if live is None:
            session.send(error_message(ErrorCode.NO_SUCH_MATCH, f"no match {match_id!r} (a match is kept "
                                       f"{self.linger:g} s after its end)", ref))
            return None, None
        seat = live.seat_of(guest.id)
        if seat is None:
            session.send(error_message(ErrorCode.NOT_SEATED, "you played no seat of that match", ref))
            return None, None
        if live.state != MatchState.OVER:
            self._refuse(session, "a rematch is offered once the match is over (not cancelled)", ref)
            return None, None
        if not (live.private or live.ranked) or not all(s.guest is not None for s in live.seats):
            self._refuse(session, "only a room or a ranked match whose seats are all players is rematched",
                         ref)
            return None, None
        guests = tuple(s.guest for s in live.seats if s.guest is not None)
        entry = Rematchable(match_id, guests, tuple(s.name for s in live.seats),
                            [s.connection for s in live.seats], offers=[0] * len(guests),
                            settings=live.config)
        self._entries[match_id] = entry
        return entry, seat

    def _reachable(self, entry: Rematchable, seat: int, match_id: str) -> bool:
        """Is the seat's player connected, and not following another match?"""
        session = entry.sessions[seat]
        if session is None or not session.out.open:
            live = self.matches.get(match_id)
            session = live.seats[seat].connection if live is not None else None
            entry.sessions[seat] = session
        return session is not None and session.out.open and (
            session.match is None or session.match.id == match_id)

    def _accepted(self, entry: Rematchable, pending: Offer, seat: int) -> None:
        """A seat accepted the waiting offer; once every other seat has, make the rematch (in the
        background: the lobby asks the store)."""
        pending.accepted.add(seat)
        log_event(log, logging.INFO, "rematch.accepted", match=entry.match, seat=seat)
        if len(pending.accepted) < len(entry.guests) - 1:
            return
        entry.pending = None
        entry.making = True
        addresses = tuple(session.peer if session is not None else "unknown" for session in entry.sessions)
        self.background.spawn(self._make(entry, addresses, pending.seat))

    async def _make(self, entry: Rematchable, addresses: tuple[str, ...], offerer: int) -> None:
        try:
            live = await self.lobby.create_rematch(entry.guests, entry.names, addresses, offerer,
                                                   entry.settings)
        except ServerError as error:
            entry.making = False
            log_event(log, logging.INFO, "rematch.refused", match=entry.match, code=error.code.value)
            self._tell(entry, RematchRefused(match=entry.match, reason="refused", code=error.code.value,
                                             message=error.message))
            self._drop_if_done(entry)
            return
        entry.making = False
        entry.rematch = live.id
        for seat, session in enumerate(entry.sessions):
            if session is not None and session.out.open:
                session.send(RematchReady(match=entry.match, rematch=live.id, seat=seat))
        self._drop_if_done(entry)

    def _tell(self, entry: Rematchable, message: ServerMessage) -> None:
        for session in entry.sessions:
            if session is not None and session.out.open:
                session.send(message)

    @staticmethod
    def _refuse(session: Session, why: str, ref: str) -> None:
        session.send(error_message(ErrorCode.REMATCH, why, ref))

    def _drop_if_done(self, entry: Rematchable) -> None:
        if entry.forgotten and entry.pending is None and not entry.making:
            self._entries.pop(entry.match, None)
