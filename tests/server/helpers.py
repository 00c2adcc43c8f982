"""Shared helpers of the server tests: what a seat's told inputs mean frame by frame, straight runs, a
recording transport."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import websockets

from protocol.client import ClientSession
from protocol.messages import Frame, InputLate, Resync
from rules.registry import lookup
from rules.replay import Replay, input_rows
from rules.versus.inputs import NEUTRAL, held
from rules.versus.match import VersusConfig, VersusMatch

#: Every timeout in the networked tests is a multiple of this (raise it on a slow machine).
UNIT = float(os.environ.get("FLOE_TEST_TIMEOUT_UNIT", "1"))


#: How often `until` looks at the server's state (seconds).
POLL = 0.005


async def until(condition: Callable[[], bool], timeout: float, what: str = "the condition") -> None:
    """Wait until `condition()` holds, looking at the server's state (in this process) every POLL
    seconds: the one way the networked tests wait for something the server does."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not hold within {timeout:g} s")
        await asyncio.sleep(POLL)


async def until_awaited(condition: Callable[[], Awaitable[bool]], timeout: float,
                        what: str = "the condition") -> None:
    """`until` for a condition that must be awaited (it asks a store or a node over the network)."""
    deadline = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not hold within {timeout:g} s")
        await asyncio.sleep(POLL)


async def play_scripted(
    ws_url: str, session: ClientSession, match_id: str, choose: Callable[[int], int], drop_at: int | None
) -> None:
    """Play the seat with `choose(frame)` as the held byte until the match is over, or drop the socket
    once past frame `drop_at`; a session that joined before resumes where its stream was left."""
    async with websockets.connect(ws_url, compression=None, proxy=None) as ws:
        await ws.send(session.hello())
        await ws.send(session.resume() if session.joined is not None else session.join(match_id))
        async for data in ws:
            assert isinstance(data, bytes)
            now = time.monotonic()
            for message in session.receive(data, now):
                if isinstance(message, Frame | Resync) and session.over is None:
                    for payload in session.input(choose(max(session.frames, default=0)), now):
                        await ws.send(payload)
            if session.over is not None:
                return
            if drop_at is not None and max(session.frames, default=0) >= drop_at:
                return


def bytes_per_frame(told: Sequence[tuple[int, int]], frames: int) -> list[int]:
    """A seat's byte on each frame given what it told: the told byte, else the held one (kick dropped)."""
    by_frame = dict(told)
    out: list[int] = []
    kept = NEUTRAL
    for frame in range(frames):
        if frame in by_frame:
            out.append(by_frame[frame])
            kept = held(by_frame[frame])
        else:
            out.append(kept)
    return out


def applied_inputs(
    sent: Sequence[tuple[int, Sequence[int]]], late: Sequence[InputLate]
) -> list[tuple[int, int]]:
    """(frame, byte) as the server applied a client's input runs, given its `input-late` answers.

    A run's bytes before its first late one land on their frames; from that one on, the whole rest of
    the run moves by the same number of frames (the server applies each byte after the previous one).
    """
    moved = {message.frame: message.applied - message.frame for message in late}
    out: list[tuple[int, int]] = []
    for start, values in sent:
        shift = 0
        for offset, value in enumerate(values):
            shift = moved.get(start + offset, shift)
            out.append((start + offset + shift, value))
    return out


def moves_of(values: Sequence[int]) -> list[list[int]]:
    """A replay's move list of a per-frame byte list: [frame, byte] wherever the byte changes."""
    moves: list[list[int]] = []
    previous = NEUTRAL
    for frame, value in enumerate(values):
        if value != previous:
            moves.append([frame, value])
            previous = value
    return moves


def straight_run(config: VersusConfig, seed: int, seats: int, rows: Sequence[Sequence[int]]) -> VersusMatch:
    """A match stepped straight with one row of inputs per frame (stopping where it ends)."""
    match = VersusMatch(config, seed, seats)
    for row in rows:
        if match.finished:
            break
        match.step(list(row))
    return match


def replay_log(replay: Replay) -> dict[int, list[Any]]:
    """Re-simulate a replay (of any registered ruleset) from its move lists: frame → its records as the
    stream sends them."""
    ruleset = lookup(replay.ruleset, replay.ruleset_version)
    match = ruleset.new_match(ruleset.config_from_plain(replay.config), replay.seed, replay.seats)
    return {frame: match.records_wire(match.step(inputs)) for frame, inputs in enumerate(input_rows(replay))}


def plain(value: Any) -> Any:
    """Tuples as lists, recursively (what a msgpack round trip does to plain data)."""
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


class RecordingTransport:
    """A direct transport (server/transport/connection.py) that records writes and closes, and reports
    the unsent bytes the test sets."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed: list[int] = []
        self.backlog = 0

    def write(self, data: bytes) -> bool:
        if self.closed:
            return False
        self.writes.append(data)
        return True

    def buffered(self) -> int:
        return self.backlog

    def close(self, code: int) -> None:
        self.closed.append(code)
