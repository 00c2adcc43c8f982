"""Versus events: attacks, offsets, the pending queue, landings, counter gems, seats out, the end.

A frame's log is a list of records: each board event with the seat it happened on, and each versus
event (which names its seats itself). `record_plain` turns one record into plain data for the
stream, the replay hash and the tests; a vocabulary member (a landing kind, a reason, an outcome)
becomes its string there, so the canonical log is the same bytes it always was.

`VersusEvent` is the union of the versus event classes and `VERSUS_EVENT_TYPES` (kind → class) is
derived from it; tests/versus/test_events.py fails when a class is defined here but left out of it.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any, ClassVar, get_args

from rules.kick.events import KickEvent, to_plain
from rules.kick.geometry import Cell
from rules.result import Outcome

from .ending import EndReason, OutReason
from .landing import LandingKind


@dataclass(frozen=True, slots=True)
class Attack:
    """A seat earned attack units this frame (before the offset)."""

    kind: ClassVar[str] = "attack"
    seat: int
    units: int
    reasons: tuple[str, ...]
    chain: bool
    margin: bool


@dataclass(frozen=True, slots=True)
class Offset:
    """Outgoing units cancelled the sender's own pending incoming units."""

    kind: ClassVar[str] = "offset"
    seat: int
    units: int


@dataclass(frozen=True, slots=True)
class Queued:
    """A packet of units is on its way to `seat`; it lands on frame `lands_at` (the telegraph)."""

    kind: ClassVar[str] = "queued"
    seat: int
    source: int
    packet: int
    units: int
    lands_at: int


@dataclass(frozen=True, slots=True)
class Landing:
    """Units landed on `seat`: garbage ice, nuisance eggs, or counter gems."""

    kind: ClassVar[str] = "landing"
    seat: int
    landing: LandingKind
    units: int
    blocks: tuple[Cell, ...]
    eggs: tuple[Cell, ...]
    gems: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class GemCount:
    """A counter gem counted down one step."""

    kind: ClassVar[str] = "gem-count"
    seat: int
    at: Cell
    count: int


@dataclass(frozen=True, slots=True)
class GemThaw:
    """A counter gem reached 0 and became ordinary ice."""

    kind: ClassVar[str] = "gem-thaw"
    seat: int
    at: Cell


@dataclass(frozen=True, slots=True)
class SeatOut:
    """A seat is out of the match: its last life is lost, or it forfeited."""

    kind: ClassVar[str] = "seat-out"
    seat: int
    reason: OutReason


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """The match is over."""

    kind: ClassVar[str] = "match-end"
    winner: int | None
    outcomes: tuple[Outcome, ...]
    reason: EndReason
    frame: int


VersusEvent = Attack | Offset | Queued | Landing | GemCount | GemThaw | SeatOut | MatchEnd

#: Each versus event class by its kind, in the union's order.
VERSUS_EVENT_TYPES: dict[str, type[VersusEvent]] = {cls.kind: cls for cls in get_args(VersusEvent)}


@dataclass(frozen=True, slots=True)
class BoardRecord:
    """A board event on one seat."""

    seat: int
    event: KickEvent


Record = BoardRecord | VersusEvent


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, enum.StrEnum):
        return value.value
    return value


def record_plain(record: Record) -> dict[str, Any]:
    """One log record as plain data: board events carry their seat; versus events name theirs."""
    if isinstance(record, BoardRecord):
        out = to_plain(record.event)
        out["seat"] = record.seat
        return out
    plain: dict[str, Any] = {"kind": record.kind}
    for f in dataclasses.fields(record):
        plain[f.name] = _plain(getattr(record, f.name))
    return plain
