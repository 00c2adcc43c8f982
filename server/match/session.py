"""One client connection's session, sans-I/O: bytes and the time in, dispatches and sends out.

`Session.receive(data, now)` owns everything between a websocket message and the match layer:

1. the token buckets: the connection's own (`rate_per_second`, `rate_burst`), then the one every
   websocket of its client address shares (`message_rate_per_address`, `message_burst_per_address`,
   server/match/budget.py): excess messages are dropped, answered with at most one `rate-limited`
   error a second, and count as strikes;
2. the protocol's own checks (protocol/session.py: the size bound, the codec's validation, `hello`
   first and once, the protocol version): a refusal is answered with its typed error, a fatal one
   closes the connection (policy, 1008);
3. the strike count: a connection that keeps sending refused messages (`max_strikes`) is closed as
   hostile;
4. the binding: which guest the connection speaks for, and which match and seat it follows;
5. the dispatch of each valid message (server/match/dispatch.py); while `hello`'s token is checked
   against the store (has a renewal revoked it?), the messages after it wait in order (at most
   `hello_backlog`, the rest refused `busy`) and are dispatched once `welcome` is sent.

Its way out is an `Outbox` (the transport's connection: send without waiting, close), and time is
an argument, so the guards are tested without sockets or a clock (tests/server/test_session.py).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from protocol.codec import error_message
from protocol.errors import CloseCode, ErrorCode
from protocol.messages import ClientMessage, Error, ServerMessage
from protocol.ratelimit import TokenBucket
from protocol.session import ServerSession

from ..logs import log_event
from ..tokens import Guest
from .settings import SessionSettings

if TYPE_CHECKING:
    from .dispatch import Dispatcher
    from .follow import FollowedMatch
    from .live import LiveMatch

log = logging.getLogger("floe.session")

#: Seconds between two `rate-limited` errors on one connection.
RATE_ERROR_EVERY = 1.0


class Outbox(Protocol):
    """A connection's way out (server/transport/connection.py's Connection)."""

    @property
    def open(self) -> bool:
        """Can it still send?"""
        ...

    @property
    def peer(self) -> str:
        """The peer's address, for logs."""
        ...

    def send(self, message: ServerMessage) -> bool:
        """Queue a message without waiting; False when the connection is closing."""
        ...

    def send_bytes(self, data: bytes) -> bool:
        """Queue encoded bytes without waiting; False when the connection is closing."""
        ...

    def close(self, code: int = CloseCode.NORMAL, message: ServerMessage | None = None) -> None:
        """Queue a last message (if any) and the close."""
        ...


class Session:
    """A client's guards, binding and dispatch (see the module docstring)."""

    def __init__(self, out: Outbox, dispatcher: Dispatcher, config: SessionSettings, now: float) -> None:
        self.out = out
        self.dispatcher = dispatcher
        self.config = config
        self.protocol = ServerSession(config.max_message_bytes)
        self.bucket = TokenBucket(config.rate_per_second, config.rate_burst, now)
        #: The bucket every websocket of this client address shares (given back when the session closes).
        self._budgets = dispatcher.message_budgets
        self.address_bucket = self._budgets.acquire(out.peer, now)
        self._released = False
        self.strikes = 0
        self._last_rate_error = float("-inf")
        #: The binding, set by the handlers and the match: who this is, what it follows, which seat.
        self.guest: Guest | None = None
        #: A match this node hosts, or one of another node it follows (server/match/follow.py).
        self.match: LiveMatch | FollowedMatch | None = None
        self.seat: int | None = None
        self.spectator = False
        #: The match the websocket's URL names (`/ws?match=<id>`): the only one it may join or watch.
        self.pinned: str | None = None
        #: The player's `join` asked for `replica`: its resyncs carry the match's state.
        self.replica = False
        #: `desync` reports logged from this connection.
        self.desyncs = 0
        #: The round trip to the client (milliseconds, smoothed) the transport measured, or None.
        self.lag_ms: int | None = None
        #: Messages that came while `hello`'s token was checked (None: not checking), with their times.
        self.held: list[tuple[ClientMessage, float]] | None = None

    @property
    def peer(self) -> str:
        """The peer's address."""
        return self.out.peer

    def send(self, message: ServerMessage) -> bool:
        """Queue a message to the client."""
        return self.out.send(message)

    def receive(self, data: bytes | str, now: float) -> None:
        """Handle one websocket message from the client at time `now` (seconds, monotonic)."""
        out, config = self.out, self.config
        if not out.open:
            return
        try:
            if not self.bucket.take(now):
                self._refuse(now, f"over {config.rate_per_second:g} messages a second "
                                  f"(burst {config.rate_burst:g})")
            elif not self.address_bucket.take(now):
                self._refuse(now, f"this address's connections together sent over "
                                  f"{config.message_rate_per_address:g} messages a second "
                                  f"(burst {config.message_burst_per_address:g})")
            else:
                outcome = self.protocol.receive(data)
                if isinstance(outcome, Error):
                    self.strikes += 1
                    if outcome.fatal:
                        out.close(CloseCode.POLICY, outcome)
                        return
                    out.send(outcome)
                elif self.held is not None:
                    self._hold(outcome, now)
                else:
                    self.dispatcher.handle(self, outcome, now)
        except Exception:  # noqa: BLE001 - one bad message must not take the connection's match down
            log_event(log, logging.ERROR, "session.message-failed", exc_info=True, peer=out.peer)
            failed = error_message(ErrorCode.INTERNAL, "the server failed on a message", fatal=True)
            out.close(CloseCode.POLICY, failed)
            return
        if self.strikes > config.max_strikes:
            log_event(log, logging.WARNING, "session.hostile", peer=out.peer, strikes=self.strikes)
            hostile = error_message(ErrorCode.RATE_LIMITED, "too many refused messages", fatal=True)
            out.close(CloseCode.POLICY, hostile)

    def _hold(self, message: ClientMessage, now: float) -> None:
        held = self.held
        assert held is not None
        if len(held) >= self.config.hello_backlog:
            self.strikes += 1
            self.out.send(error_message(ErrorCode.BUSY, "wait for welcome: the token is being checked",
                                        message.KIND))
            return
        held.append((message, now))

    def release_held(self) -> None:
        """`hello` is answered: dispatch what came after it, in order."""
        held, self.held = self.held or [], None
        for message, at in held:
            if not self.out.open:
                return
            self.dispatcher.handle(self, message, at)

    def leave_finished(self, now: float) -> None:
        """Stop following a match that is over or cancelled (its players may queue or join again; a
        player still hears its `rated`)."""
        match = self.match
        if match is not None and match.ended_at is not None:
            match.release(self)

    def _refuse(self, now: float, why: str) -> None:
        """A message over a budget: dropped, a strike, and at most one `rate-limited` a second."""
        self.strikes += 1
        if now - self._last_rate_error >= RATE_ERROR_EVERY:
            self._last_rate_error = now
            self.out.send(error_message(ErrorCode.RATE_LIMITED, why))

    def closed(self, now: float) -> None:
        """The connection is gone: leave the queue and the match it followed (a grace period starts);
        its share of the address's message budget is given back."""
        if not self._released:
            self._released = True
            self._budgets.release(self.out.peer, now)
        self.dispatcher.closed(self, now)
