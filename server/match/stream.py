"""A numbered stream: each message encoded once, kept in a bounded history, fanned out to subscribers.

Numbers start at 1 and are consecutive. A subscriber that comes back says the last number it saw;
`since(n)` gives the messages after it while the history still holds them, and None when the gap
is older than the history (the caller then sends a resync from a keyframe instead of guessing;
lila-ws's History does the same).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from protocol.codec import encode
from protocol.messages import ServerMessage


class Subscriber(Protocol):
    """Anything that takes encoded messages without waiting (a connection's bounded send queue)."""

    def send_bytes(self, data: bytes) -> bool:
        """Queue `data`; False when the subscriber is gone (it is then unsubscribed)."""
        ...


S = TypeVar("S", bound=Subscriber)


class Stream(Generic[S]):
    """One audience's stream of one match (the players' or the spectators')."""

    def __init__(self, history: int) -> None:
        if history < 1:
            raise ValueError("history must hold at least one message")
        self.head = 0
        #: The newest messages, numbered head − len + 1 … head (bytes only: nothing for the collector).
        self._history: deque[bytes] = deque(maxlen=history)
        self.subscribers: set[S] = set()
        #: Bytes published (once per message) and delivered (once per subscriber), for stats.
        self.bytes_published = 0
        self.bytes_delivered = 0
        #: Called with each message's number and bytes as it is published (the owner's relay to the
        #: other nodes, server/match/relay.py); None: nobody else follows.
        self.tap: Callable[[int, bytes], None] | None = None
        #: Subscribers that came back ahead of `head` (see `hold`) → the number they heard last.
        self._ahead: dict[S, int] = {}

    def publish(self, build: Callable[[int], ServerMessage]) -> None:
        """Number, encode and send one message to every subscriber (never waits)."""
        self.publish_bytes(lambda n: encode(build(n)))

    def publish_bytes(self, build: Callable[[int], bytes]) -> None:
        """Number and send one message given as its encoding for a number (never waits)."""
        self.head += 1
        data = build(self.head)
        self._history.append(data)
        self.bytes_published += len(data)
        if self.tap is not None:
            self.tap(self.head, data)
        ahead = self._ahead
        for subscriber in tuple(self.subscribers):
            if ahead and subscriber in ahead:
                if self.head <= ahead[subscriber]:
                    continue  # it heard this number already (from the node that died)
                del ahead[subscriber]
            if subscriber.send_bytes(data):
                self.bytes_delivered += len(data)
            else:
                self.subscribers.discard(subscriber)

    def since(self, last_seen: int) -> list[bytes] | None:
        """The messages after number `last_seen`, or None when the history no longer reaches back there."""
        if last_seen == self.head:
            return []
        first = self.head - len(self._history) + 1
        if last_seen > self.head or not self._history or last_seen + 1 < first:
            return None
        return list(self._history)[last_seen + 1 - first :]

    def hold(self, subscriber: S, last_seen: int) -> None:
        """Send `subscriber` nothing until the stream passes `last_seen`: it heard numbers this stream
        has not reached yet (a ranked match's delayed spectators' stream, which the node that died
        had sent further than its journal's marks; a taken-over match numbers the same records the
        same, so the subscriber goes on without a gap once the stream gets there)."""
        self._ahead[subscriber] = last_seen

    def heard(self, subscriber: S) -> int:
        """The last number `subscriber` was sent (`head`, or further when it is held: `hold`)."""
        return max(self.head, self._ahead.get(subscriber, self.head))

    def restart(self, head: int) -> None:
        """Start again at number `head` with an empty history (a follower that missed messages and was
        sent a resync instead, server/match/follow.py)."""
        self.head = head
        self._history.clear()
