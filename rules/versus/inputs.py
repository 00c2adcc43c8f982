"""One input byte per seat per frame: a held direction (or none) and the kick edge, or a forfeit.

Bits 0–2 hold the direction (0 none, 1 up, 2 down, 3 left, 4 right), bit 3 the kick; 0x80 alone
is a forfeit (the seat leaves for good). Every other byte is malformed.

The held-input rule lives here and only here (`held`): between two bytes a seat told, it holds the
earlier byte's direction with the kick dropped — the kick is an edge, the direction is held. The
runner predicts a silent seat by it, and clients gather their input runs by it. `INPUTS` is this
convention as rules/ruleset.py's `InputRules`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.errors import IllegalInputError
from rules.kick.geometry import DIRECTIONS, Direction

KICK_BIT = 0x08
FORFEIT = 0x80
NEUTRAL = 0x00

__all__ = [
    "FORFEIT",
    "INPUTS",
    "KICK_BIT",
    "NEUTRAL",
    "IllegalInputError",
    "SeatInput",
    "decode_input",
    "encode_input",
    "held",
    "is_valid_input",
]


@dataclass(frozen=True, slots=True)
class SeatInput:
    """A decoded input byte."""

    direction: Direction | None
    kick: bool
    forfeit: bool = False

    def to_byte(self) -> int:
        """The wire byte."""
        if self.forfeit:
            return FORFEIT
        code = 0 if self.direction is None else DIRECTIONS.index(self.direction) + 1
        return code | (KICK_BIT if self.kick else 0)

    @classmethod
    def from_byte(cls, value: int) -> SeatInput:
        """Decode a byte; raises IllegalInputError for a malformed one."""
        return decode_input(value)

    def __repr__(self) -> str:
        return f"SeatInput.from_byte({self.to_byte():#04x})"


def encode_input(direction: Direction | None, kick: bool = False) -> int:
    """The byte for a held direction and a kick edge."""
    if direction is not None and direction not in DIRECTIONS:
        raise IllegalInputError(f"direction: expected one of {DIRECTIONS} or None, got {direction!r}")
    return SeatInput(direction, kick).to_byte()


_DECODED: dict[int, SeatInput] = {FORFEIT: SeatInput(None, False, True)}
for _code, _direction in enumerate((None, *DIRECTIONS)):
    for _kick in (False, True):
        _DECODED[_code | (KICK_BIT if _kick else 0)] = SeatInput(_direction, _kick)


def is_valid_input(value: object) -> bool:
    """True for a well-formed input byte."""
    return isinstance(value, int) and not isinstance(value, bool) and value in _DECODED


def decode_input(value: int) -> SeatInput:
    """Decode an input byte; raises IllegalInputError naming the byte when it is malformed."""
    if not is_valid_input(value):
        raise IllegalInputError(f"input: {value!r} is not a valid input byte")
    return _DECODED[value]


def held(value: int) -> int:
    """What a byte leaves held on the frames after it: its direction, without the kick edge."""
    return value & ~KICK_BIT


@dataclass(frozen=True, slots=True)
class PengoInputs:
    """This module's input byte as rules/ruleset.py's `InputRules`."""

    neutral: int = NEUTRAL
    forfeit: int = FORFEIT

    def is_valid(self, value: object) -> bool:
        """A well-formed input byte (a forfeit included)."""
        return is_valid_input(value)

    def held(self, value: int) -> int:
        """See the module function `held`."""
        return held(value)


#: The input byte convention of pengo-versus (and of floe's wire).
INPUTS = PengoInputs()
