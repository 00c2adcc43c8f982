"""The seam between an enemy's brain and the session: what a brain may read and do, and the brains by name.

A brain decides for one moving enemy at a cell centre: it may turn the enemy (`dir`), change the
slot's mind (mode, periods, chews, dead-end data) and ask the session, through `BrainHost`, for what
lies around it and for the few things only the session may do (chew a block, kick one, flee, vanish,
pause after the step). It returns whether the enemy steps after deciding. Every random draw comes from
`host.rng`, in the listing's order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from . import brains, snobee
from .config import KickBrain

if TYPE_CHECKING:
    from .actors import Enemy
    from .board import Block, KickBoard
    from .config import KickEnemyKind
    from .geometry import Direction
    from .level import LevelPace
    from .rng import KickRandom


class Position(Protocol):
    """Where the player is, in pixels (all a brain may know of it)."""

    @property
    def px(self) -> int: ...

    @property
    def py(self) -> int: ...


class BrainHost(Protocol):
    """What a brain may read and do while it decides for one enemy."""

    #: The Sno-Bee decides as the listing reads ($33D8) instead of as the first port did
    #: (`KickConfig.fidelity == "arcade"`); fixed for the session.
    arcade_fidelity: bool

    @property
    def rng(self) -> KickRandom:
        """The session's one stream."""

    @property
    def board(self) -> KickBoard:
        """The board, to read (a kick goes through `kick`)."""

    @property
    def player(self) -> Position:
        """The player's position."""

    @property
    def pace(self) -> LevelPace:
        """The level's periods and thresholds."""

    @property
    def remaining(self) -> int:
        """Live enemies (not finishing) plus eggs."""

    def kind(self, e: Enemy) -> KickEnemyKind:
        """The enemy's kind (whether it chews and dodges)."""

    def life_minutes(self) -> int:
        """Whole (game-)minutes into this life's play."""

    def zero_last_enemy_clock(self) -> None:
        """$33F9: zero the high byte of the vblank counter $8823."""

    def last_enemy_clock_high(self) -> int:
        """The high byte of the vblank counter $8823 since it was last zeroed."""

    def can_chew(self, e: Enemy, block: Block) -> bool:
        """May this enemy break this block (egg blocks and specials are turned away from)."""

    def chew(self, e: Enemy, block: Block) -> None:
        """Start breaking the block ahead ($3908)."""

    def kick(self, e: Enemy, x: int, y: int, direction: Direction) -> bool:
        """Kick the block at (x, y); True when it slides."""

    def flee(self, e: Enemy) -> None:
        """The enemy starts to flee ($340A)."""

    def vanish(self, e: Enemy) -> None:
        """A fleeing enemy reached its corner and vanishes ($34F3)."""

    def pause_after_step(self, e: Enemy) -> None:
        """$3745: take this step, then pause until the next wrap."""


#: One decision for a centred, moving enemy; True when it steps afterwards.
Brain = Callable[[BrainHost, "Enemy"], bool]

#: Every brain a config may name (`KickEnemyKind.brain`), by name.
BRAINS: Mapping[KickBrain, Brain] = MappingProxyType(
    {
        "sno-bee": snobee.decide,
        "patrol": brains.patrol,
        "chase": brains.chase,
        "pusher": brains.pusher,
    }
)
