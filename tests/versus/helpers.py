"""Shared helpers of the versus tests: seeded random inputs, stepping, and scene set-up."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

from rules.kick.actors import MOVING, PAUSE
from rules.kick.geometry import DIRECTIONS
from rules.registry import lookup
from rules.replay import Replay, input_rows
from rules.synctest import canonical_encoding
from rules.versus.events import Record, record_plain
from rules.versus.inputs import KICK_BIT, NEUTRAL, encode_input
from rules.versus.match import VersusConfig, VersusMatch


def random_inputs(seed: int, seats: int, frames: int) -> list[list[int]]:
    """`frames` frames of seeded random inputs: held directions for a while, kicks now and then."""
    rng = random.Random(seed)
    held = [NEUTRAL] * seats
    left = [0] * seats
    out: list[list[int]] = []
    for _ in range(frames):
        row = []
        for seat in range(seats):
            if left[seat] <= 0:
                held[seat] = encode_input(rng.choice((None, *DIRECTIONS)))
                left[seat] = 4 + rng.randrange(40)
            left[seat] -= 1
            row.append(held[seat] | (KICK_BIT if rng.randrange(10) == 0 else 0))
        out.append(row)
    return out


def plain_log(records: Sequence[Record]) -> list[dict[str, Any]]:
    """A frame's records as plain data."""
    return [record_plain(r) for r in records]


def run(match: VersusMatch, inputs: Sequence[Sequence[int]]) -> list[list[dict[str, Any]]]:
    """Step through `inputs` (stopping when the match ends); the plain log of every frame stepped."""
    log = []
    for row in inputs:
        if match.finished:
            break
        log.append(plain_log(match.step(row)))
    return log


def idle(match: VersusMatch, frames: int) -> list[Record]:
    """Step `frames` frames with every seat neutral; all the records."""
    records: list[Record] = []
    for _ in range(frames):
        records.extend(match.step([NEUTRAL] * match.seats))
    return records


def until(match: VersusMatch, predicate: Any, limit: int = 3000) -> list[Record]:
    """Step neutral frames until predicate(match) holds; all the records (fails after `limit` frames)."""
    records: list[Record] = []
    for _ in range(limit):
        if predicate(match):
            return records
        records.extend(match.step([NEUTRAL] * match.seats))
    raise AssertionError(f"the predicate never held within {limit} frames")


def all_playing(match: VersusMatch) -> bool:
    """Every board is in play."""
    return all(game.status == "playing" for game in match.games)


def playing_match(seed: int = 3, seats: int = 2, config: VersusConfig | None = None) -> VersusMatch:
    """A match stepped (neutral inputs) until every board is in play."""
    match = VersusMatch(config, seed, seats)
    until(match, all_playing)
    return match


def roaming(match: VersusMatch, seat: int) -> int:
    """Sno-Bees walking (or pausing) on a seat's board."""
    return sum(e.state in (MOVING, PAUSE) for e in match.games[seat].slots)


def of_kind(records: Sequence[Record], cls: type) -> list[Any]:
    """The records of one versus event class."""
    return [r for r in records if isinstance(r, cls)]


def replay_trace(replay: Replay) -> Iterator[str]:
    """Re-simulate a replay from its move lists and yield its log as text, one record per line.

    A line is `frame canonical-json-of-the-record`; the last line is `end <result> <log hash>`. The
    simulation stops at the replay's final frame (or earlier, when the match ends first).
    """
    ruleset = lookup(replay.ruleset, replay.ruleset_version)
    match = VersusMatch(ruleset.config_from_plain(replay.config), replay.seed, replay.seats)
    for frame, inputs in enumerate(input_rows(replay)):
        if match.finished:
            break
        for record in match.step(inputs):
            yield f"{frame} {canonical_encoding(record_plain(record)).decode('ascii')}"
    result = None if match.result is None else canonical_encoding(match.result.plain()).decode("ascii")
    yield f"end {result} {match.log_hash}"
