"""Sending an attack (rules/versus/attack.py): units, chain, margin, offset and targeting, called directly."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.kick.events import Crush, EggBroken, Kick, Line, RoundClear
from rules.kick.events import Eat as EatEvent
from rules.kick.geometry import Cell
from rules.versus.attack import Boosted, Packet, attack_units, boost, chain, margin, offset, target
from rules.versus.tables import VERSUS_RULES, AttackTable

ATTACK = VERSUS_RULES.attack


def queue(*units: int) -> tuple[Packet, ...]:
    """Pending packets with the given units, ids 1, 2, … and due on frames 100, 200, …"""
    return tuple(Packet(k + 1, 1, amount, 100 * (k + 1)) for k, amount in enumerate(units))


def packets() -> st.SearchStrategy[tuple[Packet, ...]]:
    """Pending queues of up to 8 packets of 1–20 units, oldest first."""
    return st.lists(st.integers(1, 20), max_size=8).map(lambda units: queue(*units))


# ---- units -------------------------------------------------------------------------------------------------


def test_units_from_board_events() -> None:
    """Crushes, lines, eats, broken eggs and round clears are worth the table's units, tiers included."""
    at = Cell(1, 1)
    events: list[Any] = [
        Crush(("a", "b", "c", "d", "e"), at, 6400),
        Line((at,), False, 10_000),
        Line((at,), True, 5_000),
        EatEvent("a", at, 100),
        EggBroken(at, 500),
        RoundClear(25.0, 2000),
    ]
    units, reasons = attack_units(events, ATTACK)
    assert units == (ATTACK.crush[3] + ATTACK.line + ATTACK.line_wall + ATTACK.eat + ATTACK.egg
                     + ATTACK.round_clear + 3)
    assert reasons == ("crush5", "line", "line", "eat", "egg", "round-clear")
    assert attack_units([], ATTACK) == (0, ())
    assert attack_units([Crush(("a",), at, 400)], ATTACK) == (ATTACK.crush[0], ("crush1",))
    assert attack_units([Crush(("a", "b"), at, 1600)], ATTACK) == (ATTACK.crush[1], ("crush2",))
    for bonus, extra in ((5000, 4), (2000, 3), (1000, 2), (500, 1), (10, 0), (0, 0)):
        clear = RoundClear(0.0, bonus)
        assert attack_units([clear], ATTACK) == (ATTACK.round_clear + extra, ("round-clear",))


def test_events_that_pay_nothing_give_no_reason() -> None:
    """A kick is worth no units and leaves no reason; the table passed in is the one read."""
    at = Cell(2, 3)
    assert attack_units([Kick(at, "up", "slide")], ATTACK) == (0, ())
    table = AttackTable(eat=7)
    assert attack_units([EatEvent("a", at, 100), Kick(at, "up", "slide")], table) == (7, ("eat",))


# ---- chain and margin --------------------------------------------------------------------------------------


def test_chain_bonus_within_the_chain_window() -> None:
    """An attack within chain_frames of the sender's previous one gets +chain_bonus; others do not."""
    assert chain(1, None, 100, ATTACK) == (1, False)
    assert chain(1, 100, 100 + ATTACK.chain_frames, ATTACK) == (1 + ATTACK.chain_bonus, True)
    assert chain(1, 100, 101 + ATTACK.chain_frames, ATTACK) == (1, False)


def test_margin_time_multiplies_units_by_one_and_a_half() -> None:
    """From 2:00 on, units are multiplied by 1.5, rounded down, at least 1."""
    start = ATTACK.margin_from_frame
    assert start == 2 * 60 * 60
    assert margin(3, start - 1, ATTACK) == (3, False)
    assert [margin(units, start, ATTACK) for units in (1, 2, 3, 4, 6)] == [
        (1, True), (3, True), (4, True), (6, True), (9, True)]


def test_chain_and_margin_combine() -> None:
    """A chained attack in margin time adds the chain bonus first, then multiplies."""
    start = ATTACK.margin_from_frame
    assert boost(3, start, start + 10, ATTACK) == Boosted((3 + ATTACK.chain_bonus) * 3 // 2, True, True)
    assert boost(3, None, start - 1, ATTACK) == Boosted(3, False, False)


# ---- offset ------------------------------------------------------------------------------------------------


def test_offset_cancels_own_pending_oldest_first() -> None:
    """Outgoing units first cancel the sender's own pending units, oldest first; only the rest is sent."""
    pending = queue(2, 3)
    assert offset(3, pending) == (3, (pending[1]._replace(units=2),))  # the oldest (2) whole, then 1 of the 3
    assert offset(4, ((pending[1]._replace(units=2)),)) == (2, ())  # 2 of the 4 left over to send


def test_offset_exactly_cancels_and_with_nothing_pending_cancels_nothing() -> None:
    """An attack equal to the pending units cancels them all; with nothing pending nothing is cancelled."""
    assert offset(4, queue(4)) == (4, ())
    assert offset(5, ()) == (0, ())


@given(units=st.integers(0, 60), pending=packets())
def test_offset_conserves_units_and_never_cancels_more_than_is_pending(
    units: int, pending: tuple[Packet, ...]
) -> None:
    """The offset cancels min(units, pending) units, oldest first, exactly what leaves the queue."""
    cancelled, left = offset(units, pending)
    total = sum(packet.units for packet in pending)
    assert cancelled == min(units, total)
    assert sum(packet.units for packet in left) == total - cancelled
    # What is left is the newest packets in order, the oldest of them perhaps cut short.
    assert [packet.id for packet in left] == [packet.id for packet in pending[len(pending) - len(left):]]
    assert all(packet.units > 0 for packet in left)
    if left:
        kept = pending[len(pending) - len(left):]
        assert left[0]._replace(units=kept[0].units) == kept[0] and left[1:] == kept[1:]


# ---- targeting ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [3, 4])
def test_the_leader_is_attacked(seats: int) -> None:
    """With 3–4 seats an attack goes to the live opponent with the highest score."""
    alive = [True] * seats
    scores = [0] * seats
    leader = seats - 1
    scores[leader], scores[1] = 5000, 1000
    assert target(0, alive, scores) == leader
    assert target(leader, alive, scores) == 1  # the leader itself attacks the next best
    scores[0] = 7000  # the lead changes hands
    assert target(1, alive, scores) == 0


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_targeting_ties_go_to_the_first_seat_after_the_sender(seats: int) -> None:
    """Equal scores: the first live seat after the sender is attacked; seats that are out are skipped."""
    alive = [True] * seats
    assert [target(sender, alive, [0] * seats) for sender in range(seats)] == [
        (sender + 1) % seats for sender in range(seats)]
    alive[(2 % seats)] = False
    assert target(1, alive, [0] * seats) == (3 if seats == 4 else 0 if seats == 3 else None)


def test_a_dead_leader_is_not_attacked() -> None:
    """A seat that is out is never a target, however high its score."""
    assert target(0, [True, True, False], [0, 0, 9000]) == 1


@given(data=st.data(), seats=st.integers(2, 4))
def test_the_target_is_a_live_opponent_with_the_best_score(data: st.DataObject, seats: int) -> None:
    """The target is the first live opponent after the sender with their best score, else None."""
    sender = data.draw(st.integers(0, seats - 1))
    alive = data.draw(st.lists(st.booleans(), min_size=seats, max_size=seats))
    scores = data.draw(st.lists(st.integers(0, 3), min_size=seats, max_size=seats))
    opponents = [(sender + step) % seats for step in range(1, seats) if alive[(sender + step) % seats]]
    chosen = target(sender, alive, scores)
    if not opponents:
        assert chosen is None
        return
    best = max(scores[seat] for seat in opponents)
    assert chosen == next(seat for seat in opponents if scores[seat] == best)
