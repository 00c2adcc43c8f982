"""The Pengo board's random generator, routine $2D7C of the Z80 program, bit for bit.

One step: the 16-bit seed is tripled (mod 2**16), the *old* low byte is added into the *new* high
byte (mod 256), and that high byte is both the result and the high byte of the next seed. The
maze, the egg and diamond cells and every Sno-Bee decision draw from this one stream, so a seed
fixes a whole act.

Facts about the stream (checked in tests/kick/test_rng.py):

- The step is a bijection on the 65,536 states, so every seed lies on a pure cycle.
- The low byte is only ever tripled, so the number of trailing zero bits of the low byte never
  changes. A seed whose low byte has t trailing zeros (t < 8) lies on a cycle of 2**(14 - t)
  states: seed 1 on one of 16,384, the arcade's $365A (t = 1) on one of 8,192.
- 0 and 0x8000 are fixed points (they return 0x00 and 0x80 forever). The constructor replaces
  seed 0 by 1, as the seed API does; 0x8000 is accepted and simply degenerate.
"""

from __future__ import annotations

from array import array
from functools import lru_cache

__all__ = ["BELOW_REJECTION_LIMIT", "LONGEST_CYCLE", "KickRandom", "next_state", "successor_table"]

_MASK16 = 0xFFFF

#: The longest cycle of the generator: seeds whose low byte is odd lie on cycles of 2**14 states.
#: A redraw loop that has not succeeded within this many draws has met every state it ever will.
LONGEST_CYCLE = 1 << 14

#: How many out-of-range values below() rejects before it reduces the next one modulo n. The
#: arcade's own mask-and-reject loops have no limit; some seeds sit on short cycles that never
#: produce an in-range value, and a port must never hang.
BELOW_REJECTION_LIMIT = 64


def _check_int(name: str, value: object) -> int:
    # bool is an int subclass; a True seed or bound is almost certainly a mistake.
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an int, got {type(value).__name__}")
    return value


def next_state(state: int) -> int:
    """The state after one step of $2D7C from a 16-bit state; its high byte is the byte returned."""
    tripled = state * 3  # $2D83-$2D84: add hl,hl / add hl,bc
    # $2D85-$2D87: new high byte + old low byte. Adding all of `state` is the same mod 256.
    return ((((tripled >> 8) + state) & 0xFF) << 8) | (tripled & 0xFF)


@lru_cache(maxsize=1)
def successor_table() -> memoryview:
    """next_state for all 65,536 states, read-only (128 KiB, built on first use).

    For loops that draw many bytes and need the raw state, such as the maze generator's: one
    lookup, `state = table[state]; byte = state >> 8`, is about twice as fast as the arithmetic.
    """
    return memoryview(array("H", map(next_state, range(0x10000))).tobytes()).cast("H")


class KickRandom:
    """Pengo's random generator ($2D7C) reproduced bit for bit.

    >>> r = KickRandom(0x365A)
    >>> [hex(r.byte()) for _ in range(3)]
    ['0xfd', '0x5', '0x39']
    >>> r
    KickRandom(state=0x397E)
    """

    __slots__ = ("_state",)

    def __init__(self, seed: int = 1, *, state: int | None = None) -> None:
        """Seed the generator.

        seed is masked to 16 bits and 0 is replaced by 1 (0 would stay 0 forever: 0·3 + 0).
        state, keyword only, restores an exact state taken from `state` (what `repr` writes);
        it is not masked and must be 1..0xFFFF. Give one or the other.
        """
        seed = _check_int("seed", seed)
        if state is not None:
            if seed != 1:
                raise ValueError("give seed or state, not both")
            self.state = state
            return
        self._state = (seed & _MASK16) or 1

    @property
    def state(self) -> int:
        """The current 16-bit seed ($8826), for snapshots. Never 0."""
        return self._state

    @state.setter
    def state(self, value: int) -> None:
        value = _check_int("state", value)
        # 0 cannot be reached from any other state (the step is a bijection fixing 0), so a
        # state of 0 can only come from a corrupt snapshot.
        if not 1 <= value <= _MASK16:
            raise ValueError(f"state must be in 1..0xFFFF, got {value}")
        self._state = value

    def byte(self) -> int:
        """One byte, exactly as the arcade routine $2D7C returns it."""
        # next_state() written out: a call would double the cost of this, the hottest method.
        seed = self._state
        tripled = seed * 3
        result = ((tripled >> 8) + seed) & 0xFF
        self._state = (result << 8) | (tripled & 0xFF)
        return result

    def below(self, n: int) -> int:
        """An integer in [0, n), drawn the arcade's way.

        The draw is masked to the next power of two at or above n and redrawn while it is n or
        more, as the listing's `and $07 / cp $06 / jr nc` does for n = 6. For n up to 256 a
        draw is one byte; larger n take as many bytes as the mask needs, high byte first. After
        BELOW_REJECTION_LIMIT rejections the next value is reduced modulo n instead, because
        the generator has short cycles that may never produce an in-range value.
        """
        n = _check_int("n", n)
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        bits = (n - 1).bit_length()
        mask = (1 << bits) - 1
        byte = self.byte
        if bits <= 8:
            for _ in range(BELOW_REJECTION_LIMIT):
                value = byte() & mask
                if value < n:
                    return value
            return (byte() & mask) % n
        width = (bits + 7) // 8
        for _ in range(BELOW_REJECTION_LIMIT):
            value = self._wide(width) & mask
            if value < n:
                return value
        return (self._wide(width) & mask) % n

    def chance(self, n: int) -> bool:
        """True with probability 1/n: `below(n) == 0`.

        The arcade's `and $07 / jp z` (for example $37CE) is chance(8). chance(1) is always true
        but still draws a byte, as every call here draws at least one.
        """
        return self.below(n) == 0

    def _wide(self, width: int) -> int:
        value = 0
        for _ in range(width):
            value = (value << 8) | self.byte()
        return value

    def __repr__(self) -> str:
        return f"KickRandom(state=0x{self._state:04X})"
