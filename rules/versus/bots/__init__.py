"""Versus bots: one input byte per frame, decided from what a player sees; the bots by name, per version.

Every bot is a `Bot`: `decide(view, frame)` with the seat's read-only `SeatView` (rules/versus/view.py),
the way a player reads the screen: the blocks (material, whether one slides, shatters or moves), the
visible enemies (position, facing, visible phase, blinking), Pengo (position, facing, whether he can
walk), the status and the egg blocks while the eggs flash (when they are on screen: the bot may
remember them, by block, so a kicked egg block is followed). It cannot read the random stream, a
slot's mode or timers, or hidden eggs, and it cannot change the match.

The server ("play a bot"), `floe match`, the benchmarks and the golden regeneration all build bots
with `make_bot(name, seat_seed(match_seed, seat))`: one formula for a seat's bot seed. `Bot` and
`seat_seed` are rules/ruleset.py's (every ruleset's bots have that shape); they are re-exported here.

Every choice a bot makes is drawn from its own `KickRandom`, so a bot is a pure function of its seed
and what it has seen. Bots decide cheaply between cell centres (they keep holding) and search only
when Pengo is at, or a few pixels from, a cell centre: the engine reads the stick and the kick button
only there ($3EF4, $3F85).

The kick is an edge: the engine takes a kick only at a centre sample, and a new kick needs the button
seen released at an earlier sample, so a bot presses for one frame and releases for at least one.

The package, by concept: `seeing` (what a bot reads of its `SeatView`, the bytes it answers with, its
seeded generator), `paths` (the breadth-first searches over a board's cells), `targets` (crushes,
shakes, goals, the diamonds' distance from a line), `lazy`, `random_bot`, `competent` (version 1's
competent bot) and `whole_game` (version 2's and 3's); this module names them (`BOTS_BY_VERSION`,
`make_bot`).
"""

from __future__ import annotations

from collections.abc import Callable

from rules.ruleset import Bot, seat_seed

from ..tables import RULESET_VERSION
from ..view import SeatView
from .competent import KICK_SLACK, SLACK, CompetentBot
from .lazy import LazyBot
from .random_bot import RandomBot
from .targets import line_distance
from .whole_game import WholeGameBot

__all__ = [
    "BOTS",
    "BOTS_BY_VERSION",
    "BOT_NAMES",
    "KICK_SLACK",
    "SLACK",
    "Bot",
    "CompetentBot",
    "LazyBot",
    "RandomBot",
    "WholeGameBot",
    "line_distance",
    "make_bot",
    "seat_seed",
]

#: Every bot by name.
BOTS: dict[str, Callable[[int], Bot[SeatView]]] = {
    "competent": CompetentBot,
    "lazy": LazyBot,
    "random": RandomBot,
}
#: The bots make_bot knows.
BOT_NAMES: tuple[str, ...] = tuple(BOTS)


#: Every bot by name, per ruleset version: version 1 keeps the bots that played its golden replays.
BOTS_BY_VERSION: dict[int, dict[str, Callable[[int], Bot[SeatView]]]] = {
    1: BOTS,
    2: {**BOTS, "competent": WholeGameBot},
    3: {**BOTS, "competent": WholeGameBot},
}


def make_bot(name: str, seed: int, version: int = RULESET_VERSION) -> Bot[SeatView]:
    """A bot by name ("competent", "lazy" or "random") of a ruleset version, with its own seeded choices."""
    factory = BOTS_BY_VERSION[version].get(name)
    if factory is None:
        raise ValueError(f"bot: unknown bot {name!r}; one of {BOT_NAMES}")
    return factory(seed)
