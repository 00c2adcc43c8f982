"""The message budget of each client address: one token bucket shared by all its websockets.

Each connection has its own bucket (server/match/session.py); an address that opens many connections
would otherwise get many budgets (32 sockets spamming `queue`/`unqueue` took half a core). Every
session of an address also takes a token from its address's bucket, here.

A bucket lives while its address has a connection open, and a little after the last one closes: until
it would have refilled (`burst / rate` seconds), so closing every socket and reconnecting buys no fresh
burst. Time is an argument (seconds, monotonic), as in the buckets themselves.
"""

from __future__ import annotations

from collections import Counter, OrderedDict

from protocol.ratelimit import TokenBucket


class AddressBudgets:
    """The shared token buckets of the client addresses with a connection open (or recently closed)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, TokenBucket] = {}
        self._holders: Counter[str] = Counter()
        #: Addresses with no connection left, oldest first, and when their last one closed.
        self._idle: OrderedDict[str, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def acquire(self, address: str, now: float) -> TokenBucket:
        """The bucket a new connection of `address` shares (made full the first time)."""
        self._prune(now)
        self._idle.pop(address, None)
        self._holders[address] += 1
        bucket = self._buckets.get(address)
        if bucket is None:
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst, now)
        return bucket

    def release(self, address: str, now: float) -> None:
        """A connection of `address` closed; its bucket is kept until it would be full again."""
        held = self._holders[address] - 1
        if held > 0:
            self._holders[address] = held
            return
        self._holders.pop(address, None)
        if address in self._buckets:
            self._idle[address] = now
        self._prune(now)

    def _prune(self, now: float) -> None:
        refill = self.burst / self.rate
        while self._idle:
            address, since = next(iter(self._idle.items()))
            if now - since < refill:
                return
            del self._idle[address]
            self._buckets.pop(address, None)
