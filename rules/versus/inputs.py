"""One input byte per seat per frame: a held direction (or none) and the kick edge, or a forfeit.

Bits 0–2 hold the direction (0 none, 1 up, 2 down, 3 left, 4 right), bit 3 the kick; 0x80 alone
is a forfeit (the seat leaves for good). Every other byte is malformed.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.kick.geometry import DIRECTIONS, Direction

KICK_BIT = 0x08
FORFEIT = 0x80
NEUTRAL = 0x00


class IllegalInputError(ValueError):
    """An input byte that is not a valid seat input; nothing changed."""


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
