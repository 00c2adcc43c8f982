"""The rulesets the conformance suite runs over, and the one scripted match it plays of each.

Every ruleset rules/registry.py registers, and the ones `AWAITING_REGISTRATION` names: rules/payload's
`payload` and `payload-versus` are pure and conform, but rules/registry.py does not register them yet.
Registering them there would change what the server does before its per-match-ruleset work (issue 22):
server/http/verify.py would verify Payload replays, server/http/replaystream.py stream them and
server/botclient.py follow Payload matches, all of which look rulesets up in that registry. So the
suite registers them only while a test runs (`registered`). When rules/registry.py registers them,
`conforming()` simply finds them there and this tuple can be emptied.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rules.payload.ruleset import PAYLOAD, PAYLOAD_VERSUS
from rules.registry import known, lookup, register, unregister
from rules.ruleset import Match, Ruleset, seat_seed

#: Rulesets that pass this suite but are not in rules/registry.py yet (see the module docstring).
AWAITING_REGISTRATION: tuple[Ruleset[Any, Any], ...] = (PAYLOAD, PAYLOAD_VERSUS)
#: The scripted match is cut at this frame at the latest (its ruleset's `with_time_limit`): long enough
#: for Pengo's boards to be played (the intro is over by frame ~200), short enough for the 60 s budget.
PLAY_FRAMES = 900
#: The scripted match's seed.
PLAY_SEED = 0x5EED


def ruleset_id(ruleset: Ruleset[Any, Any]) -> str:
    """The test id of a ruleset: name-vVERSION."""
    return f"{ruleset.name}-v{ruleset.version}"


def conforming() -> list[Ruleset[Any, Any]]:
    """Every registered ruleset and every one awaiting registration, by id."""
    found = {ruleset_id(r): r for r in (lookup(name, version) for name, version in known())}
    for ruleset in AWAITING_REGISTRATION:
        found.setdefault(ruleset_id(ruleset), ruleset)
    return [found[key] for key in sorted(found)]


@contextmanager
def registered() -> Iterator[None]:
    """The awaiting rulesets registered (so `rules.replay.verify` finds them) for the duration."""
    added = [r for r in AWAITING_REGISTRATION if (r.name, r.version) not in known()]
    for ruleset in added:
        register(ruleset)
    try:
        yield
    finally:
        for ruleset in added:
            unregister(ruleset)


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
    with registered():
        print(json.dumps({ruleset_id(r): fingerprint(play(r)) for r in conforming()}, sort_keys=True))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
