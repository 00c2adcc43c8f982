"""Payload's seeded generator: a UTC date key → FNV-1a → mulberry32, salted by difficulty, in exact
32-bit arithmetic (the JavaScript originals' `Math.imul` and `>>> 0`, bit for bit).

Every random draw of a run is keyed by (round, slot, purpose) rather than taken from one sequential
stream: `draw(seed, round, slot, purpose)` hashes the key with FNV-1a and takes mulberry32's first
output from it. So a skip, a reroll or a blueprint taken by one player never moves another player's
offers on the same deal (versus's shared deals), and nothing depends on how many draws came before.
Shuffles are Fisher-Yates over explicit draws (`shuffle`), never a sort with a random comparator,
whose call count is implementation-defined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from .types import DifficultyKey

MASK = 0xFFFFFFFF
FNV_OFFSET = 0x811C9DC5
FNV_PRIME = 0x01000193
MULBERRY_STEP = 0x6D2B79F5

T = TypeVar("T")


def fnv1a32(text: str) -> int:
    """FNV-1a, 32 bits, over the text's UTF-8 bytes."""
    value = FNV_OFFSET
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * FNV_PRIME) & MASK
    return value


def _imul(a: int, b: int) -> int:
    return (a * b) & MASK


def mulberry32(state: int) -> tuple[int, int]:
    """One mulberry32 step: (the next state, the 32-bit output). `output / 2**32` is JavaScript's float."""
    state = (state + MULBERRY_STEP) & MASK
    t = state
    t = _imul(t ^ (t >> 15), t | 1)
    t ^= (t + _imul(t ^ (t >> 7), t | 61)) & MASK
    return state, (t ^ (t >> 14)) & MASK


class Mulberry32:
    """mulberry32 as a sequential stream (the daily's variant pick, tests); its state is one integer."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def next_u32(self) -> int:
        """The next 32-bit output."""
        self.state, out = mulberry32(self.state)
        return out

    def below(self, bound: int) -> int:
        """A draw in [0, bound): the 32-bit output scaled (`out × bound >> 32`, no modulo)."""
        return below(self.next_u32(), bound)


def below(draw_u32: int, bound: int) -> int:
    """Scale a 32-bit draw into [0, bound) (multiply-shift: exact, no floating point)."""
    if bound <= 0:
        raise ValueError(f"bound: must be positive, got {bound}")
    return (draw_u32 * bound) >> 32


def is_date_key(text: str) -> bool:
    """A UTC date key: YYYY-MM-DD with a real month and day."""
    if len(text) != 10 or text[4] != "-" or text[7] != "-":
        return False
    year, month, day = text[:4], text[5:7], text[8:]
    if not (year.isdigit() and month.isdigit() and day.isdigit()) or not year.isascii():
        return False
    return 1 <= int(month) <= 12 and 1 <= int(day) <= days_in_month(int(year), int(month))


def days_in_month(year: int, month: int) -> int:
    """Days in a month of the proleptic Gregorian calendar."""
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def date_seed(date_key: str) -> int:
    """A day's seed: FNV-1a of the UTC date key (the caller's clock, never this module's)."""
    if not is_date_key(date_key):
        raise ValueError(f"date_key: expected a UTC date YYYY-MM-DD, got {date_key!r}")
    return fnv1a32(date_key)


def deal_seed(seed: int, difficulty: DifficultyKey) -> int:
    """A run's deal seed: the run seed salted with the difficulty's key, so Easy and Hard never deal
    the same parts from the same seed (or on the same day)."""
    return fnv1a32(f"{seed & MASK:08x}|{difficulty}")


def draw(seed: int, round_index: int, slot: int, purpose: str) -> int:
    """The 32-bit draw for (round, slot, purpose) of a deal: independent of every other draw."""
    key = fnv1a32(f"{seed & MASK:08x}|{round_index}|{slot}|{purpose}")
    return mulberry32(key)[1]


def shuffle(items: Sequence[T], seed: int, round_index: int, purpose: str) -> list[T]:
    """Fisher-Yates over explicit draws: position i (from the end) swaps with a draw keyed by slot i."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = below(draw(seed, round_index, i, purpose), i + 1)
        out[i], out[j] = out[j], out[i]
    return out
