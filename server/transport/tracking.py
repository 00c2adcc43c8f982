"""What the protocols on the listener's sockets see of the listener: it knows every open socket and
which protocol drives it, so that a shutdown reaches them all (server/transport/listener.py)."""

from __future__ import annotations

import asyncio
from typing import Protocol


class Stoppable(Protocol):
    """What every protocol on the listener's sockets does when the server stops."""

    def shutdown(self) -> None:
        """Begin closing (or let a request in flight finish)."""
        ...


class Tracker(Protocol):
    """The listener's registry of open sockets."""

    def track(self, transport: asyncio.Transport, protocol: Stoppable) -> None:
        """`protocol` drives `transport` from now on."""
        ...

    def forget(self, transport: asyncio.Transport) -> None:
        """`transport` is closed."""
        ...
