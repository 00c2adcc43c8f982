"""A websocket's way in: between its messages and its session, with the time.

server/transport/websocket.py hands each complete message to `Reader.receive` by a plain call; the
session (server/match/session.py) owns the guards after the handshake (the token bucket, the size
bound and validation, the strike count, the seat binding); answers and the stream leave through the
connection's queue (server/transport/connection.py). The origin is checked at the handshake
(`origin_allowed`: refused with HTTP 403 and a typed error body).
"""

from __future__ import annotations

import asyncio

from ..match.dispatch import Dispatcher
from ..match.session import Session
from ..origins import origin_allowed
from .connection import Connection

__all__ = ["Reader", "origin_allowed"]


class Reader:
    """One connection's way in: every message goes to its session (server/match/session.py) with the time."""

    def __init__(
        self, conn: Connection, dispatcher: Dispatcher, loop: asyncio.AbstractEventLoop
    ) -> None:
        self.loop = loop
        self.session = Session(conn, dispatcher, dispatcher.session_settings, loop.time())

    def receive(self, data: bytes | str) -> None:
        """Handle one message from the client."""
        self.session.receive(data, self.loop.time())

    def closed(self) -> None:
        """The connection is gone."""
        self.session.closed(self.loop.time())
