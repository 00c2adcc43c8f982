"""The lobby: rooms, invitations and bot matches, under per-guest and per-address limits.

No one client may degrade what others get, so every way to make a match is bounded (the numbers are
`LimitSettings`, documented in protocol/README.md's limits table):

- **creation rates**: making a room or a bot match takes a token from the guest's bucket and from
  its address's; making a guest takes one from its address's bucket. Refused: 429 `rate-limited`
  with the seconds to wait;
- **one live match per guest**: a guest holds a seat in at most `live_matches_per_guest` matches
  whose seats are all taken and that have not ended (a bot match from its creation, a room once it
  is joined). Creating a bot match or joining a room past it is refused with `already-playing`
  (joining a room whose creator is playing elsewhere too);
- **open rooms per guest**: at most `open_rooms_per_guest` rooms waiting for their second player;
- **invitations**: a room is joined by its invitation, a secret in the share link, never by its
  public id (ids are listed to spectators); a room expires `room_timeout` seconds after it was made,
  whatever happens in it, and only running matches are listed.

The counters live behind the store interface (`take_token`, `add_member`, `remove_member`), so they
hold across nodes sharing a store. A match that ends (or is cancelled) gives its seats back.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode
from protocol.messages import MatchState

from ..config import LimitSettings
from ..errors import ServerError
from ..logs import log_event
from ..store.base import Store
from ..tokens import Guest
from .live import LiveMatch, Seat

if TYPE_CHECKING:
    from .hub import Hub

log = logging.getLogger("floe.lobby")


def _live_key(guest_id: str) -> str:
    return f"live:{guest_id}"


def _rooms_key(guest_id: str) -> str:
    return f"rooms:{guest_id}"


class Lobby:
    """Makes matches for the hub's guests, within the limits; the hub tells it when a match ended."""

    def __init__(
        self, hub: Hub, store: Store, limits: LimitSettings, room_timeout: float, hold: float
    ) -> None:
        self.hub = hub
        self.store = store
        self.limits = limits
        self.room_timeout = room_timeout
        #: How long a live-match seat is held at most (a match that never reports its end frees it then).
        self.hold = hold
        #: Invitation secret -> room id, for the rooms still waiting.
        self._invites: dict[str, str] = {}

    # ---- rates -----------------------------------------------------------------------------------------

    async def _take(self, key: str, rate: float, burst: float, what: str) -> None:
        wait = await self.store.take_token(key, rate, burst, self.hub.clock.wall())
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
        now = self.hub.clock.wall()
        if not await self.store.add_member(_live_key(guest_id), match_id, self.limits.live_matches_per_guest,
                                           self.hold, now):
            raise ServerError(ErrorCode.ALREADY_PLAYING, f"{whose} already playing another match", 409)

    async def seat_pair(self, first: str, second: str, match_id: str) -> None:
        """Count a ranked match for both guests the queue paired, or neither (already-playing)."""
        await self._seat(first, match_id, "you are")
        try:
            await self._seat(second, match_id, "your opponent is")
        except ServerError:
            await self.store.remove_member(_live_key(first), match_id)
            raise

    async def ended(self, match_id: str, guests: tuple[str | None, ...]) -> None:
        """A match ended or was cancelled: its guests' seats and its room count are given back."""
        for guest in guests:
            if guest is not None:
                await self.store.remove_member(_live_key(guest), match_id)
                await self.store.remove_member(_rooms_key(guest), match_id)

    def forget(self, live: LiveMatch) -> None:
        """The hub forgot a match: its invitation (if still open) leads nowhere now."""
        if live.invite is not None:
            self._invites.pop(live.invite, None)

    # ---- making matches ---------------------------------------------------------------------------------

    async def create_room(self, guest: Guest, address: str) -> LiveMatch:
        """A room of two seats: the guest holds the first; the invitation is the way to the second."""
        await self._admit_match(guest, address)
        now = self.hub.clock.wall()
        room_id = self.hub.ids.match_id()
        if not await self.store.add_member(_rooms_key(guest.id), room_id, self.limits.open_rooms_per_guest,
                                           self.room_timeout, now):
            raise ServerError(ErrorCode.TOO_MANY_ROOMS,
                              f"a guest may have {self.limits.open_rooms_per_guest} open rooms at most", 409)
        invite = self.hub.ids.invite()
        live = self.hub.new_match([Seat(guest.name, guest=guest.id), Seat("open")], room_id, invite)
        self._invites[invite] = live.id
        log_event(log, logging.INFO, "room.create", match=live.id, guest=guest.id, address=address)
        return live

    async def join_room(self, invite: str, guest: Guest) -> tuple[LiveMatch, int]:
        """Take the free seat of the room this invitation opens (or the seat the guest holds there)."""
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
        await self._seat(guest.id, live.id, "you are")
        try:
            await self._seat(creator, live.id, "the room's creator is")
        except ServerError:
            await self.store.remove_member(_live_key(guest.id), live.id)
            raise
        seat = live.take_seat(guest.id, guest.name)
        if seat is None:  # taken while the store answered
            await self.store.remove_member(_live_key(guest.id), live.id)
            await self.store.remove_member(_live_key(creator), live.id)
            raise ServerError(ErrorCode.ROOM_FULL, "every seat is taken", 409)
        await self.store.remove_member(_rooms_key(creator), live.id)
        log_event(log, logging.INFO, "room.join", match=live.id, guest=guest.id, seat=seat)
        return live, seat

    async def create_bot_match(self, guest: Guest, bot: str, address: str) -> LiveMatch:
        """A match against a server-side bot; it starts when the guest connects."""
        self.hub.check_bot(bot)
        await self._admit_match(guest, address)
        match_id = self.hub.ids.match_id()
        await self._seat(guest.id, match_id, "you are")
        try:
            seats = [Seat(guest.name, guest=guest.id), Seat(f"{bot}-bot", bot=bot)]
            live = self.hub.new_match(seats, match_id)
        except ServerError:
            await self.store.remove_member(_live_key(guest.id), match_id)
            raise
        log_event(log, logging.INFO, "room.bot", match=live.id, guest=guest.id, bot=bot, address=address)
        return live

