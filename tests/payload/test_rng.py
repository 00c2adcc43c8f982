"""Payload's generator: FNV-1a and mulberry32 bit for bit (vectors from JavaScript's Math.imul
original, run under node), keyed draws, Fisher-Yates over explicit draws, the date key."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.payload.rng import (
    Mulberry32,
    below,
    date_seed,
    deal_seed,
    draw,
    fnv1a32,
    is_date_key,
    shuffle,
)

#: mulberry32(seed)'s first three 32-bit outputs, computed by the JavaScript original
#: (`a = a + 0x6D2B79F5 | 0; t = Math.imul(t ^ t >>> 15, t | 1); …; (t ^ t >>> 14) >>> 0`) under node.
MULBERRY_VECTORS = {
    0: (1144304738, 1416247, 958946056),
    1: (2693262067, 11749833, 2265367787),
    123456789: (1107202814, 4169434471, 3372958138),
    4294967295: (3850105811, 813802916, 3073704848),
}
#: FNV-1a 32 of UTF-8 text, computed under node.
FNV_VECTORS = {"": 2166136261, "a": 3826002220, "2026-12-03": 3206470837, "héllo": 1252296000}


def test_mulberry32_matches_the_javascript_original() -> None:
    """Exact 32-bit arithmetic: the same outputs as Math.imul and >>> 0."""
    for seed, outputs in MULBERRY_VECTORS.items():
        stream = Mulberry32(seed)
        assert tuple(stream.next_u32() for _ in range(3)) == outputs


def test_fnv1a_matches_the_javascript_original() -> None:
    """FNV-1a over UTF-8 bytes."""
    for text, value in FNV_VECTORS.items():
        assert fnv1a32(text) == value


def reference_shuffle(items: list[int], draws: list[int]) -> list[int]:
    """Fisher-Yates written out: the i-th swap (from the end) takes draws[k] scaled to i + 1."""
    out = list(items)
    for k, i in enumerate(range(len(out) - 1, 0, -1)):
        j = (draws[k] * (i + 1)) >> 32
        out[i], out[j] = out[j], out[i]
    return out


@given(st.lists(st.integers(), max_size=20), st.integers(0, 2**32 - 1), st.integers(0, 9),
       st.text(max_size=8))
def test_shuffle_is_fisher_yates_over_explicit_draws(items: list[int], seed: int, round_index: int,
                                                     purpose: str) -> None:
    """The shuffle is exactly Fisher-Yates with the draw keyed by each slot: a permutation, no sort."""
    draws = [draw(seed, round_index, i, purpose) for i in range(len(items) - 1, 0, -1)]
    out = shuffle(items, seed, round_index, purpose)
    assert out == reference_shuffle(items, draws)
    assert sorted(out) == sorted(items)


def test_keyed_draws_are_independent() -> None:
    """A draw depends only on its key: another purpose or slot, drawn or not, never moves it."""
    first = draw(7, 2, 1, "offer")
    for slot in range(10):
        draw(7, 2, slot, "reroll1")
    assert draw(7, 2, 1, "offer") == first
    assert len({draw(7, 2, slot, "offer") for slot in range(50)}) == 50
    assert draw(7, 2, 1, "offer") != draw(7, 3, 1, "offer")


def test_deal_is_salted_by_difficulty() -> None:
    """The same seed deals differently on Easy and Hard."""
    assert deal_seed(5, "easy") != deal_seed(5, "hard")


def test_date_key() -> None:
    """A UTC date key is YYYY-MM-DD with a real day; its seed is its FNV-1a."""
    assert is_date_key("2024-02-29") and not is_date_key("2023-02-29")
    assert not is_date_key("2026-13-01") and not is_date_key("2026-1-01")
    assert not is_date_key("２０２６-01-01")
    assert date_seed("2026-12-03") == FNV_VECTORS["2026-12-03"]
    with pytest.raises(ValueError, match="date_key"):
        date_seed("yesterday")


def test_below_is_in_range() -> None:
    """Scaling a 32-bit draw stays in [0, bound)."""
    assert below(0, 5) == 0 and below(2**32 - 1, 5) == 4
    with pytest.raises(ValueError):
        below(3, 0)
