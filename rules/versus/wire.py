"""The stream's vocabulary for pengo-versus: closed tables of words and event layouts, and events as arrays.

What a viewer is sent is the rules' business (the canonical log, `record_plain`, is not touched: its
hash pins every replay). On the wire an event is an array `[kind, value, …]`: `kind` indexes
`EVENT_KINDS`, the values follow in the order that kind's `fields` name (the fields of its plain
map, `kind` left out: a board event's `seat` last, a versus event's first). Values are plain data
except for two kinds of field:

- a *word field* (`WORD_FIELDS`: a direction, a material, a cause, a reason, …) carries the word's
  index in `WORDS`, or the string itself when it is not a word (an enemy id in `by`, when a
  Sno-Bee chewed a block);
- an *enemy field* (`id`, `ids`) carries the enemy's number: "sno-bee-7" is 7 (an enemy's kind is
  on its actor record).

`TABLES` is all of it as plain data, what `joined.tables` publishes (protocol/README.md prints it),
so a third-party client needs nothing else. The tables only grow: a new word or kind goes at the end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, get_args

from rules.kick.board import PushKind
from rules.kick.events import EVENT_TYPES
from rules.kick.geometry import DIRECTIONS
from rules.result import Outcome

from .ending import EndReason, OutReason
from .events import VERSUS_EVENT_TYPES, Record, record_plain
from .landing import LandingKind

#: A board's statuses (rules/kick/game.py): the maze intro, READY, play, the line bonus, a death, the
#: clear, out of lives, the last level cleared.
STATUSES: tuple[str, ...] = ("drawing", "ready", "playing", "bonus", "dying", "clear", "lost", "complete")

#: Every word a stream value or an actor field may be, in a fixed order (a value's code is its index).
WORDS: tuple[str, ...] = tuple(
    dict.fromkeys(
        (
            *DIRECTIONS,
            *STATUSES,
            # enemy phases (rules/versus/view.py decodes the arcade's slot states into these)
            "pause", "moving", "chewing", "fleeing", "stunned", "blinking", "eaten", "carried",
            "squashed", "hatching", "vanishing",
            # Pengo's actions
            "walk", "push", "break", "shake", "dying",
            # materials, enemy kinds, what moved or broke a block
            "ice", "diamond", "counter-gem", "sno-bee", "player", "hatch", "line",
            # kick results, causes, score reasons, attack reasons
            *get_args(PushKind), "enemy", "block", "crush", "eat", "egg", "time-bonus",
            *(f"crush{count}" for count in range(1, 17)),
            *(kind.value for kind in LandingKind),
            *(outcome.value for outcome in Outcome),
            *(reason.value for reason in EndReason),
            *(reason.value for reason in OutReason),
            "game-over",  # pengo-solo's end (rules/solo/match.py SoloEnd; its other ends are words above)
        )
    )
)
CODE: dict[str, int] = {word: index for index, word in enumerate(WORDS)}

#: The fields whose values are words (or lists of words).
WORD_FIELDS = frozenset({"dir", "by", "result", "egg", "material", "cause", "side", "reason", "reasons",
                         "landing", "outcomes", "group"})
#: The fields that name enemies (by their number).
ENEMY_FIELDS = frozenset({"id", "ids"})


def event_fields(cls: type[Any], board: bool) -> tuple[str, ...]:
    """An event class's values in the order its plain map holds them (a board event's seat last)."""
    names = tuple(f.name for f in dataclasses.fields(cls))  # declaration order, as record_plain writes
    return (*names, "seat") if board else names


#: The board events of every kick ruleset, first in every ruleset's event table.
BOARD_EVENT_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (kind, event_fields(cls, board=True)) for kind, cls in EVENT_TYPES.items()
)
#: Each event kind's wire code (its index) with the order of its values.
EVENT_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    *BOARD_EVENT_KINDS,
    *((kind, event_fields(cls, board=False)) for kind, cls in VERSUS_EVENT_TYPES.items()),
)
KIND_CODE: dict[str, int] = {kind: index for index, (kind, _) in enumerate(EVENT_KINDS)}


def enemy_number(enemy_id: str) -> int:
    """An enemy's number from its id ("sno-bee-7" → 7; 0 for a slot that holds none)."""
    _, _, number = enemy_id.rpartition("-")
    return int(number) if number.isdigit() else 0


def word(value: str) -> int | str:
    """A word's code, or the string itself when it is not a word."""
    return CODE.get(value, value)


def _value(name: str, value: Any) -> Any:
    if name in WORD_FIELDS:
        if isinstance(value, str):
            return CODE.get(value, value)
        if isinstance(value, list):
            return [CODE.get(item, item) if isinstance(item, str) else item for item in value]
        return value
    if name in ENEMY_FIELDS:
        if isinstance(value, str):
            return enemy_number(value)
        if isinstance(value, list):
            return [enemy_number(item) for item in value]
    return value


def plain_wire(plain: dict[str, Any], codes: dict[str, int]) -> list[Any]:
    """A record's plain map as the stream sends it, `[kind code, value, …]` (codes: a ruleset's kinds)."""
    out: list[Any] = [codes[plain.pop("kind")]]
    out.extend(_value(name, value) for name, value in plain.items())
    return out


def record_wire(record: Record) -> list[Any]:
    """One versus log record as the stream sends it (see the module docstring)."""
    return plain_wire(record_plain(record), KIND_CODE)


def records_wire(records: Sequence[Record]) -> list[list[Any]]:
    """A frame's records as the stream sends them."""
    return [record_wire(record) for record in records]
