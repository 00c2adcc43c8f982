"""The rules' one input error: bad input gets this, and the state it was given to is left untouched."""

from __future__ import annotations


class IllegalInputError(ValueError):
    """An input the rules cannot take (a malformed input byte, an unknown direction, a bad duration);
    nothing changed."""
