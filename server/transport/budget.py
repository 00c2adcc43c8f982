"""What one websocket may make the server parse: frames and bytes, each a token bucket.

Every frame a client sends costs the loop (websockets parses it, a ping is answered) whatever its
kind, so every one is charged here: data frames, continuations, pings, pongs and the close alike,
and the bytes they came in. The buckets refill at `rate` a second up to `burst`; a charge always
lands (a bucket may go below zero), and the charge that leaves either bucket below zero says the
connection overspent (server/transport/websocket.py then closes it). Time is an argument.
"""

from __future__ import annotations


class FrameBudget:
    """One connection's frame and byte buckets, and the totals charged to them."""

    __slots__ = ("frame_rate", "frame_burst", "byte_rate", "byte_burst", "_frames", "_bytes", "_stamp",
                 "frames_charged", "bytes_charged")

    def __init__(self, frame_rate: float, frame_burst: float, byte_rate: float, byte_burst: float,
                 now: float) -> None:
        if min(frame_rate, byte_rate) <= 0 or frame_burst < 1 or byte_burst < 1:
            raise ValueError("frame budget: rates must be positive and bursts at least 1, got "
                             f"{frame_rate}, {frame_burst}, {byte_rate}, {byte_burst}")
        self.frame_rate, self.frame_burst = frame_rate, frame_burst
        self.byte_rate, self.byte_burst = byte_rate, byte_burst
        self._frames, self._bytes = frame_burst, byte_burst
        self._stamp = now
        #: Everything ever charged (the tests check that no frame goes uncharged).
        self.frames_charged = 0
        self.bytes_charged = 0

    def charge(self, frames: int, size: int, now: float) -> bool:
        """Charge `frames` frames and `size` bytes at time `now`; False once the budget is overspent."""
        elapsed = now - self._stamp
        if elapsed > 0:
            self._frames = min(self.frame_burst, self._frames + elapsed * self.frame_rate)
            self._bytes = min(self.byte_burst, self._bytes + elapsed * self.byte_rate)
            self._stamp = now
        self._frames -= frames
        self._bytes -= size
        self.frames_charged += frames
        self.bytes_charged += size
        return self._frames >= 0 and self._bytes >= 0
