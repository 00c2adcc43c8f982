"""The run's events (what the reducer did) and every event as plain data (what the log hashes and
the stream sends): a closed vocabulary, one frozen dataclass per kind, `event_plain` exhaustive over it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, assert_never

from .types import (
    Bank,
    BlueprintKey,
    Capped,
    CellIndex,
    Column,
    DropEvent,
    Enter,
    JamKey,
    PartKey,
    Spawn,
    Trigger,
)


@dataclass(frozen=True, slots=True)
class OffersDealt:
    """A round's draft was dealt."""

    round: int
    offers: tuple[PartKey, ...]


@dataclass(frozen=True, slots=True)
class Rerolled:
    """The draft was dealt again (Loose Screws)."""

    round: int
    offers: tuple[PartKey, ...]


@dataclass(frozen=True, slots=True)
class Selected:
    """An offer was picked."""

    index: int
    part: PartKey


@dataclass(frozen=True, slots=True)
class Placed:
    """The picked part went on a cell (`replaced`: what was there)."""

    part: PartKey
    cell: CellIndex
    replaced: PartKey | None


@dataclass(frozen=True, slots=True)
class Skipped:
    """The draft was skipped."""

    round: int


@dataclass(frozen=True, slots=True)
class BlueprintsOffered:
    """A blueprint is granted: these are the choices."""

    choices: tuple[BlueprintKey, ...]


@dataclass(frozen=True, slots=True)
class BlueprintTaken:
    """A blueprint was taken."""

    key: BlueprintKey


@dataclass(frozen=True, slots=True)
class BlueprintDeclined:
    """The grant was declined."""


@dataclass(frozen=True, slots=True)
class Dropped:
    """A marble was dropped: the drop's total and its whole log."""

    round: int
    column: Column
    total: int
    log: tuple[DropEvent, ...]


@dataclass(frozen=True, slots=True)
class RoundCleared:
    """The round's drops met its quota."""

    round: int
    score: int
    quota: int


@dataclass(frozen=True, slots=True)
class RoundMissed:
    """The round's drops fell short of its quota: the run is lost."""

    round: int
    score: int
    quota: int


@dataclass(frozen=True, slots=True)
class RunEnded:
    """The run is over."""

    won: bool
    score: int
    rounds_cleared: int


@dataclass(frozen=True, slots=True)
class Received:
    """Versus: an opponent's surplus landed: a jam for this round or a nuisance part on a cell."""

    jam: JamKey | None
    part: PartKey | None
    cell: CellIndex | None


RunEvent = (
    OffersDealt | Rerolled | Selected | Placed | Skipped | BlueprintsOffered | BlueprintTaken
    | BlueprintDeclined | Dropped | RoundCleared | RoundMissed | RunEnded | Received
)


def drop_event_plain(event: DropEvent) -> dict[str, Any]:
    """One drop event as plain data."""
    match event:
        case Enter(marble, cell, value, label):
            return {"kind": "enter", "marble": marble, "cell": cell, "value": value, "label": label}
        case Trigger(marble, cell, part, before, after, label):
            return {"kind": "trigger", "marble": marble, "cell": cell, "part": part, "before": before,
                    "after": after, "label": label}
        case Spawn(marble, parent, cell, column, value, label):
            return {"kind": "spawn", "marble": marble, "parent": parent, "cell": cell, "column": column,
                    "value": value, "label": label}
        case Capped(marble, cell, label):
            return {"kind": "capped", "marble": marble, "cell": cell, "label": label}
        case Bank(marble, cell, value):
            return {"kind": "bank", "marble": marble, "cell": cell, "value": value}
        case _:
            assert_never(event)


def event_plain(event: RunEvent) -> dict[str, Any]:
    """One run event as plain data (a drop with its whole log)."""
    match event:
        case OffersDealt(round_index, offers):
            return {"kind": "offers", "round": round_index, "offers": list(offers)}
        case Rerolled(round_index, offers):
            return {"kind": "rerolled", "round": round_index, "offers": list(offers)}
        case Selected(index, part):
            return {"kind": "selected", "index": index, "part": part}
        case Placed(part, cell, replaced):
            return {"kind": "placed", "part": part, "cell": cell, "replaced": replaced}
        case Skipped(round_index):
            return {"kind": "skipped", "round": round_index}
        case BlueprintsOffered(choices):
            return {"kind": "blueprints", "choices": list(choices)}
        case BlueprintTaken(key):
            return {"kind": "blueprint", "key": key}
        case BlueprintDeclined():
            return {"kind": "blueprint-declined"}
        case Dropped(round_index, column, total, log):
            return {"kind": "drop", "round": round_index, "column": column, "total": total,
                    "log": [drop_event_plain(item) for item in log]}
        case RoundCleared(round_index, score, quota):
            return {"kind": "round-cleared", "round": round_index, "score": score, "quota": quota}
        case RoundMissed(round_index, score, quota):
            return {"kind": "round-missed", "round": round_index, "score": score, "quota": quota}
        case RunEnded(won, score, rounds_cleared):
            return {"kind": "run-end", "won": won, "score": score, "rounds_cleared": rounds_cleared}
        case Received(jam, part, cell):
            return {"kind": "received", "jam": jam, "part": part, "cell": cell}
        case _:
            assert_never(event)
