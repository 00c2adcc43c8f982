"""A client's side of the protocol, sans-I/O: build the bytes to send, feed it what arrives.

Bots, the tests and the benchmark drive the server through this class; a socket is their business:

    session = ClientSession(token)
    ws.send(session.hello()); ws.send(session.join(match_id))
    for data in ws:                              # every binary frame the server sends
        for message in session.receive(data, now=time.monotonic()):
            ...                                  # Welcome, Joined, Frame, Rewind, Keyframe, Over, ...
        ws.send(session.input(0x03, now=time.monotonic()))   # stamped: server frame + input delay

It keeps the stream's state: the last stream number seen (for `resume()` after a reconnect), the
frames as they stand after rewinds and resyncs, the keyframes, the result; and the clock: `ping`/
`pong` samples (the one with the smallest round trip wins) plus the newest frame record give an
estimate of the server's current match frame, from which `input()` stamps frames `input_delay` ahead;
when the server reports an input as late (`input-late`), the estimate leans ahead by that lateness,
fading out over the following seconds.
Time is an argument (`now`, seconds on any monotonic clock): the class reads no clock itself.
"""

from __future__ import annotations

from collections import deque
from typing import Any, assert_never

from .codec import ProtocolError, decode_server, encode
from .limits import MAX_SERVER_MESSAGE_BYTES
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
    Over,
    Ping,
    Pong,
    Resync,
    Rewind,
    ServerMessage,
    Status,
    Watch,
    Welcome,
)
from .version import PROTOCOL_VERSION

#: Clock samples kept (the best round trip among them is used).
CLOCK_SAMPLES = 8
#: Frames per second by which the lean-ahead after a late input fades.
CATCH_UP_DECAY = 2.0


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
        self._pings: dict[int, float] = {}
        self._next_ping = 1
        self._samples: deque[tuple[float, float]] = deque(maxlen=CLOCK_SAMPLES)
        self._latest: tuple[int, float] | None = None
        #: Frames added to the estimate after the server reported late inputs (decays, see `_apply`).
        self._catch_up = 0.0
        self._catch_up_at = 0.0

    # ---- what to send --------------------------------------------------------------------------------

    def hello(self) -> bytes:
        """The handshake: the protocol version and this client's token."""
        return encode(Hello(version=PROTOCOL_VERSION, token=self.token, client=self.client))

    def join(self, match: str, since: int | None = None) -> bytes:
        """Play `match` in the seat the token holds."""
        self.match, self.role = match, "player"
        return encode(Join(match=match, since=since))

    def watch(self, match: str, since: int | None = None) -> bytes:
        """Spectate `match`."""
        self.match, self.role = match, "spectator"
        return encode(Watch(match=match, since=since))

    def resume(self) -> bytes:
        """After a reconnect (and a new hello): rejoin the same match where the stream was left."""
        assert self.match is not None, "resume() before join() or watch()"
        if self.role == "spectator":
            return encode(Watch(match=self.match, since=self.last_n))
        return encode(Join(match=self.match, since=self.last_n))

    def leave(self) -> bytes:
        """Leave the match for good (a player forfeits)."""
        return encode(Leave())

    def ping(self, now: float) -> bytes:
        """A clock-sync ping; its pong updates the estimate of the server's frame."""
        ping_id = self._next_ping
        self._next_ping += 1
        self._pings[ping_id] = now
        if len(self._pings) > 4 * CLOCK_SAMPLES:  # unanswered pings must not pile up
            del self._pings[min(self._pings)]
        return encode(Ping(id=ping_id, t=int(now * 1000) & 0x7FFFFFFF))

    def stamp(self, now: float) -> int | None:
        """The frame an input made now should carry: the server's frame plus the input delay, never reused."""
        estimate = self.server_frame(now)
        if estimate is None or self.welcome is None:
            return None
        frame = max(self.next_stamp, int(estimate) + self.welcome.input_delay)
        return min(frame, max(self.next_stamp, int(estimate) + self.welcome.max_ahead - 1))

    def input(self, value: int, now: float) -> bytes | None:
        """An input byte stamped `stamp(now)`; None while the server's frame is not known yet."""
        frame = self.stamp(now)
        if frame is None:
            return None
        return self.input_at(frame, value)

    def input_at(self, frame: int, value: int) -> bytes:
        """An input byte for an explicit frame (tests use it to arrive late or early on purpose)."""
        self.next_stamp = max(self.next_stamp, frame + 1)
        return encode(Input(frame=frame, input=value))

    # ---- what arrives ----------------------------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> list[ServerMessage]:
        """Decode one frame from the server and update the state; a bad frame becomes an Error message."""
        try:
            message = decode_server(data, self.max_message_bytes, self.validate)
        except ProtocolError as error:
            message = error.to_message()
        self._apply(message, now)
        return [message]

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
            best += max(0.0, self._catch_up - (now - self._catch_up_at) * CATCH_UP_DECAY)
        return best

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
                # The estimate was behind the server by at least this much: lean ahead, then ease off.
                current = max(0.0, self._catch_up - (now - self._catch_up_at) * CATCH_UP_DECAY)
                self._catch_up = max(current, float(message.applied - message.frame))
                self._catch_up_at = now
            case Error():
                self.errors.append(message)
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
