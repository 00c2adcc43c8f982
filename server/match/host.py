"""What the lobby and the ranked queue need of the hub: a host of matches, and nothing else of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

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
        self, first: Guest, second: Guest, match_id: str, addresses: tuple[str, str]
    ) -> LiveMatch:
        """Host a ranked 1 v 1 of two paired guests."""
        ...

    def check_bot(self, bot: str) -> None:
        """Refuse (422) a bot the hosted ruleset does not have."""
        ...

    def seat_held(self, guest_id: str) -> bool:
        """Does the guest hold a seat in a hosted match that waits or runs?"""
        ...

    def live_list(self) -> list[dict[str, Any]]:
        """The hosted matches listed for spectating (running, public), newest first."""
        ...
