"""Counter gems: the material, one gem's countdown, and counting a seat's gems down, purely.

A gem block is immovable, unbreakable and unchewable and holds no egg. It lands showing
`gem_count`, counts down one every `gem_step_frames`, and at 0 thaws into ordinary ice.
`count_gems` decides which gems count and which thaw on a frame; the match changes the board.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from rules.kick.config import KickMaterial

from .tables import AttackTable

#: Counter gems: immovable, unbreakable, unchewable, hold no egg; they thaw into ice.
COUNTER_GEM = KickMaterial(
    "counter-gem", slides=False, breaks_when_blocked=False, enemy_breakable=False, holds_eggs=False
)
#: What a counter gem thaws into (and what garbage is): the board's ordinary ice.
ICE = "ice"
#: The due frame of no gem: later than any match runs (a frame count, not a rule).
NO_GEM_DUE = 1 << 62


class Gem(NamedTuple):
    """A counter gem on a seat's board: plain as [block, countdown, due]."""

    block: int
    """The id of its block on the board."""
    countdown: int
    """The number it shows."""
    due: int
    """The frame of its next step."""


class GemCounting(NamedTuple):
    """One frame of a seat's gems: the gems still counting, and every step taken, in gem order."""

    gems: tuple[Gem, ...]
    """The gems left (a thawed gem or one whose block is gone is dropped)."""
    steps: tuple[Gem, ...]
    """Each gem that stepped, with its new countdown: above 0 it counted down, at 0 it thaws."""


def new_gem(block: int, frame: int, table: AttackTable) -> Gem:
    """A gem landed on `frame` in block `block`: it shows gem_count and steps gem_step_frames later."""
    return Gem(block, table.gem_count, frame + table.gem_step_frames)


def next_gem_due(gems: tuple[Gem, ...]) -> int:
    """The frame on which the first of `gems` is due (NO_GEM_DUE for none): no count happens before it."""
    return min((gem.due for gem in gems), default=NO_GEM_DUE)


def count_gems(
    gems: tuple[Gem, ...], frame: int, standing: Callable[[int], bool], table: AttackTable
) -> GemCounting:
    """Step every gem due on `frame` (due ≤ frame), in order.

    `standing(block)` tells whether a gem's block is still a counter gem on the board; a due gem whose
    block is not is dropped without a step. A gem that steps counts down by one and is next due
    gem_step_frames later; at 0 it thaws and leaves the gems.
    """
    for gem in gems:
        if gem.due <= frame:
            break
    else:
        return GemCounting(gems, ())  # the common frame: no gem is due
    steps: list[Gem] = []
    left: list[Gem] = []
    for gem in gems:
        if gem.due > frame:
            left.append(gem)
            continue
        if not standing(gem.block):
            continue
        stepped = Gem(gem.block, gem.countdown - 1, frame + table.gem_step_frames)
        steps.append(stepped)
        if stepped.countdown > 0:
            left.append(stepped)
    return GemCounting(tuple(left), tuple(steps))
