"""One node's ordered way onto the bus: `send` queues a message without waiting (the match layer never
awaits) and one task publishes the queue in order, so what a node says on a channel arrives in the
order it said it (a `SeatEvent` before the inputs that follow it, a `Base` before the records after
it). What queued while a publish was out goes as one bundle per channel, every channel's in one
pipeline, so a relaying owner waits on one Redis round trip per round, not per record or per
followed match. Bounded (`relay_queue`): past it a message is dropped and counted; the followers see
a gap in the stream numbers and ask for a resync, and a player's client sends its unacknowledged
inputs again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque

from .bus import Bus, encode_bundles

log = logging.getLogger("floe.bus")


class Publisher:
    """Publishes queued messages in order (see the module docstring)."""

    def __init__(self, bus: Bus, limit: int, max_message_bytes: int) -> None:
        self.bus = bus
        self.limit = limit
        self.max_message_bytes = max_message_bytes
        self._queue: deque[tuple[str, bytes]] = deque()
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: Messages dropped for a full queue, and publishes that failed (counted for stats and tests).
        self.dropped = 0
        self.failed = 0
        self.published = 0
        #: Bus messages sent (a bundle counts once).
        self.publishes = 0

    def send(self, channel: str, data: bytes) -> bool:
        """Queue `data` for `channel`; False (dropped) when the queue is full."""
        if len(self._queue) >= self.limit:
            self.dropped += 1
            return False
        self._queue.append((channel, data))
        self._ready.set()
        return True

    def start(self) -> None:
        """Start the publishing task."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="floe-bus-publisher")

    async def _run(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            while self._queue:
                # What queued while the last round was out goes as one publish per channel (a bundle:
                # server/cluster/bus.py), in order within each channel.
                backlog: dict[str, list[bytes]] = {}
                while self._queue:
                    channel, data = self._queue.popleft()
                    backlog.setdefault(channel, []).append(data)
                items = [(channel, data) for channel, messages in backlog.items()
                         for data in encode_bundles(messages, self.max_message_bytes)]
                await self._publish(items)
                self.published += sum(len(messages) for messages in backlog.values())

    async def _publish(self, items: list[tuple[str, bytes]]) -> None:
        """Every channel's bundles of a round in one round trip (a pipeline), each channel in order."""
        answers: list[Exception | None]
        try:
            answers = await self.bus.publish_all(items)
        except (OSError, ConnectionError, TimeoutError) as failure:
            answers = [failure] * len(items)
        for (channel, _), answer in zip(items, answers, strict=True):
            if answer is None:
                self.publishes += 1
                continue
            self.failed += 1
            if self.failed == 1 or self.failed % 1000 == 0:  # not once per message of an outage
                log.warning("bus publish failed on %s (%d so far): %r", channel, self.failed, answer)

    async def stop(self, timeout: float) -> None:
        """Publish what is queued (within `timeout`), then stop."""
        task, self._task = self._task, None
        if task is None:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._queue and loop.time() < deadline and not task.done():
            await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
