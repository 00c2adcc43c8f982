"""The lobby: rooms, invitations and bot matches, under per-guest and per-address limits.

No one client may degrade what others get, so every way to make a match is bounded (the numbers are
`LimitSettings`, documented in protocol/README.md's limits table):

- **creation rates**: making a room or a bot match takes a token from the guest's bucket and from
  its address's; making a guest takes one from its address's bucket. Refused: 429 `rate-limited`
  with the seconds to wait;
- **one live match per guest**: a guest holds a seat in at most `live_matches_per_guest` matches
  that have not ended: a bot match from its creation, a room from its first join (for its creator,
  while an invited guest holds a seat in it; a room of 3 or 4 counts from then, before it is full).
  Creating a bot match or joining a room past it is refused with `already-playing` (joining a room
  whose creator is playing elsewhere too);
- **live matches per address**: the client address (behind a trusted proxy, the one it forwarded)
  of every guest who makes a room or a bot match, joins a room, waits in the ranked queue or is
  paired by it has a seat in at most `live_matches_per_address` live matches (rooms waiting and
  guests queued included; a match counts once per address whatever the number of its guests from
  there). Past it: 429 `too-many-matches`;
- **the node's budget**: every way to make a match first asks the hub (`Hub.admit`: 503 `busy`
  with Retry-After past `capacity_board_frames` or `max_matches`), before anything is counted;
- **open rooms per guest**: at most `open_rooms_per_guest` rooms with a seat still free (a room
  counts from its creation until its last seat is taken, it ends or it expires, and again when an
  invited guest gives a seat back; a refused room gives its place back at once);
- **invitations**: a room is joined by its invitation, a secret in the share link, never by its
  public id; a room expires `room_timeout` seconds after it was made, whatever happens in it. Only
  the creator cancels it; the invited guest who leaves before the start, or does not connect within
  `invite_connect_timeout`, gives the seat back (`vacated`) and the room waits for its invitation
  again (a rematch, to whose seats no invitation leads, is called off instead). A room, and the
  match played from it, is never listed (it is watched by its id).

The counters live behind the store interface (`take_token`, `add_member`, `remove_member`), so they
hold across nodes sharing a store. A match that ends (or is cancelled) gives its seats back.

Across nodes (server/store/base.py's `LobbyStore`):

- **the live list**: each node writes its part (its listed matches, the newest `live_list_max`) to
  the store every `live_list_every` seconds, valid three times that long, and lists its own matches
  as they are now with the others' parts (read at most every `live_list_every`). A node that dies
  drops out of the list when its part lapses. Kept in the store rather than sent as bus
  messages because a list is state, not events: a node that starts, or missed messages, reads it
  whole in one request, and a dead node's part lapses by itself;
- **rooms by invitation**: a room's node notes where it waits (its invitation → its match and node,
  for `room_timeout`); a guest who brings the invitation to another node is joined by the room's
  node, which alone holds the room's seats: the other node puts the join in the room's node's
  mailbox (at most `room_asks_max` waiting) and waits `room_join_timeout` for its answer (the seat,
  or the refusal, the same as on the room's node). A node with rooms reads its mailbox every
  `room_asks_every` seconds. The guest then plays at the room's node (HAProxy pins
  `/ws?match=<id>` to it).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages import MatchState

from ..errors import ServerError
from ..logs import log_event
from ..store.base import LimitStore, LobbyStore, RoomPlace
from ..store.memory import MemoryLobby
from ..tokens import Guest
from .background import Background
from .host import MatchHost, check_seats
from .live import LiveMatch, Seat
from .settings import LobbySettings, MatchSettings
from .sources import Clock, IdSource

log = logging.getLogger("floe.lobby")


def _live_key(guest_id: str) -> str:
    return f"live:{guest_id}"


def _rooms_key(guest_id: str) -> str:
    return f"rooms:{guest_id}"


def _address_key(address: str) -> str:
    return f"live-address:{address}"


def _queue_place(guest_id: str) -> str:
    """The member a guest waiting in the ranked queue holds in its address's set of live matches."""
    return f"queue:{guest_id}"


class Lobby:
    """Makes matches for guests, within the limits, and has the hub host them; the hub tells it when a
    match ended (the hooks `ended`, `vacated`, `forget`)."""

    def __init__(
        self, hub: MatchHost, store: LimitStore, settings: LobbySettings, room_timeout: float, clock: Clock,
        ids: IdSource, shared: LobbyStore | None = None, node: str = "node",
        background: Background | None = None,
    ) -> None:
        """`shared` is what the lobbies of the nodes on one store share (default: this node's own),
        `node` this node's name there."""
        #: The hub that hosts the matches the lobby makes (admit, new_match, check_bot, matches).
        self.hub = hub
        self.store = store
        self.settings = settings
        self.limits = settings.limits
        self.room_timeout = room_timeout
        self.clock = clock
        self.ids = ids
        #: How long a live-match seat is held at most (a match that never reports its end frees it then).
        self.hold = settings.live_hold
        #: Invitation secret -> room id, for the rooms still waiting.
        self._invites: dict[str, str] = {}
        #: The rematch rooms (no invitation leads to them: every seat is taken when they are made).
        self._rematches: set[str] = set()
        self.shared: LobbyStore = shared if shared is not None else MemoryLobby()
        self.node = node
        self.background = background if background is not None else Background()
        #: The other nodes' listed matches as last read, and when (the hub's clock).
        self._elsewhere: list[dict[str, Any]] = []
        self._elsewhere_at = float("-inf")
        self._last_listing = float("-inf")
        self._listed = False
        self._listing = False
        self._last_asks = float("-inf")
        self._serving = False
        #: Joins this node put in other nodes' mailboxes and answered by them (stats, tests).
        self.joined_elsewhere = 0

    # ---- across nodes ------------------------------------------------------------------------------------

    def tick(self, now: float) -> None:
        """On the hub's clock: now and then list this node's matches for the others, and read the
        mailbox of joins while this node has rooms."""
        settings = self.settings
        if now - self._last_listing >= settings.live_list_every and not self._listing:
            self._last_listing = now
            self._listing = True
            self.background.spawn(self._list())
        if self._invites and now - self._last_asks >= settings.room_asks_every and not self._serving:
            self._last_asks = now
            self._serving = True
            self.background.spawn(self._serve_asks())

    async def _list(self) -> None:
        try:
            entries = self._own_live()[: self.settings.live_list_max]
            if entries or self._listed:
                until = self.clock.wall() + 3 * self.settings.live_list_every
                await self.shared.put_live(self.node, entries, until)
                self._listed = bool(entries)
        finally:
            self._listing = False

    async def live_list(self) -> list[dict[str, Any]]:
        """Running public matches of every node, newest first: this node's as they are now, the
        others' as they listed them (within `live_list_every`)."""
        own = self._own_live()
        ids = {entry["id"] for entry in own}
        merged = own + [entry for entry in await self._listed_elsewhere() if entry["id"] not in ids]
        return sorted(merged, key=lambda entry: float(entry["created"]), reverse=True)

    def _own_live(self) -> list[dict[str, Any]]:
        """This node's listed matches, each naming this node (`node`: where it is played)."""
        return [{**entry, "node": self.node} for entry in self.hub.live_list()]

    async def listed_elsewhere(self, match_id: str) -> dict[str, Any] | None:
        """Another node's match as that node listed it (within `live_list_every`), if it does."""
        return next((entry for entry in await self._listed_elsewhere() if entry["id"] == match_id), None)

    async def _listed_elsewhere(self) -> list[dict[str, Any]]:
        now = self.hub.now()
        if now - self._elsewhere_at >= self.settings.live_list_every:
            self._elsewhere_at = now
            self._elsewhere = await self.shared.live_elsewhere(self.node, self.clock.wall())
        return self._elsewhere

    async def join_room_anywhere(self, invite: str, guest: Guest, address: str) -> tuple[str, int]:
        """Take a seat of the room this invitation opens, on whichever node it waits: (match id, seat)."""
        if invite in self._invites:
            live, seat = await self.join_room(invite, guest, address)
            return live.id, seat
        place = await self.shared.find_room(invite)
        if place is None or place.node == self.node:
            raise ServerError(ErrorCode.NO_SUCH_MATCH, "no room waits behind this invitation", 404)
        settings = self.settings
        ask_id = self.ids.invite()
        request = {"id": ask_id, "invite": invite, "guest": guest.id, "name": guest.name,
                   "generation": guest.generation, "address": address,
                   "until": self.clock.wall() + settings.room_join_timeout}
        if not await self.shared.ask(place.node, json.dumps(request), settings.room_asks_max,
                                     settings.room_join_timeout):
            message = "the room's node has too many joins waiting"
            raise ServerError(ErrorCode.BUSY, message, 503, retry_after=1.0)
        deadline = self.hub.now() + settings.room_join_timeout
        while True:
            reply = await self.shared.take_answer(ask_id)
            if reply is not None:
                return self._answered(json.loads(reply))
            if self.hub.now() >= deadline:
                log_event(log, logging.WARNING, "room.join-unanswered", node=place.node, match=place.match)
                raise ServerError(ErrorCode.BUSY, "the room's node did not answer", 503, retry_after=1.0)
            await asyncio.sleep(settings.room_asks_every)  # the poll's pace: the answer is in the store

    def _answered(self, reply: dict[str, Any]) -> tuple[str, int]:
        error = reply.get("error")
        if error is not None:
            code, message, status, retry_after = error
            raise ServerError(ErrorCode(code), str(message), int(status), retry_after=retry_after)
        self.joined_elsewhere += 1
        return str(reply["match"]), int(reply["seat"])

    async def _serve_asks(self) -> None:
        """Answer the joins other nodes asked of this node's rooms (as if asked here)."""
        settings = self.settings
        try:
            for text in await self.shared.take_asks(self.node, settings.room_asks_max):
                ask = json.loads(text)
                if float(ask["until"]) < self.clock.wall():
                    continue  # the asking node gave up
                guest = Guest(str(ask["guest"]), str(ask["name"]), int(ask["generation"]))
                try:
                    live, seat = await self.join_room(str(ask["invite"]), guest, str(ask["address"]))
                    reply: dict[str, Any] = {"match": live.id, "seat": seat}
                except ServerError as error:
                    reply = {"error": [error.code.value, error.message, error.status, error.retry_after]}
                await self.shared.answer(str(ask["id"]), json.dumps(reply), settings.room_join_timeout)
        finally:
            self._serving = False

    # ---- rates -----------------------------------------------------------------------------------------

    async def _take(self, key: str, rate: float, burst: float, what: str) -> None:
        wait = await self.store.take_token(key, rate, burst, self.clock.wall())
        if wait > 0:
            message = f"{what}: try again in {wait:.1f} s"
            raise ServerError(ErrorCode.RATE_LIMITED, message, 429, retry_after=wait)

    async def admit_guest(self, address: str) -> None:
        """A new guest from `address`, if its bucket allows one (else 429)."""
        limits = self.limits
        await self._take(f"guests:{address}", limits.guest_rate_per_address, limits.guest_burst_per_address,
                         "too many new guests from this address")

    async def _admit_match(self, guest: Guest, address: str) -> None:
        limits = self.limits
        await self._take(f"make:{guest.id}", limits.match_rate_per_guest, limits.match_burst_per_guest,
                         "too many new matches for this guest")
        await self._take(f"make:{address}", limits.match_rate_per_address, limits.match_burst_per_address,
                         "too many new matches from this address")

    # ---- seats in live matches ---------------------------------------------------------------------------

    async def _seat(self, guest_id: str, match_id: str, whose: str) -> None:
        """Count a live match for the guest, or refuse with already-playing."""
        now = self.clock.wall()
        if not await self.store.add_member(_live_key(guest_id), match_id, self.limits.live_matches_per_guest,
                                           self.hold, now):
            raise ServerError(ErrorCode.ALREADY_PLAYING, f"{whose} already playing another match", 409)

    async def _count_address(self, address: str, match_id: str, whose: str) -> None:
        """Count a live match against a client address, or refuse with too-many-matches (429)."""
        limit = self.limits.live_matches_per_address
        if not await self.store.add_member(_address_key(address), match_id, limit, self.hold,
                                           self.clock.wall()):
            log_event(log, logging.INFO, "lobby.address-full", address=address, limit=limit)
            raise ServerError(ErrorCode.TOO_MANY_MATCHES,
                              f"{whose} address already has a seat in {limit} live matches", 429)

    async def reserve_queue(self, address: str, guest_id: str, ttl: float) -> None:
        """A guest of `address` waits in the ranked queue: it holds one of the address's places (for
        `ttl` seconds at most), or is refused with too-many-matches (429)."""
        limit = self.limits.live_matches_per_address
        if not await self.store.add_member(_address_key(address), _queue_place(guest_id), limit, ttl,
                                           self.clock.wall()):
            raise ServerError(ErrorCode.TOO_MANY_MATCHES,
                              f"your address already has a seat in {limit} live matches", 429)

    async def release_queue(self, address: str, guest_id: str) -> None:
        """The guest left the ranked queue (or was paired): its place is given back."""
        await self.store.remove_member(_address_key(address), _queue_place(guest_id))

    async def _uncount(self, match_id: str, guests: tuple[str, ...], addresses: tuple[str, ...]) -> None:
        for guest in guests:
            await self.store.remove_member(_live_key(guest), match_id)
        for address in addresses:
            await self.store.remove_member(_address_key(address), match_id)

    async def seat_pair(self, first: str, second: str, match_id: str, addresses: tuple[str, str]) -> None:
        """Count a ranked match for both guests the queue paired and their addresses, or none of them
        (already-playing, too-many-matches)."""
        self.hub.admit(2)
        await self._seat(first, match_id, "you are")
        seated: tuple[str, ...] = (first,)
        counted: tuple[str, ...] = ()
        try:
            await self._seat(second, match_id, "your opponent is")
            seated += (second,)
            for address, whose in zip(addresses, ("your", "your opponent's"), strict=True):
                await self._count_address(address, match_id, whose)
                counted += (address,)
        except ServerError:
            await self._uncount(match_id, seated, counted)
            raise

    async def ended(
        self, match_id: str, guests: tuple[str | None, ...], addresses: tuple[str, ...] = ()
    ) -> None:
        """A match ended or was cancelled: its guests' seats, its room count and its addresses' counts
        are given back."""
        for guest in guests:
            if guest is not None:
                await self.store.remove_member(_live_key(guest), match_id)
                await self.store.remove_member(_rooms_key(guest), match_id)
        for address in addresses:
            await self.store.remove_member(_address_key(address), match_id)

    async def vacated(self, live: LiveMatch, guest: str, address: str | None) -> None:
        """An invited guest gave a room's seat back: its live match and its address's count (None when
        another seat came from there) are given back, and so is the creator's live match when no other
        invited guest holds a seat (a room of 3 or 4 still joined by another is still played by its
        creator); the room counts as one of its creator's open rooms again (past the limit if the
        creator made others meanwhile: it still expires with its room_timeout)."""
        await self.store.remove_member(_live_key(guest), live.id)
        if address is not None:
            await self.store.remove_member(_address_key(address), live.id)
        if live.id in self._rematches and live.state == MatchState.WAITING:
            # no invitation leads to a rematch's seat: the rematch is off, and its end frees the counts
            live.cancel(self.hub.now(), "a player left the rematch before it started")
            return
        creator = live.seats[0].guest
        if creator is not None and live.state == MatchState.WAITING:
            if live.invited_guests() == 0:  # another invited guest still there: the creator plays it still
                await self.store.remove_member(_live_key(creator), live.id)
            remaining = max(1.0, self.room_timeout - (self.hub.now() - live.created))
            await self.store.add_member(_rooms_key(creator), live.id, self.limits.open_rooms_per_guest + 1,
                                        remaining, self.clock.wall())

    def forget(self, live: LiveMatch) -> None:
        """The hub forgot a match: its invitation (if still open) leads nowhere now."""
        if live.invite is not None and self._invites.pop(live.invite, None) is not None:
            self.background.spawn(self.shared.drop_room(live.invite))
        self._rematches.discard(live.id)

    # ---- making matches ---------------------------------------------------------------------------------

    async def create_room(
        self, guest: Guest, address: str, seats: int = 2, minutes: int | None = None,
        ruleset: str | None = None,
    ) -> LiveMatch:
        """A room of `seats` seats (2 to 4, and as many as its ruleset plays) of the ruleset named
        `ruleset` (None: the node's): the guest holds the first; the one invitation is the way to each of
        the others, and the match starts when every seat is taken and connected. `minutes` limits its
        match to that many minutes of frames (None: the ruleset's default time limit)."""
        config = self.settings
        if not config.room_seats_min <= seats <= config.room_seats_max:
            raise ServerError(ErrorCode.MALFORMED,
                              f"a room has {config.room_seats_min} to {config.room_seats_max} seats", 422)
        if minutes is not None and not config.room_minutes_min <= minutes <= config.room_minutes_max:
            message = f"a room's time limit is {config.room_minutes_min} to {config.room_minutes_max} minutes"
            raise ServerError(ErrorCode.MALFORMED, message, 422)
        match_config = self.hub.settings_for(ruleset, minutes * 60 if minutes is not None else None)
        check_seats(match_config, seats)
        self.hub.admit(seats)
        await self._admit_match(guest, address)
        now = self.clock.wall()
        room_id = self.ids.match_id()
        if not await self.store.add_member(_rooms_key(guest.id), room_id, self.limits.open_rooms_per_guest,
                                           self.room_timeout, now):
            raise ServerError(ErrorCode.TOO_MANY_ROOMS,
                              f"a guest may have {self.limits.open_rooms_per_guest} open rooms at most", 409)
        invite = self.ids.invite()
        try:
            await self._count_address(address, room_id, "your")
            try:
                places = [Seat(guest.name, guest=guest.id, address=address)]
                places += [Seat("open") for _ in range(seats - 1)]
                live = self.hub.new_match(places, room_id, invite, settings=match_config)
            except ServerError:
                await self.store.remove_member(_address_key(address), room_id)
                raise
        except ServerError:  # a refused room keeps no place among its creator's open rooms
            await self.store.remove_member(_rooms_key(guest.id), room_id)
            raise
        self._invites[invite] = live.id
        await self.shared.put_room(invite, RoomPlace(live.id, self.node), self.room_timeout)
        log_event(log, logging.INFO, "room.create", match=live.id, guest=guest.id, address=address)
        return live

    async def join_room(self, invite: str, guest: Guest, address: str) -> tuple[LiveMatch, int]:
        """Take the free seat of the room this invitation opens (or the seat the guest holds there),
        from a client address (counted against it)."""
        live = self.hub.matches.get(self._invites.get(invite, ""))
        if live is None:
            raise ServerError(ErrorCode.NO_SUCH_MATCH, "no room waits behind this invitation", 404)
        held = live.seat_of(guest.id)
        if held is not None:
            return live, held
        if live.state != MatchState.WAITING:
            raise ServerError(ErrorCode.MATCH_OVER, "the room has already started or ended", 409)
        if not live.has_free_seat():
            raise ServerError(ErrorCode.ROOM_FULL, "every seat is taken", 409)
        creator = next(seat.guest for seat in live.seats if seat.guest is not None)
        shared = address in live.addresses()  # the match counts against that address already
        await self._seat(guest.id, live.id, "you are")
        seated: tuple[str, ...] = (guest.id,)
        try:
            await self._seat(creator, live.id, "the room's creator is")
            seated += (creator,)
            if not shared:
                await self._count_address(address, live.id, "your")
        except ServerError:
            await self._uncount(live.id, self._refused_join(live, seated), ())
            raise
        seat = live.take_seat(guest.id, guest.name, address, self.hub.now())
        if seat is None:  # taken while the store answered
            await self._uncount(live.id, self._refused_join(live, seated), () if shared else (address,))
            raise ServerError(ErrorCode.ROOM_FULL, "every seat is taken", 409)
        if not live.has_free_seat():  # full: no longer one of its creator's open rooms
            await self.store.remove_member(_rooms_key(creator), live.id)
        log_event(log, logging.INFO, "room.join", match=live.id, guest=guest.id, seat=seat)
        return live, seat

    @staticmethod
    def _refused_join(live: LiveMatch, seated: tuple[str, ...]) -> tuple[str, ...]:
        """Whose live match a refused join gives back: the joiner's, and the creator's (`seated[1]`, when
        counted) unless another invited guest holds a seat of the room, waiting or started, with whom the
        creator still plays it."""
        if live.state in (MatchState.WAITING, MatchState.RUNNING) and live.invited_guests() > 0:
            return seated[:1]
        return seated

    async def create_bot_match(
        self, guest: Guest, bot: str, address: str, ruleset: str | None = None
    ) -> LiveMatch:
        """A match against a server-side bot of the ruleset named `ruleset` (None: the node's); it starts
        when the guest connects."""
        settings = self.hub.settings_for(ruleset)
        check_seats(settings, 2)
        self.hub.check_bot(bot, settings)
        self.hub.admit(2)
        await self._admit_match(guest, address)
        match_id = self.ids.match_id()
        await self._seat(guest.id, match_id, "you are")
        counted: tuple[str, ...] = ()
        try:
            await self._count_address(address, match_id, "your")
            counted = (address,)
            seats = [Seat(guest.name, guest=guest.id, address=address), Seat(f"{bot}-bot", bot=bot)]
            live = self.hub.new_match(seats, match_id, settings=settings)
        except ServerError:
            await self._uncount(match_id, (guest.id,), counted)
            raise
        log_event(log, logging.INFO, "room.bot", match=live.id, guest=guest.id, bot=bot, address=address)
        return live


    async def create_rematch(
        self, guests: tuple[str, ...], names: tuple[str, ...], addresses: tuple[str, ...], offerer: int,
        settings: MatchSettings | None = None,
    ) -> LiveMatch:
        """A private room between the players of an ended match, each seated at once in its seat of it,
        from its client address now (server/match/rematch.py). A room's bounds hold: the node's budget
        (503 `busy`), the offerer's creation rate and its address's (429 `rate-limited`), one live
        match per guest (409 `already-playing`), each address's live matches (429 `too-many-matches`);
        refused, nothing stays counted. No seat waits for an invitation: the room starts when all
        have connected, or is cancelled at `room_timeout`, or when one of its players leaves it (or
        does not connect within `invite_connect_timeout`) before the start. `settings`: the ended match's
        (its ruleset and config: a rematch plays the same game), else the node's."""
        self.hub.admit(len(guests))
        limits = self.limits
        await self._take(f"make:{guests[offerer]}", limits.match_rate_per_guest, limits.match_burst_per_guest,
                         "too many new matches for the player who offered the rematch")
        await self._take(f"make:{addresses[offerer]}", limits.match_rate_per_address,
                         limits.match_burst_per_address, "too many new matches from the offerer's address")
        match_id = self.ids.match_id()
        seated: tuple[str, ...] = ()
        counted: tuple[str, ...] = ()
        try:
            for guest, name in zip(guests, names, strict=True):
                await self._seat(guest, match_id, f"{name} is")
                seated += (guest,)
            for address in dict.fromkeys(addresses):
                await self._count_address(address, match_id, "a player's")
                counted += (address,)
            seats = [Seat(name, guest=guest, address=address)
                     for guest, name, address in zip(guests, names, addresses, strict=True)]
            live = self.hub.new_match(seats, match_id, self.ids.invite(), settings=settings)
        except ServerError:
            await self._uncount(match_id, seated, counted)
            raise
        self._rematches.add(live.id)
        log_event(log, logging.INFO, "room.rematch", match=live.id, guests=list(guests))
        return live
