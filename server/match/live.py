"""LiveMatch: one room or match as the server holds it — seats, connections, the runner, two streams.

The runner decides what happens; this class decides who hears it. Players follow the speculative
stream (frames as simulated, `rewind` when a late input changed the past); spectators follow the
confirmed stream (frames that never change, `window` frames behind). Both carry keyframes. The
match simulates every tick but publishes every `send_every` ticks (and at once when it ends; which
ticks is the hub's `publish_phase`), so each
connection's writer sends that many frames' records as one websocket message. It never awaits: the
hub's clock calls `tick`, the socket handlers call the rest, and every send is an append to a
connection's queue.

Seats: a room starts when every seat is taken (by a guest or a bot) and every guest has connected
once. A player who drops holds nothing while away (`hold_neutral`); back within the grace period
they resume the seat, after it the seat forfeits through the match's own step.

Ranked matches: a result is rated only after a minimum of play (`ranked_min_play_seconds` of frames,
and an input other than neutral from each seat); a ranked match that ends before it is *aborted*:
it ends as cancelled (`over` with a null result, no replay, the record's `aborted` set), and the
seats that forfeited (or, when none did, those that never played) dodged it. Who made a
ranked match not happen is frozen when it ends (`dodgers`), not read later: a player who was
there then and closes its socket on `over` is never one of them.

Spectators of a ranked match follow the confirmed stream `ranked_spectator_delay` seconds late: their
records (and their resync's keyframe and frames, and their `over`) go through a `DelayedFeed`, and
a finished match is kept until that feed is drained. `status` tells every seat's connection (its
lag, a dropped seat's grace countdown) and the spectators, at every change and every `status_every`
seconds while the match runs.

A room's invited seats (every seat but its creator's, seat 0): only the creator cancels a room that
has not started (`leave`); an invited guest's `leave` before the start gives its seat back, and so
does not connecting within `invite_connect_timeout` of taking it. The room then waits for its
invitation again (`on_vacated` tells the hub, which frees the guest's counts).

A journaled match (`journaled`: its node shares matches through server/cluster) sends nothing that
carries an input before the input is in the journal: each publication is *sealed* instead (`Sealed`:
the runner's input entries since the last one, the advances, the `input-late` answers of those
inputs, and the stream numbers after it) and published by `publish_sealed` once the hub has appended
it. A newcomer's catch-up reads only what was published (the resync caches follow publications,
never the runner). `resumed` rebuilds a match taken over from its journal and publishes only what
comes after the journal's last marks, numbered on from them.
"""

from __future__ import annotations

import logging
import math
from base64 import b64encode
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from protocol.codec import (
    encode,
    encode_frame,
    encode_keyframe,
    encode_plain,
    encode_resync,
    error_message,
    pack_frame_body,
)
from protocol.errors import CloseCode, ErrorCode
from protocol.limits import MAX_LAG_MS, MAX_REPLICA_STATE_BYTES
from protocol.messages import InputLate, Joined, MatchState, Over, Rewind, ServerMessage, Status
from protocol.replay_codec import encode_replay
from rules.replay import record as record_replay
from rules.ruleset import Bot, seat_seed

from ..cluster.journal import Journal, encode_logged
from ..logs import log_event
from ..netcode.runner import (
    Advance,
    FrameRecord,
    InputRefused,
    KeyframeRecord,
    MatchRunner,
    RunOutcome,
)
from ..store.base import MatchRecord
from .delay import DelayedFeed
from .session import Outbox, Session
from .settings import MatchSettings, RankedSettings
from .stream import Stream

log = logging.getLogger("floe.match")


@dataclass
class Seat:
    """One seat: who holds it (a guest id, or a bot), and the player's connection while connected."""

    name: str
    guest: str | None = None
    bot: str | None = None
    connection: Session | None = None
    connected_once: bool = False
    dropped_at: float | None = None
    #: The client address the guest took the seat from (counted against it while the match lives).
    address: str | None = None
    #: When a guest took the seat by a room's invitation (it must connect within the invite timeout).
    taken_at: float | None = None

    @property
    def taken(self) -> bool:
        """Held by a guest or a bot."""
        return self.guest is not None or self.bot is not None

    @property
    def present(self) -> bool:
        """A bot, or a guest whose connection is open."""
        return self.bot is not None or self.connection is not None


@dataclass(frozen=True, slots=True)
class PackedKeyframe:
    """A confirmed keyframe as the streams send it: the view packed once."""

    frame: int
    view: bytes
    checksum: str
    #: The state at `frame` (marshal bytes, the runner's) and each seat's input on the frame before it
    #: (None: not known here): a resync's `state` for a player that rebuilds its replica.
    state: bytes = b""
    held: tuple[int, ...] | None = None


@dataclass(slots=True)
class Sealed:
    """A journaled match's publication, held until its inputs are in the journal (`publish_sealed`)."""

    #: Its journal batch: the number and the bytes (server/cluster/journal.py `encode_logged`).
    seq: int
    data: bytes
    advances: list[Advance]
    #: The `input-late` answers to send with it, by seat.
    late: list[tuple[int, InputLate]]
    #: The streams after it: players' head `p`, the frame their speculative frames reach `pf`, the
    #: confirmed frame they reach `pc`; spectators' head `s` and confirmed frame `sc`; `o`: 1 once
    #: they count the streams' `over`.
    marks: dict[str, int]


#: The marks of a match that published nothing (publish everything: no frame is behind them); `o`
#: is 1 once they count the streams' `over`.
NO_MARKS = {"p": 0, "pf": 0, "pc": -1, "s": 0, "sc": -1, "o": 0}


def _nothing() -> None:
    """No one listens (a match no node's owner logs)."""


@dataclass(frozen=True)
class Finished:
    """What a match leaves behind: its record, and its replay's bytes (None when cancelled)."""

    record: MatchRecord
    replay: bytes | None


class LiveMatch:
    """A room, then a running match, then (briefly) a finished one."""

    def __init__(
        self,
        config: MatchSettings,
        seats: list[Seat],
        now: float,
        on_finished: Callable[[Finished], None],
        match_id: str,
        seed: int,
        created_wall: float = 0.0,
        ranked: bool = False,
        invite: str | None = None,
        on_vacated: Callable[[LiveMatch, str, str | None], None] | None = None,
        ranked_rules: RankedSettings | None = None,
        min_play_frames: int = 0,
        journaled: bool = False,
    ) -> None:
        self.id = match_id
        #: A room's invitation: the secret of its share link (None for a bot match).
        self.invite = invite
        self.config = config
        #: The ranked rules (join timeout, rated minimum, spectators' delay) a ranked match plays by.
        self.ranked_rules = ranked_rules or RankedSettings()
        #: The frame a ranked match must reach for its result to be rated (`ranked_min_play_seconds`).
        self.min_play_frames = min_play_frames
        self.seats = seats
        self.seed = seed
        self.created = now
        #: Wall-clock creation time (unix seconds), for listings and records.
        self.created_wall = created_wall
        self.state = MatchState.WAITING
        #: A ranked match: it starts only with every player connected (within ranked_join_timeout).
        self.ranked = ranked
        #: Seats whose player left with `leave` before the start (they cancelled it).
        self.left: set[int] = set()
        #: Ranked: the seats that sent an input other than neutral, and, once it is cancelled or
        #: aborted, the seats that made it so (the dodgers). Each seat's client address is its `address`.
        self.played: set[int] = set()
        self.dodgers: tuple[int, ...] = ()
        self.aborted = False
        self.players: Stream[Outbox] = Stream(config.history)
        self.spectators: Stream[Outbox] = Stream(config.history)
        self.runner: MatchRunner | None = None
        self.start_tick = 0
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self.result: dict[str, Any] | None = None
        self._on_finished = on_finished
        self._on_vacated = on_vacated
        self._watchers: set[Session] = set()
        #: The newest confirmed keyframe (its view packed) and the confirmed frames after it (packed
        #: bodies): what a resync sends, kept as bytes, which the garbage collector does not scan.
        self._keyframe: PackedKeyframe | None = None
        self._since_keyframe: list[bytes] = []
        #: The inputs of the newest confirmed frame (the row a keyframe after it holds).
        self._confirmed_row: tuple[int, ...] | None = None
        #: Each stream's final `over` message, re-sent after a resync.
        self._over: dict[Stream[Outbox], bytes] = {}
        #: Frame → (its current record, that record's packed wire body), until it is confirmed.
        self._bodies: dict[int, tuple[FrameRecord, bytes]] = {}
        #: What the runner produced since the last publication (see `send_every`).
        self._unpublished: list[Advance] = []
        #: The spectators' stream: held back for a ranked match, and what their resync starts from.
        self.spectator_delay = self.ranked_rules.ranked_spectator_delay if ranked else 0.0
        self._feed = DelayedFeed(self.spectator_delay)
        self._watched_keyframe: PackedKeyframe | None = None
        self._watched_since: list[bytes] = []
        self._watched_confirmed = 0
        #: When the last `status` went out (a running match sends one every `status_every` seconds).
        self._status_at = float("-inf")
        self._last_status: Status | None = None
        #: Called with each `status` broadcast (the owner's relay to the other nodes' clients).
        self.status_tap: Callable[[Status], None] | None = None
        #: Spectators other nodes serve (their last `Follow`s, server/match/relay.py).
        self.remote_spectators = 0
        #: The node's ticks this match publishes on: those where `(tick + publish_phase) % send_every`
        #: is 0. The hub gives every match of a group of `journal_slices` neighbouring tick slices the
        #: same phase (the group's index), so a group's matches publish on the same tick and a journaled
        #: node logs them in one round trip after the group's last slice (one a group every
        #: `send_every` frames, whatever the number of matches); when a group holds fewer slices than
        #: the node has, the groups take turns, so the publishing work is spread over the frames.
        self.publish_phase = 0
        #: Journal mode (see the module docstring): sealed publications not yet published, the
        #: `input-late` answers waiting for the next seal, and the marks after the last one sealed.
        self.journaled = journaled
        self.sealed: list[Sealed] = []
        #: The number of the last journal batch sealed (a match taken over goes on from its journal's).
        self.last_seq = 0
        #: Called when a publication is sealed (the node's owner then logs it: server/match/owner.py).
        self.on_sealed: Callable[[], None] = _nothing
        self._late: list[tuple[int, InputLate]] = []
        #: The players' and spectators' heads less the runner's counts of their records
        #: (`_count_from_here`).
        self._stream_bases = (0, 0)
        #: What was published: the speculative frames' bodies from the confirmed frame on, and the
        #: frame the players' confirmed records reach (the resync caches a catch-up reads).
        self._spec_bodies: dict[int, bytes] = {}
        self._published_confirmed = 0

    # ---- who is here ---------------------------------------------------------------------------------

    def seat_of(self, guest_id: str) -> int | None:
        """The seat a guest holds here, or None."""
        return next((index for index, seat in enumerate(self.seats) if seat.guest == guest_id), None)

    @property
    def private(self) -> bool:
        """Made as a room (joined by invitation): not listed in the live list, nor its replay."""
        return self.invite is not None

    def addresses(self) -> tuple[str, ...]:
        """The distinct client addresses of the guests holding seats (each counts this match once)."""
        return tuple(dict.fromkeys(seat.address for seat in self.seats if seat.address is not None))

    def invited_guests(self) -> int:
        """How many of a room's invited seats a guest holds (0 for a match made with every seat)."""
        seats = enumerate(self.seats)
        return sum(1 for index, seat in seats if self._invited(index) and seat.guest is not None)

    def has_free_seat(self) -> bool:
        """Is this a waiting room with a seat nobody holds?"""
        return self.state == MatchState.WAITING and any(not seat.taken for seat in self.seats)

    def take_seat(self, guest_id: str, name: str, address: str | None = None, now: float = 0.0) -> int | None:
        """Give a guest the first free seat of a waiting room (their own if they hold one); None if full.
        `now` starts the time it has to connect."""
        held = self.seat_of(guest_id)
        if held is not None:
            return held
        if self.state != MatchState.WAITING:
            return None
        for index, seat in enumerate(self.seats):
            if not seat.taken:
                seat.guest, seat.name, seat.address, seat.taken_at = guest_id, name, address, now
                return index
        return None

    def _vacate(self, index: int, why: str, now: float) -> None:
        """Give an invited seat of a waiting room back (its guest left, or never connected)."""
        seat = self.seats[index]
        guest, address = seat.guest, seat.address
        if guest is None:
            return
        connection = seat.connection
        if connection is not None:
            self.players.subscribers.discard(connection.out)
            connection.match, connection.seat = None, None
        self.seats[index] = Seat("open")
        if address in self.addresses():
            address = None  # another seat came from that address: the match still counts against it
        log_event(log, logging.INFO, "room.vacated", match=self.id, seat=index, guest=guest, why=why)
        if self._on_vacated is not None:
            self._on_vacated(self, guest, address)
        self._broadcast_status(now)

    def _invited(self, index: int) -> bool:
        """Is this a room's seat taken by invitation (not its creator's)?"""
        return self.invite is not None and index != 0

    def joined_message(self, role: str, seat: int | None) -> Joined:
        """What a player or spectator is told on joining."""
        stream = self.spectators if role == "spectator" else self.players
        return Joined(
            match=self.id,
            role="spectator" if role == "spectator" else "player",
            seat=seat,
            seats=[s.name for s in self.seats],
            bots=[s.bot for s in self.seats],
            seed=self.seed,
            config=self.config.ruleset.config_plain(self.config.match_config),
            ruleset=self.config.ruleset.name,
            ruleset_version=self.config.ruleset.version,
            state=self.state,
            head=stream.head,
            keyframe_every=self.config.runner.keyframe_every,
            tables=self.config.ruleset.stream_tables,
            spectators=self.spectator_count() + (role == "spectator"),  # a newcomer counts itself
            delay=self.spectator_delay if role == "spectator" else 0.0,
        )

    def attach_player(self, session: Session, seat: int, since: int | None, now: float,
                      tell_joined: bool = True) -> None:
        """Bind a session to its seat (replacing an older one), catch it up, start when all are here.
        Not `tell_joined`: the connection followed this match on this node while another node owned it,
        and goes on from its stream number (server/match/follow.py's `Follower.adopt`)."""
        if not self.journaled:
            self._publish_pending(now)  # the newcomer's catch-up starts where the streams stand
        self._bind_seat(session, seat)
        out = session.out
        if tell_joined:
            out.send(self.joined_message("player", seat))
        self._catch_up(out, self.players, since, speculative=True, replica=session.replica)
        self.players.subscribers.add(out)
        log_event(log, logging.INFO, "match.player", match=self.id, seat=seat, since=since, peer=out.peer)
        self._broadcast_status(now)

    def _bind_seat(self, session: Session, seat: int) -> None:
        """Make `session` the seat's connection (an older one is closed: `replaced`)."""
        place = self.seats[seat]
        old = place.connection
        if old is not None and old is not session and old.match is self:
            self.players.subscribers.discard(old.out)
            old.match, old.seat = None, None
            old.out.close(
                CloseCode.POLICY,
                error_message(ErrorCode.REPLACED, "this seat connected again elsewhere", fatal=True),
            )
        place.connection, place.connected_once, place.dropped_at = session, True, None
        session.match, session.seat, session.spectator = self, seat, False

    def attach_remote_player(self, session: Session, seat: int, now: float) -> None:
        """Bind the stand-in session of a player connected to another node (server/match/relay.py) to
        its seat: its node sends it `joined`, the catch-up and the stream's records, so this only
        binds the seat (its inputs, `input-late` and errors then go through the stand-in)."""
        self._bind_seat(session, seat)
        log_event(log, logging.INFO, "match.player", match=self.id, seat=seat, peer=session.out.peer)
        self._broadcast_status(now)

    def attach_spectator(self, session: Session, since: int | None, now: float,
                         tell_joined: bool = True) -> None:
        """Subscribe a spectator to the confirmed stream and catch it up (`tell_joined`: as
        `attach_player`)."""
        if not self.journaled:
            self._publish_pending(now)
        session.match, session.seat, session.spectator = self, None, True
        out = session.out
        self._feed.release(now)  # what is due goes to the others first: the newcomer starts after it
        if tell_joined:
            out.send(self.joined_message("spectator", None))
        self._catch_up(out, self.spectators, since, speculative=False)
        self.spectators.subscribers.add(out)
        self._watchers.add(session)

    def detach(self, session: Session, now: float) -> None:
        """A session went away (or left): a player's seat holds nothing and its grace period starts."""
        self.players.subscribers.discard(session.out)
        self.spectators.subscribers.discard(session.out)
        self._watchers.discard(session)
        if session.seat is not None and session.match is self:
            seat = self.seats[session.seat]
            if seat.connection is session:
                seat.connection, seat.dropped_at = None, now
                if self.runner is not None and self.state == MatchState.RUNNING:
                    self.runner.hold_neutral(session.seat)
                log_event(log, logging.INFO, "match.drop", match=self.id, seat=session.seat)
                self._broadcast_status(now)
        session.match, session.seat = None, None

    def release(self, session: Session) -> None:
        """A connection stops following this match once it has ended (to queue or play again): its
        streams stop, but a player's seat keeps it as its connection, so `rated` still reaches it."""
        assert self.ended_at is not None
        self.players.subscribers.discard(session.out)
        self.spectators.subscribers.discard(session.out)
        self._watchers.discard(session)
        session.match, session.seat = None, None

    def leave(self, session: Session, now: float) -> None:
        """Leave for good: a player forfeits (a room not started is cancelled); a spectator stops.

        A player who forfeits keeps following the stream to see the end; its inputs are refused.
        """
        seat = session.seat
        if seat is not None and not session.spectator:
            if self.state == MatchState.RUNNING and self.runner is not None:
                self.runner.forfeit(seat)
                log_event(log, logging.INFO, "match.forfeit", match=self.id, seat=seat, why="left")
                return
            if self.state == MatchState.WAITING and self._invited(seat):
                self.detach(session, now)
                self._vacate(seat, "left before the start", now)
                return
            if self.state == MatchState.WAITING:
                self.left.add(seat)
                self.cancel(now, "a player left")
        self.detach(session, now)

    def _start_within(self) -> float:
        """Seconds the room waits for its players: a ranked match's join timeout, else the room's."""
        return self.ranked_rules.ranked_join_timeout if self.ranked else self.config.room_timeout

    def absent_seats(self) -> list[int]:
        """Seats whose player is not connected now, or left (who made a ranked match not start)."""
        return [index for index, seat in enumerate(self.seats) if not seat.present or index in self.left]

    def spectator_count(self) -> int:
        """The match's spectators: this node's and those the other nodes said they serve."""
        return len(self.spectators.subscribers) + self.remote_spectators

    def viewers(self) -> int:
        """Open connections following this match (players and spectators)."""
        return len(self.players.subscribers) + len(self.spectators.subscribers)

    # ---- the clock -----------------------------------------------------------------------------------

    def delayed(self) -> bool:
        """Does the spectators' delayed stream still hold records (a finished match is kept until not)?"""
        return len(self._feed) > 0

    def tick(self, tick: int, now: float) -> None:
        """Advance to the schedule's frame, publish what happened, and enforce the grace periods."""
        self._feed.release(now)
        if self.state == MatchState.WAITING:
            self._expire_invited(now)
            if all(s.taken and (s.bot is not None or s.connected_once) for s in self.seats) and (
                not self.ranked or all(s.present for s in self.seats)
            ):
                self._start(tick, now)
            elif now - self.created > self._start_within():
                self.cancel(now, "the room timed out")
            return
        if self.state != MatchState.RUNNING or self.runner is None:
            return
        for index, seat in enumerate(self.seats):
            if seat.dropped_at is not None and now - seat.dropped_at > self.config.reconnect_grace:
                seat.dropped_at = None
                self.runner.forfeit(index)
                log_event(log, logging.INFO, "match.forfeit", match=self.id, seat=index, why="grace expired")
        target = tick - self.start_tick
        behind = target - self.runner.now
        if behind > self.config.max_catch_up:
            # The loop fell behind: simulate a bounded burst and let this match's schedule slip.
            self.start_tick += behind - self.config.max_catch_up
            target = tick - self.start_tick
        out = self.runner.advance(target)
        self._unpublished.append(out)
        if out.result is not None or (tick + self.publish_phase) % self.config.send_every == 0:
            if self.journaled:
                self._seal()
            else:
                self._publish_pending(now)
        if self.state == MatchState.RUNNING and now - self._status_at >= self.config.status_every:
            self._status_at = now
            status = self.status_message(now)
            if self._last_status is None or _worth_telling(self._last_status, status):
                self._broadcast_status(now, status)

    def _expire_invited(self, now: float) -> None:
        """Give back the invited seats whose guest has not connected within `invite_connect_timeout`."""
        if self.invite is None:
            return
        for index, seat in enumerate(self.seats):
            if (self._invited(index) and seat.guest is not None and not seat.connected_once
                    and seat.taken_at is not None
                    and now - seat.taken_at > self.config.invite_connect_timeout):
                self._vacate(index, "did not connect in time", now)

    def _start(self, tick: int, now: float) -> None:
        ruleset = self.config.ruleset
        bots: dict[int, Bot[Any]] = {
            index: ruleset.make_bot(seat.bot, seat_seed(self.seed, index))
            for index, seat in enumerate(self.seats)
            if seat.bot is not None
        }
        match = ruleset.new_match(self.config.match_config, self.seed, [seat.name for seat in self.seats])
        self.runner = MatchRunner(match, ruleset.inputs, self.config.runner, bots, keyframe_phase=self.seed,
                                  journal=self.journaled)
        self.start_tick = tick
        self.started_at = now
        self.state = MatchState.RUNNING
        for index, seat in enumerate(self.seats):
            if seat.bot is None and seat.connection is None:
                seat.dropped_at = seat.dropped_at or now
                self.runner.hold_neutral(index)
        log_event(
            log,
            logging.INFO,
            "match.start",
            match=self.id,
            seed=self.seed,
            seats=[s.name for s in self.seats],
            bots=[s.bot for s in self.seats],
        )
        self._broadcast_status(now)
        self._publish(self.runner.advance(0), now)
        if self.journaled:
            self._count_from_here()

    # ---- publishing ----------------------------------------------------------------------------------

    def _publish_pending(self, now: float) -> None:
        pending, self._unpublished = self._unpublished, []
        for out in pending:
            self._publish(out, now)

    def _publish(self, out: Advance, now: float, marks: dict[str, int] = NO_MARKS) -> None:
        """Publish an advance; what `marks` says was published already (a match taken over from its
        journal) only rebuilds the resync caches."""
        # What was final when this advance ended, not now: a later advance of the same publication
        # may have confirmed frames that a rewind in it changes (`confirmed` would then lie).
        confirmed = out.confirmed_to
        spec = self._spec_bodies
        if out.rewind_to is not None:
            self.players.publish(_rewind(out.rewind_to))
            self._bodies = {f: body for f, body in self._bodies.items() if f < out.rewind_to}
            for frame in [f for f in spec if f >= out.rewind_to]:
                del spec[frame]
        for record in out.frames:
            body = self._body(record)
            spec[record.frame] = body
            if record.frame >= marks["pf"]:
                self.players.publish_bytes(_frame(record.frame, body, confirmed))
        for item in out.confirmed:
            if isinstance(item, KeyframeRecord):
                neutral = (self.config.ruleset.inputs.neutral,) * len(self.seats)
                held = self._confirmed_row if item.frame > 0 else neutral
                keyframe = PackedKeyframe(item.frame, encode_plain(item.view), item.checksum, item.state,
                                          held)
                self._keyframe, self._since_keyframe = keyframe, []
                if item.frame > marks["pc"]:
                    self.players.publish_bytes(_keyframe(keyframe))
                if item.frame > marks["sc"]:
                    self._feed.push(now, partial(self._watch_keyframe, keyframe))
                else:  # sent by the node that died: into the history again, under the same number
                    self._watch_keyframe(keyframe)
            else:
                body = self._body(item)
                self._since_keyframe.append(body)
                self._confirmed_row = item.inputs
                if item.frame >= marks["sc"]:
                    self._feed.push(now, partial(self._watch_frame, item.frame, body))
                else:
                    self._watch_frame(item.frame, body)
                self._bodies.pop(item.frame, None)
                spec.pop(item.frame, None)
        self._published_confirmed = max(self._published_confirmed, confirmed)
        if out.result is not None:
            self._finish(now)

    # ---- journal mode ---------------------------------------------------------------------------------

    def _seal(self) -> None:
        """Hold this publication until the hub has its inputs in the journal (see the module docstring):
        its batch is made now (the owner appends it as it is) with the stream numbers after it.

        It runs every `send_every` frames on every journaled match (the journal's hot path), so it reads
        the numbers off the runner's counters (`_count_from_here`), not off the advances one by one."""
        runner = self.runner
        assert runner is not None
        advances, self._unpublished = self._unpublished, []
        late, self._late = self._late, []
        # The players get one record a frame simulated, a rewind and the frames simulated again after
        # it, the keyframes and the end; the spectators every confirmed frame, the keyframes and the end.
        over = 0 if runner.result is None else 1
        speculated, confirmed, keyframes = runner.match.frame, runner.confirmed, runner.keyframes_emitted
        players_base, watchers_base = self._stream_bases
        if self.spectator_delay > 0:  # the delayed stream goes out later: what it has sent now
            watchers, watched = self.spectators.head, self._watched_confirmed
        else:
            watchers, watched = watchers_base + confirmed + keyframes + over, confirmed
        marks = {"p": players_base + speculated + runner.rewind_records + keyframes + over, "pf": speculated,
                 "pc": confirmed, "s": watchers, "sc": watched, "o": over}
        self.last_seq = seq = self.last_seq + 1
        self.sealed.append(Sealed(seq, encode_logged(seq, runner.now, runner.take_log(), marks), advances,
                                  late, marks))
        self.on_sealed()

    def _count_from_here(self) -> None:
        """Note what the streams' heads are beyond the runner's counters, everything advanced being
        published (after the first publication, and a takeover's): `_seal` adds the counters to it."""
        runner = self.runner
        assert runner is not None and not self._unpublished
        keyframes = runner.keyframes_emitted
        self._stream_bases = (self.players.head - runner.match.frame - runner.rewind_records - keyframes,
                              self.spectators.head - runner.confirmed - keyframes)

    def spectators_keyframe(self) -> int:
        """The frame of the newest keyframe the spectators were sent (-1: none yet)."""
        return self._watched_keyframe.frame if self._watched_keyframe is not None else -1

    def _heads_now(self) -> tuple[int, int, int, int, int]:
        """What is published now (nothing sealed is waiting), in the order of a batch's marks: players'
        head, speculative and confirmed frame reached, spectators' head and confirmed frame (what
        tests/cluster/test_seal_marks.py holds each seal's marks to)."""
        pf = max(self._spec_bodies, default=self._published_confirmed - 1) + 1
        watched = self._published_confirmed if self.spectator_delay <= 0 else self._watched_confirmed
        return self.players.head, pf, self._published_confirmed, self.spectators.head, watched

    def publish_sealed(self, sealed: Sealed, now: float) -> None:
        """Publish a sealed publication whose batch is in the journal, and its `input-late` answers."""
        for out in sealed.advances:
            self._publish(out, now)
        for seat, message in sealed.late:
            connection = self.seats[seat].connection
            if connection is not None:
                connection.send(message)

    @classmethod
    def resumed(
        cls,
        config: MatchSettings,
        journal: Journal,
        match_id: str,
        tick: int,
        now: float,
        on_finished: Callable[[Finished], None],
        runner: MatchRunner,
        ranked_rules: RankedSettings | None = None,
        min_play_frames: int = 0,
    ) -> LiveMatch:
        """A running match taken over from its journal (server/cluster/journal.py): `runner` is the
        resumed runner; the players hold their seats and have `reconnect_grace` to come back; the
        first advance publishes only what comes after the journal's marks, numbered on from them.

        The spectators' stream is the same messages in the same order whoever makes it (confirmed
        frames and keyframes only), so the history is rebuilt from the checkpoint's keyframe under the
        numbers the node that died gave them: a spectator that comes back with any of them goes on
        without a gap, even from messages that node logged but never sent. The players' stream had
        rewinds that cannot be told again: a player comes back to a `resync` numbered on from the
        marks."""
        header = journal.header
        seats = [Seat(name, guest=guest, bot=bot, connected_once=True, dropped_at=None if bot else now)
                 for name, guest, bot in zip(header.seats, header.guests, header.bots, strict=True)]
        live = cls(config, seats, now, on_finished, match_id, header.seed, header.created, header.ranked,
                   header.extra.get("invite"), ranked_rules=ranked_rules, min_play_frames=min_play_frames,
                   journaled=True)
        live.runner = runner
        live.last_seq = journal.last_seq
        live.state = MatchState.RUNNING
        live.started_at = now
        live.start_tick = tick - runner.now
        neutral = config.ruleset.inputs.neutral
        live.played = {seat for seat, moves in enumerate(runner.match.moves)
                       if any(value != neutral for _, value in moves)}
        marks = {**NO_MARKS, **journal.marks()}
        for index, seat in enumerate(seats):
            if seat.bot is None:
                runner.hold_neutral(index)  # its player was on the node that died: dropped, until back
        out = runner.advance(runner.now)
        sent = marks["sc"]
        again = sum(item.frame <= sent if isinstance(item, KeyframeRecord) else item.frame < sent
                    for item in out.confirmed)
        live.players.head = max(0, marks["p"] - marks["o"])
        live.spectators.head = max(0, marks["s"] - marks["o"] - again)
        live._published_confirmed = max(0, marks["pc"])
        live._publish(out, now, marks)
        live._count_from_here()
        return live

    def _watch_keyframe(self, keyframe: PackedKeyframe) -> None:
        """A confirmed keyframe reaches the spectators (late, for a ranked match)."""
        self._watched_keyframe, self._watched_since = keyframe, []
        self._watched_confirmed = max(self._watched_confirmed, keyframe.frame)
        self.spectators.publish_bytes(_keyframe(keyframe))

    def _watch_frame(self, frame: int, body: bytes) -> None:
        """A confirmed frame reaches the spectators (late, for a ranked match)."""
        self._watched_since.append(body)
        self._watched_confirmed = frame + 1
        self.spectators.publish_bytes(_frame(frame, body, frame + 1))

    def _body(self, record: FrameRecord) -> bytes:
        """A frame record's shared wire body, packed once for both streams (while the record stands)."""
        cached = self._bodies.get(record.frame)
        if cached is not None and cached[0] is record:
            return cached[1]
        body = pack_frame_body(record.frame, record.events, record.actors, list(record.inputs))
        self._bodies[record.frame] = (record, body)
        return body

    def newcomer_messages(self, spectator: bool) -> list[bytes]:
        """What a connection with no stream number is sent after `joined` (a resync from a keyframe,
        and the `over` once the stream ended), as bytes: another node's catch-up (server/match/relay.py)."""
        collected = _Collected()
        stream = self.spectators if spectator else self.players
        self._catch_up(collected, stream, None, speculative=not spectator)
        return collected.messages

    def _catch_up(self, conn: Outbox, stream: Stream[Outbox], since: int | None, speculative: bool,
                  replica: bool = False) -> None:
        """Send what the connection missed: the history after `since`, else a resync from a keyframe
        (with the keyframe's state when `replica`: a player whose engine rebuilds the match)."""
        if since is not None:
            missed = stream.since(since)
            if missed is not None:
                for data in missed:
                    conn.send_bytes(data)
                return
            if not speculative and self.spectator_delay > 0 and stream.head < since <= stream.head + (
                    self.config.history):
                stream.hold(conn, since)  # ahead of a taken-over delayed stream: it gets there
                log_event(log, logging.INFO, "match.spectator-ahead", match=self.id, since=since,
                          head=stream.head)
                return
        keyframe = self._keyframe if speculative else self._watched_keyframe
        over = self._over.get(stream)
        if keyframe is None or self.runner is None:
            if over is not None:
                conn.send_bytes(over)  # a room cancelled before it started: only the end to tell
            return  # not started: the stream begins with keyframe 0 when it does
        if speculative:  # what was published (a journaled match may hold a sealed publication back)
            bodies = list(self._since_keyframe)
            bodies += [body for frame, body in sorted(self._spec_bodies.items())
                       if frame >= self._published_confirmed]
            confirmed = self._published_confirmed
        else:  # what the spectators were sent, which runs `spectator_delay` behind for a ranked match
            bodies = list(self._watched_since)
            confirmed = self._published_confirmed if self.spectator_delay <= 0 else self._watched_confirmed
        head = stream.head - 1 if over is not None else stream.head
        state = None
        if replica and speculative and 0 < len(keyframe.state) <= MAX_REPLICA_STATE_BYTES:
            state = encode_plain({"frame": keyframe.frame, "snapshot": b64encode(keyframe.state).decode(),
                                  "held": None if keyframe.held is None else list(keyframe.held)})
        conn.send_bytes(
            encode_resync(head, keyframe.frame, keyframe.view, keyframe.checksum, bodies, confirmed, state)
        )
        if over is not None:
            conn.send_bytes(over)

    def status_message(self, now: float) -> Status:
        """Each seat's connection as the server sees it: connected, lag, a dropped seat's grace left."""
        running = self.state == MatchState.RUNNING
        grace = self.config.reconnect_grace
        lags: list[int | None] = []
        left: list[int | None] = []
        for seat in self.seats:
            connection = seat.connection
            lag = connection.lag_ms if connection is not None and seat.bot is None else None
            lags.append(None if lag is None else min(lag, MAX_LAG_MS))
            dropped = seat.dropped_at if running and seat.bot is None and connection is None else None
            left.append(None if dropped is None else max(0, math.ceil(grace - (now - dropped))))
        return Status(match=self.id, state=self.state, connected=[seat.present for seat in self.seats],
                      lag=lags, grace=left, spectators=self.spectator_count())

    def _broadcast_status(self, now: float, status: Status | None = None) -> None:
        self._status_at = now
        status = status or self.status_message(now)
        self._last_status = status
        if self.status_tap is not None:
            self.status_tap(status)
        for out in {*self.players.subscribers, *(watcher.out for watcher in self._watchers)}:
            out.send(status)

    # ---- the end -------------------------------------------------------------------------------------

    def rated_play(self) -> bool:
        """Has this match had a rated result's minimum of play (see the module docstring)? Always, with
        `ranked_min_play_seconds` 0 (the rule off)."""
        runner, frames = self.runner, self.min_play_frames
        if frames <= 0:
            return True
        return runner is not None and runner.match.frame >= frames and len(self.played) == len(self.seats)

    def _abort(self, now: float) -> None:
        """A ranked match ended before the minimum of play: cancelled; the dodgers are the seats that
        forfeited (left, or did not come back), or when none did, those that never played."""
        runner = self.runner
        assert runner is not None and runner.result is not None
        outcomes = runner.result.plain().get("outcomes", [])
        seats = range(len(self.seats))
        forfeited = tuple(index for index in seats if outcomes[index] == "forfeited")
        self.dodgers = forfeited or tuple(index for index in seats if index not in self.played)
        self.aborted = True
        log_event(log, logging.INFO, "match.aborted", match=self.id, frames=runner.match.frame,
                  played=sorted(self.played), dodgers=list(self.dodgers))
        self.cancel(now, "aborted before a rated result's minimum of play")

    def _finish(self, now: float) -> None:
        runner = self.runner
        assert runner is not None and runner.result is not None
        if self.ranked and not self.rated_play():
            self._abort(now)
            return
        self.state = MatchState.OVER
        self.ended_at = now
        self.result = runner.result.plain()
        replay = encode_replay(record_replay(runner.match, self.config.ruleset))
        self._end_streams(self.result, self.id, now)
        log_event(
            log,
            logging.INFO,
            "match.over",
            match=self.id,
            result=self.result,
            frames=runner.match.frame,
            rollbacks=runner.rollbacks,
            resimulated=runner.resimulated,
            late_inputs=runner.late_inputs,
            bytes_players=self.players.bytes_published,
            bytes_spectators=self.spectators.bytes_published,
        )
        self._on_finished(Finished(self._record(MatchState.OVER, now), replay))

    def cancel(self, now: float, why: str) -> None:
        """End without a result (a room that never started, or a match the server failed)."""
        if self.state not in (MatchState.WAITING, MatchState.RUNNING):
            return
        if self.ranked and self.state == MatchState.WAITING:
            self.dodgers = tuple(self.absent_seats())
        self.state = MatchState.CANCELLED
        self.ended_at = now
        self._end_streams(None, None, now)
        log_event(log, logging.INFO, "match.cancelled", match=self.id, why=why)
        self._on_finished(Finished(self._record(MatchState.CANCELLED, now), None))

    def _end_streams(self, result: dict[str, Any] | None, replay: str | None, now: float) -> None:
        self._end_stream(self.players, result, replay)
        self._feed.push(now, partial(self._end_stream, self.spectators, result, replay))
        self._broadcast_status(now)

    def _end_stream(self, stream: Stream[Outbox], result: dict[str, Any] | None, replay: str | None) -> None:
        stream.publish(_over(result, replay))
        missed = stream.since(stream.head - 1)
        if missed:
            self._over[stream] = missed[-1]

    def _record(self, outcome: MatchState, now: float) -> MatchRecord:
        frames = self.runner.match.frame if self.runner is not None else 0
        return MatchRecord(
            id=self.id,
            seats=tuple(s.name for s in self.seats),
            guests=tuple(s.guest for s in self.seats),
            outcome=outcome,
            result=self.result,
            replay=self.id if outcome is MatchState.OVER else None,
            created=self.created_wall,
            ended=self.created_wall + (now - self.created),
            frames=frames,
            ranked=self.ranked,
            aborted=self.aborted,
            private=self.private,
            ruleset=self.config.ruleset.name,
        )

    def close_all(self) -> None:
        """Close every connection following this match (shutdown, or the end of the linger)."""
        for place in self.seats:
            if place.connection is not None and place.connection.match is self:
                place.connection.match, place.connection.seat = None, None
        for watcher in self._watchers:
            if watcher.match is self:
                watcher.match = None
        self.players.subscribers.clear()
        self.spectators.subscribers.clear()
        self._watchers.clear()

    # ---- inputs and listing ----------------------------------------------------------------------------

    def tell_inputs(self, seat: int, frame: int, values: Sequence[int]) -> RunOutcome:
        """A player's run of inputs from `frame` on; refused before the start and after the end."""
        if self.runner is None or self.state == MatchState.WAITING:
            return RunOutcome(refused=InputRefused(ErrorCode.NOT_STARTED.value, "the match has not started"))
        if self.state != MatchState.RUNNING:
            return RunOutcome(refused=InputRefused(ErrorCode.MATCH_OVER.value, "the match has ended"))
        outcome = self.runner.tell_inputs(seat, frame, values)
        if self.journaled and outcome.late is not None:  # answered once the input is in the journal
            self._late.append((seat, InputLate(frame=outcome.late.frame, applied=outcome.late.applied)))
            outcome = RunOutcome(refused=outcome.refused)
        if self.ranked and seat not in self.played and outcome.refused is None:
            neutral = self.config.ruleset.inputs.neutral
            if any(value != neutral for value in values):
                self.played.add(seat)
        return outcome

    def current_frame(self) -> int:
        """The schedule's frame (-1 before the start): what a pong tells."""
        return self.runner.now if self.runner is not None and self.state == MatchState.RUNNING else -1

    def summary(self) -> dict[str, Any]:
        """The live list's entry."""
        return {
            "id": self.id,
            "state": self.state,
            "seats": [seat.name if seat.taken else None for seat in self.seats],
            "bots": [seat.bot for seat in self.seats],
            "frame": self.runner.match.frame if self.runner is not None else 0,
            "spectators": self.spectator_count(),
            "created": self.created_wall,
            "private": self.private,
            "ruleset": self.config.ruleset.name,
            "bytes": {"players": self.players.bytes_published, "spectators": self.spectators.bytes_published},
        }


class _Collected:
    """An outbox that keeps what it is sent (a catch-up for another node)."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []

    @property
    def open(self) -> bool:
        return True

    @property
    def peer(self) -> str:
        return "collected"

    def send(self, message: ServerMessage) -> bool:
        return self.send_bytes(encode(message))

    def send_bytes(self, data: bytes) -> bool:
        self.messages.append(data)
        return True

    def close(self, code: int = CloseCode.NORMAL, message: ServerMessage | None = None) -> None:
        """Nothing to close."""


#: A periodic `status` goes out only when something changed, a seat's lag by at least this many ms.
LAG_CHANGE_MS = 10


def _worth_telling(last: Status, now: Status) -> bool:
    """Does a periodic `status` say something the last one did not (a lag moved by LAG_CHANGE_MS)?"""
    if (last.connected, last.grace, last.spectators, last.state) != (now.connected, now.grace, now.spectators,
                                                                     now.state):
        return True
    return any((a is None) != (b is None) or (a is not None and b is not None and abs(a - b) >= LAG_CHANGE_MS)
               for a, b in zip(last.lag, now.lag, strict=True))


# ---- stream message builders (a stream numbers each message when it publishes it) ---------------------


def _frame(frame: int, body: bytes, confirmed: int) -> Callable[[int], bytes]:
    def build(n: int) -> bytes:
        return encode_frame(n, confirmed, frame, body)

    return build


def _rewind(frame: int) -> Callable[[int], Rewind]:
    def build(n: int) -> Rewind:
        return Rewind(n=n, frame=frame)

    return build


def _keyframe(keyframe: PackedKeyframe) -> Callable[[int], bytes]:
    def build(n: int) -> bytes:
        return encode_keyframe(n, keyframe.frame, keyframe.view, keyframe.checksum)

    return build


def _over(result: dict[str, Any] | None, replay: str | None) -> Callable[[int], Over]:
    def build(n: int) -> Over:
        return Over(n=n, result=result, replay=replay)

    return build
