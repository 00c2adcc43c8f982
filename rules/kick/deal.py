"""Per-level deal seeds: one board per seat, the same act k for every seat of a versus match.

The arcade draws every act from one continuing stream, so two boards diverge at the first different
Sno-Bee decision. A shared deal instead starts each level from a seed derived from the match seed
and the level number alone. Derived seeds keep the ROM seed's class (a low byte with exactly one
trailing zero bit, like $365A), whose states lie on the arcade's 8,192-long cycle: the generator
never changes that class (rng.py), and classes with more trailing zeros have short cycles.
"""

from __future__ import annotations

#: Odd multiplier and increment of the mix (any odd constants would do; fixed forever, since
#: changing them changes every versus deal and so the replays' hashes).
_MIX_MUL = 40503
_MIX_ADD = 0x6F4B


def mix_seed(seed: int, salt: int) -> int:
    """A 16-bit seed in the ROM seed's class, mixed from a 32-bit seed and a salt."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 0xFFFFFFFF:
        raise ValueError(f"seed: must be an integer from 0 to 2**32 - 1, got {seed!r}")
    mixed = ((seed ^ (seed >> 16)) & 0xFFFF) * _MIX_MUL + (seed >> 16) + salt * _MIX_ADD
    mixed ^= mixed >> 7
    mixed = (mixed * _MIX_MUL + _MIX_ADD + (seed & 0xFFFF)) & 0xFFFF
    mixed ^= mixed >> 5
    return (mixed & 0xFFFC) | 0x0002


def level_deal_seed(seed: int, level: int) -> int:
    """The 16-bit seed that level `level` (1-based) is dealt from, for a 32-bit match seed."""
    if isinstance(level, bool) or not isinstance(level, int) or level < 1:
        raise ValueError(f"level: must be a positive integer, got {level!r}")
    return mix_seed(seed, level)
