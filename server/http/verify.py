"""Replay verification off the event loop, bounded in size, frames, concurrency, share and time.

The bytes are decoded and re-simulated in a worker (a process pool by default, so a long verify
takes another core instead of the match loop's GIL). Every bound is checked as early as it can be:

1. a slot is reserved *before the body is read*: at most `verify_concurrency` verifications at once
   (more are answered 503 `busy`) and at most `verify_per_client` of them for one client address
   (more are answered 429 `rate-limited`), both with a Retry-After hint, so one client cannot take
   every slot and a refused request costs no upload;
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
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from protocol.errors import ErrorCode
from protocol.replay_codec import ReplayDecodeError, decode_replay
from rules.replay import Replay, verify

from ..config import ServerConfig
from ..errors import ServerError
from ..logs import log_event

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
    """The worker pool, its slots and the share of each client."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self._busy = 0
        self._by_client: Counter[str] = Counter()
        self._executor: concurrent.futures.Executor | None = None

    @property
    def busy(self) -> int:
        """Slots taken now (a timed-out job's included until its worker is done)."""
        return self._busy

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

    @contextmanager
    def slot(self, client: str) -> Iterator[_Slot]:
        """Reserve a verification slot for `client` (before its body is read); ServerError if none."""
        config = self.config
        if self._busy >= config.verify_concurrency:
            raise ServerError(ErrorCode.BUSY, "every verification slot is busy; try again", 503,
                              retry_after=RETRY_AFTER)
        if self._by_client[client] >= config.verify_per_client:
            raise ServerError(ErrorCode.RATE_LIMITED,
                              f"at most {config.verify_per_client} verifications at once per client", 429,
                              retry_after=RETRY_AFTER)
        self._busy += 1
        self._by_client[client] += 1
        held = _Slot(self, client)
        try:
            yield held
        finally:
            if not held.handed_over:
                held.free()

    def _free(self, client: str) -> None:
        self._busy -= 1
        self._by_client[client] -= 1
        if self._by_client[client] <= 0:
            del self._by_client[client]

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
