"""What each valid client message does. One handler per kind; `assert_never` makes a new kind that is
not handled here a type error, and tests/server/test_dispatch.py makes it a test failure too.

Handlers never await: they bind connections, tell the runner inputs, and queue answers. The one
store read, whether a renewal revoked `hello`'s token, runs in the node's background; the session
holds the messages after `hello` until it is answered.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import assert_never

from protocol.codec import error_message
from protocol.errors import ErrorCode
from protocol.messages import (
    ClientMessage,
    Desync,
    Hello,
    Input,
    InputLate,
    Join,
    Leave,
    Ping,
    Pong,
    Queue,
    Rematch,
    RematchAnswer,
    Unqueue,
    Watch,
    Welcome,
)
from protocol.version import PROTOCOL_VERSION

from ..logs import log_event
from ..store.base import LimitStore
from ..tokens import Guest, TokenError, TokenSigner, token_key
from .background import Background
from .budget import AddressBudgets
from .follow import FollowedMatch, Follower
from .live import LiveMatch
from .ranked import RankedLobby
from .rematch import Rematches
from .session import Session
from .settings import LobbySettings, MatchSettings, SessionSettings
from .sources import Clock

log = logging.getLogger("floe.session")


class Dispatcher:
    """Routes a session's messages to the hub's matches, the ranked queue and rematch offers."""

    def __init__(
        self,
        matches: Mapping[str, LiveMatch],
        ranked: RankedLobby,
        rematches: Rematches,
        signer: TokenSigner,
        limits: LimitStore,
        clock: Clock,
        background: Background,
        settings: MatchSettings,
        session: SessionSettings,
        lobby: LobbySettings,
    ) -> None:
        #: The hub's live matches, which the sessions join and watch.
        self.matches = matches
        self.ranked = ranked
        self.rematches = rematches
        self.signer = signer
        self.limits = limits
        self.clock = clock
        self.background = background
        self.config = settings
        self.session_settings = session
        self.lobby_settings = lobby
        #: The message budget every websocket of a client address shares (server/match/budget.py).
        self.message_budgets = AddressBudgets(
            session.message_rate_per_address, session.message_burst_per_address
        )
        #: Sessions open now, and websockets served ever (the transport counts them; /health shows them).
        self.connections = 0
        self.websockets_served = 0
        #: Serves `join`/`watch` of matches other nodes host (a node on a shared store, server/node.py).
        self.follower: Follower | None = None

    def queued(self, session: Session) -> bool:
        """Does this session wait in the ranked queue (or is its `queue` being checked)?"""
        return self.ranked.holds(session)

    def handle(self, session: Session, message: ClientMessage, now: float) -> None:
        """Act on one valid message (the session checked its shape, the handshake and the rate)."""
        match message:
            case Hello():
                self._hello(session, message)
            case Join():
                self._join(session, message, now)
            case Watch():
                self._watch(session, message, now)
            case Input():
                self._input(session, message)
            case Ping():
                if isinstance(session.match, FollowedMatch):
                    session.match.ping(session, message)
                    return
                frame = session.match.current_frame() if session.match is not None else -1
                session.send(Pong(id=message.id, t=message.t, frame=frame))
            case Leave():
                self._leave(session, now)
            case Desync():
                self._desync(session, message)
            case Queue():
                self.ranked.request(session, now, message.ruleset)
            case Unqueue():
                self.ranked.withdraw(session)
            case Rematch():
                if not self._rematch_elsewhere(session, message.match, None):
                    self.rematches.offer(session, message.match, now)
            case RematchAnswer():
                if not self._rematch_elsewhere(session, message.match, message.accept):
                    self.rematches.answer(session, message, now)
            case _:
                assert_never(message)

    def _rematch_elsewhere(self, session: Session, match_id: str, accept: bool | None) -> bool:
        """Forward a rematch offer or answer of another node's match to its owner (True if done)."""
        if self.follower is None or match_id in self.matches:
            return False
        return self.follower.rematch(session, match_id, accept)

    def _desync(self, session: Session, message: Desync) -> None:
        """A player's browser engine disagreed with a keyframe: logged (the first few per connection)."""
        if session.match is None or session.seat is None:
            session.send(error_message(ErrorCode.NOT_JOINED, "join a match as a player first", "desync"))
            return
        if session.desyncs >= self.lobby_settings.limits.desync_reports_per_connection:
            return
        session.desyncs += 1
        log_event(log, logging.WARNING, "match.client-desync", match=session.match.id, seat=session.seat,
                  frame=message.frame, guest=session.guest.id if session.guest else None)

    def closed(self, session: Session, now: float) -> None:
        """The session's connection is gone: out of the queue, out of its match (a grace period starts)."""
        self.ranked.forget(session)
        if session.match is not None:
            session.match.detach(session, now)

    def _hello(self, session: Session, message: Hello) -> None:
        if message.token is None:
            self._welcome(session, None)
            return
        try:
            guest = self.signer.verify(message.token, self.clock.wall())  # expiry: wall time
        except TokenError as error:
            self._welcome(session, None, f"token refused: {error}; continuing as a spectator")
            return
        session.held = []
        self.background.spawn(self._check_hello(session, guest))

    async def _check_hello(self, session: Session, guest: Guest) -> None:
        """Welcome the guest unless a renewal has revoked its token; then what came after `hello`."""
        try:
            oldest = await self.limits.generation(token_key(guest.id), self.clock.wall())
        except Exception:  # noqa: BLE001 - the signature holds; a store outage must not shut guests out
            log_event(log, logging.WARNING, "session.token-unchecked", exc_info=True, guest=guest.id)
            oldest = 0
        if guest.generation < oldest:
            self._welcome(session, None, "token refused: it was renewed (use the newest token); "
                                         "continuing as a spectator")
        else:
            self._welcome(session, guest)
        session.release_held()

    def _welcome(self, session: Session, guest: Guest | None, refusal: str | None = None) -> None:
        if refusal is not None:
            session.send(error_message(ErrorCode.AUTH, refusal, "hello"))
        session.guest = guest
        config = self.config
        session.send(
            Welcome(
                version=PROTOCOL_VERSION,
                guest=guest.id if guest else None,
                name=guest.name if guest else None,
                frame_rate=config.pace,
                input_delay=config.input_delay,
                rollback_window=config.runner.rollback_window,
                max_ahead=config.runner.max_ahead,
                max_message_bytes=self.session_settings.max_message_bytes,
                rate_per_second=int(self.session_settings.rate_per_second),
                rate_burst=int(self.session_settings.rate_burst),
                input_batch=config.input_batch,
                send_every=config.send_every,
                reconnect_grace=config.reconnect_grace,
                rematch_offer_seconds=self.lobby_settings.rematch_offer_seconds,
            )
        )

    @staticmethod
    def _pinned_elsewhere(session: Session, match_id: str, kind: str) -> bool:
        """Refuse (`wrong-match`) a join or watch of another match than the websocket's URL names."""
        if session.pinned is None or session.pinned == match_id:
            return False
        why = (f"this websocket's URL names match {session.pinned!r} (/ws?match=…); open one for "
               f"{match_id!r} to follow it")
        session.send(error_message(ErrorCode.WRONG_MATCH, why, kind))
        return True

    def _join(self, session: Session, message: Join, now: float) -> None:
        if self._pinned_elsewhere(session, message.match, "join"):
            return
        session.leave_finished(now)
        if session.match is not None:
            session.send(
                error_message(ErrorCode.ALREADY_JOINED, "this connection already follows a match", "join")
            )
            return
        if session.guest is None:
            session.send(error_message(ErrorCode.AUTH, "playing needs a guest token in hello", "join"))
            return
        live = self.matches.get(message.match)
        if live is None and self.follower is not None:  # another node's, perhaps: follow it
            self.ranked.forget(session)
            self.follower.follow(session, message.match, message.since, False, now)
            return
        if live is None:
            session.send(error_message(ErrorCode.NO_SUCH_MATCH, f"no match {message.match!r}", "join"))
            return
        seat = live.seat_of(session.guest.id)
        if seat is None:
            refusal = error_message(ErrorCode.NOT_SEATED, "this token holds no seat in that match", "join")
            session.send(refusal)
            return
        self.ranked.forget(session)  # a connection that plays leaves the queue
        session.replica = message.replica
        live.attach_player(session, seat, message.since, now)

    def _watch(self, session: Session, message: Watch, now: float) -> None:
        if self._pinned_elsewhere(session, message.match, "watch"):
            return
        session.leave_finished(now)
        if session.match is not None:
            session.send(
                error_message(ErrorCode.ALREADY_JOINED, "this connection already follows a match", "watch")
            )
            return
        live = self.matches.get(message.match)
        if live is None and self.follower is not None:
            self.follower.follow(session, message.match, message.since, True, now)
            return
        if live is None:
            session.send(error_message(ErrorCode.NO_SUCH_MATCH, f"no match {message.match!r}", "watch"))
            return
        live.attach_spectator(session, message.since, now)

    def _input(self, session: Session, message: Input) -> None:
        if session.match is None:
            session.send(error_message(ErrorCode.NOT_JOINED, "join a match before sending inputs", "input"))
            return
        if session.spectator or session.seat is None:
            session.send(error_message(ErrorCode.READ_ONLY, "spectators cannot send inputs", "input"))
            return
        outcome = session.match.tell_inputs(session.seat, message.frame, message.inputs)
        if outcome.refused is not None:
            session.send(error_message(ErrorCode(outcome.refused.code), outcome.refused.reason, "input"))
        if outcome.late is not None:  # once per message: the rest of the run moved with its first late byte
            session.send(InputLate(frame=outcome.late.frame, applied=outcome.late.applied))

    def _leave(self, session: Session, now: float) -> None:
        if session.match is None:
            session.send(error_message(ErrorCode.NOT_JOINED, "this connection follows no match", "leave"))
            return
        session.match.leave(session, now)
