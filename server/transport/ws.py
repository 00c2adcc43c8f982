"""A websocket's way in: the guards and the protocol session between its messages and the dispatcher.

server/transport/websocket.py hands each complete message to `Reader.receive` by a plain call; answers
and the stream leave through the connection's queue (server/transport/connection.py).

Guards, in order: the origin (`origin_allowed`, checked at the handshake, which refuses with HTTP 403
and a typed error body), the token bucket (excess frames are dropped, with at most one `rate-limited`
error a second), the size bound and validation (protocol/session.py), and a strike count: a
connection that keeps sending refused frames is closed as hostile.
"""

from __future__ import annotations

import asyncio
import logging

from protocol.codec import error_message
from protocol.errors import ErrorCode
from protocol.messages import Error
from protocol.session import ServerSession

from ..logs import log_event
from ..match.dispatch import Dispatcher
from ..match.hub import Hub
from .connection import CLOSE_POLICY, Connection
from .ratelimit import TokenBucket

log = logging.getLogger("floe.ws")


def origin_allowed(origin: str | None, allowed: tuple[str, ...]) -> bool:
    """Browsers send Origin and must match the list ("*" allows any); clients without one are not browsers."""
    if origin is None:
        return True
    return "*" in allowed or origin.rstrip("/") in allowed


class Reader:
    """One connection's way in: the token bucket, the protocol session, the strike count, the dispatch."""

    def __init__(
        self, conn: Connection, hub: Hub, dispatcher: Dispatcher, loop: asyncio.AbstractEventLoop
    ) -> None:
        config = hub.config
        self.conn = conn
        self.config = config
        self.dispatcher = dispatcher
        self.loop = loop
        self.session = ServerSession(config.max_message_bytes)
        self.bucket = TokenBucket(config.rate_per_second, config.rate_burst, loop.time())
        self.strikes = 0
        self.last_rate_error = -1.0

    def receive(self, data: bytes | str) -> None:
        """Handle one message from the client; a fatal one, or too many refused ones, close the connection."""
        conn, config = self.conn, self.config
        if not conn.open:
            return
        now = self.loop.time()
        try:
            if not self.bucket.take(now):
                self.strikes += 1
                if now - self.last_rate_error >= 1.0:
                    self.last_rate_error = now
                    conn.send(
                        error_message(
                            ErrorCode.RATE_LIMITED,
                            f"over {config.rate_per_second:g} messages a "
                            f"second (burst {config.rate_burst:g})",
                        )
                    )
            else:
                outcome = self.session.receive(data)
                if isinstance(outcome, Error):
                    self.strikes += 1
                    if outcome.fatal:
                        conn.close(CLOSE_POLICY, outcome)
                        return
                    conn.send(outcome)
                else:
                    self.dispatcher.handle(conn, outcome, now)
        except Exception:  # noqa: BLE001 - one bad message must not take the connection's match down
            log_event(log, logging.ERROR, "ws.message-failed", exc_info=True, peer=conn.peer)
            failed = error_message(ErrorCode.INTERNAL, "the server failed on a message", fatal=True)
            conn.close(CLOSE_POLICY, failed)
            return
        if self.strikes > config.max_strikes:
            log_event(log, logging.WARNING, "ws.hostile", peer=conn.peer, strikes=self.strikes)
            conn.close(
                CLOSE_POLICY,
                error_message(ErrorCode.RATE_LIMITED, "too many refused messages", fatal=True),
            )
