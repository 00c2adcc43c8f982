"""One HTTP request relayed from the public port to uvicorn on its private unix socket, and the answer back.

The listener has read the request head (server/transport/head.py) and knows the peer; the relay:

- connects to uvicorn's socket (server/transport/upstream.py) and writes the head again, rebuilt:
  the client's headers less the hop-by-hop ones and any forwarding header the client sent, plus
  `X-Forwarded-For: <peer>` (uvicorn trusts it because only the listener can reach that socket:
  server/embed.py) and `Connection: close`; one request per connection to uvicorn, so every
  request's head is read by floe;
- streams the body as h11 decodes it, framed anew (the same Content-Length, or canonical chunks), so
  uvicorn's parser can never disagree with floe's about where the request ends, and answers
  `Expect: 100-continue` itself; the app bounds bodies, and back pressure bounds what waits here;
- copies uvicorn's answer back (pausing uvicorn's socket while the client's is full), its head
  rewritten only in `Connection`: a client that keeps its connection alive (HTTP/1.1 without
  `Connection: close`) gets it back for its next request, whose head the listener reads afresh
  (pipelined requests included, in order); any other is closed once the answer is sent, and one
  answered before its body was all sent is told `Connection: close` and lingers to drain it
  (server/transport/refusal.py);
- drops both sockets after `http_idle_timeout` seconds without a byte either way.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

import h11

from protocol.errors import ErrorCode

from ..logs import log_event
from .head import RequestHead
from .refusal import linger, refusal, refuse
from .settings import TransportSettings
from .tracking import Tracker
from .upstream import Upstream

log = logging.getLogger("floe.relay")

#: Request headers that never cross the relay: hop-by-hop ones (RFC 9110 §7.6.1), the body framing
#: and `Expect` (the relay deals with both), and every claim about the client's address or scheme but
#: the listener's own.
DROPPED_HEADERS = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-connection",
        b"upgrade",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"content-length",
        b"expect",
        b"forwarded",
        b"x-real-ip",
    }
)
FORWARDING_PREFIX = b"x-forwarded-"
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
#: Bytes of uvicorn's answer head the relay reads to rewrite it (uvicorn's heads are far smaller; one
#: that is not is passed on as it is, and the client's connection closes after it).
MAX_ANSWER_HEAD = 64 * 1024


class RelayHost(Tracker, Protocol):
    """What a relay needs of the listener that made it."""

    config: TransportSettings
    #: uvicorn's private unix socket.
    upstream_path: str
    #: True once the server is shutting down (uvicorn may be gone: not an error then).
    stopping: bool

    def next_request(self, transport: asyncio.Transport, received: bytes) -> None:
        """A kept-alive connection after its answer: read its next request head (starting with the
        bytes already `received` after the last request)."""
        ...


def forwarded_head(head: RequestHead, peer_host: str) -> bytes:
    """The request head uvicorn gets: the client's, cleaned, with the peer's address, one request and
    the body's framing as h11 read it."""
    lines = [b"%s %s HTTP/%s" % (head.method, head.target, head.http_version)]
    for name, value in head.headers:
        lowered = name.lower()
        if lowered not in DROPPED_HEADERS and not lowered.startswith(FORWARDING_PREFIX):
            lines.append(name + b": " + value)
    lines.append(b"X-Forwarded-For: " + peer_host.encode("ascii"))
    lines.append(b"Connection: close")
    if head.chunked:
        lines.append(b"Transfer-Encoding: chunked")
    elif length := head.content_length():
        lines.append(b"Content-Length: %d" % length)
    return b"\r\n".join(lines) + b"\r\n\r\n"


def answer_head(head: bytes, request_method: bytes, keep_alive: bool) -> tuple[bytes, bool]:
    """uvicorn's answer head (without its blank line) as the client gets it, and whether the client's
    connection stays open after the answer: it does when the client asked to keep it and the answer's
    end is known without a close (a length, chunks, or no body)."""
    status_line, *fields = head.split(b"\r\n")
    status = int(status_line.split(b" ", 2)[1])
    names = {field.partition(b":")[0].strip().lower() for field in fields}
    delimited = (
        b"content-length" in names
        or b"transfer-encoding" in names
        or status in (204, 304)
        or request_method == b"HEAD"
    )
    keep = keep_alive and delimited
    kept = [field for field in fields if field.partition(b":")[0].strip().lower() != b"connection"]
    if not keep:
        kept.append(b"connection: close")
    return b"\r\n".join([status_line, *kept]) + b"\r\n\r\n", keep


class HttpRelay(asyncio.Protocol):
    """The client's side of a relayed request (the protocol of its socket after the head was read)."""

    def __init__(
        self,
        transport: asyncio.Transport,
        head: RequestHead,
        parser: h11.Connection,
        peer_host: str,
        host: RelayHost,
    ) -> None:
        """`parser` is the h11 connection that read the head; it holds whatever of the body followed."""
        self._transport = transport
        self._head = head
        self._parser = parser
        self._peer_host = peer_host
        self._host = host
        self._loop = asyncio.get_running_loop()
        self._chunked = head.chunked
        self._request_done = False
        self._keep_alive = head.keep_alive
        #: uvicorn's answer until its head is complete (then None: the rest is copied as it comes).
        self._answer_start: bytearray | None = bytearray()
        self._upstream: Upstream | None = None
        self._client_gone = False
        self._last_activity = self._loop.time()
        self._idle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Connect to uvicorn, send the head and what of the body came with it."""
        self._idle = self._loop.call_later(self._host.config.http_idle_timeout, self._check_idle)
        try:
            self._upstream = Upstream.connect(self._host.upstream_path, self)
        except OSError as error:
            self._unreachable(error)
            return
        self._upstream.write(forwarded_head(self._head, self._peer_host))
        if self._parser.they_are_waiting_for_100_continue:
            self._transport.write(CONTINUE)
        self._forward_body()

    # ---- the client's socket -------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        self._last_activity = self._loop.time()
        self._parser.receive_data(data)  # after the request: the next one's first bytes, kept for it
        self._forward_body()

    def eof_received(self) -> bool:
        # A client may half-close once its request is sent; the answer still goes back. Before that,
        # the request can never complete.
        if self._request_done:
            return True
        self._abort()
        return False

    def pause_writing(self) -> None:
        if self._upstream is not None:
            self._upstream.pause_reading()

    def resume_writing(self) -> None:
        if self._upstream is not None:
            self._upstream.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self._client_gone = True
        self._stop()
        self._host.forget(self._transport)

    def shutdown(self) -> None:
        """The server is stopping: uvicorn finishes the request in flight, so the relay goes on."""

    # ---- uvicorn's socket (UpstreamEvents, server/transport/upstream.py) -----------------------------

    def upstream_data(self, data: bytes) -> None:
        self._last_activity = self._loop.time()
        answer = self._answer_start
        if answer is None:
            self._transport.write(data)
            return
        answer += data
        end = answer.find(b"\r\n\r\n")
        if end < 0:
            if len(answer) > MAX_ANSWER_HEAD:
                self._answer_start, self._keep_alive = None, False
                self._transport.write(answer)
            return
        self._answer_start = None
        # An answer that comes before the request's body was all read (a 413 on its declared length, a
        # refusal before the upload) ends the connection: the rest of the body is drained and dropped
        # (upstream_closed), never read as the next request, and the client is told so.
        keep = self._keep_alive and self._request_done
        head, self._keep_alive = answer_head(bytes(answer[:end]), self._head.method, keep)
        self._transport.writelines([head, answer[end + 4 :]])

    def upstream_closed(self, clean: bool) -> None:
        """uvicorn answered and closed (Connection: close): the client's socket is kept for its next
        request, closed once the answer is sent, or, answered before its body was all sent, left to
        drain it."""
        if self._client_gone:
            return
        self._stop()
        if not self._request_done:
            linger(self._transport, self._host.config.head_timeout, self._host)
        elif self._keep_alive and clean and self._answer_start is None and not self._host.stopping:
            self._host.next_request(self._transport, self._parser.trailing_data[0])
        else:
            self._transport.close()

    def upstream_full(self, full: bool) -> None:
        if full:
            self._transport.pause_reading()
        elif not self._request_done:
            self._transport.resume_reading()

    # ---- inside ----------------------------------------------------------------------------------------

    def _forward_body(self) -> None:
        """Send uvicorn what h11 has decoded of the body, framed anew, up to the request's end."""
        parser, upstream = self._parser, self._upstream
        while not self._request_done and upstream is not None:
            try:
                event = parser.next_event()
            except h11.RemoteProtocolError as error:
                log_event(log, logging.INFO, "relay.bad-body", error=str(error), peer=self._peer_host)
                self._abort()
                return
            if isinstance(event, h11.Data):
                if self._chunked:
                    upstream.write(b"%x\r\n" % len(event.data), event.data, b"\r\n")
                else:
                    upstream.write(event.data)
            elif isinstance(event, h11.EndOfMessage):
                if self._chunked:
                    upstream.write(b"0\r\n\r\n")
                self._request_done = True
                self._transport.pause_reading()  # the next request waits for this one's answer
            else:  # NEED_DATA, or PAUSED after a request that asked to switch protocols
                return

    def _unreachable(self, error: OSError) -> None:
        """uvicorn's socket refused the connection: answer the client instead."""
        if self._host.stopping:
            log_event(log, logging.WARNING, "relay.unreachable", error=str(error), stopping=True)
            answer = refusal(503, ErrorCode.BUSY, "the server is stopping")
        else:
            log_event(log, logging.ERROR, "relay.unreachable", error=str(error))
            answer = refusal(502, ErrorCode.INTERNAL, "the HTTP API is not reachable")
        self._stop()
        refuse(self._transport, answer, self._host.config.head_timeout, self._host)

    def _check_idle(self) -> None:
        timeout = self._host.config.http_idle_timeout
        quiet = self._loop.time() - self._last_activity
        if quiet < timeout:
            self._idle = self._loop.call_later(timeout - quiet, self._check_idle)
            return
        self._idle = None
        log_event(log, logging.INFO, "relay.idle", peer=self._peer_host, seconds=timeout)
        self._abort()

    def _stop(self) -> None:
        """The relay is done: its timer and uvicorn's socket go."""
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        if self._upstream is not None:
            self._upstream.close()

    def _abort(self) -> None:
        self._stop()
        self._transport.abort()
