"""One client connection's way out: a bounded send queue and the one writer task that drains it.

Everything that sends to a client (the match loop fanning out a frame, a handler answering a
message) calls `send`/`send_bytes`, which only `put_nowait`s: nothing waits on a slow socket. A
client whose queue overflows is too slow to follow the stream; it is dropped (its queue is emptied,
a fatal `slow-consumer` error and a close are queued) instead of growing memory without bound.

The transport is injected (`send` and `close` coroutines), so the queueing is tested without sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from protocol.codec import encode, error_message
from protocol.errors import ErrorCode
from protocol.messages import ServerMessage

from .logs import log_event

log = logging.getLogger("floe.connection")

#: Close codes: 1000 normal, 1008 policy violation (hostile or refused), 1013 try again later (slow).
CLOSE_NORMAL = 1000
CLOSE_POLICY = 1008
CLOSE_SLOW = 1013


class Connection:
    """A client's outgoing side, plus what the server bound it to (guest, match, seat)."""

    def __init__(
        self,
        send: Callable[[bytes], Awaitable[None]],
        close: Callable[[int], Awaitable[None]],
        queue_size: int,
        peer: str = "",
    ) -> None:
        self._send = send
        self._close = close
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue(queue_size)
        self.peer = peer
        self.open = True
        self.close_code = CLOSE_NORMAL
        self.bytes_sent = 0
        self.messages_sent = 0
        #: What the connection is bound to, set by the handlers (a guest, a match, a seat or None).
        self.guest: Any = None
        self.match: Any = None
        self.seat: int | None = None
        self.spectator = False

    def send(self, message: ServerMessage) -> bool:
        """Queue a message; False if the connection is closing or was just dropped for being slow."""
        return self.send_bytes(encode(message))

    def send_bytes(self, data: bytes) -> bool:
        """Queue encoded bytes without waiting."""
        if not self.open:
            return False
        try:
            self._queue.put_nowait(data)
        except asyncio.QueueFull:
            self._drop_slow()
            return False
        return True

    def close(self, code: int = CLOSE_NORMAL, message: ServerMessage | None = None) -> None:
        """Queue a last message (if any) and the close; later sends are refused."""
        if not self.open:
            return
        if message is not None:
            self.send(message)
        self.open = False
        self.close_code = code
        self._put_last(None)

    def _drop_slow(self) -> None:
        while not self._queue.empty():
            self._queue.get_nowait()
        log_event(log, logging.WARNING, "connection.slow", peer=self.peer, queue=self._queue.maxsize)
        self._queue.put_nowait(
            encode(
                error_message(
                    ErrorCode.SLOW_CONSUMER,
                    f"the send queue passed {self._queue.maxsize} messages",
                    fatal=True,
                )
            )
        )
        self.open = False
        self.close_code = CLOSE_SLOW
        self._put_last(None)

    def _put_last(self, item: bytes | None) -> None:
        try:
            self._queue.put_nowait(item)
        except asyncio.QueueFull:
            # The close must get through: make room by dropping the oldest queued frame.
            self._queue.get_nowait()
            self._queue.put_nowait(item)

    async def run_writer(self) -> None:
        """Drain the queue into the socket until the close; then close the socket."""
        # A socket that went away ends the writer and nothing else; closing a closed socket is fine.
        try:
            with contextlib.suppress(Exception):
                while True:
                    data = await self._queue.get()
                    if data is None:
                        break
                    await self._send(data)
                    self.bytes_sent += len(data)
                    self.messages_sent += 1
        finally:
            self.open = False
            with contextlib.suppress(Exception):
                await self._close(self.close_code)
