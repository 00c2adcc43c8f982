"""MT19937 seeded from an integer: the random bot's generator, the same draws as CPython's `random.Random`.

The random bot played the golden replay `duel-random-busy` when it lived in floe_cli and drew from
`random.Random(seed)`. The rules may not import `random`, and CPython only promises `random()` to stay
the same across versions, not `randrange` or `choice`; so the generator and the two draws the bot
uses are written out here (Matsumoto and Nishimura's mt19937ar: `init_genrand`, `init_by_array`,
`genrand_int32`; CPython's integer seeding and `_randbelow_with_getrandbits`). tests/versus/test_bots.py
checks it against `random.Random` for many seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_N = 624
_M = 397
_MATRIX_A = 0x9908B0DF
_UPPER = 0x80000000
_LOWER = 0x7FFFFFFF
_MASK = 0xFFFFFFFF


class Twister:
    """MT19937 with CPython's seeding of an integer seed."""

    __slots__ = ("_state", "_index")

    def __init__(self, seed: int) -> None:
        self._state = [0] * _N
        self._index = _N
        self._seed(seed)

    def _init_genrand(self, seed: int) -> None:
        state = self._state
        state[0] = seed & _MASK
        for i in range(1, _N):
            state[i] = (1812433253 * (state[i - 1] ^ (state[i - 1] >> 30)) + i) & _MASK
        self._index = _N

    def _seed(self, seed: int) -> None:
        """CPython's `random.seed(int)`: the absolute value's 32-bit words, low first, by init_by_array."""
        value = abs(seed)
        key = []
        while value:
            key.append(value & _MASK)
            value >>= 32
        key = key or [0]
        self._init_genrand(19650218)
        state = self._state
        i, j = 1, 0
        for _ in range(max(_N, len(key))):
            state[i] = ((state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) * 1664525)) + key[j] + j) & _MASK
            i += 1
            j += 1
            if i >= _N:
                state[0] = state[_N - 1]
                i = 1
            if j >= len(key):
                j = 0
        for _ in range(_N - 1):
            state[i] = ((state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) * 1566083941)) - i) & _MASK
            i += 1
            if i >= _N:
                state[0] = state[_N - 1]
                i = 1
        state[0] = 0x80000000

    def _twist(self) -> None:
        state = self._state
        for k in range(_N):
            y = (state[k] & _UPPER) | (state[(k + 1) % _N] & _LOWER)
            state[k] = state[(k + _M) % _N] ^ (y >> 1) ^ (_MATRIX_A if y & 1 else 0)
        self._index = 0

    def next_u32(self) -> int:
        """The next 32-bit output (genrand_int32)."""
        if self._index >= _N:
            self._twist()
        y = self._state[self._index]
        self._index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) for 1 ≤ n < 2**32 (`random.randrange(n)`)."""
        if not 0 < n <= _MASK:
            raise ValueError(f"below: n must be from 1 to 2**32 - 1, got {n}")
        bits = n.bit_length()
        value = self.next_u32() >> (32 - bits)
        while value >= n:
            value = self.next_u32() >> (32 - bits)
        return value

    def choice(self, items: Sequence[T]) -> T:
        """One of `items`, uniformly (`random.choice`)."""
        return items[self.below(len(items))]
