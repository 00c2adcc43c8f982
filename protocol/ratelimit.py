"""A token bucket: `rate` tokens a second refill a bucket of `burst`; each message takes one.

The protocol's flood bound (`welcome.rate_per_second` and `rate_burst`); time is an argument.
"""

from __future__ import annotations


class TokenBucket:
    """Per-connection flood guard. Time is an argument (seconds on a monotonic clock)."""

    __slots__ = ("rate", "burst", "_tokens", "_stamp")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"token bucket: rate must be positive and burst at least 1, got {rate}, {burst}")
        self.rate = rate
        self.burst = burst
        self._tokens = burst
        self._stamp = now

    def take(self, now: float) -> bool:
        """Take a token if there is one (True), else refuse (False)."""
        elapsed = now - self._stamp
        if elapsed > 0:
            self._tokens = min(self.burst, self._tokens + elapsed * self.rate)
            self._stamp = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False
