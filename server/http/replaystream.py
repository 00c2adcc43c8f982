"""A finished match's stream, re-simulated from its replay: what the browser's replay viewer plays.

The client owns no rules, so the server re-simulates the replay (in the verification pool, under its
slots and per-client share, bounded in frames and time: server/http/verify.py) through the same
runner and codec as a live match, and answers the spectators' stream as it would have been: a
`joined` (role spectator, state over), a `keyframe` every `keyframe_every` frames (frame 0 first),
every `frame` record, and `over` — msgpack values back to back (`decodeMulti`). A viewer seeks by
jumping to the keyframe at or before the frame it wants and applying the records after it.

Streams are cached per replay (`ReplayStreams`): a replay never changes, so a second viewer costs
nothing. Concurrent requests for one uncached stream share one re-simulation (single flight: the first
runs it in its client's share of the pool, the others wait for its answer). A cached stream counts
against the client whose miss made it: one client's streams are at most `per_client` of the cache
(its next miss evicts its own oldest), and past the whole `capacity` the client holding the most
loses its oldest, so a flood of distinct replays from one address evicts that address's streams.
"""

from __future__ import annotations

import asyncio
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from protocol.codec import encode, encode_frame, encode_keyframe, encode_plain, pack_frame_body
from protocol.messages import Joined, MatchState, Over
from protocol.replay_codec import ReplayDecodeError, decode_replay
from rules.registry import lookup
from rules.replay import input_rows
from rules.ruleset import Match

from ..netcode.runner import FrameRecord, KeyframeRecord, MatchRunner, RunnerSettings

#: Replay streams kept in memory by default (a long match's stream is about half a megabyte).
STREAM_CACHE = 16
#: Of those, how many one client's misses may hold by default.
STREAM_CACHE_PER_CLIENT = 4


def replay_stream_bytes(data: bytes, replay_id: str, max_frames: int, keyframe_every: int) -> dict[str, Any]:
    """Re-simulate a replay into its spectators' stream (runs in the worker, answering as
    verify.verify_bytes does): `{"decoded": True, "body"}`, or `{"decoded": False, "reason"}`."""
    try:
        replay = decode_replay(data, max_bytes=len(data))
        ruleset = lookup(replay.ruleset, replay.ruleset_version)
        config = ruleset.config_from_plain(replay.config)
    except (ReplayDecodeError, ValueError, KeyError) as error:
        return {"decoded": False, "reason": f"not a replay this server plays: {error}"}
    if replay.final_frame > max_frames:
        frames = replay.final_frame
        return {"decoded": False, "reason": f"the replay is {frames} frames long, over {max_frames}"}
    match: Match[Any] = ruleset.new_match(config, replay.seed, replay.seats)
    settings = RunnerSettings(keyframe_every=keyframe_every, max_ahead=replay.final_frame + 1)
    runner = MatchRunner(match, ruleset.inputs, settings, keyframe_phase=replay.seed)
    for frame, row in enumerate(input_rows(replay, ruleset.inputs.neutral)):
        for seat, value in enumerate(row):
            runner.tell_recorded(seat, frame, value)  # a forfeit too: the match must end as it did
    out = runner.advance(replay.final_frame)
    joined = Joined(
        match=replay_id,
        role="spectator",
        seat=None,
        seats=list(replay.seats),
        bots=[None] * len(replay.seats),
        seed=replay.seed,
        config=ruleset.config_plain(config),
        ruleset=ruleset.name,
        ruleset_version=ruleset.version,
        state=MatchState.OVER,
        head=0,
        keyframe_every=keyframe_every,
        tables=ruleset.stream_tables,
    )
    parts = [encode(joined)]
    n = 0
    for item in out.confirmed:
        n += 1
        if isinstance(item, KeyframeRecord):
            parts.append(encode_keyframe(n, item.frame, encode_plain(item.view), item.checksum))
        else:
            parts.append(encode_frame(n, item.frame + 1, item.frame, _body(item)))
    result = match.result.plain() if match.result is not None else None
    parts.append(encode(Over(n=n + 1, result=result, replay=replay_id)))
    return {"decoded": True, "body": b"".join(parts)}


def _body(record: FrameRecord) -> bytes:
    return pack_frame_body(record.frame, record.events, record.actors, list(record.inputs))


#: Makes a stream: called with `began`, which it calls once its re-simulation is handed to the pool.
MakeStream = Callable[[Callable[[], None]], Awaitable[bytes]]


class ReplayStreams:
    """The replay streams made, by replay id, each charged to the client whose miss made it."""

    def __init__(self, capacity: int = STREAM_CACHE, per_client: int = STREAM_CACHE_PER_CLIENT) -> None:
        if capacity < 1 or per_client < 1:
            raise ValueError("the stream cache's capacity and per-client share must be positive")
        self.capacity = capacity
        self.per_client = per_client
        #: replay id → (stream, the client it is charged to), oldest first.
        self._streams: OrderedDict[str, tuple[bytes, str]] = OrderedDict()
        self._held: Counter[str] = Counter()
        #: replay id → the answer of the re-simulation under way.
        self._making: dict[str, asyncio.Future[bytes]] = {}
        #: Requests now waiting for another request's re-simulation.
        self.followers = 0
        #: Re-simulations handed to the pool since the start.
        self.made = 0

    def get(self, replay_id: str) -> bytes | None:
        """A cached stream (and it becomes the newest), or None."""
        held = self._streams.get(replay_id)
        if held is None:
            return None
        self._streams.move_to_end(replay_id)
        return held[0]

    def put(self, replay_id: str, body: bytes, client: str) -> None:
        """Keep a stream charged to `client`: past its share its own oldest goes, past the capacity the
        oldest of the client holding the most."""
        if replay_id in self._streams:
            self._drop(replay_id)
        self._streams[replay_id] = (body, client)
        self._held[client] += 1
        if self._held[client] > self.per_client:
            self._drop_oldest_of(client)
        while len(self._streams) > self.capacity:
            self._drop_oldest_of(max(self._held, key=self._held.__getitem__))

    def _drop_oldest_of(self, client: str) -> None:
        self._drop(next(key for key, (_, owner) in self._streams.items() if owner == client))

    def _drop(self, replay_id: str) -> None:
        _, owner = self._streams.pop(replay_id)
        self._held[owner] -= 1
        if self._held[owner] <= 0:
            del self._held[owner]

    async def stream(self, replay_id: str, client: str, make: MakeStream) -> bytes:
        """The stream of `replay_id`: cached, or the answer of the re-simulation under way, or made now
        by `make` on `client`'s behalf (and cached, charged to it).

        A request that waits for another's re-simulation gets its answer or its error, unless that
        request failed before its re-simulation began (its own share refused it, or it went away):
        then the waiter tries again, on its own behalf.
        """
        while True:
            body = self.get(replay_id)
            if body is not None:
                return body
            making = self._making.get(replay_id)
            if making is None:
                break
            self.followers += 1
            try:
                return await asyncio.shield(making)
            except _NotBegun:
                continue
            finally:
                self.followers -= 1
        answer: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        answer.add_done_callback(_consume)
        self._making[replay_id] = answer
        began = False

        def begin() -> None:
            nonlocal began
            began = True
            self.made += 1

        try:
            body = await make(begin)
        except BaseException as error:
            answer.set_exception(error if began and isinstance(error, Exception) else _NotBegun())
            raise
        finally:
            del self._making[replay_id]
        self.put(replay_id, body, client)
        answer.set_result(body)
        return body


class _NotBegun(Exception):
    """The request making a stream failed before its re-simulation began."""


def _consume(future: asyncio.Future[bytes]) -> None:
    """Read a finished answer's exception, so one nobody waited for is not reported as lost."""
    if not future.cancelled():
        future.exception()
