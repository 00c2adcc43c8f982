"""Replay verification off the event loop, bounded in size, frames, concurrency and time.

The bytes are decoded and re-simulated in a worker (a process pool by default, so a long verify
takes another core instead of the match loop's GIL). Bounds: the body size (checked before any
parsing), the replay's length in frames (`verify` refuses longer replays before simulating, which
bounds the CPU a request can cost), at most `verify_concurrency` verifications at once (more are
answered `busy`), and a wall-time bound (answered `timeout`; the worker finishes its bounded job).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
from collections.abc import Callable
from typing import Any

from protocol.errors import ErrorCode
from protocol.replay_codec import ReplayDecodeError, decode_replay
from rules.replay import verify

from ..config import ServerConfig
from ..errors import ServerError
from ..logs import log_event

log = logging.getLogger("floe.verify")


def verify_bytes(data: bytes, max_frames: int) -> dict[str, Any]:
    """Decode and verify a replay (runs in the worker); every failure is part of the answer."""
    try:
        replay = decode_replay(data, max_bytes=len(data))
    except ReplayDecodeError as error:
        return {"ok": False, "error": ErrorCode.BAD_REPLAY.value, "reason": str(error)}
    verdict = verify(replay, max_frames)
    return {
        "ok": verdict.ok,
        "reason": verdict.reason,
        "result": verdict.result.plain() if verdict.result is not None else None,
        "frames": verdict.frames,
        "log_hash": verdict.log_hash,
    }


class Verifier:
    """The worker pool and its bounds."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self._slots = asyncio.Semaphore(config.verify_concurrency)
        self._executor: concurrent.futures.Executor | None = None

    def _pool(self) -> concurrent.futures.Executor:
        if self._executor is None:  # made on first use: a server that never verifies starts no workers
            workers = self.config.verify_concurrency
            if self.config.verify_pool == "process":
                self._executor = concurrent.futures.ProcessPoolExecutor(
                    workers, mp_context=multiprocessing.get_context("spawn")
                )
            else:
                self._executor = concurrent.futures.ThreadPoolExecutor(
                    workers, thread_name_prefix="floe-verify"
                )
        return self._executor

    async def verify(self, data: bytes) -> dict[str, Any]:
        """The verdict as plain data; raises ServerError when busy, oversized or out of time."""
        return await self.run(verify_bytes, data, self.config.verify_max_frames)

    async def run(self, job: Callable[..., dict[str, Any]], data: bytes, *args: Any) -> dict[str, Any]:
        """Run `job(data, *args)` (a module-level function: it may go to another process) in a worker,
        under the same bounds as a verification; its answer, or ServerError."""
        if len(data) > self.config.verify_max_bytes:
            raise ServerError(
                ErrorCode.TOO_LARGE,
                f"replay of {len(data)} bytes is over the limit of {self.config.verify_max_bytes}",
                413,
            )
        if self._slots.locked():
            raise ServerError(ErrorCode.BUSY, "every verification slot is busy; try again", 503)
        async with self._slots:
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(self._pool(), job, data, *args)
            try:
                return await asyncio.wait_for(future, self.config.verify_timeout)
            except TimeoutError:  # before OSError, of which it is a subclass
                message = f"verification ran past {self.config.verify_timeout:g} s"
                raise ServerError(ErrorCode.TIMEOUT, message, 504) from None
            except (concurrent.futures.BrokenExecutor, RuntimeError, OSError) as error:
                # A worker died (killed, out of memory) or could not start: a fresh pool next time.
                log_event(log, logging.ERROR, "verify.pool-failed", error=f"{type(error).__name__}: {error}")
                self.close()
                raise ServerError(ErrorCode.INTERNAL, "the verification worker failed", 500) from None

    def close(self) -> None:
        """Stop the workers (running ones finish their bounded job)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
