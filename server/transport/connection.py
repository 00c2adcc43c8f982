"""One client connection's way out: a bounded send queue flushed to a transport that never waits.

Everything that sends to a client (the match loop fanning out a frame, a handler answering a
message) calls `send`/`send_bytes`, which only appends: nothing waits on a slow socket. The first
message queued schedules one flush right after the current callback (`loop.call_soon`), and what is
queued by then goes out as one websocket message (the messages back to back, up to BATCH_BYTES): a
match's tick queues several stream records at once, and one websocket message for them costs the
server a fraction of one per record.

A client too slow to follow the stream is dropped (its queue is emptied, a fatal `slow-consumer`
error and a close are queued) instead of growing memory without bound: when more than `queue_size`
messages wait for one flush, or when its socket holds more than `max_buffered` bytes it has not read.

The transport is injected (`DirectTransport`: write without waiting, the bytes still unsent, close;
server/transport/websocket.py's WebSocketSession), so the queueing is tested without sockets.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Protocol

from protocol.codec import encode, error_message
from protocol.errors import CloseCode, ErrorCode
from protocol.messages import ServerMessage

from ..logs import log_event

log = logging.getLogger("floe.connection")

#: A websocket message joins queued messages up to this many bytes (one bigger message goes alone).
BATCH_BYTES = 64 * 1024

#: Bytes a direct transport may hold unsent before its client counts as too slow.
MAX_BUFFERED_BYTES = 1024 * 1024


class DirectTransport(Protocol):
    """A socket that sends without waiting (server/transport/websocket.py's WebSocketSession)."""

    def write(self, data: bytes) -> bool:
        """Send one message now; False when the socket can no longer send."""
        ...

    def buffered(self) -> int:
        """Bytes written and not yet taken by the peer."""
        ...

    def close(self, code: int) -> None:
        """Start closing with this code."""
        ...


class Connection:
    """A client's outgoing side (the session, server/match/session.py, holds what it is bound to)."""

    def __init__(
        self,
        direct: DirectTransport,
        queue_size: int,
        peer: str = "",
        max_buffered: int = MAX_BUFFERED_BYTES,
    ) -> None:
        self._direct = direct
        self._max_buffered = max_buffered
        self._flush_scheduled = False
        #: Encoded messages waiting for the flush; None is the close.
        self._queue: deque[bytes | None] = deque()
        self._queue_size = queue_size
        self.peer = peer
        self.open = True
        self.close_code: int = CloseCode.NORMAL
        self.bytes_sent = 0
        self.messages_sent = 0

    def send(self, message: ServerMessage) -> bool:
        """Queue a message; False if the connection is closing or was just dropped for being slow."""
        return self.send_bytes(encode(message))

    def send_bytes(self, data: bytes) -> bool:
        """Queue encoded bytes without waiting."""
        if not self.open:
            return False
        if len(self._queue) >= self._queue_size:
            self._drop_slow()
            return False
        self._queue.append(data)
        self._kick()
        return True

    def close(self, code: int = CloseCode.NORMAL, message: ServerMessage | None = None) -> None:
        """Queue a last message (if any) and the close; later sends are refused."""
        if not self.open:
            return
        if message is not None:
            self.send(message)
        self.open = False
        self.close_code = code
        self._queue.append(None)
        self._kick()

    def _kick(self) -> None:
        """Get what was queued moving: one flush, right after the current callback."""
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Write everything queued to the transport now (after the callback that queued it)."""
        self._flush_scheduled = False
        direct = self._direct
        while True:
            data, closing = self.take_batch()
            if data is not None:
                if not direct.write(data):
                    self.open = False
                    self._queue.clear()
                    return
                self.bytes_sent += len(data)
            if closing:
                self._queue.clear()
                direct.close(self.close_code)
                return
            if data is None:
                break
        if self.open and direct.buffered() > self._max_buffered:
            self._drop_slow()

    def _drop_slow(self) -> None:
        self._queue.clear()
        log_event(log, logging.WARNING, "connection.slow", peer=self.peer, queue=self._queue_size)
        self._queue.append(
            encode(
                error_message(
                    ErrorCode.SLOW_CONSUMER,
                    "the client does not read fast enough to follow the stream",
                    fatal=True,
                )
            )
        )
        self.open = False
        self.close_code = CloseCode.TRY_AGAIN
        self._queue.append(None)
        self._kick()

    def take_batch(self) -> tuple[bytes | None, bool]:
        """What the flush writes next: the queued messages joined up to BATCH_BYTES, and whether the close
        follows them. (None, False) when nothing is queued."""
        queue = self._queue
        parts: list[bytes] = []
        size = 0
        while queue:
            item = queue[0]
            if item is None:
                queue.popleft()
                return (b"".join(parts) if parts else None), True
            if parts and size + len(item) > BATCH_BYTES:
                break
            parts.append(item)
            size += len(item)
            queue.popleft()
        if not parts:
            return None, False
        self.messages_sent += len(parts)
        return (parts[0] if len(parts) == 1 else b"".join(parts)), False
