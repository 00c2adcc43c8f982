"""Everything that happens on a board or in a session, as plain data.

Each event is a frozen dataclass with a `kind` class attribute; `EVENT_TYPES` is the closed
vocabulary (a new kind that is not registered there fails `tests/kick/test_events.py`), and
`to_plain` turns any event into a dict of plain values that msgpack or JSON can encode.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, get_args

from .geometry import Cell, Direction

# ---- board events -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SlideStart:
    """A kicked block starts to slide."""

    kind: ClassVar[str] = "slide-start"
    block: int
    at: Cell
    dir: Direction
    by: str


@dataclass(frozen=True, slots=True)
class SlideStep:
    """A sliding block reached the centre of the next cell."""

    kind: ClassVar[str] = "slide-step"
    block: int
    at: Cell
    dir: Direction


@dataclass(frozen=True, slots=True)
class SlideStop:
    """A sliding block came to rest."""

    kind: ClassVar[str] = "slide-stop"
    block: int
    at: Cell
    dir: Direction
    by: str
    travelled: int
    group: str | None


@dataclass(frozen=True, slots=True)
class BreakStart:
    """A block starts to shatter; its cell stays blocked until it is broken."""

    kind: ClassVar[str] = "break-start"
    block: int
    at: Cell
    by: str
    egg: str | None
    material: str


@dataclass(frozen=True, slots=True)
class Broken:
    """A shattering block is gone."""

    kind: ClassVar[str] = "broken"
    block: int
    at: Cell
    by: str
    egg: str | None
    material: str


@dataclass(frozen=True, slots=True)
class Crack:
    """A block that takes several hits was kicked against an obstacle."""

    kind: ClassVar[str] = "crack"
    block: int
    at: Cell
    damage: int


# ---- session events -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Kick:
    """The player kicked; result is the push result's kind (slide, break, crack, blocked, border…)."""

    kind: ClassVar[str] = "kick"
    at: Cell
    dir: Direction
    result: str


@dataclass(frozen=True, slots=True)
class Shake:
    """The player kicked the border on one side and shook it."""

    kind: ClassVar[str] = "shake"
    side: Direction


@dataclass(frozen=True, slots=True)
class Stun:
    """An enemy was stunned by a wall shake or a line bonus."""

    kind: ClassVar[str] = "stun"
    id: str
    cause: Literal["shake", "line"]


@dataclass(frozen=True, slots=True)
class Crush:
    """One slide crushed these enemies; score is paid once for the slide."""

    kind: ClassVar[str] = "crush"
    ids: tuple[str, ...]
    at: Cell
    score: int


@dataclass(frozen=True, slots=True)
class Eat:
    """The player walked over a stunned enemy."""

    kind: ClassVar[str] = "eat"
    id: str
    at: Cell
    score: int


@dataclass(frozen=True, slots=True)
class EggBroken:
    """An egg was destroyed with its block (paid when the shell is gone)."""

    kind: ClassVar[str] = "egg-broken"
    at: Cell
    score: int


@dataclass(frozen=True, slots=True)
class Hatch:
    """An egg hatched; a new enemy is at `at`."""

    kind: ClassVar[str] = "hatch"
    id: str
    at: Cell


@dataclass(frozen=True, slots=True)
class Flee:
    """An enemy started to run for a corner."""

    kind: ClassVar[str] = "flee"
    id: str


@dataclass(frozen=True, slots=True)
class Vanish:
    """A fleeing enemy left the board."""

    kind: ClassVar[str] = "vanish"
    id: str
    at: Cell


@dataclass(frozen=True, slots=True)
class Line:
    """A line of special blocks was made."""

    kind: ClassVar[str] = "line"
    cells: tuple[Cell, ...]
    along_wall: bool
    score: int


@dataclass(frozen=True, slots=True)
class Score:
    """Points were added."""

    kind: ClassVar[str] = "score"
    points: int
    at: Cell | None
    reason: str


@dataclass(frozen=True, slots=True)
class Death:
    """The player died."""

    kind: ClassVar[str] = "death"
    at: Cell
    cause: Literal["enemy", "block"]


@dataclass(frozen=True, slots=True)
class ExtraLife:
    """An extra life was awarded."""

    kind: ClassVar[str] = "extra-life"
    lives: int


@dataclass(frozen=True, slots=True)
class Hurry:
    """Another minute of this life passed: enemies hurry."""

    kind: ClassVar[str] = "hurry"


@dataclass(frozen=True, slots=True)
class LastEnemy:
    """Only one enemy is left and no eggs."""

    kind: ClassVar[str] = "last-enemy"


@dataclass(frozen=True, slots=True)
class RoundClear:
    """The round was cleared; time in seconds, bonus in points."""

    kind: ClassVar[str] = "round-clear"
    time: float
    bonus: int


@dataclass(frozen=True, slots=True)
class LevelStart:
    """A level (round) starts."""

    kind: ClassVar[str] = "level-start"
    level: int


@dataclass(frozen=True, slots=True)
class GameOver:
    """The last life was lost."""

    kind: ClassVar[str] = "game-over"


@dataclass(frozen=True, slots=True)
class Complete:
    """The last level was cleared (a game that does not loop)."""

    kind: ClassVar[str] = "complete"


KickBoardEvent = SlideStart | SlideStep | SlideStop | BreakStart | Broken | Crack
KickEvent = (
    KickBoardEvent
    | Kick
    | Shake
    | Stun
    | Crush
    | Eat
    | EggBroken
    | Hatch
    | Flee
    | Vanish
    | Line
    | Score
    | Death
    | ExtraLife
    | Hurry
    | LastEnemy
    | RoundClear
    | LevelStart
    | GameOver
    | Complete
)

#: The closed vocabulary: kind -> event class, derived from the union (an event class left out of
#: `KickEvent` is in no registry; tests/kick/test_events.py fails for one).
EVENT_TYPES: dict[str, type[Any]] = {cls.kind: cls for cls in get_args(KickEvent)}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def to_plain(event: KickEvent) -> dict[str, Any]:
    """The event as a dict of plain values: {"kind": ..., field: value}; cells become [x, y]."""
    out: dict[str, Any] = {"kind": event.kind}
    for f in dataclasses.fields(event):
        out[f.name] = _plain(getattr(event, f.name))
    return out


def _cellify(value: Any) -> Any:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return Cell(value[0], value[1])
    return value


def from_plain(data: dict[str, Any]) -> KickEvent:
    """Rebuild an event from to_plain's output; raises ValueError for an unknown kind or fields."""
    kind = data.get("kind")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            raise ValueError(f"{kind}: missing field {f.name!r}")
        raw = data[f.name]
        if f.name in ("ids",):
            values[f.name] = tuple(raw)
        elif f.name == "cells":
            values[f.name] = tuple(Cell(c[0], c[1]) for c in raw)
        else:
            values[f.name] = _cellify(raw)
    event: KickEvent = cls(**values)
    return event
