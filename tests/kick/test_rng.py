"""KickRandom against routine $2D7C of the Pengo listing and against its own contract."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.kick.rng import BELOW_REJECTION_LIMIT, LONGEST_CYCLE, KickRandom, next_state, successor_table

states = st.integers(min_value=1, max_value=0xFFFF)


def arcade_step(seed: int) -> tuple[int, int]:
    """$2D7C written out register by register, as the listing's own Python comment above it does."""
    b, c = seed >> 8, seed & 0xFF
    hl = (seed + seed) & 0xFFFF  # add hl,hl
    hl = (hl + ((b << 8) | c)) & 0xFFFF  # add hl,bc
    a = (c + (hl >> 8)) & 0xFF  # ld a,c / add a,h
    return a, (a << 8) | (hl & 0xFF)  # ld h,a


def trailing_zeros_of_low_byte(state: int) -> int:
    low = state & 0xFF
    return 8 if low == 0 else (low & -low).bit_length() - 1


def test_power_on_seed_gives_the_listings_self_test_bytes() -> None:
    """From $365A the first three bytes are FD 05 39, as the listing's comment above $2D7C says."""
    stream = KickRandom(0x365A)
    assert [stream.byte() for _ in range(3)] == [0xFD, 0x05, 0x39]
    assert stream.state == 0x397E


@given(states)
def test_byte_matches_the_register_level_routine(state: int) -> None:
    """byte() is $2D7C bit for bit, result and next state, from every state."""
    stream = KickRandom(state=state)
    result, next_state = arcade_step(state)
    assert stream.byte() == result
    assert stream.state == next_state


def test_next_state_and_its_table_agree_with_byte() -> None:
    """next_state() and successor_table() are byte() on every state: one generator, three spellings."""
    table = successor_table()
    assert table.readonly and len(table) == 0x10000
    assert table[0] == next_state(0) == 0  # the fixed point KickRandom never holds
    for state in range(1, 0x10000):
        stream = KickRandom(state=state)
        result = stream.byte()
        assert table[state] == next_state(state) == stream.state
        assert table[state] >> 8 == result


def test_seed_zero_becomes_one() -> None:
    """Seed 0 would stay 0 for ever, so it is replaced by 1, and so is any seed that masks to 0."""
    assert KickRandom(0).state == 1
    assert KickRandom(0x10000).state == 1
    assert KickRandom().state == 1


def test_seed_is_masked_to_16_bits() -> None:
    """Only the low 16 bits of a seed count."""
    assert KickRandom(0x1365A).state == 0x365A
    assert KickRandom(-1).state == 0xFFFF


@pytest.mark.parametrize("bad", [1.0, "1", None, True])
def test_seed_must_be_an_int(bad: object) -> None:
    """A seed that is not an int is refused with a ValueError naming the seed."""
    with pytest.raises(ValueError, match="seed"):
        KickRandom(bad)  # type: ignore[arg-type]


@given(states, st.integers(min_value=0, max_value=50))
def test_state_round_trips(state: int, skip: int) -> None:
    """A state read from one generator and written to another continues the same stream."""
    original = KickRandom(state=state)
    for _ in range(skip):
        original.byte()
    copy = KickRandom()
    copy.state = original.state
    assert [copy.byte() for _ in range(20)] == [original.byte() for _ in range(20)]


@given(states)
def test_repr_rebuilds_the_generator(state: int) -> None:
    """repr() is Python that rebuilds a generator in the same state."""
    stream = KickRandom(state=state)
    rebuilt = eval(repr(stream), {"KickRandom": KickRandom})
    assert rebuilt.state == state
    assert repr(stream) == f"KickRandom(state=0x{state:04X})"


@pytest.mark.parametrize("bad", [0, -1, 0x10000, 1.5, "7", True])
def test_state_setter_validates(bad: object) -> None:
    """The setter takes exactly 1..0xFFFF: 0 is unreachable from any other state, so it means corruption."""
    stream = KickRandom(5)
    with pytest.raises(ValueError, match="state"):
        stream.state = bad  # type: ignore[assignment]
    assert stream.state == 5


def test_seed_and_state_together_are_refused() -> None:
    """The constructor takes a seed or a state, not both."""
    with pytest.raises(ValueError, match="seed or state"):
        KickRandom(7, state=9)


@given(states, st.integers(min_value=1, max_value=70_000))
def test_below_stays_in_range(state: int, n: int) -> None:
    """below(n) is always in [0, n), for one-byte and multi-byte bounds alike."""
    assert 0 <= KickRandom(state=state).below(n) < n


@given(states, st.integers(min_value=1, max_value=256))
def test_below_masks_and_rejects_like_the_arcade(state: int, n: int) -> None:
    """below(n) masks a byte to the next power of two and redraws out-of-range values ($2F95)."""
    stream = KickRandom(state=state)
    mirror = KickRandom(state=state)
    mask = (1 << (n - 1).bit_length()) - 1
    drawn = []
    for _ in range(BELOW_REJECTION_LIMIT):
        drawn.append(mirror.byte() & mask)
        if drawn[-1] < n:
            break
    else:
        drawn.append((mirror.byte() & mask) % n)
    assert stream.below(n) == drawn[-1] % n
    assert stream.state == mirror.state


def test_below_six_is_the_egg_x_draw() -> None:
    """On the power-on stream below(6) equals the listing's `and 7 / cp 6 / jr nc` loop."""
    stream = KickRandom(0x365A)
    mirror = KickRandom(0x365A)
    for _ in range(200):
        value = mirror.byte() & 7
        while value >= 6:
            value = mirror.byte() & 7
        assert stream.below(6) == value
    assert stream.state == mirror.state


def test_below_gives_up_rejecting_after_64_draws() -> None:
    """On a short cycle that never yields an in-range value, the 65th value is reduced modulo n."""
    # State 0x0500 has a zero low byte; its bytes alternate between values whose low 3 bits are
    # 5 and 7, so below(5) (mask 7) rejects every one of them.
    probe = KickRandom(state=0x0500)
    assert all(probe.byte() & 7 >= 5 for _ in range(200))
    stream = KickRandom(state=0x0500)
    mirror = KickRandom(state=0x0500)
    for _ in range(BELOW_REJECTION_LIMIT):
        mirror.byte()
    expected = (mirror.byte() & 7) % 5
    assert stream.below(5) == expected
    assert stream.state == mirror.state


@pytest.mark.parametrize("bad", [0, -3, 2.0, True])
def test_below_needs_a_positive_int(bad: object) -> None:
    """below() refuses a bound that is not an int of at least 1."""
    with pytest.raises(ValueError, match="n"):
        KickRandom(3).below(bad)  # type: ignore[arg-type]


@given(states)
def test_chance_eight_is_and_seven_jp_z(state: int) -> None:
    """chance(8) is the arcade's `and 7 / jp z` ($37CE): true exactly when the byte's low 3 bits are 0."""
    stream = KickRandom(state=state)
    mirror = KickRandom(state=state)
    for _ in range(20):
        assert stream.chance(8) == (mirror.byte() & 7 == 0)


def test_chance_one_is_certain_and_still_draws() -> None:
    """chance(1) is always true but advances the stream by one byte, like every call."""
    stream = KickRandom(9)
    mirror = KickRandom(9)
    assert stream.chance(1)
    mirror.byte()
    assert stream.state == mirror.state


def test_chance_frequency_on_a_long_cycle() -> None:
    """Over the whole 16,384-state cycle of seed 1, chance(4) is true about a quarter of the time."""
    stream = KickRandom(1)
    hits = sum(stream.chance(4) for _ in range(LONGEST_CYCLE))
    assert abs(hits / LONGEST_CYCLE - 0.25) < 0.02


def test_step_is_a_bijection() -> None:
    """Every 16-bit state has exactly one predecessor, so every seed lies on a pure cycle."""
    successors = {arcade_step(state)[1] for state in range(0x10000)}
    assert len(successors) == 0x10000


@given(states)
def test_trailing_zeros_of_the_low_byte_never_change(state: int) -> None:
    """The low byte is only ever tripled, so its count of trailing zero bits is fixed for good."""
    stream = KickRandom(state=state)
    zeros = trailing_zeros_of_low_byte(state)
    for _ in range(40):
        stream.byte()
        assert trailing_zeros_of_low_byte(stream.state) == zeros


@pytest.mark.parametrize(
    ("seed", "period"),
    [(1, LONGEST_CYCLE), (0x365A, 8192), (0x0004, 4096), (0x0020, 512), (0x0040, 256), (0x0080, 128)],
)
def test_cycle_lengths(seed: int, period: int) -> None:
    """A seed whose low byte has t < 8 trailing zeros is on a cycle of 2**(14 - t) states: $365A on 8,192."""
    stream = KickRandom(seed)
    stream.byte()
    steps = 1
    while stream.state != seed and steps <= LONGEST_CYCLE:
        stream.byte()
        steps += 1
    assert steps == period


def test_fixed_point_0x8000() -> None:
    """0x8000 is the generator's one accepted fixed point: it returns 0x80 for ever."""
    stream = KickRandom(0x8000)
    assert {stream.byte() for _ in range(10)} == {0x80}
    assert stream.state == 0x8000
