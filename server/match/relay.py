"""The owner's side of "any match from any node" (issue 20): every match this node hosts is served to
the clients of other nodes through the bus (server/cluster/bus.py); server/match/follow.py is the
other side.

- The relay subscribes to `match_in(id)` of every match the hub hosts (made here or taken over) and
  leaves it when the hub forgets the match.
- A `Follow` from a node makes the match *followed* for `follow_ttl`: while it is, every record of
  both streams goes out on `match_out(id)` as it is published (`Stream.tap`), with its number, and
  every `status` (`Notice`). Each `Follow` is answered with a `Base` for its node: the match's
  `joined` map and its seats' guests, and per stream the records after the heads the node said
  (from the stream's history) or, when the history does not reach back or the node asked for it,
  what a newcomer is sent (a resync, and the `over` once it ended). A match nobody follows
  publishes nothing on the bus, and pays nothing for it: the taps are set by a `Follow` and taken
  off by the first record published after the match stopped being followed.
- A remote player is a stand-in `Session` here per (node, guest), bound to its seat by a `SeatEvent`
  `joined` (`LiveMatch.attach_remote_player`: a connection of the seat on another node or here is
  replaced, as a second local one would be). Its `SeatInputs` and `SeatPing` go through the
  dispatcher like a local connection's messages (the same validation, bounds and refusals), and
  what the match tells the seat (`input-late` once its input is journaled, errors, `pong`, `rated`,
  `replaced`) goes back to that node alone (`Direct`). `dropped` starts the seat's grace period,
  `left` forfeits (or leaves a room), as for a local connection.

A journaled match publishes a record only after its inputs are in the journal, and the tap is called
when the record is published: so a remote player too is sent a record carrying its input only once
the input is logged. Everything goes out through the node's one ordered `Publisher`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from protocol.codec import ProtocolError, decode_client, encode, encode_plain, error_message, to_plain
from protocol.errors import CloseCode
from protocol.messages import Ping, Rematch, RematchAnswer, ServerMessage, Status

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
from ..cluster.publisher import Publisher
from ..cluster.settings import ClusterSettings
from ..logs import log_event
from ..tokens import Guest
from .dispatch import Dispatcher
from .live import LiveMatch
from .session import Outbox, Session
from .stream import Stream

log = logging.getLogger("floe.relay")


class StandIn:
    """The way out of a remote player's stand-in session: what the match tells the seat goes to its
    node as `Direct` messages."""

    def __init__(self, relay: MatchRelay, match_id: str, node: str, guest: str) -> None:
        self.relay, self.match_id, self.node, self.guest = relay, match_id, node, guest
        self._open = True

    @property
    def open(self) -> bool:
        return self._open

    @property
    def peer(self) -> str:
        return f"{self.node}/{self.guest}"

    def send(self, message: ServerMessage) -> bool:
        return self.send_bytes(encode(message))

    def send_bytes(self, data: bytes) -> bool:
        if not self._open:
            return False
        return self.relay.direct(self.match_id, Direct(self.node, self.guest, data, 0))

    def close(self, code: int = CloseCode.NORMAL, message: ServerMessage | None = None) -> None:
        if not self._open:
            return
        self._open = False
        self.relay.stand_in_closed(self.match_id, self.node, self.guest)
        if code == CloseCode.GOING_AWAY:
            return  # this node stops serving the match: the other node finds its new owner itself
        data = encode(message) if message is not None else b""
        self.relay.direct(self.match_id, Direct(self.node, self.guest, data, int(code)))


def _untap(live: LiveMatch) -> None:
    """Nothing of the match goes to the bus any more (nobody follows it, or this node stopped hosting it)."""
    live.players.tap = live.spectators.tap = None
    live.status_tap = None


@dataclass
class Hosted:
    """A match this node hosts, as the relay serves it."""

    live: LiveMatch
    #: Node → until when it follows the match (its last `Follow` + `follow_ttl`), and its spectators.
    followers: dict[str, float] = field(default_factory=dict)
    watching: dict[str, int] = field(default_factory=dict)
    followed_until: float = float("-inf")
    #: (node, guest) → the remote player's stand-in session.
    stand_ins: dict[tuple[str, str], Session] = field(default_factory=dict)
    subscription: Subscription | None = None
    gone: bool = False


class MatchRelay:
    """The owner's side (see the module docstring)."""

    def __init__(self, bus: Bus, publisher: Publisher, node: str, settings: ClusterSettings,
                 dispatcher: Dispatcher, now: Callable[[], float]) -> None:
        self.bus, self.publisher, self.node, self.settings = bus, publisher, node, settings
        self.dispatcher = dispatcher
        self.now = now
        self.hosted: dict[str, Hosted] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Counters (stats, tests, the bench).
        self.records = 0
        self.bases = 0

    # ---- the hub's hooks ---------------------------------------------------------------------------------

    def host(self, live: LiveMatch) -> None:
        """The hub hosts `live`: listen to its `match_in` (its streams are tapped once it is followed)."""
        if live.id in self.hosted:
            return
        hosted = self.hosted[live.id] = Hosted(live)
        self._spawn(self._subscribe(hosted))

    def forget(self, live: LiveMatch) -> None:
        """The hub no longer hosts `live` (ended, or lost to another node)."""
        hosted = self.hosted.pop(live.id, None)
        if hosted is None or hosted.live is not live:
            return
        hosted.gone = True
        _untap(live)
        for stand_in in list(hosted.stand_ins.values()):
            stand_in.closed(self.now())
        hosted.stand_ins.clear()
        if hosted.subscription is not None:
            self._spawn(self.bus.unsubscribe(hosted.subscription))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _subscribe(self, hosted: Hosted) -> None:
        channel = match_in(hosted.live.id)
        try:
            subscription = await self.bus.subscribe(channel, lambda _, data: self._heard(hosted, data))
        except (OverflowError, OSError, ConnectionError, TimeoutError) as error:
            log_event(log, logging.WARNING, "relay.subscribe-failed", match=hosted.live.id, why=repr(error))
            return
        if hosted.gone:
            await self.bus.unsubscribe(subscription)
        else:
            hosted.subscription = subscription

    async def stop(self) -> None:
        """Leave every channel."""
        for hosted in list(self.hosted.values()):
            self.forget(hosted.live)
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=self.settings.stop_timeout)

    # ---- out ---------------------------------------------------------------------------------------------

    def _send(self, match_id: str, message: StreamRecord | Base | Direct | Notice) -> bool:
        return self.publisher.send(match_out(match_id), encode_relayed(message))

    def direct(self, match_id: str, message: Direct) -> bool:
        """Send one remote player its message."""
        return self._send(match_id, message)

    def _tap(self, hosted: Hosted) -> None:
        """Tap the match's streams and status while it is followed (see the module docstring)."""
        live = hosted.live
        if live.players.tap is not None:
            return

        def tapped(name: str) -> Callable[[int, bytes], None]:
            def tap(n: int, data: bytes) -> None:
                if self.now() < hosted.followed_until:
                    self.records += 1
                    self._send(live.id, StreamRecord(name, n, data))
                else:
                    _untap(live)

            return tap

        def status_tap(status: Status) -> None:
            if self.now() < hosted.followed_until:
                self._send(live.id, Notice(encode(status)))
            else:
                _untap(live)

        live.players.tap, live.spectators.tap = tapped("players"), tapped("spectators")
        live.status_tap = status_tap

    def stand_in_closed(self, match_id: str, node: str, guest: str) -> None:
        """A stand-in's way out closed (replaced by another connection of the seat): forget it."""
        hosted = self.hosted.get(match_id)
        if hosted is not None:
            hosted.stand_ins.pop((node, guest), None)

    # ---- in ----------------------------------------------------------------------------------------------

    def _heard(self, hosted: Hosted, data: bytes) -> None:
        if hosted.gone:
            return
        try:
            messages = decode_all(data)
        except ValueError as error:
            log_event(log, logging.WARNING, "relay.malformed", match=hosted.live.id, why=str(error))
            return
        now = self.now()
        for message in messages:
            if not hosted.gone:
                self._one(hosted, message, now)

    def _one(self, hosted: Hosted, message: Relayed, now: float) -> None:
        if isinstance(message, Follow):
            self._follow(hosted, message, now)
        elif isinstance(message, SeatEvent):
            self._seat_event(hosted, message, now)
        elif isinstance(message, SeatInputs):
            self._inputs(hosted, message, now)
        elif isinstance(message, SeatPing):
            stand_in = hosted.stand_ins.get((message.node, message.guest))
            if stand_in is not None:
                self.dispatcher.handle(stand_in, Ping(id=message.id, t=message.t), now)
        elif isinstance(message, SeatRematch):
            self._rematch(hosted, message, now)

    def _follow(self, hosted: Hosted, follow: Follow, now: float) -> None:
        until = now + self.settings.follow_ttl
        hosted.followers[follow.node] = until
        hosted.followers = {node: t for node, t in hosted.followers.items() if t > now}
        hosted.followed_until = max(hosted.followers.values())
        self._tap(hosted)
        hosted.watching[follow.node] = follow.watching
        hosted.watching = {node: n for node, n in hosted.watching.items() if node in hosted.followers}
        live = hosted.live
        live.remote_spectators = sum(hosted.watching.values())
        for (node, guest), stand_in in hosted.stand_ins.items():
            if node == follow.node:
                stand_in.lag_ms = follow.lags.get(guest)
        info = {"joined": to_plain(live.joined_message("spectator", None)),
                "guests": [seat.guest for seat in live.seats], "frame": live.current_frame()}
        base = Base(follow.node, self.node, info, _stream_base(live, live.players, follow.players, False),
                    _stream_base(live, live.spectators, follow.spectators, True))
        data = encode_relayed(base)
        if len(data) > self.settings.bus_max_message_bytes:  # the history's records are too many: resync
            base = Base(follow.node, self.node, info, _stream_base(live, live.players, -1, False),
                        _stream_base(live, live.spectators, -1, True))
            data = encode_relayed(base)
        self.bases += 1
        self.publisher.send(match_out(live.id), data)

    def _rematch(self, hosted: Hosted, rematch: SeatRematch, now: float) -> None:
        """A remote player's rematch offer or answer, handled as its connection's here (the rematch
        offers are the owner's, and so is the rematch made: once). The seat's stand-in answers; a
        player that reconnected to its node after the end (its seat dropped here) gets a new one, not
        bound to the ended match's seat. The rematch's address bounds count a remote player under its
        stand-in's peer (its node and guest), not its client's address, which the bus does not carry."""
        live, key = hosted.live, (rematch.node, rematch.guest)
        if live.seat_of(rematch.guest) != rematch.seat:
            return
        stand_in = hosted.stand_ins.get(key)
        if stand_in is None or not stand_in.out.open:
            stand_in = self._stand_in(hosted, rematch.node, rematch.guest, rematch.seat, now)
        match_id = live.id
        message = Rematch(match=match_id) if rematch.accept is None else RematchAnswer(
            match=match_id, accept=rematch.accept)
        self.dispatcher.handle(stand_in, message, now)

    def _stand_in(self, hosted: Hosted, node: str, guest: str, seat: int, now: float) -> Session:
        """A new stand-in session for a remote player of the seat."""
        out = StandIn(self, hosted.live.id, node, guest)
        stand_in = Session(out, self.dispatcher, self.dispatcher.session_settings, now)
        stand_in.guest = Guest(guest, hosted.live.seats[seat].name)
        hosted.stand_ins[(node, guest)] = stand_in
        return stand_in

    def _seat_event(self, hosted: Hosted, event: SeatEvent, now: float) -> None:
        live, key = hosted.live, (event.node, event.guest)
        stand_in = hosted.stand_ins.get(key)
        if event.event == "joined":
            seat = live.seat_of(event.guest)
            if seat is None or seat != event.seat:
                return
            if stand_in is None or stand_in.match is not live:
                stand_in = self._stand_in(hosted, event.node, event.guest, seat, now)
            live.attach_remote_player(stand_in, seat, now)
        elif stand_in is None:
            return
        elif event.event == "dropped":
            hosted.stand_ins.pop(key, None)
            stand_in.closed(now)  # the seat's grace period starts, as for a local socket closing
            # The player is not connected (a rematch offer is not made to it); nothing goes to its node.
            stand_in.out.close(CloseCode.GOING_AWAY)
        elif event.event == "left":
            if stand_in.match is live:
                live.leave(stand_in, now)
            if stand_in.match is not live:
                hosted.stand_ins.pop(key, None)
                stand_in.closed(now)

    def _inputs(self, hosted: Hosted, inputs: SeatInputs, now: float) -> None:
        stand_in = hosted.stand_ins.get((inputs.node, inputs.guest))
        if stand_in is None or stand_in.seat != inputs.seat:
            return  # not bound (dropped, replaced): its node learns it from the seat's status
        plain = {"kind": "input", "frame": inputs.frame, "inputs": list(inputs.values)}
        try:  # the wire message's own checks and bounds, as for a local connection's
            message = decode_client(encode_plain(plain))
        except ProtocolError as error:
            stand_in.send(error_message(error.code, str(error), "input"))
            return
        self.dispatcher.handle(stand_in, message, now)


def _stream_base(live: LiveMatch, stream: Stream[Outbox], after: int, spectator: bool) -> BaseStream:
    """One stream's catch-up for a follower at number `after` (-1: it wants a resync)."""
    if after > stream.head and spectator and live.spectator_delay > 0:
        # The follower heard numbers this delayed stream has not reached (it was taken over from a node
        # that had sent further than its journal's marks): the same numbers come, it waits for them.
        return BaseStream(after, stream.head, False, ())
    if after >= 0:
        missed = stream.since(after)
        if missed is not None:
            return BaseStream(after, stream.head, False, tuple(missed))
    return BaseStream(-1, stream.head, True, tuple(live.newcomer_messages(spectator)))
