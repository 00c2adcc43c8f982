"""The versus events (rules/versus/events.py): the union, the kind registry and the plain form."""

from __future__ import annotations

import dataclasses
import inspect
import marshal
from typing import get_args

from rules.kick.events import Kick
from rules.kick.geometry import Cell
from rules.result import Outcome
from rules.synctest import canonical_encoding
from rules.versus import events
from rules.versus.ending import EndReason, OutReason
from rules.versus.events import (
    VERSUS_EVENT_TYPES,
    BoardRecord,
    Landing,
    MatchEnd,
    Record,
    SeatOut,
    VersusEvent,
    record_plain,
)
from rules.versus.landing import LandingKind


def event_classes_defined_in_the_module() -> set[type]:
    """Every dataclass defined in rules/versus/events.py that declares a `kind`: a versus event class."""
    return {
        cls
        for _, cls in inspect.getmembers(events, inspect.isclass)
        if cls.__module__ == events.__name__ and dataclasses.is_dataclass(cls) and "kind" in vars(cls)
    }


def test_every_event_class_is_in_the_union() -> None:
    """Each event class the module defines is a member of VersusEvent (a new one left out fails here)."""
    assert event_classes_defined_in_the_module() == set(get_args(VersusEvent))
    assert BoardRecord not in get_args(VersusEvent)


def test_the_kind_registry_is_the_union() -> None:
    """VERSUS_EVENT_TYPES maps each union member's kind to it, one kind per class, in the union's order."""
    classes = get_args(VersusEvent)
    assert list(VERSUS_EVENT_TYPES.values()) == list(classes)
    assert all(VERSUS_EVENT_TYPES[cls.kind] is cls for cls in classes)
    assert list(VERSUS_EVENT_TYPES) == [
        "attack", "offset", "queued", "landing", "gem-count", "gem-thaw", "seat-out", "match-end"]


def test_plain_records_carry_the_vocabularies_as_exact_strings() -> None:
    """record_plain writes landing kinds, reasons and outcomes as exact str values, as the log always had."""
    records: list[Record] = [
        Landing(1, LandingKind.NUISANCE, 4, (Cell(1, 2),), (Cell(3, 4),), ()),
        SeatOut(0, OutReason.LIVES),
        MatchEnd(1, (Outcome.LOST, Outcome.WON), EndReason.ELIMINATION, 99),
    ]
    plain = [record_plain(record) for record in records]
    assert plain == [
        {"kind": "landing", "seat": 1, "landing": "nuisance", "units": 4, "blocks": [[1, 2]],
         "eggs": [[3, 4]], "gems": []},
        {"kind": "seat-out", "seat": 0, "reason": "lives"},
        {"kind": "match-end", "winner": 1, "outcomes": ["lost", "won"], "reason": "elimination", "frame": 99},
    ]
    assert type(plain[0]["landing"]) is str and type(plain[1]["reason"]) is str
    assert all(type(word) is str for word in (*plain[2]["outcomes"], plain[2]["reason"]))
    marshal.dumps(plain)
    assert canonical_encoding(plain[1]) == b'{"kind":"seat-out","reason":"lives","seat":0}'


def test_a_board_record_is_its_event_with_the_seat() -> None:
    """A board event's plain form is the kick event's own plus the seat it happened on."""
    assert record_plain(BoardRecord(1, Kick(Cell(2, 3), "up", "slide"))) == {
        "kind": "kick", "at": [2, 3], "dir": "up", "result": "slide", "seat": 1}
