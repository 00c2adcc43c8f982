"""Payload's bots, pure (no clock, no global random), one concept a module:

- lazy.py: the floor (first offer, first empty cell, the middle column);
- competent.py: greedy on exact previews;
- seat.py: a policy as a seat's Bot, speaking the input byte.
"""

from __future__ import annotations

from ..rng import Mulberry32
from .competent import competent_move
from .lazy import lazy_move
from .seat import Policy, SeatBot

#: The bots `make_bot` knows.
BOT_NAMES: tuple[str, ...] = ("lazy", "competent")
POLICIES: dict[str, Policy] = {"lazy": lazy_move, "competent": competent_move}

__all__ = ["BOT_NAMES", "POLICIES", "Policy", "SeatBot", "make_bot"]


def make_bot(name: str, seed: int = 0) -> SeatBot:
    """A bot by name, its ties broken by its own mulberry32 seeded with `seed`; ValueError for an
    unknown name."""
    policy = POLICIES.get(name)
    if policy is None:
        raise ValueError(f"bot: unknown bot {name!r} (known: {', '.join(BOT_NAMES)})")
    return SeatBot(name, policy, Mulberry32(seed))
