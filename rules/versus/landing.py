"""Landing an attack, as pure functions of plain values and the `AttackTable`.

Which of a seat's pending packets land this frame (`landing_units`: the due ones, oldest first, at
most `landing_cap` units), what a landing of so many units is (`landing_plan`: garbage, nuisance or
counter gems, and how many blocks, eggs and gems), and where (`draw`: cells or blocks picked from the
seat's garbage stream). rules/versus/placement.py puts a plan on a board.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import NamedTuple, TypeVar

from rules.kick.rng import KickRandom

from .attack import Packet
from .tables import NUISANCE_EGGS_PER_UNIT, AttackTable

_Item = TypeVar("_Item")


class LandingKind(enum.StrEnum):
    """What a landing puts on the receiver's board, by its units."""

    GARBAGE = "garbage"
    """Up to garbage_max units: that many ice blocks on free floor cells."""
    NUISANCE = "nuisance"
    """Up to nuisance_max units: garbage_max ice blocks plus eggs hidden in the receiver's ice."""
    GEMS = "gems"
    """More: counter gems (units − gem_offset), immovable blocks that count down and thaw into ice."""


class LandingPlan(NamedTuple):
    """A landing before it is placed: its kind and at most how many blocks, eggs and gems it puts down
    (fewer when the board has no room)."""

    kind: LandingKind
    """Garbage, nuisance or gems."""
    blocks: int
    """Ice blocks to drop."""
    eggs: int
    """Eggs to hide in the receiver's resting ice."""
    gems: int
    """Counter gems to drop."""


def landing_units(
    pending: tuple[Packet, ...], frame: int, table: AttackTable
) -> tuple[int, tuple[Packet, ...]]:
    """The units that land on `frame` and the packets left pending.

    Due packets (lands_at ≤ frame) land oldest first, at most `landing_cap` units in all; a packet cut
    by the cap keeps the rest of its units at the head of the queue, to land on the next frame.
    """
    cap = table.landing_cap
    units = 0
    index = 0
    while index < len(pending) and units < cap:
        packet = pending[index]
        if packet.lands_at > frame:
            break
        take = min(packet.units, cap - units)
        units += take
        if take < packet.units:
            return units, (packet._replace(units=packet.units - take), *pending[index + 1 :])
        index += 1
    return units, pending[index:]


def landing_plan(units: int, table: AttackTable) -> LandingPlan:
    """What a landing of `units` puts down: garbage up to garbage_max units, nuisance (garbage_max
    blocks and NUISANCE_EGGS_PER_UNIT eggs per unit over it) up to nuisance_max, else gems."""
    if units > table.nuisance_max:
        return LandingPlan(LandingKind.GEMS, 0, 0, max(0, units - table.gem_offset))
    if units > table.garbage_max:
        eggs = (units - table.garbage_max) * NUISANCE_EGGS_PER_UNIT
        return LandingPlan(LandingKind.NUISANCE, table.garbage_max, eggs, 0)
    return LandingPlan(LandingKind.GARBAGE, units, 0, 0)


def draw(stream: int, items: Sequence[_Item], count: int) -> tuple[list[_Item], int]:
    """Up to `count` of `items`, picked without replacement by the garbage stream in state `stream`,
    and the stream's state after the picks.

    Each pick is `below(len(left))` of Pengo's generator (rules/kick/rng.py) indexing the items not
    yet picked, in their given order; nothing is drawn once the items run out.
    """
    if count <= 0 or not items:
        return [], stream
    rng = KickRandom(state=stream)
    left = list(items)
    picked = [left.pop(rng.below(len(left))) for _ in range(min(count, len(left)))]
    return picked, rng.state
