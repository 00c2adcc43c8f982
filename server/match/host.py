"""What the lobby and the ranked queue need of the hub: a host of matches, and nothing else of it; and
the seat count a match's ruleset plays (`check_seats`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from protocol.errors import ErrorCode

from ..errors import ServerError
from ..tokens import Guest
from .live import LiveMatch, Seat
from .settings import MatchSettings


class MatchHost(Protocol):
    """Hosts live matches (server/match/hub.py's `Hub`): admits them, makes them, holds them."""

    @property
    def settings(self) -> MatchSettings:
        """The settings the hosted matches play by."""
        ...

    @property
    def matches(self) -> Mapping[str, LiveMatch]:
        """The live matches by id."""
        ...

    def now(self) -> float:
        """The monotonic clock the matches run on."""
        ...

    def admit(self, seats: int) -> None:
        """Refuse (503 `busy`) a new match of `seats` seats the node has no room for."""
        ...

    def new_match(
        self, seats: list[Seat], match_id: str | None = None, invite: str | None = None, ranked: bool = False,
        settings: MatchSettings | None = None,
    ) -> LiveMatch:
        """Host a new match of these seats."""
        ...

    def create_ranked_match(
        self, first: Guest, second: Guest, match_id: str, addresses: tuple[str, str],
        ruleset: str | None = None,
    ) -> LiveMatch:
        """Host a ranked 1 v 1 of two paired guests, of `ruleset` (None: the node's)."""
        ...

    def settings_for(self, ruleset: str | None = None, seconds: float | None = None) -> MatchSettings:
        """The settings of a new match of that ruleset (None: the node's), limited to `seconds` when given."""
        ...

    def check_bot(self, bot: str, settings: MatchSettings | None = None) -> None:
        """Refuse (422) a bot the match's ruleset (None: the node's) does not have."""
        ...

    def seat_held(self, guest_id: str) -> bool:
        """Does the guest hold a seat in a hosted match that waits or runs?"""
        ...

    def live_list(self) -> list[dict[str, Any]]:
        """The hosted matches listed for spectating (running, public), newest first."""
        ...

def check_seats(settings: MatchSettings, seats: int) -> None:
    """Refuse (422) a match of `seats` seats its ruleset does not play."""
    ruleset = settings.ruleset
    if not ruleset.min_seats <= seats <= ruleset.max_seats:
        plays = (f"{ruleset.min_seats}" if ruleset.min_seats == ruleset.max_seats
                 else f"{ruleset.min_seats} to {ruleset.max_seats}")
        raise ServerError(ErrorCode.MALFORMED, f"a match of {ruleset.name} has {plays} seats, not {seats}",
                          422)
