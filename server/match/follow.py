"""A non-owning node's side of "any match from any node" (issue 20): a client that joins or watches a
match this node does not host is served as if it did, the owner's side (server/match/relay.py)
running the match on its node.

How a `join`/`watch` of a match not hosted here is routed (the dispatcher hands it to `Follower`):

1. The node follows the match: it subscribes to `match_out(id)` and says `Follow` on `match_in(id)`
   (the owner listens there for every match it hosts, so no address is needed: whichever node owns
   the match answers). The connection waits (bounded, `follow_max_waiting`) for the owner's `Base`:
   the match's `joined` map, its seats' guests, and a catch-up of both streams.
2. When it comes, the connection is served from this node's copy of the streams exactly as the owner
   serves its own: `joined` (its `head` this node's), then the records after its `since` from the
   history, or a resync; a player's seat is checked against the guests (`not-seated`), a second
   connection of the seat replaces the first (`replaced`), and the owner is told (`SeatEvent`
   `joined`), which binds the seat to a stand-in.
3. The owner then publishes every record of both streams on `match_out` with its number; this node
   keeps them in a `Stream` of the same numbers and bounded history (server/match/stream.py) and
   fans them out to its clients, so a reconnect here resumes from its last number. A number that
   does not follow the last one is a gap (a message lost by the bus): records are dropped until the
   owner's answer to a new `Follow` (the records after this node's heads, or a resync its clients
   are sent) closes it.
4. A player's inputs go to the owner (`SeatInputs`), which validates and applies them as its own
   connection's; `input-late`, refusals, `pong` (a player's `ping` goes to the owner: its round trip
   is the inputs' path) and `rated` come back addressed to this node and guest (`Direct`), `status`
   to every follower (`Notice`). A socket that closes is `dropped` (the seat's grace period), `leave`
   is `left`. A spectator's `ping` is answered here with the frame the owner last said, moved on by
   the time since. Once the match is over, a player's `rematch` and `rematch-answer` go to the owner
   too (`SeatRematch`), whose offers make the rematch (once, on the owner); the offer's news comes
   back as `Direct`.
5. Every `follow_heartbeat` seconds the node says `Follow` again (the owner publishes only while it
   hears one within `follow_ttl`); after a takeover the new owner's first `Base` names another node,
   and this node binds its players' seats there again (`SeatEvent` `joined`): its clients keep their
   sockets and go on from their numbers (the spectators' stream from the new owner's rebuilt
   history; the players' with a resync, as for a reconnect to the new owner). When the new owner is
   this node, its clients go over to the local match instead (`Follower.adopt`): the same sockets,
   each from the number it was sent last, and nothing of the match goes through the bus any more.

A match no node answers for within `follow_answer_timeout` is `no-such-match` (unless the store holds
a lease on it: then its takeover's bound); one with no client here for `follow_idle` is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from protocol.codec import ProtocolError, decode_server, encode_plain, error_message
from protocol.errors import CloseCode, ErrorCode
from protocol.messages import MatchState, Ping, Pong, Status

from ..cluster.bus import (
    Base,
    BaseStream,
    Bus,
    Direct,
    Follow,
    Notice,
    Relayed,
    SeatEvent,
    SeatInputs,
    SeatPing,
    SeatRematch,
    StreamRecord,
    Subscription,
    decode_all,
    encode_relayed,
    match_in,
    match_out,
)
from ..cluster.journal import Ownership
from ..cluster.publisher import Publisher
from ..cluster.settings import ClusterSettings
from ..logs import log_event
from ..netcode.runner import RunOutcome
from .session import Outbox, Session
from .settings import MatchSettings
from .stream import Stream

if TYPE_CHECKING:
    from .live import LiveMatch

log = logging.getLogger("floe.follow")

#: The states after which a match publishes nothing but its end.
ENDED = frozenset({MatchState.OVER.value, MatchState.CANCELLED.value})
#: How often the follower's clock looks at its matches (heartbeats, answers overdue, idle matches).
TICK_EVERY = 0.1


class FollowedStream:
    """One audience's stream of a followed match: this node's numbered copy, and the last catch-up the
    owner sent (`base`: what brings a newcomer to number `base_head`)."""

    def __init__(self, history: int) -> None:
        self.stream: Stream[Outbox] = Stream(history)
        self.history = history
        self.base_head = -1
        self.base: tuple[bytes, ...] = ()

    def catch_up(self, since: int | None, delayed: bool = False) -> list[bytes] | None:
        """What a newcomer at number `since` is sent (None: a newer resync is needed from the owner).
        `delayed`: a ranked match's spectators' stream, which a client may have heard further than a
        taken-over owner has come yet (`Stream.hold`: it is sent nothing until the stream gets there)."""
        if since is not None:
            missed = self.stream.since(since)
            if missed is not None:
                return missed
            if delayed and self.stream.head < since <= self.stream.head + self.history:
                return []
        if self.base_head < 0:
            return None
        missed = self.stream.since(self.base_head)
        return None if missed is None else [*self.base, *missed]

    def receive(self, n: int, data: bytes) -> bool:
        """A record from the owner; False when it leaves a gap (dropped)."""
        head = self.stream.head
        if n <= head:
            return True  # had it already (a catch-up overlapping the live records)
        if n > head + 1:
            return False
        self.stream.publish_bytes(lambda _: data)
        return True

    def apply(self, part: BaseStream) -> bool:
        """The owner's catch-up of this stream; False when a gap remains."""
        if part.reset:
            if self.stream.head != part.head:  # this node missed records: its clients get the resync
                for out in tuple(self.stream.subscribers):
                    for data in part.messages:
                        out.send_bytes(data)
                self.stream.restart(part.head)
            self.base_head, self.base = part.head, part.messages
            return True
        for index, data in enumerate(part.messages):
            if not self.receive(part.after + 1 + index, data):
                return False
        return self.stream.head >= part.head


@dataclass
class Waiting:
    """A connection waiting for the owner's answer before it is served."""

    session: Session
    spectator: bool
    since: int | None
    deadline: float


class FollowedMatch:
    """A match of another node as this node's clients follow it: what `Session.match` holds for them
    (the surface of `LiveMatch` the dispatcher uses: inputs, leave, detach, release, the frame)."""

    def __init__(self, follower: Follower, match_id: str, history: int, now: float) -> None:
        self.follower = follower
        self.id = match_id
        self.players = FollowedStream(history)
        self.spectators = FollowedStream(history)
        #: The owner's node, its `joined` map, the seats' guests (from its last `Base`).
        self.owner: str | None = None
        self.joined: dict[str, Any] | None = None
        self.guests: list[str | None] = []
        self.state = MatchState.WAITING.value
        self.ended_at: float | None = None
        self._frame, self._frame_at = -1, now
        #: This node's clients of it, the players among them by guest, and those waiting to be served.
        self.sessions: set[Session] = set()
        self.seats: dict[str, Session] = {}
        self.waiting: list[Waiting] = []
        self.subscription: Subscription | None = None
        self.asked_at = float("-inf")
        self.answered_at: float | None = None
        self.gap_at: float | None = None
        self.idle_since: float | None = None
        self.reset: set[str] = set()
        #: The store was asked whether a node holds the match's lease ("", "checking", "done").
        self.holder_check = ""
        self.gone = False

    # ---- what the dispatcher and the session call -------------------------------------------------------

    def tell_inputs(self, seat: int, frame: int, values: Sequence[int]) -> RunOutcome:
        """Forward a player's run of inputs to the owner (its answers come back as `Direct`)."""
        guest = self.guests[seat] if seat < len(self.guests) else None
        if guest is not None:
            self.follower.to_owner(self, SeatInputs(self.follower.node, guest, seat, frame, tuple(values)))
        return RunOutcome()

    def current_frame(self) -> int:
        """The owner's frame as last said, moved on by the time since (-1 unless it runs)."""
        if self.state != MatchState.RUNNING.value or self._frame < 0:
            return -1
        return self._frame + int((self.follower.now() - self._frame_at) * self.follower.frame_rate)

    def ping(self, session: Session, message: Ping) -> None:
        """A player's ping goes to the owner (its round trip is the inputs'); a spectator's is answered
        here."""
        guest = session.guest.id if session.guest is not None else None
        if session.seat is not None and guest is not None and self.seats.get(guest) is session:
            self.follower.to_owner(self, SeatPing(self.follower.node, guest, message.id, message.t))
            return
        session.send(Pong(id=message.id, t=message.t, frame=self.current_frame()))

    def detach(self, session: Session, now: float) -> None:
        """A connection went away: a player's seat is `dropped` at the owner (its grace period starts)."""
        self._unsubscribe(session)
        guest = session.guest.id if session.guest is not None else None
        if session.seat is not None and guest is not None and self.seats.get(guest) is session:
            del self.seats[guest]
            self.follower.to_owner(self, SeatEvent(self.follower.node, guest, session.seat, "dropped"))
        session.match, session.seat = None, None
        self._maybe_idle(now)

    def leave(self, session: Session, now: float) -> None:
        """`leave`: a player forfeits at the owner (and keeps following a running match to its end)."""
        guest = session.guest.id if session.guest is not None else None
        if session.seat is not None and guest is not None and self.seats.get(guest) is session:
            self.follower.to_owner(self, SeatEvent(self.follower.node, guest, session.seat, "left"))
            if self.state == MatchState.RUNNING.value:
                return
            del self.seats[guest]
        self.detach(session, now)

    def release(self, session: Session) -> None:
        """Stop a connection's streams once the match ended; a player still hears its `rated`."""
        self._unsubscribe(session)
        session.match, session.seat = None, None
        self._maybe_idle(self.follower.now())

    def _unsubscribe(self, session: Session) -> None:
        self.players.stream.subscribers.discard(session.out)
        self.spectators.stream.subscribers.discard(session.out)
        self.sessions.discard(session)
        self.waiting = [waiting for waiting in self.waiting if waiting.session is not session]

    def _maybe_idle(self, now: float) -> None:
        if not self.sessions and not self.waiting and self.idle_since is None:
            self.idle_since = now

    # ---- serving this node's clients ----------------------------------------------------------------------

    def delayed(self) -> bool:
        """Do the spectators follow this match late (a ranked match's delayed stream)?"""
        return self.joined is not None and float(self.joined.get("delay") or 0.0) > 0

    def joined_bytes(self, spectator: bool, seat: int | None) -> bytes:
        """The `joined` this node sends: the owner's, with this node's head and audience."""
        assert self.joined is not None
        plain = dict(self.joined)
        stream = self.spectators if spectator else self.players
        # The owner's count holds every node's spectators (as of this node's last `Follow`) and the
        # newcomer it was asked for.
        plain.update(role="spectator" if spectator else "player", seat=seat, head=stream.stream.head,
                     spectators=max(0, int(plain.get("spectators", 1)) - 1) + spectator,
                     delay=plain.get("delay", 0.0) if spectator else 0.0)
        return encode_plain(plain)

    def serve_waiting(self, now: float) -> None:
        """Serve the connections waiting for the owner's answer that this node can catch up now."""
        for waiting in list(self.waiting):
            session = waiting.session
            if not session.out.open or session.match is not self:
                self.waiting.remove(waiting)
                continue
            followed = self.spectators if waiting.spectator else self.players
            messages = followed.catch_up(waiting.since, waiting.spectator and self.delayed())
            if messages is None:  # the history and the last resync do not reach: ask for a fresh one
                self.reset.add("spectators" if waiting.spectator else "players")
                continue
            self.waiting.remove(waiting)
            self._attach(waiting, messages)
        if self.reset:
            self.follower.ask(self, now)

    def _attach(self, waiting: Waiting, messages: list[bytes]) -> None:
        session = waiting.session
        out = session.out
        if waiting.spectator:
            session.seat, session.spectator = None, True
            out.send_bytes(self.joined_bytes(True, None))
            for data in messages:
                out.send_bytes(data)
            stream = self.spectators.stream
            if waiting.since is not None and waiting.since > stream.head:  # see FollowedStream.catch_up
                stream.hold(out, waiting.since)
            stream.subscribers.add(out)
            self.sessions.add(session)
            return
        guest = session.guest.id if session.guest is not None else None
        seat = self.guests.index(guest) if guest is not None and guest in self.guests else None
        if guest is None or seat is None:
            session.match = None
            refusal = error_message(ErrorCode.NOT_SEATED, "this token holds no seat in that match", "join")
            session.send(refusal)
            return
        old = self.seats.get(guest)
        if old is not None and old is not session and old.match is self:
            self._unsubscribe(old)
            old.match, old.seat = None, None
            replaced = error_message(ErrorCode.REPLACED, "this seat connected again elsewhere", fatal=True)
            old.out.close(CloseCode.POLICY, replaced)
        self.seats[guest] = session
        session.seat, session.spectator = seat, False
        out.send_bytes(self.joined_bytes(False, seat))
        for data in messages:
            out.send_bytes(data)
        self.players.stream.subscribers.add(out)
        self.sessions.add(session)
        self.follower.to_owner(self, SeatEvent(self.follower.node, guest, seat, "joined"))
        log_event(log, logging.INFO, "follow.player", match=self.id, seat=seat, owner=self.owner,
                  peer=out.peer)

    def refuse_waiting(self, code: ErrorCode, why: str) -> None:
        """Answer every waiting connection with an error (no node answered for the match)."""
        waiting, self.waiting = self.waiting, []
        for item in waiting:
            if item.session.match is self:
                item.session.match = None
            item.session.send(error_message(code, why, "watch" if item.spectator else "join"))

    # ---- what the owner says ---------------------------------------------------------------------------

    def heard(self, message: Relayed, now: float) -> None:
        """A message on `match_out`."""
        node = self.follower.node
        if isinstance(message, StreamRecord):
            if self.answered_at is None or self.gap_at is not None:
                return  # not caught up yet: the owner's answer brings this node to its numbers
            followed = self.players if message.stream == "players" else self.spectators
            if not followed.receive(message.n, message.data):
                self.gap_at = now
                self.follower.ask(self, now)
        elif isinstance(message, Base):
            if message.node == node:
                self._base(message, now)
        elif isinstance(message, Direct):
            if message.node == node:
                self._direct(message)
        elif isinstance(message, Notice):
            self._notice(message, now)

    def _base(self, base: Base, now: float) -> None:
        info = base.info
        self.joined, self.guests = dict(info["joined"]), list(info["guests"])
        self._frame, self._frame_at = int(info["frame"]), now
        self._state(str(self.joined["state"]), now)
        moved = self.owner is not None and self.owner != base.owner
        self.owner, self.answered_at = base.owner, now
        self.reset.clear()
        caught_up = self.players.apply(base.players) & self.spectators.apply(base.spectators)
        self.gap_at = None if caught_up else now
        if moved:  # a takeover: bind this node's players' seats on the new owner
            log_event(log, logging.INFO, "follow.owner-moved", match=self.id, owner=base.owner)
            for guest, session in self.seats.items():
                if session.match is self and session.seat is not None:
                    self.follower.to_owner(self, SeatEvent(self.follower.node, guest, session.seat, "joined"))
        self.serve_waiting(now)

    def _direct(self, direct: Direct) -> None:
        session = self.seats.get(direct.guest)
        if session is None:
            return
        if direct.data:
            session.out.send_bytes(direct.data)
        if direct.close:
            self.seats.pop(direct.guest, None)
            self._unsubscribe(session)
            session.match, session.seat = None, None
            session.out.close(direct.close)

    def _notice(self, notice: Notice, now: float) -> None:
        for session in tuple(self.sessions):
            session.out.send_bytes(notice.data)
        try:
            status = decode_server(notice.data)
        except ProtocolError:
            return
        if isinstance(status, Status):
            state = status.state
            self._state(str(state.value if isinstance(state, MatchState) else state), now)

    def _state(self, state: str, now: float) -> None:
        self.state = state
        if state in ENDED and self.ended_at is None:
            self.ended_at = now


class Follower:
    """This node's followed matches (see the module docstring)."""

    def __init__(self, bus: Bus, publisher: Publisher, ownership: Ownership | None, node: str,
                 settings: ClusterSettings, match: MatchSettings, now: Callable[[], float]) -> None:
        self.bus, self.publisher, self.ownership = bus, publisher, ownership
        self.node, self.settings = node, settings
        self.history = match.history
        self.frame_rate = match.frame_rate
        self.now = now
        self.followed: dict[str, FollowedMatch] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._ticker: asyncio.Task[None] | None = None

    def follow(self, session: Session, match_id: str, since: int | None, spectator: bool, now: float) -> None:
        """Serve a `join` (or, `spectator`, a `watch`) of a match this node does not host."""
        kind = "watch" if spectator else "join"
        followed = self.followed.get(match_id)
        if followed is None:
            if len(self.followed) >= self.settings.follow_max_matches:
                session.send(error_message(ErrorCode.BUSY, "this node follows as many other nodes' matches "
                                                           "as it can; try another", kind))
                return
            followed = self.followed[match_id] = FollowedMatch(self, match_id, self.history, now)
            self._spawn(self._subscribe(followed))
        if len(followed.waiting) >= self.settings.follow_max_waiting:
            session.send(error_message(ErrorCode.BUSY, "too many connections wait for this match", kind))
            return
        session.match, session.seat, session.spectator = followed, None, spectator
        deadline = now + (self.settings.follow_answer_timeout if followed.answered_at is None
                          else self._takeover_bound())
        followed.waiting.append(Waiting(session, spectator, since, deadline))
        followed.idle_since = None
        if followed.subscription is not None:
            self.ask(followed, now)  # the match as it is now (a room's seats change)

    def adopt(self, live: LiveMatch) -> None:
        """This node hosts `live` now (it took over a match it followed for its clients): every client
        served here goes on from the local match, from the stream number it was sent last (the
        players' stream from its history, else a resync, as a reconnect would; a delayed spectators'
        stream that this node heard further than the taken-over one reaches is held until it gets
        there), on the same connection, with no second `joined`: nothing goes through the bus any
        more. Connections still waiting for an owner's answer (a reconnect while the old owner was
        dying) are served by the local match as a `join`/`watch` of it would be. The followed match
        is then dropped."""
        followed = self.followed.get(live.id)
        if followed is None:
            return
        now = self.now()
        moved = 0
        waiting, followed.waiting = followed.waiting, []
        for item in waiting:
            session = item.session
            if session.match is not followed or not session.out.open:
                continue
            session.match = None
            if item.spectator:
                live.attach_spectator(session, item.since, now)
            else:
                seat = live.seat_of(session.guest.id) if session.guest is not None else None
                if seat is None:
                    session.send(error_message(ErrorCode.NOT_SEATED, "this token holds no seat in that match",
                                               "join"))
                    continue
                live.attach_player(session, seat, item.since, now)
            moved += 1
        for session in sorted(followed.sessions, key=lambda s: not s.spectator):  # spectators first
            if session.match is not followed or not session.out.open:
                continue
            out = session.out
            guest = session.guest.id if session.guest is not None else None
            if session.spectator:
                since = followed.spectators.stream.heard(out)
                followed._unsubscribe(session)
                live.attach_spectator(session, since, now, tell_joined=False)
            else:
                seat = live.seat_of(guest) if guest is not None else None
                if guest is None or seat is None or seat != session.seat:
                    continue
                since = followed.players.stream.heard(out)
                followed._unsubscribe(session)
                followed.seats.pop(guest, None)
                live.attach_player(session, seat, since, now, tell_joined=False)
            moved += 1
        log_event(log, logging.INFO, "follow.adopted", match=live.id, clients=moved, owner=followed.owner)
        if not followed.sessions:
            self._drop(followed)

    def _takeover_bound(self) -> float:
        settings = self.settings
        return settings.lease_ttl + settings.orphan_scan_every + 2 * settings.follow_answer_timeout

    def rematch(self, session: Session, match_id: str, accept: bool | None) -> bool:
        """A player's `rematch` (`accept` None) or `rematch-answer` of a followed match, which its owner
        decides: forwarded (the answers come back to the seat's connection here as `Direct`). False
        when this node follows no such match with that player in it (the local offers answer then)."""
        followed = self.followed.get(match_id)
        guest = session.guest.id if session.guest is not None else None
        if followed is None or followed.gone or guest is None or guest not in followed.guests:
            return False
        current = followed.seats.get(guest)
        if current is None or not current.out.open or current.match is not followed:
            followed.seats[guest] = session  # this connection hears the offer's news (the match ended)
        seat = followed.guests.index(guest)
        self.to_owner(followed, SeatRematch(self.node, guest, seat, accept))
        return True

    def to_owner(self, followed: FollowedMatch,
                 message: SeatInputs | SeatEvent | SeatPing | SeatRematch | Follow) -> None:
        """Say something to the match's owner."""
        self.publisher.send(match_in(followed.id), encode_relayed(message))

    def ask(self, followed: FollowedMatch, now: float) -> None:
        """Say `Follow`, with this node's heads (-1 for a stream it wants a resync of)."""
        followed.asked_at = now

        def head(name: str, stream: FollowedStream) -> int:
            return -1 if stream.base_head < 0 or name in followed.reset else stream.stream.head

        heads = head("players", followed.players), head("spectators", followed.spectators)
        watching = sum(session.spectator for session in followed.sessions)
        lags = {guest: session.lag_ms for guest, session in followed.seats.items()
                if session.lag_ms is not None and session.match is followed}
        self.to_owner(followed, Follow(self.node, *heads, watching, lags))

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _subscribe(self, followed: FollowedMatch) -> None:
        def heard(_: str, data: bytes) -> None:
            try:
                messages = decode_all(data)
            except ValueError as error:
                log_event(log, logging.WARNING, "follow.malformed", match=followed.id, why=str(error))
                return
            now = self.now()
            for message in messages:
                if not followed.gone:
                    followed.heard(message, now)

        try:
            subscription = await self.bus.subscribe(match_out(followed.id), heard)
        except (OverflowError, OSError, ConnectionError, TimeoutError) as error:
            log_event(log, logging.WARNING, "follow.subscribe-failed", match=followed.id, why=repr(error))
            followed.refuse_waiting(ErrorCode.BUSY, "this node cannot follow that match now; try again")
            self._drop(followed)
            return
        if followed.gone:
            await self.bus.unsubscribe(subscription)
            return
        followed.subscription = subscription
        self.ask(followed, self.now())

    def _drop(self, followed: FollowedMatch) -> None:
        followed.gone = True
        if self.followed.get(followed.id) is followed:
            del self.followed[followed.id]
        if followed.subscription is not None:
            subscription, followed.subscription = followed.subscription, None
            self._spawn(self.bus.unsubscribe(subscription))

    # ---- the clock ----------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the follower's clock."""
        self._ticker = asyncio.create_task(self._tick_forever(), name="floe-follow")

    async def stop(self) -> None:
        """Stop following everything."""
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        for followed in list(self.followed.values()):
            self._drop(followed)
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=self.settings.stop_timeout)

    async def _tick_forever(self) -> None:
        while True:
            await asyncio.sleep(TICK_EVERY)
            try:
                self.tick(self.now())
            except Exception:  # noqa: BLE001 - one match's failure must not stop the others' heartbeats
                log.exception("follow tick failed")

    def tick(self, now: float) -> None:
        """Heartbeats, overdue answers, connections waiting too long, idle matches."""
        settings = self.settings
        for followed in list(self.followed.values()):
            if followed.subscription is not None:
                gap = followed.gap_at
                overdue = gap is not None and now - gap > settings.follow_answer_timeout
                # Unanswered yet (the owner may be subscribing to a match it just made): ask more often.
                every = settings.follow_heartbeat if followed.answered_at is not None else min(
                    settings.follow_heartbeat, settings.follow_answer_timeout / 4)
                if now - followed.asked_at >= every or overdue:
                    if overdue:
                        followed.gap_at = now
                    self.ask(followed, now)
            if any(waiting.deadline < now for waiting in followed.waiting):
                self._overdue(followed, now)
            if (followed.idle_since is not None and not followed.sessions and not followed.waiting
                    and now - followed.idle_since > settings.follow_idle):
                self._drop(followed)
            elif followed.answered_at is not None and now - followed.answered_at > max(
                    settings.follow_idle, self._takeover_bound()):
                for session in list(followed.sessions):  # the match is gone (ended long ago, or lost)
                    followed.detach(session, now)
                    if followed.ended_at is None:  # lost: the client reconnects and finds where it went
                        session.out.close(CloseCode.GOING_AWAY)
                followed.refuse_waiting(ErrorCode.NO_SUCH_MATCH, f"no match {followed.id!r}")
                self._drop(followed)

    def _overdue(self, followed: FollowedMatch, now: float) -> None:
        if followed.answered_at is None and self.ownership is not None and followed.holder_check != "done":
            if not followed.holder_check:
                followed.holder_check = "checking"
                self._spawn(self._check_holder(followed))
            return
        expired = [waiting for waiting in followed.waiting if waiting.deadline < now]
        followed.waiting = [waiting for waiting in followed.waiting if waiting.deadline >= now]
        for waiting in expired:
            if waiting.session.match is followed:
                waiting.session.match = None
            waiting.session.send(error_message(ErrorCode.NO_SUCH_MATCH, f"no match {followed.id!r}",
                                               "watch" if waiting.spectator else "join"))
        self._forget_unknown(followed, now)

    def _forget_unknown(self, followed: FollowedMatch, now: float) -> None:
        """A match no node answered for and nobody here waits for is not followed any longer."""
        followed._maybe_idle(now)
        if followed.answered_at is None and not followed.sessions and not followed.waiting:
            self._drop(followed)

    async def _check_holder(self, followed: FollowedMatch) -> None:
        """No node answered: a lease on the match means its owner is dying and a takeover is coming."""
        assert self.ownership is not None
        try:
            holder = await self.ownership.holder(followed.id)
        except (OSError, ConnectionError, TimeoutError):
            holder = None
        now = self.now()
        followed.holder_check = "done"
        if followed.answered_at is not None:
            return
        if holder is not None:
            for waiting in followed.waiting:
                waiting.deadline = max(waiting.deadline, now + self._takeover_bound())
            return
        followed.refuse_waiting(ErrorCode.NO_SUCH_MATCH, f"no match {followed.id!r}")
        self._forget_unknown(followed, now)
