"""A finished match's stream, re-simulated from its replay: what the browser's replay viewer plays.

The client owns no rules, so the server re-simulates the replay (in the verification pool, under its
slots and per-client share, bounded in frames and time: server/http/verify.py) through the same
runner and codec as a live match, and answers the spectators' stream as it would have been: a
`joined` (role spectator, state over), a `keyframe` every `keyframe_every` frames (frame 0 first),
every `frame` record, and `over` — msgpack values back to back (`decodeMulti`). A viewer seeks by
jumping to the keyframe at or before the frame it wants and applying the records after it.

Streams are cached per replay (`ReplayStreams`, the newest `capacity` of them): a replay never
changes, so a second viewer costs nothing.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from protocol.codec import encode, encode_frame, encode_keyframe, encode_plain, pack_frame_body
from protocol.messages import Joined, MatchState, Over
from protocol.replay_codec import ReplayDecodeError, decode_replay
from rules.registry import lookup
from rules.replay import input_rows
from rules.ruleset import Match

from ..netcode.runner import FrameRecord, KeyframeRecord, MatchRunner, RunnerSettings

#: Replay streams kept in memory (a long match's stream is about half a megabyte).
STREAM_CACHE = 16


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
            runner.tell_input(seat, frame, value)
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


class ReplayStreams:
    """The newest replay streams made, by replay id."""

    def __init__(self, capacity: int = STREAM_CACHE) -> None:
        self.capacity = capacity
        self._streams: OrderedDict[str, bytes] = OrderedDict()

    def get(self, replay_id: str) -> bytes | None:
        """A cached stream (and it becomes the newest), or None."""
        body = self._streams.get(replay_id)
        if body is not None:
            self._streams.move_to_end(replay_id)
        return body

    def put(self, replay_id: str, body: bytes) -> None:
        """Keep a stream, dropping the oldest past the capacity."""
        self._streams[replay_id] = body
        self._streams.move_to_end(replay_id)
        while len(self._streams) > self.capacity:
            self._streams.popitem(last=False)
