"""The rulesets the conformance suite runs over, and the one scripted match it plays of each.

Every ruleset rules/registry.py registers: a new ruleset is covered the moment it is registered.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rules.registry import known, lookup
from rules.ruleset import Match, Ruleset, seat_seed

#: The scripted match is cut at this frame at the latest (its ruleset's `with_time_limit`): long enough
#: for Pengo's boards to be played (the intro is over by frame ~200), short enough for the 60 s budget.
PLAY_FRAMES = 900
#: The scripted match's seed.
PLAY_SEED = 0x5EED


def ruleset_id(ruleset: Ruleset[Any, Any]) -> str:
    """The test id of a ruleset: name-vVERSION."""
    return f"{ruleset.name}-v{ruleset.version}"


def conforming() -> list[Ruleset[Any, Any]]:
    """Every registered ruleset, by id."""
    found = {ruleset_id(r): r for r in (lookup(name, version) for name, version in known())}
    return [found[key] for key in sorted(found)]


@dataclass
class Played:
    """A scripted match played to its end: the match, its config, seats and every frame's input row."""

    match: Match[Any]
    config: Any
    seats: tuple[str, ...]
    rows: list[list[int]]


def bot_order(ruleset: Ruleset[Any, Any]) -> list[str]:
    """The ruleset's bots, the competent one (where there is one) first: seat i plays the i-th, cycling."""
    return sorted(ruleset.bot_names, key=lambda name: name != "competent")


def play(ruleset: Ruleset[Any, Any], seed: int = PLAY_SEED, frames: int = PLAY_FRAMES,
         bots: Sequence[str] | None = None) -> Played:
    """The ruleset's default config cut at `frames`, its fewest seats (two at least where it allows),
    each seat a bot (`bots`, cycling; default `bot_order`) seeded by `seat_seed`, played until the
    match ends."""
    config = ruleset.with_time_limit(ruleset.default_config(), frames)
    count = max(ruleset.min_seats, min(2, ruleset.max_seats))
    seats = tuple(f"seat{i}" for i in range(count))
    names = list(bots) if bots else bot_order(ruleset)
    players = [ruleset.make_bot(names[i % len(names)], seat_seed(seed, i)) for i in range(count)]
    match = ruleset.new_match(config, seed, seats)
    rows: list[list[int]] = []
    while match.result is None:
        row = [bot.decide(match.seat_view(seat), match.frame) for seat, bot in enumerate(players)]
        rows.append(row)
        match.step(row)
    return Played(match, config, seats, rows)


def fingerprint(played: Played) -> list[Any]:
    """What a fresh process must reproduce: the log hash, the end frame, the result as plain data."""
    result = played.match.result
    assert result is not None
    return [played.match.log_hash, played.match.frame, result.plain()]


def main() -> None:
    """Print every conforming ruleset's fingerprint as JSON (the cross-process test runs this)."""
    print(json.dumps({ruleset_id(r): fingerprint(play(r)) for r in conforming()}, sort_keys=True))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
