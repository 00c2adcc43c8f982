"""Replay verification off the event loop, bounded in size, frames, concurrency, share and time.

The bytes are decoded and re-simulated in a worker (a process pool by default, so a long verify
takes another core instead of the match loop's GIL). Every bound is checked as early as it can be:

1. a slot is reserved *before the body is read*, shared fairly between client addresses: at most
   `verify_concurrency` verifications run at once and at most `verify_per_client` of them for one
   client; a request that finds no slot for its client waits in its client's queue (FIFO, at most
   `verify_queue_per_client` waiting: more are answered 429 `rate-limited`), and the queues are
   served in turn (round robin: a freed slot goes to the next client in the rotation that may run
   one, and a served client goes to the back), so a new client's job runs after at most one job of
   each client ahead of it. At most `verify_queue_total` requests wait in all (more: 503 `busy`),
   none longer than `verify_queue_seconds` (then 503 `busy`), all with a Retry-After hint; a
   refused request costs no upload;
2. the body's size (`verify_max_bytes`, 413 `too-large`, checked against Content-Length before
   reading and while reading);
3. in the worker, the bytes' nesting and shape (protocol/replay_codec.py) and the replay's length in
   frames (`verify_max_frames`, refused before simulating, which bounds the CPU a request can cost);
4. a wall-time bound (`verify_timeout`, 504 `timeout`). A timed-out job keeps its slot until its
   worker is done, so the pool is never asked for more than it has.

The answers, decided once: bytes that are not a replay get HTTP 422 `bad-replay` in the server's one
error shape; a replay that decodes gets HTTP 200 with its verdict — `ok`, the `reason`, the first
frame the failure concerns (`frame`, when there is one), what the simulation reached. Nothing a body
can do tears the pool down: the worker turns every failure into an answer, and only a worker that
died (killed, out of memory) makes a fresh pool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from protocol.errors import ErrorCode
from protocol.replay_codec import ReplayDecodeError, decode_replay
from rules.replay import Replay, verify

from ..errors import ServerError
from ..logs import log_event
from .settings import VerifySettings

log = logging.getLogger("floe.verify")

#: How much nicer than the server the process pool's workers run (os.nice): with as many workers as
#: cores, the match loop gets the CPU first (bench/README.md, the verification flood).
VERIFY_NICENESS = 10
#: Seconds a refused client is told to wait before it tries again.
RETRY_AFTER = 2.0


def decode_body(data: bytes) -> Replay | dict[str, Any]:
    """The replay in a body, or the answer for bytes that are not one: `{"decoded": False, "reason"}`
    (runs in the worker: nothing a body holds escapes it)."""
    try:
        return decode_replay(data, max_bytes=len(data))
    except ReplayDecodeError as error:
        return {"decoded": False, "reason": str(error)}
    except Exception as error:  # noqa: BLE001 - nothing a body holds may escape the worker
        return {"decoded": False, "reason": f"replay: {type(error).__name__}"}


def verify_bytes(data: bytes, max_frames: int) -> dict[str, Any]:
    """Decode and verify a replay (runs in the worker); every failure is part of the answer.

    `{"decoded": False, "reason": …}` for bytes that are not a replay; otherwise the verdict.
    """
    replay = decode_body(data)
    if isinstance(replay, dict):
        return replay
    try:
        verdict = verify(replay, max_frames)
    except Exception as error:  # noqa: BLE001 - verify never raises for a replay; a bug still answers
        return {"decoded": True, "ok": False, "reason": f"verification failed: {type(error).__name__}",
                "result": None, "frames": 0, "frame": None, "log_hash": None}
    return {
        "decoded": True,
        "ok": verdict.ok,
        "reason": verdict.reason,
        "result": verdict.result.plain() if verdict.result is not None else None,
        "frames": verdict.frames,
        "frame": verdict.frame,
        "log_hash": verdict.log_hash,
    }


class Verifier:
    """The worker pool, its slots, and the clients' queues for them (served in turn)."""

    def __init__(self, config: VerifySettings) -> None:
        self.config = config
        self._busy = 0
        self._by_client: Counter[str] = Counter()
        #: Each waiting client's requests, oldest first (a granted request's future holds None).
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}
        #: The clients with a request waiting, in the order they are served (round robin).
        self._rotation: deque[str] = deque()
        self._queued = 0
        self._executor: concurrent.futures.Executor | None = None

    @property
    def busy(self) -> int:
        """Slots taken now (a timed-out job's included until its worker is done)."""
        return self._busy

    @property
    def queued(self) -> int:
        """Requests waiting for a slot now."""
        return self._queued

    def queued_for(self, client: str) -> int:
        """Requests of `client` waiting for a slot now."""
        return len(self._waiting.get(client, ()))

    def _pool(self) -> concurrent.futures.Executor:
        if self._executor is None:  # made on first use: a server that never verifies starts no workers
            workers = self.config.verify_concurrency
            if self.config.verify_pool == "process":
                self._executor = concurrent.futures.ProcessPoolExecutor(
                    workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=os.nice,
                    initargs=(VERIFY_NICENESS,),
                )
            else:
                self._executor = concurrent.futures.ThreadPoolExecutor(
                    workers, thread_name_prefix="floe-verify"
                )
        return self._executor

    @asynccontextmanager
    async def slot(self, client: str) -> AsyncIterator[_Slot]:
        """A verification slot for `client` (reserved before its body is read), after its turn in the
        queues; ServerError (429 or 503 with Retry-After) when its queue, or all of them, are full or
        its wait ran out."""
        await self._acquire(client)
        held = _Slot(self, client)
        try:
            yield held
        finally:
            if not held.handed_over:
                held.free()

    def _may_run(self, client: str) -> bool:
        config = self.config
        return self._busy < config.verify_concurrency and self._by_client[client] < config.verify_per_client

    def _take(self, client: str) -> None:
        self._busy += 1
        self._by_client[client] += 1

    async def _acquire(self, client: str) -> None:
        """Take a slot now, or wait in `client`'s queue until the rotation hands it one."""
        config = self.config
        if client not in self._waiting and self._may_run(client):
            self._take(client)
            return
        if self.queued_for(client) >= config.verify_queue_per_client:
            message = (f"at most {config.verify_per_client} verification(s) at once and "
                       f"{config.verify_queue_per_client} waiting per client")
            raise ServerError(ErrorCode.RATE_LIMITED, message, 429, retry_after=RETRY_AFTER)
        if self._queued >= config.verify_queue_total:
            message = "every verification slot is busy and the queue is full; try again"
            raise ServerError(ErrorCode.BUSY, message, 503, retry_after=RETRY_AFTER)
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._waiting.get(client)
        if queue is None:
            queue = self._waiting[client] = deque()
            self._rotation.append(client)
        queue.append(turn)
        self._queued += 1
        try:
            await asyncio.wait_for(asyncio.shield(turn), config.verify_queue_seconds)
        except TimeoutError:
            if turn.done() and not turn.cancelled():
                return  # granted just as the wait ran out: the slot is this request's
            turn.cancel()
            self._unqueue(client, turn)
            message = f"no verification slot within {config.verify_queue_seconds:g} s; try again"
            raise ServerError(ErrorCode.BUSY, message, 503, retry_after=RETRY_AFTER) from None
        except BaseException:  # the request went away while it waited
            if turn.done() and not turn.cancelled():
                self._free(client)  # granted as it left: the slot goes on to the next in turn
            else:
                turn.cancel()
                self._unqueue(client, turn)
            raise

    def _unqueue(self, client: str, turn: asyncio.Future[None]) -> None:
        """Take a request that stopped waiting out of its client's queue."""
        queue = self._waiting.get(client)
        if queue is None or turn not in queue:
            return
        queue.remove(turn)
        self._queued -= 1
        if not queue:
            del self._waiting[client]
            self._rotation.remove(client)

    def _serve(self) -> None:
        """Hand free slots to waiting requests, one client after another in the rotation."""
        while self._rotation and self._busy < self.config.verify_concurrency:
            for _ in range(len(self._rotation)):
                client = self._rotation.popleft()
                if self._may_run(client):
                    break
                self._rotation.append(client)
            else:
                return  # every waiting client runs as many jobs as it may
            queue = self._waiting[client]
            turn = queue.popleft()
            self._queued -= 1
            if queue:
                self._rotation.append(client)
            else:
                del self._waiting[client]
            self._take(client)
            turn.set_result(None)

    def _free(self, client: str) -> None:
        self._busy -= 1
        self._by_client[client] -= 1
        if self._by_client[client] <= 0:
            del self._by_client[client]
        self._serve()

    async def run(
        self, held: _Slot, data: bytes, job: Callable[..., dict[str, Any]] | None = None, *args: Any
    ) -> dict[str, Any]:
        """Verify `data` in the slot `held`; the answer's plain data, or ServerError (422, 504, 500).

        `job(data, *args)` is the work (default: `verify_bytes(data, verify_max_frames)`): a
        module-level function (it may run in another process) answering as verify_bytes does.
        """
        if len(data) > self.config.verify_max_bytes:
            message = f"replay of {len(data)} bytes is over the limit of {self.config.verify_max_bytes}"
            raise ServerError(ErrorCode.TOO_LARGE, message, 413)
        loop = asyncio.get_running_loop()
        if job is None:
            job, args = verify_bytes, (self.config.verify_max_frames,)
        future = loop.run_in_executor(self._pool(), job, data, *args)
        held.hand_over(future)
        try:
            answer = await asyncio.wait_for(asyncio.shield(future), self.config.verify_timeout)
        except TimeoutError:  # before OSError, of which it is a subclass
            message = f"verification ran past {self.config.verify_timeout:g} s"
            raise ServerError(ErrorCode.TIMEOUT, message, 504) from None
        except (concurrent.futures.BrokenExecutor, RuntimeError, OSError) as error:
            # A worker died (killed, out of memory) or could not start: a fresh pool next time.
            log_event(log, logging.ERROR, "verify.pool-failed", error=f"{type(error).__name__}: {error}")
            self.close()
            raise ServerError(ErrorCode.INTERNAL, "the verification worker failed", 500) from None
        if not answer.pop("decoded"):
            raise ServerError(ErrorCode.BAD_REPLAY, answer["reason"], 422)
        return answer

    def close(self) -> None:
        """Stop the workers (running ones finish their bounded job)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


class _Slot:
    """A reserved slot: freed when the request ends, or, once a job runs in it, when the job is done."""

    def __init__(self, verifier: Verifier, client: str) -> None:
        self._verifier = verifier
        self._client = client
        self._freed = False
        self.handed_over = False

    def hand_over(self, future: asyncio.Future[Any]) -> None:
        """The job's worker holds the slot now: it is freed when the job ends, however the request ends."""
        self.handed_over = True
        future.add_done_callback(lambda _: self.free())

    def free(self) -> None:
        """Give the slot back (once)."""
        if not self._freed:
            self._freed = True
            self._verifier._free(self._client)
