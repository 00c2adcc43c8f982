"""One seat's record (rules/versus/seat.py): its derived fields and its exact, plain snapshot."""

from __future__ import annotations

import marshal

import msgpack  # type: ignore[import-untyped]

from rules.synctest import state_checksum
from rules.versus.attack import Packet
from rules.versus.gems import NO_GEM_DUE, Gem
from rules.versus.inputs import KICK_BIT, NEUTRAL

from .helpers import playing_match


def test_setting_the_gems_keeps_their_next_due_frame() -> None:
    """Whatever replaces a seat's gems, gems_due is their earliest due frame (NO_GEM_DUE for none)."""
    seat = playing_match().seat_states[0]
    assert (seat.gems, seat.gems_due) == ((), NO_GEM_DUE)
    seat.gems = (Gem(5, 3, 400), Gem(6, 2, 300))
    assert seat.gems_due == 300
    seat.gems = ()
    assert seat.gems_due == NO_GEM_DUE


def test_a_seat_snapshot_is_plain_and_restores_exactly() -> None:
    """A seat's snapshot is plain data that restores to the same state, also after a msgpack round trip."""
    match = playing_match()
    moved_on = match.frame
    match.step([NEUTRAL | KICK_BIT, 1])
    seat = match.seat_states[1]
    seat.pending = (Packet(7, 0, 3, match.frame + 10), Packet(8, 0, 5, match.frame + 90))
    seat.gems = (Gem(1234, 4, match.frame + 50),)
    seat.last_attack = match.frame - 3
    snap = seat.snapshot()
    marshal.dumps(snap)  # plain: marshal refuses NamedTuples and enum members
    assert snap["pending"] == [[7, 0, 3, match.frame + 10], [8, 0, 5, match.frame + 90]]
    assert snap["gems"] == [[1234, 4, match.frame + 50]] and snap["moves"] == ((moved_on, 1),)
    before = state_checksum(snap)
    other = playing_match().seat_states[1]
    other.restore(msgpack.unpackb(msgpack.packb(snap), raw=False, strict_map_key=False))
    assert state_checksum(other.snapshot()) == before
    assert (other.pending, other.gems, other.gems_due) == (seat.pending, seat.gems, match.frame + 50)
    assert isinstance(other.pending[0], Packet) and isinstance(other.gems[0], Gem)
