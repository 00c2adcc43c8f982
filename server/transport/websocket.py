"""One websocket on floe's listener: websockets' sans-I/O `ServerProtocol` driven by an asyncio protocol.

Once the listener (server/transport/listener.py) has read a request head for `/ws`, this protocol owns
the socket, following websockets' guide "Integrate the Sans-I/O layer":

- the handshake: the URL's `match` query (`/ws?match=<id>`, server/transport/pinning.py: a malformed
  one gets HTTP 400 `malformed`; the session then follows only that match), the Origin check
  (`origin_allowed`; an origin not allowed gets HTTP 403 with a typed error body), then websockets'
  `accept`, which refuses a bad upgrade with its own status. No extension is offered, so
  permessage-deflate is never negotiated;
- reading: what the socket gives is parsed a slice (READ_SLICE bytes) at a time, and every frame of a
  slice, whatever its kind (pings, pongs, continuations and the close too), is charged with its bytes
  to the connection's `FrameBudget` (server/transport/budget.py: `ws_frame_rate`, `ws_frame_burst`,
  `ws_byte_rate`, `ws_byte_burst`) before any of them is handled; a connection that overspends gets a
  fatal `rate-limited` error and is failed (close code 1008): the rest of what it sent is dropped
  unparsed and its socket is not read again (dropped at `ws_close_timeout`). Past
  `ws_frames_per_read` frames in one read, the rest waits for the loop's next turn (the socket is
  not read meanwhile). Each complete message goes to the connection's `Reader` by a plain
  call, text ones as str (the session answers those with a typed error; text that is not UTF-8 closes
  the connection, code 1007); a message past `ws_max_bytes` makes the protocol fail the connection
  (close code 1009);
- answers to the client's frames (pongs, the close) are bounded like the stream: while the socket
  holds more than `send_buffer_bytes` the client has not read, the socket is not read either (so no
  ping is answered), and a client that stays past that bound for `ws_unread_timeout` is dropped;
- writing: this object is the connection's `DirectTransport`: a batch is framed and written to the
  socket at once, and the socket's unsent bytes tell the connection when its client is too slow;
- the hello deadline: a websocket that has not said `hello` within `hello_timeout` of its handshake
  is closed (policy, with a fatal `hello-first` error), even while it answers pings; one that said
  hello but follows no match and waits in no queue for `ws_idle_timeout` is closed too (fatal `idle`);
- the lag probe: every `lag_probe_every` a ping of its own (browsers answer pings by themselves) whose
  pong gives the connection's round trip, smoothed (LAG_SMOOTHING), for `status.lag`;
- closing: once a close has started (either side, or a failure), the peer has `ws_close_timeout` to
  finish it before the socket is dropped; a keepalive ping every `ws_ping_interval` that gets no pong
  within `ws_ping_timeout` fails the connection (1011).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable

from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from protocol.codec import error_message
from protocol.errors import CloseCode, ErrorCode

from ..logs import log_event
from ..match.dispatch import Dispatcher
from .budget import FrameBudget
from .connection import Connection
from .pinning import pinned_match
from .refusal import refusal
from .settings import TransportSettings
from .ws import Reader, origin_allowed

log = logging.getLogger("floe.ws")
#: websockets' own log lines (connection open, closed, rejected) for this listener's connections.
PROTOCOL_LOG = logging.getLogger("floe.ws.protocol")

OPEN = State.OPEN
#: The close code of a connection whose keepalive ping went unanswered (1011, as uvicorn used).
KEEPALIVE_FAILED = 1011
BINARY, TEXT, CONTINUATION, PONG = Opcode.BINARY, Opcode.TEXT, Opcode.CONT, Opcode.PONG
#: Bytes handed to the websocket parser at a time: a slice holds at most 170 frames (6 bytes is the
#: smallest a client can send), so a frame is charged at most one slice's parsing after it arrived.
READ_SLICE = 1024
#: The weight of a new round-trip sample in the smoothed lag (an exponential moving average): a spike
#: moves the shown lag a quarter of the way, a lasting change shows within a few probes.
LAG_SMOOTHING = 0.25
#: The first bytes of a lag probe's ping payload (the keepalive's is 4 random bytes).
PROBE_PREFIX = b"lag:"


class WebSocketSession(asyncio.Protocol):
    """A websocket from its handshake to its close, and the direct transport of its connection."""

    def __init__(
        self,
        transport: asyncio.Transport,
        peer: str,
        settings: TransportSettings,
        dispatcher: Dispatcher,
        forget: Callable[[asyncio.Transport], None],
    ) -> None:
        """`forget` tells the listener the socket is gone."""
        self._transport = transport
        self._dispatcher = dispatcher
        self._forget = forget
        self._config = settings
        self._loop = asyncio.get_running_loop()
        self.peer = peer
        self.protocol = ServerProtocol(max_size=self._config.ws_max_bytes, logger=PROTOCOL_LOG)
        #: The connection and its reader, once the handshake succeeded.
        self.conn: Connection | None = None
        self._reader: Reader | None = None
        #: The frames of a fragmented message so far, and whether it is text.
        self._fragments: list[bytes] = []
        self._fragmented_text = False
        #: Set once the socket is dropped or lost: nothing more is written to it.
        self._gone = False
        self._close_timer: asyncio.TimerHandle | None = None
        self._keepalive: asyncio.TimerHandle | None = None
        self._hello_timer: asyncio.TimerHandle | None = None
        self._ping_payload: bytes | None = None
        #: The lag probe: its timer, the payload of the probe in flight and when it was sent.
        self._probe_timer: asyncio.TimerHandle | None = None
        self._probe_payload: bytes | None = None
        self._probe_sent = 0.0
        self._probes = 0
        self._idle_timer: asyncio.TimerHandle | None = None
        #: When the connection last followed a match or waited in the queue (the idle deadline's start).
        self._busy_at = 0.0
        config = self._config
        self.budget = FrameBudget(config.ws_frame_rate, config.ws_frame_burst, config.ws_byte_rate,
                                  config.ws_byte_burst, self._loop.time())
        #: Bytes read but not parsed yet (past `ws_frames_per_read` in one read), and the call that
        #: parses them on the loop's next turn.
        self._pending = b""
        self._continue: asyncio.Handle | None = None
        #: The socket holds more than `send_buffer_bytes` unsent (asyncio's pause_writing): no reading.
        self._write_blocked = False
        self._unread_timer: asyncio.TimerHandle | None = None
        #: Set once the connection overspent its budget: what it still sends is dropped unparsed.
        self._refusing = False
        #: The most bytes the socket held unsent after an answer to the client's frames, and the most
        #: frames one read handled.
        self.peak_buffered = 0
        self.peak_frames_per_read = 0
        #: Why the server ended the connection, if it did so for a bound of this module.
        self.ended_for: str | None = None
        transport.set_write_buffer_limits(high=config.send_buffer_bytes)

    def start(self, received: bytes) -> None:
        """Take the socket over with the bytes read so far: the request head and whatever followed it."""
        self.data_received(received)

    # ---- asyncio.Protocol ----------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self._refusing:
            return  # the connection overspent: nothing it sends is parsed any more (a read under way)
        if self._pending:  # a read that came while the last one's rest waits: it queues behind it
            self._pending += data
            return
        self._consume(data)
        if self._pending:
            self._continue_soon()

    def _consume(self, data: bytes) -> None:
        """Parse `data` a slice at a time, charging each slice's frames before handling them; past
        `ws_frames_per_read` frames the rest is kept in `_pending` and reading pauses."""
        protocol, budget, loop = self.protocol, self.budget, self._loop
        size, start, handled = len(data), 0, 0
        try:
            while start < size:
                piece = data if size <= READ_SLICE else data[start : start + READ_SLICE]
                start += len(piece)
                protocol.receive_data(piece)
                events = protocol.events_received()
                frames = len(events) if self.conn is not None else sum(type(e) is Frame for e in events)
                if not budget.charge(frames, len(piece), loop.time()):
                    self._overspent()
                    return
                for event in events:
                    if type(event) is Frame:
                        # The hot path first: a whole binary message for the reader.
                        if event.opcode is BINARY and event.fin and self._reader is not None:
                            self._reader.receive(bytes(event.data))
                        else:
                            self._frame(event)
                    elif isinstance(event, Request):
                        self._handshake(event)
                handled += frames
                if handled >= self._config.ws_frames_per_read and start < size:
                    self._pending = data[start:]
                    self._transport.pause_reading()
                    break
            if handled > self.peak_frames_per_read:
                self.peak_frames_per_read = handled
            writes = protocol.data_to_send()
            if writes:
                self._write_all(writes)
        except Exception:  # noqa: BLE001 - a broken connection must never take the process down
            log_event(log, logging.ERROR, "ws.failed", exc_info=True, peer=self.peer)
            self._drop()

    def _continue_soon(self) -> None:
        """Parse the rest of the last read on the loop's next turn (unless the socket must wait)."""
        if self._continue is None and not (self._gone or self._refusing or self._write_blocked):
            self._continue = self._loop.call_soon(self._read_pending)

    def _read_pending(self) -> None:
        self._continue = None
        if self._gone or self._refusing or self._write_blocked:
            return
        data, self._pending = self._pending, b""
        self._consume(data)
        if self._pending:
            self._continue_soon()
        elif not (self._gone or self._refusing or self._write_blocked):
            self._transport.resume_reading()

    def _overspent(self) -> None:
        """The connection sent more frames or bytes than its budget: a fatal `rate-limited` error, the
        connection failed (1008), and nothing more it sends is parsed."""
        self._refusing = True
        self._pending = b""
        self.ended_for = "overspent"
        self._transport.pause_reading()  # its close reply is not awaited: the close timeout drops it
        budget, config = self.budget, self._config
        self.protocol.data_to_send()  # the answers to the refused frames (pongs) are not sent
        log_event(log, logging.WARNING, "ws.overspent", peer=self.peer, frames=budget.frames_charged,
                  bytes=budget.bytes_charged)
        if self.conn is None:
            self._drop()
            return
        message = (f"over {config.ws_frame_rate:g} websocket frames a second (burst "
                   f"{config.ws_frame_burst:g}) or {config.ws_byte_rate:g} bytes a second (burst "
                   f"{config.ws_byte_burst:g})")
        self.conn.close(CloseCode.POLICY, error_message(ErrorCode.RATE_LIMITED, message, fatal=True))
        self.conn.flush()  # the error and the close frame now, before the transport is half-closed
        self.protocol.fail(CloseCode.POLICY, "rate-limited")
        self._write_all(self.protocol.data_to_send())

    def eof_received(self) -> None:
        # The peer closed its side: nothing it sent can be answered any more; the transport closes.
        self.protocol.receive_eof()
        self.protocol.data_to_send()

    def connection_lost(self, exc: Exception | None) -> None:
        self._gone = True
        self.protocol.receive_eof()  # idempotent: the protocol's state becomes CLOSED
        for timer in (self._close_timer, self._keepalive, self._hello_timer, self._idle_timer,
                      self._unread_timer, self._continue, self._probe_timer):
            if timer is not None:
                timer.cancel()
        self._forget(self._transport)
        if self.conn is not None and self._reader is not None:
            self._dispatcher.connections -= 1
            self._reader.closed()
            self.conn.close()

    def pause_writing(self) -> None:
        """The socket holds more than `send_buffer_bytes` unsent: read nothing more (no ping is answered)
        until it drains, and drop the client if it does not read within `ws_unread_timeout`."""
        self._write_blocked = True
        self._transport.pause_reading()
        if self._unread_timer is None:
            self._unread_timer = self._loop.call_later(self._config.ws_unread_timeout, self._unread_due)

    def resume_writing(self) -> None:
        self._write_blocked = False
        if self._unread_timer is not None:
            self._unread_timer.cancel()
            self._unread_timer = None
        if self._pending:
            self._continue_soon()
        elif not (self._gone or self._refusing):
            self._transport.resume_reading()

    def _unread_due(self) -> None:
        self._unread_timer = None
        log_event(log, logging.WARNING, "ws.not-reading", peer=self.peer, buffered=self.buffered(),
                  seconds=self._config.ws_unread_timeout)
        self.ended_for = "not-reading"
        self._drop()

    # ---- DirectTransport (server/transport/connection.py) --------------------------------------------

    def write(self, data: bytes) -> bool:
        """Send one binary message now; False when the socket can no longer send."""
        protocol = self.protocol
        if self._gone or protocol.state is not OPEN:
            return False
        protocol.send_binary(data)
        for chunk in protocol.data_to_send():
            self._transport.write(chunk)
        return True

    def buffered(self) -> int:
        """Bytes written to the socket and not yet taken by the peer."""
        return self._transport.get_write_buffer_size()

    def close(self, code: int) -> None:
        """Start the closing handshake; the socket is dropped if the peer does not finish it in time."""
        if self._gone or self.protocol.state is not OPEN:
            return
        self.protocol.send_close(code)
        self._write_all(self.protocol.data_to_send())

    # ---- the listener's shutdown ---------------------------------------------------------------------

    def shutdown(self) -> None:
        """The server is stopping: close (going away), or drop a socket whose handshake never finished."""
        if self.conn is not None:
            self.conn.close(CloseCode.GOING_AWAY)  # its last batch, then close() above
        else:
            self._drop()

    # ---- inside ----------------------------------------------------------------------------------------

    def _handshake(self, request: Request) -> None:
        protocol = self.protocol
        origins = request.headers.get_all("Origin")
        origin = origins[0] if origins else None
        pinned: str | None = None
        try:
            pinned = pinned_match(request.path)
        except ValueError as error:
            response = refusal(400, ErrorCode.MALFORMED, str(error))
        else:
            if len(origins) <= 1 and not origin_allowed(origin, self._config.allowed_origins):
                log_event(log, logging.WARNING, "ws.origin-refused", origin=origin, peer=self.peer)
                why = f"origin {origin!r} is not allowed (GET /api/origin says which are)"
                response = refusal(403, ErrorCode.ORIGIN, why)
            else:  # accept() refuses several Origin headers and bad upgrades with its own status
                response = protocol.accept(request)
        protocol.send_response(response)
        if response.status_code == 101:
            self._open(pinned)

    def _open(self, pinned: str | None) -> None:
        config, dispatcher = self._config, self._dispatcher
        conn = Connection(self, config.send_queue, self.peer, max_buffered=config.send_buffer_bytes)
        self.conn = conn
        self._reader = Reader(conn, dispatcher, self._loop)
        self._reader.session.pinned = pinned
        dispatcher.connections += 1
        dispatcher.websockets_served += 1
        self._schedule_ping()
        if config.lag_probe_every > 0:
            self._probe_timer = self._loop.call_later(config.lag_probe_every, self._probe)
        self._hello_timer = self._loop.call_later(config.hello_timeout, self._hello_due)
        self._busy_at = self._loop.time()
        self._idle_timer = self._loop.call_later(config.ws_idle_timeout, self._idle_due)

    def _hello_due(self) -> None:
        """The hello deadline: a connection that has not greeted is closed."""
        self._hello_timer = None
        reader, conn = self._reader, self.conn
        if reader is None or conn is None or reader.session.protocol.greeted:
            return
        seconds = self._config.hello_timeout
        log_event(log, logging.INFO, "ws.no-hello", peer=self.peer, seconds=seconds)
        late = error_message(ErrorCode.HELLO_FIRST, f"no hello within {seconds:g} s", fatal=True)
        conn.close(CloseCode.POLICY, late)

    def _idle_due(self) -> None:
        """The idle deadline: a connection that said hello and has since followed no match and waited in
        no queue for `ws_idle_timeout` is closed; one that does is looked at again a deadline later."""
        self._idle_timer = None
        reader, conn = self._reader, self.conn
        if reader is None or conn is None or not conn.open:
            return
        session, now, seconds = reader.session, self._loop.time(), self._config.ws_idle_timeout
        if session.match is not None or self._dispatcher.queued(session) or not session.protocol.greeted:
            self._busy_at = now  # (one that has not greeted is the hello deadline's)
        elif now - self._busy_at >= seconds:
            log_event(log, logging.INFO, "ws.idle", peer=self.peer, seconds=seconds)
            self.ended_for = "idle"
            reason = f"no match followed and no queue waited in for {seconds:g} s"
            idle = error_message(ErrorCode.IDLE, reason, fatal=True)
            conn.close(CloseCode.POLICY, idle)
            return
        self._idle_timer = self._loop.call_later(seconds - (now - self._busy_at), self._idle_due)

    def _frame(self, frame: Frame) -> None:
        """Every frame but a whole binary message: text, fragments, pongs (websockets answers pings
        and close frames itself; their answers are in `data_to_send`)."""
        opcode = frame.opcode
        if opcode is BINARY or opcode is TEXT:
            if frame.fin:
                self._deliver(bytes(frame.data), opcode is TEXT)
            else:
                self._fragments = [bytes(frame.data)]
                self._fragmented_text = opcode is TEXT
        elif opcode is CONTINUATION:
            self._fragments.append(bytes(frame.data))
            if frame.fin:
                data = b"".join(self._fragments)
                self._fragments = []
                self._deliver(data, self._fragmented_text)
        elif opcode is PONG:
            self._pong(bytes(frame.data))

    def _deliver(self, data: bytes, text: bool) -> None:
        if self._reader is None:
            return
        if not text:
            self._reader.receive(data)
            return
        try:
            message = data.decode("utf-8")
        except UnicodeDecodeError:
            self._not_utf8()
            return
        self._reader.receive(message)

    def _not_utf8(self) -> None:
        """A text message that is not UTF-8: a fatal `malformed` error and close code 1007 (RFC 6455
        §8.1: the endpoint fails the connection)."""
        if self.conn is None:
            return
        self.ended_for = "not-utf8"
        log_event(log, logging.INFO, "ws.not-utf8", peer=self.peer)
        refused = error_message(ErrorCode.MALFORMED, "a text frame that is not UTF-8", fatal=True)
        self.conn.close(CloseCode.INVALID_DATA, refused)

    def _write_all(self, writes: list[bytes]) -> None:
        """Write what the protocol produced, joined (a flood of pings makes many small pongs); an empty
        chunk is its end of stream (a half-close)."""
        transport = self._transport
        if self._gone:
            return
        chunks: list[bytes] = []
        for data in writes:
            if data:
                chunks.append(data)
                continue
            if chunks:
                transport.write(b"".join(chunks))
                chunks = []
            if transport.can_write_eof():
                # The peer closes its side in answer; uvloop raises RuntimeError on a closing socket.
                with contextlib.suppress(OSError, RuntimeError):
                    transport.write_eof()
            else:
                transport.close()
        if chunks:
            transport.write(chunks[0] if len(chunks) == 1 else b"".join(chunks))
        buffered = transport.get_write_buffer_size()
        if buffered > self.peak_buffered:
            self.peak_buffered = buffered
        if self._close_timer is None and self.protocol.close_expected():
            self._close_timer = self._loop.call_later(self._config.ws_close_timeout, self._close_timed_out)

    def _close_timed_out(self) -> None:
        self._close_timer = None
        log_event(log, logging.INFO, "ws.close-timeout", peer=self.peer)
        self._drop()

    def _drop(self) -> None:
        """Drop the socket now (unsent bytes included): a peer past its time, or a broken connection."""
        self._gone = True
        self._transport.abort()

    def _schedule_ping(self) -> None:
        interval = self._config.ws_ping_interval
        if interval is not None:
            self._keepalive = self._loop.call_later(interval, self._ping)

    def _ping(self) -> None:
        if self._gone or self.protocol.state is not OPEN:
            self._keepalive = None
            return
        self._ping_payload = os.urandom(4)
        self.protocol.send_ping(self._ping_payload)
        self._write_all(self.protocol.data_to_send())
        self._keepalive = self._loop.call_later(self._config.ws_ping_timeout, self._ping_missed)

    def _probe(self) -> None:
        """Send a lag probe (a ping whose pong times the round trip), and schedule the next."""
        if self._gone or self.protocol.state is not OPEN:
            self._probe_timer = None
            return
        self._probes += 1
        self._probe_payload = PROBE_PREFIX + self._probes.to_bytes(4, "big")
        self._probe_sent = self._loop.time()
        self.protocol.send_ping(self._probe_payload)
        self._write_all(self.protocol.data_to_send())
        self._probe_timer = self._loop.call_later(self._config.lag_probe_every, self._probe)

    def _probed(self) -> None:
        """The lag probe's pong: a round-trip sample, folded into the session's smoothed lag."""
        self._probe_payload = None
        sample = (self._loop.time() - self._probe_sent) * 1000
        if self._reader is not None:
            session = self._reader.session
            old = session.lag_ms
            session.lag_ms = round(sample if old is None else old + LAG_SMOOTHING * (sample - old))

    def _pong(self, payload: bytes) -> None:
        if self._probe_payload is not None and payload == self._probe_payload:
            self._probed()
            return
        if self._ping_payload is None or payload != self._ping_payload:
            return  # unsolicited, or an answer to an older ping
        self._ping_payload = None
        if self._keepalive is not None:
            self._keepalive.cancel()
        self._schedule_ping()

    def _ping_missed(self) -> None:
        self._keepalive = None
        log_event(log, logging.WARNING, "ws.ping-timeout", peer=self.peer)
        self.protocol.fail(KEEPALIVE_FAILED, "keepalive ping timeout")
        self._write_all(self.protocol.data_to_send())
