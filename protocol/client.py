"""A client's side of the protocol, sans-I/O: build the bytes to send, feed it what arrives.

Bots, the tests and the benchmark drive the server through this class; a socket is their business:

    session = ClientSession(token)
    ws.send(session.hello()); ws.send(session.join(match_id))
    for data in ws:                              # every binary frame the server sends
        for message in session.receive(data, now=time.monotonic()):
            ...                                  # Welcome, Joined, Frame, Rewind, Keyframe, Over, ...
        for payload in session.input(0x03, now=time.monotonic()):  # stamped: server frame + delay
            ws.send(payload)                     # a change goes at once, held bytes in twos

It keeps the stream's state: the last stream number seen (for `resume()` after a reconnect), the
frames as they stand after rewinds and resyncs, the keyframes, the result; and the clock: `ping`/
`pong` samples (the one with the smallest round trip wins) plus the newest frame record give an
estimate of the server's current match frame, from which `input()` stamps frames `input_delay` ahead;
when the server reports an input as late (`input-late`), the estimate leans ahead, as protocol/
README.md advises: to the lean it had when that input was stamped plus the input's lateness (never
the lean now plus the lateness: the inputs sent before the answer came were stamped alike and report
the same lateness, which would stack), fading out over the following seconds (stamps never go back:
a client that keeps sending keeps its pace, and the fading matters after a pause).

Inputs are gathered into runs: `input(value, now)` says what the player holds from the next frame to
stamp on, fills every frame up to `stamp(now)` (the kick only on the first), and returns an `input`
message when the run reaches `welcome.input_batch` frames or the byte changed (a change never waits).
A run sent in twos with the default delay of 2 still reaches the server a frame before its first
frame is simulated; a larger batch eats into that margin (frames simulated before their input is
known are predicted, and cost the server a snapshot).
Time is an argument (`now`, seconds on any monotonic clock): the class reads no clock itself.
"""

from __future__ import annotations

from collections import deque
from typing import Any, assert_never

from rules.versus.inputs import held

from .codec import ProtocolError, decode_server_messages, encode
from .limits import MAX_INPUT_RUN, MAX_PING_VALUE, MAX_SERVER_MESSAGE_BYTES
from .messages import (
    Error,
    Frame,
    Hello,
    Input,
    InputLate,
    Join,
    Joined,
    Keyframe,
    Leave,
    Matched,
    Over,
    Ping,
    Pong,
    Queue,
    Queued,
    Rated,
    Rematch,
    RematchAnswer,
    RematchOffer,
    RematchReady,
    RematchRefused,
    Resync,
    Rewind,
    ServerMessage,
    Status,
    Unqueue,
    Unqueued,
    Watch,
    Welcome,
)
from .version import PROTOCOL_VERSION

#: Clock samples kept (the best round trip among them is used).
CLOCK_SAMPLES = 8
#: Frames per second by which the lean-ahead after a late input fades.
CATCH_UP_DECAY = 2.0
#: Stamps remembered with the lean they were made with (enough for the inputs in flight).
STAMPS_KEPT = 64


class ClientSession:
    """One client's protocol state across connections (a reconnect keeps it and calls `resume`)."""

    def __init__(
        self,
        token: str | None = None,
        *,
        client: str = "",
        validate: bool = True,
        keep_log: bool = True,
        max_message_bytes: int = MAX_SERVER_MESSAGE_BYTES,
    ) -> None:
        self.token = token
        self.client = client
        self.validate = validate
        self.keep_log = keep_log
        self.max_message_bytes = max_message_bytes
        self.welcome: Welcome | None = None
        self.joined: Joined | None = None
        self.status: Status | None = None
        self.over: Over | None = None
        #: The ranked queue: the last `queued`, `unqueued` and `matched`, and every `rated`.
        self.queued: Queued | None = None
        self.unqueued: Unqueued | None = None
        self.matched: Matched | None = None
        self.rated: list[Rated] = []
        #: Rematches: the last offer, refusal and made rematch heard.
        self.rematch_offer: RematchOffer | None = None
        self.rematch_refused: RematchRefused | None = None
        self.rematch_ready: RematchReady | None = None
        self.match: str | None = None
        self.role: str | None = None
        #: The last stream number seen, and how many times a number was skipped (never, from a sound server).
        self.last_n = 0
        self.gaps = 0
        #: Frames as they stand: frame → {"frame", "events", "actors", "inputs"} (when keep_log).
        self.frames: dict[int, dict[str, Any]] = {}
        self.confirmed = 0
        self.keyframes: dict[int, Keyframe] = {}
        self.resyncs: list[Resync] = []
        self.rewinds = 0
        self.errors: list[Error] = []
        self.late: list[InputLate] = []
        self.next_stamp = 0
        #: The run gathered and not sent yet: its first frame and its bytes.
        self._run_start = 0
        self._run: list[int] = []
        #: The byte of the last frame stamped (sent or gathered): a different byte is a change.
        self._last_byte: int | None = None
        self._pings: dict[int, float] = {}
        self._next_ping = 1
        self._samples: deque[tuple[float, float]] = deque(maxlen=CLOCK_SAMPLES)
        self._latest: tuple[int, float] | None = None
        #: Frames added to the estimate after the server reported late inputs (decays, see `_apply`).
        self._catch_up = 0.0
        self._catch_up_at = 0.0
        #: (first frame stamped, how far its stamp led the unleaned estimate), in frame order: what
        #: `input-late` is measured against.
        self._stamped: deque[tuple[int, float]] = deque(maxlen=STAMPS_KEPT)
        #: The `join` asked for the match's state in every resync (see protocol/messages.py `Resync`).
        self.replica = False

    # ---- what to send --------------------------------------------------------------------------------

    def hello(self) -> bytes:
        """The handshake: the protocol version and this client's token."""
        return encode(Hello(version=PROTOCOL_VERSION, token=self.token, client=self.client))

    def join(self, match: str, since: int | None = None, replica: bool | None = None) -> bytes:
        """Play `match` in the seat the token holds (`replica`: resyncs carry the match's state; None:
        as `self.replica` says)."""
        self.match, self.role = match, "player"
        if replica is not None:
            self.replica = replica
        return encode(Join(match=match, since=since, replica=self.replica))

    def watch(self, match: str, since: int | None = None) -> bytes:
        """Spectate `match`."""
        self.match, self.role = match, "spectator"
        return encode(Watch(match=match, since=since))

    def resume(self) -> bytes:
        """After a reconnect (and a new hello): rejoin the same match where the stream was left."""
        assert self.match is not None, "resume() before join() or watch()"
        if self.role == "spectator":
            return encode(Watch(match=self.match, since=self.last_n))
        return encode(Join(match=self.match, since=self.last_n, replica=self.replica))

    def leave(self) -> bytes:
        """Leave the match for good (a player forfeits)."""
        return encode(Leave())

    def queue(self, ruleset: str | None = None) -> bytes:
        """Join the ranked queue of `ruleset` (None: the server's); a `matched` says which match to `join`."""
        return encode(Queue(ruleset=ruleset))

    def unqueue(self) -> bytes:
        """Leave the ranked queue."""
        return encode(Unqueue())

    def rematch(self, match: str) -> bytes:
        """Offer a rematch of the ended `match` (or accept the other player's waiting offer)."""
        return encode(Rematch(match=match))

    def answer_rematch(self, match: str, accept: bool) -> bytes:
        """Accept or decline the other player's rematch offer of `match`."""
        return encode(RematchAnswer(match=match, accept=accept))

    def ping(self, now: float) -> bytes:
        """A clock-sync ping; its pong updates the estimate of the server's frame."""
        ping_id = self._next_ping
        self._next_ping += 1
        self._pings[ping_id] = now
        if len(self._pings) > 4 * CLOCK_SAMPLES:  # unanswered pings must not pile up
            del self._pings[min(self._pings)]
        return encode(Ping(id=ping_id % (MAX_PING_VALUE + 1), t=int(now * 1000) % (MAX_PING_VALUE + 1)))

    def stamp(self, now: float) -> int | None:
        """The frame an input made now should carry: the server's frame plus the input delay, never reused."""
        estimate = self.server_frame(now)
        if estimate is None or self.welcome is None:
            return None
        frame = max(self.next_stamp, int(estimate) + self.welcome.input_delay)
        # The server refuses a stamp `max_ahead` past its own frame: the estimate without the lean (a
        # lean built by `input-late` answers while the server's rollback floor ran ahead, after a
        # stall or a takeover, must not carry stamps past what it takes).
        present = int(estimate - self.lean(now))
        return min(frame, max(self.next_stamp, present + self.welcome.max_ahead - 1))

    def input(self, value: int, now: float) -> list[bytes]:
        """Hold `value` from the next frame to stamp through `stamp(now)`; the `input` messages now due.

        Every frame from the last one stamped (or the server's next frame, if that is later) to
        `stamp(now)` gets `value`'s direction, the kick only the first. Empty while the server's frame
        is not known yet or the run is still gathering.
        """
        target = self.stamp(now)
        estimate = self.server_frame(now)
        if target is None or estimate is None:
            return []
        # Frames the server has simulated already are left to its prediction (the held byte anyway).
        first = target if self._last_byte is None else max(self.next_stamp, int(estimate) + 1)
        # How far ahead of the unleaned estimate this stamp is (the lean, or more while earlier stamps,
        # which never go back, keep it further ahead): what an `input-late` for it is measured against.
        assert self.welcome is not None
        self._stamped.append((first, target - (estimate - self.lean(now)) - self.welcome.input_delay))
        out: list[bytes] = []
        if self._run and first != self._run_start + len(self._run):
            out += self.flush()  # frames were skipped: the gathered run cannot go on
        kept = held(value)
        changed = self._last_byte is None or value != kept or kept != held(self._last_byte)
        if not self._run:
            self._run_start = first
        self._run.append(value)
        self._run.extend([kept] * (target - first))
        self._last_byte = self._run[-1]
        self.next_stamp = target + 1
        batch = self.welcome.input_batch if self.welcome is not None else 1
        if changed or len(self._run) >= batch:
            out += self.flush()  # in messages of at most MAX_INPUT_RUN bytes
        return out

    def flush(self) -> list[bytes]:
        """The gathered run as `input` messages now (none when nothing is gathered)."""
        out: list[bytes] = []
        while self._run:
            run = self._run[:MAX_INPUT_RUN]
            del self._run[:MAX_INPUT_RUN]
            out.append(encode(Input(frame=self._run_start, inputs=run)))
            self._run_start += len(run)
        return out

    def input_at(self, frame: int, value: int) -> bytes:
        """One input byte for an explicit frame (tests use it to arrive late or early on purpose)."""
        self.next_stamp = max(self.next_stamp, frame + 1)
        self._last_byte = value
        return encode(Input(frame=frame, inputs=[value]))

    # ---- what arrives ----------------------------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> list[ServerMessage]:
        """Decode one websocket message from the server (one or more messages) and update the state.

        A bad message becomes an Error message in its place.
        """
        try:
            decoded = decode_server_messages(data, self.max_message_bytes, self.validate)
        except ProtocolError as error:
            decoded = [error]
        messages = [item.to_message() if isinstance(item, ProtocolError) else item for item in decoded]
        for message in messages:
            self._apply(message, now)
        return messages

    @property
    def heard_frame(self) -> int | None:
        """The newest frame the server was heard publishing (None before any): it is past this one."""
        return self._latest[0] if self._latest is not None else None

    def server_frame(self, now: float) -> float | None:
        """The estimated match frame the server is on at `now` (None until a pong or a frame arrives)."""
        rate = self.welcome.frame_rate if self.welcome is not None else None
        if rate is None:
            return None
        best: float | None = None
        if self._samples:
            _, offset = min(self._samples)
            best = offset + now * rate
        if self._latest is not None:
            frame, seen = self._latest
            floor = frame + 1 + (now - seen) * rate
            best = floor if best is None else max(best, floor)
        if best is not None:
            best += self.lean(now)
        return best

    def lean(self, now: float) -> float:
        """Frames the estimate leans ahead at `now` after late inputs (fading by CATCH_UP_DECAY a second)."""
        return max(0.0, self._catch_up - (now - self._catch_up_at) * CATCH_UP_DECAY)

    def _stamped_lean(self, frame: int) -> float:
        """How far the stamp `frame` led the unleaned estimate when it was made: the lean then, or more
        while the stamps before it kept it ahead (0 for one stamped before any kept)."""
        lean = 0.0
        for first, stamped in self._stamped:
            if first > frame:
                break
            lean = stamped
        return lean

    def _apply(self, message: ServerMessage, now: float) -> None:
        match message:
            case Welcome():
                self.welcome = message
            case Joined():
                self.joined = message
                self.match, self.role = message.match, message.role
            case Status():
                self.status = message
            case Frame():
                self._number(message.n)
                if self.keep_log:
                    self.frames[message.frame] = {
                        "frame": message.frame,
                        "events": message.events,
                        "actors": message.actors,
                        "inputs": message.inputs,
                    }
                self.confirmed = max(self.confirmed, message.confirmed)
                if self._latest is None or message.frame >= self._latest[0]:
                    self._latest = (message.frame, now)
            case Rewind():
                self._number(message.n)
                self.rewinds += 1
                for frame in [f for f in self.frames if f >= message.frame]:
                    del self.frames[frame]
            case Keyframe():
                self._number(message.n)
                self.keyframes[message.frame] = message
            case Resync():
                self.last_n = message.n
                self.resyncs.append(message)
                self.keyframes[message.frame] = Keyframe(
                    n=message.n, frame=message.frame, view=message.view, checksum=message.checksum
                )
                for frame in [f for f in self.frames if f >= message.frame]:
                    del self.frames[frame]
                for body in message.frames:
                    if self.keep_log:
                        self.frames[body["frame"]] = body
                    self._latest = (body["frame"], now)
                self.confirmed = max(self.confirmed, message.confirmed)
            case Over():
                self._number(message.n)
                self.over = message
            case Pong():
                sent = self._pings.pop(message.id, None)
                if sent is not None and message.frame >= 0 and self.welcome is not None:
                    rtt = max(0.0, now - sent)
                    rate = self.welcome.frame_rate
                    self._samples.append((rtt, message.frame + rtt / 2 * rate - now * rate))
            case InputLate():
                self.late.append(message)
                # When that input was stamped, its stamp was `applied - frame` frames too early: lean
                # that much further than the stamp led then (not than the lean now: later inputs were
                # stamped alike, and their own input-late reports the same lateness), then ease off.
                needed = self._stamped_lean(message.frame) + (message.applied - message.frame)
                self._catch_up = max(self.lean(now), float(needed))
                self._catch_up_at = now
            case Error():
                self.errors.append(message)
            case Queued():
                self.queued, self.unqueued = message, None
            case Unqueued():
                self.unqueued = message
            case Matched():
                self.matched = message
            case Rated():
                self.rated.append(message)
            case RematchOffer():
                self.rematch_offer, self.rematch_refused = message, None
            case RematchRefused():
                self.rematch_offer, self.rematch_refused = None, message
            case RematchReady():
                self.rematch_offer, self.rematch_ready = None, message
            case _:
                assert_never(message)

    def _number(self, n: int) -> None:
        if n != self.last_n + 1:
            self.gaps += 1
        self.last_n = n

    # ---- reading the log -------------------------------------------------------------------------------

    def events_by_frame(self) -> list[tuple[int, list[dict[str, Any]]]]:
        """The log as it stands: (frame, events) in frame order."""
        return [(frame, self.frames[frame]["events"]) for frame in sorted(self.frames)]
