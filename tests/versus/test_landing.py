"""Landing an attack (rules/versus/landing.py): which packets land, as what, and the stream's picks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rules.kick.rng import KickRandom
from rules.versus.attack import Packet
from rules.versus.landing import LandingKind, LandingPlan, draw, landing_plan, landing_units
from rules.versus.tables import NUISANCE_EGGS_PER_UNIT, VERSUS_RULES, AttackTable

ATTACK = VERSUS_RULES.attack


def packets() -> st.SearchStrategy[tuple[Packet, ...]]:
    """Pending queues of up to 8 packets of 1–20 units, due on non-decreasing frames from 0 to 60."""
    return st.lists(st.tuples(st.integers(1, 20), st.integers(0, 20)), max_size=8).map(
        lambda rows: tuple(
            Packet(k + 1, 0, units, sum(gap for _, gap in rows[: k + 1])) for k, (units, _) in enumerate(rows)
        )
    )


# ---- which packets land ------------------------------------------------------------------------------------


def test_due_packets_land_oldest_first_up_to_the_cap() -> None:
    """12 and 8 units due together land as 8, then 8 (4 + 4), then 4: the cap cuts a packet, which waits."""
    pending: tuple[Packet, ...] = (Packet(1, 0, 12, 10), Packet(2, 0, 8, 10))
    assert ATTACK.landing_cap == 8
    units, pending = landing_units(pending, 10, ATTACK)
    assert (units, pending) == (8, (Packet(1, 0, 4, 10), Packet(2, 0, 8, 10)))
    units, pending = landing_units(pending, 11, ATTACK)
    assert (units, pending) == (8, (Packet(2, 0, 4, 10),))
    assert landing_units(pending, 12, ATTACK) == (4, ())


def test_nothing_lands_before_the_fuse() -> None:
    """A packet due on frame 150 does not land on frame 149; one due later waits behind a due one."""
    pending = (Packet(1, 0, 2, 150), Packet(2, 0, 3, 151))
    assert landing_units(pending, 149, ATTACK) == (0, pending)
    assert landing_units(pending, 150, ATTACK) == (2, pending[1:])


@given(pending=packets(), frame=st.integers(0, 80), cap=st.integers(1, 12))
def test_landing_never_takes_more_than_the_cap_and_conserves_units(
    pending: tuple[Packet, ...], frame: int, cap: int
) -> None:
    """A landing takes at most the cap, from due packets only, oldest first, and what it takes is gone."""
    table = AttackTable(landing_cap=cap)
    units, left = landing_units(pending, frame, table)
    due = sum(packet.units for packet in pending if packet.lands_at <= frame)
    assert units == min(cap, due)
    assert units + sum(packet.units for packet in left) == sum(packet.units for packet in pending)
    assert [packet.id for packet in left] == [packet.id for packet in pending[len(pending) - len(left):]]
    assert all(packet.units > 0 for packet in left)


# ---- what a landing is -------------------------------------------------------------------------------------


def test_landing_kinds_by_units() -> None:
    """Up to 3 units are garbage, 4–5 nuisance (3 blocks, an egg per unit over 3), 6+ gems (units − 3)."""
    assert NUISANCE_EGGS_PER_UNIT == 1
    assert [landing_plan(units, ATTACK) for units in range(1, 9)] == [
        LandingPlan(LandingKind.GARBAGE, 1, 0, 0),
        LandingPlan(LandingKind.GARBAGE, 2, 0, 0),
        LandingPlan(LandingKind.GARBAGE, 3, 0, 0),
        LandingPlan(LandingKind.NUISANCE, 3, 1, 0),
        LandingPlan(LandingKind.NUISANCE, 3, 2, 0),
        LandingPlan(LandingKind.GEMS, 0, 0, 3),
        LandingPlan(LandingKind.GEMS, 0, 0, 4),
        LandingPlan(LandingKind.GEMS, 0, 0, 5),
    ]


def test_a_gem_offset_above_the_units_gives_no_gems() -> None:
    """With gem_offset over the units a gems landing puts down no gem (never a negative count)."""
    assert landing_plan(6, AttackTable(gem_offset=9)) == LandingPlan(LandingKind.GEMS, 0, 0, 0)


def test_landing_kinds_are_plain_strings() -> None:
    """Each landing kind equals its string, the one the event log carries."""
    assert [kind.value for kind in LandingKind] == ["garbage", "nuisance", "gems"]
    gems: str = LandingKind.GEMS  # a str member; mypy holds enum and str literals apart
    assert gems == "gems" and f"{LandingKind.NUISANCE}" == "nuisance"


# ---- where: the garbage stream -----------------------------------------------------------------------------


def test_draw_picks_without_replacement_the_way_the_stream_says() -> None:
    """Each pick is below(len(left)) of Pengo's generator over the items not yet picked, in their order."""
    items = list("abcdefgh")
    picked, state = draw(0x1234, items, 3)
    rng = KickRandom(state=0x1234)
    left = list(items)
    expected = [left.pop(rng.below(len(left))) for _ in range(3)]
    assert (picked, state) == (expected, rng.state)
    assert items == list("abcdefgh")  # the caller's items are not touched


def test_draw_stops_when_the_items_run_out_and_draws_nothing_for_nothing() -> None:
    """Asking for more than there is picks all of them; no items or no count leaves the stream as it was."""
    picked, _ = draw(7, [1, 2, 3], 5)
    assert sorted(picked) == [1, 2, 3]
    assert draw(7, [], 3) == ([], 7)
    assert draw(7, [1, 2], 0) == ([], 7)


@given(stream=st.integers(1, 0xFFFF), size=st.integers(0, 30), count=st.integers(0, 10))
def test_draw_picks_distinct_items(stream: int, size: int, count: int) -> None:
    """A draw picks min(count, items) distinct items, and the same stream state picks the same ones."""
    items = list(range(size))
    picked, after = draw(stream, items, count)
    assert len(picked) == len(set(picked)) == min(count, size)
    assert set(picked) <= set(items)
    assert draw(stream, items, count) == (picked, after)
    assert 1 <= after <= 0xFFFF
