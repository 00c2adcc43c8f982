"""uvicorn's side of a relayed request: a plain non-blocking unix socket driven by the loop's reader and
writer callbacks (`loop.add_reader`, `loop.add_writer`) rather than an asyncio transport.

The difference matters when uvicorn answers before it has read the whole request (a body refused by
its declared length, a busy verifier) and closes its socket: writing the rest of the body then fails.
An asyncio transport takes a failed write as fatal and drops the answer still waiting to be read;
here a failed write only ends the writing, and the answer is read to its end.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Protocol

#: Unsent bytes past which the client's reading is paused, and below which it resumes.
HIGH_WATER = 64 * 1024
LOW_WATER = 16 * 1024
#: Bytes read from uvicorn's socket at a time.
READ_BYTES = 64 * 1024


class UpstreamEvents(Protocol):
    """What the socket tells the relay that opened it."""

    def upstream_data(self, data: bytes) -> None:
        """Bytes of uvicorn's answer."""
        ...

    def upstream_closed(self, clean: bool) -> None:
        """uvicorn closed its side (`clean`: an end of stream, not an error)."""
        ...

    def upstream_full(self, full: bool) -> None:
        """The bytes not yet sent to uvicorn passed HIGH_WATER (True) or fell below LOW_WATER (False)."""
        ...


class Upstream:
    """One connection to uvicorn's unix socket."""

    def __init__(self, sock: socket.socket, events: UpstreamEvents) -> None:
        self._sock = sock
        self._events = events
        self._loop = asyncio.get_running_loop()
        self._fd = sock.fileno()
        self._unsent = bytearray()
        self._writing = False
        self._full = False
        self._reading = True
        self._closed = False
        #: True once a write failed: uvicorn no longer reads what the client sends.
        self.write_failed = False
        self._loop.add_reader(self._fd, self._readable)

    @classmethod
    def connect(cls, path: str, events: UpstreamEvents) -> Upstream:
        """Connect to the unix socket at `path` (at once: a local socket needs no wait); OSError if not."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)
            sock.connect(path)
        except OSError:
            sock.close()
            raise
        return cls(sock, events)

    def write(self, *parts: bytes) -> None:
        """Send bytes without waiting (what the socket does not take at once waits here)."""
        if self._closed or self.write_failed:
            return
        for part in parts:
            self._unsent += part
        self._send()

    def pause_reading(self) -> None:
        if self._reading and not self._closed:
            self._reading = False
            self._loop.remove_reader(self._fd)

    def resume_reading(self) -> None:
        if not self._reading and not self._closed:
            self._reading = True
            self._loop.add_reader(self._fd, self._readable)

    def close(self) -> None:
        """Close the socket (idempotent); no event follows."""
        if self._closed:
            return
        self._closed = True
        self._loop.remove_reader(self._fd)
        self._loop.remove_writer(self._fd)
        self._sock.close()

    def _send(self) -> None:
        unsent = self._unsent
        while unsent:
            try:
                sent = self._sock.send(unsent)
            except BlockingIOError:
                break
            except OSError:  # uvicorn closed without reading the rest: its answer is still to be read
                self.write_failed = True
                unsent.clear()
                break
            del unsent[:sent]
        if unsent and not self._writing:
            self._writing = True
            self._loop.add_writer(self._fd, self._send)
        elif not unsent and self._writing:
            self._writing = False
            self._loop.remove_writer(self._fd)
        if not self._full and len(unsent) > HIGH_WATER:
            self._full = True
            self._events.upstream_full(True)
        elif self._full and len(unsent) < LOW_WATER:
            self._full = False
            self._events.upstream_full(False)

    def _readable(self) -> None:
        try:
            data = self._sock.recv(READ_BYTES)
        except BlockingIOError:
            return
        except OSError:
            self.close()
            self._events.upstream_closed(clean=False)
            return
        if not data:
            self.close()
            self._events.upstream_closed(clean=True)
            return
        self._events.upstream_data(data)
