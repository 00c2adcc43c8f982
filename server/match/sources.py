"""Time and randomness, injected: the match layer reads its clocks and draws its ids and seeds here.

The hub is given a `Clock` and an `IdSource`; `SystemClock` and `RandomIds` are the real ones (the
loop's monotonic clock and wall time; `secrets`), and tests give fixed ones, so that what the match
layer decides is a function of what it was given.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Protocol


class Clock(Protocol):
    """Seconds: a monotonic clock for schedules and grace periods, wall time for expiries and records."""

    def monotonic(self) -> float:
        """Seconds on a monotonic clock (the event loop's)."""
        ...

    def wall(self) -> float:
        """Unix seconds."""
        ...


class IdSource(Protocol):
    """Where new match ids, match seeds and guest ids come from."""

    def match_id(self) -> str:
        """A new match (or room) id."""
        ...

    def seed(self) -> int:
        """A new 32-bit match seed."""
        ...

    def guest_id(self) -> str:
        """A new guest id."""
        ...

    def invite(self) -> str:
        """A new room invitation: a secret that opens the room's free seat."""
        ...


class SystemClock:
    """The running event loop's clock and the system's wall clock."""

    def monotonic(self) -> float:
        """The loop's time."""
        return asyncio.get_running_loop().time()

    def wall(self) -> float:
        """time.time()."""
        return time.time()


class RandomIds:
    """Ids and seeds from the operating system's randomness (unguessable: room ids are shared)."""

    def match_id(self) -> str:
        """Eleven url-safe characters."""
        return secrets.token_urlsafe(8)

    def seed(self) -> int:
        """A uniform 32-bit seed."""
        return secrets.randbelow(2**32)

    def guest_id(self) -> str:
        """`g_` and twelve url-safe characters."""
        return "g_" + secrets.token_urlsafe(9)

    def invite(self) -> str:
        """128 bits, url-safe (22 characters)."""
        return secrets.token_urlsafe(16)
