"""The lobby's limits without sockets, on a fixed clock: exact counts, expiry, and seats given back."""

from __future__ import annotations

import asyncio

import pytest

from protocol.messages import MatchState
from server.errors import ServerError
from server.match.settings import LimitSettings
from server.node import Node
from server.store.memory import MemoryStore
from server.tokens import Guest
from tests.server.conftest import fast_config
from tests.server.test_session import CountingIds, FixedClock

pytestmark = pytest.mark.asyncio

ANN, BOB, EVE = Guest("g_ann", "ann"), Guest("g_bob", "bob"), Guest("g_eve", "eve")


def lobby_hub(**overrides: object) -> tuple[Node, FixedClock]:
    """A node on the default limits, a fixed clock and counting ids."""
    config = fast_config().override(**{"limits": LimitSettings(), **overrides})
    clock = FixedClock()
    return Node(config, MemoryStore(), clock, CountingIds()), clock


async def settle(node: Node) -> None:
    """Let the node's background store writes (the seats given back at a match's end) finish."""
    while node.background:
        await asyncio.gather(*node.background.pending)


async def test_a_finished_match_gives_its_seats_back() -> None:
    """While a guest's bot match lives a second is already-playing; once it ends, a new one is allowed."""
    node, clock = lobby_hub()
    first = await node.lobby.create_bot_match(ANN, "lazy", "10.0.0.1")
    with pytest.raises(ServerError) as refused:
        await node.lobby.create_bot_match(ANN, "lazy", "10.0.0.1")
    assert refused.value.code == "already-playing" and refused.value.status == 409
    first.cancel(clock.now, "test")
    await settle(node)
    again = await node.lobby.create_bot_match(ANN, "lazy", "10.0.0.1")
    assert again.id != first.id


async def test_a_room_expires_from_its_creation_whoever_joins() -> None:
    """A room joined by its invitation but never started is cancelled room_timeout seconds after it was
    made: joining does not renew it, and its creator's open-room count is given back."""
    node, clock = lobby_hub(room_timeout=60.0)
    room = await node.lobby.create_room(ANN, "10.0.0.1")
    assert room.invite is not None
    clock.now += 50
    live, seat = await node.lobby.join_room(room.invite, BOB, "10.0.0.2")
    assert live is room and seat == 1
    clock.now += 11
    room.tick(1, clock.now)
    assert room.state == MatchState.CANCELLED
    await settle(node)
    assert await node.lobby.create_bot_match(BOB, "lazy", "10.0.0.2")  # bob's seat came back


async def test_open_rooms_per_guest_are_capped() -> None:
    """Three open rooms, then too-many-rooms; a room that fills or ends makes room for another."""
    node, clock = lobby_hub()
    rooms = [await node.lobby.create_room(ANN, "10.0.0.1") for _ in range(3)]
    with pytest.raises(ServerError) as refused:
        await node.lobby.create_room(ANN, "10.0.0.1")
    assert refused.value.code == "too-many-rooms"
    assert rooms[0].invite is not None
    await node.lobby.join_room(rooms[0].invite, BOB, "10.0.0.2")  # filled: no longer open
    assert await node.lobby.create_room(ANN, "10.0.0.1")


async def test_creation_rates_per_guest_and_per_address() -> None:
    """A guest makes a burst of 5 matches, then one per 5 s; an address 20, then one a second;
    a refusal says how long to wait."""
    limits = LimitSettings(live_matches_per_guest=100, open_rooms_per_guest=100, live_matches_per_address=100)
    node, clock = lobby_hub(limits=limits)
    for _ in range(5):
        await node.lobby.create_room(ANN, "10.0.0.1")
    with pytest.raises(ServerError) as refused:
        await node.lobby.create_room(ANN, "10.0.0.1")
    assert refused.value.status == 429 and refused.value.retry_after == pytest.approx(5.0)
    clock.now += 5.0
    await node.lobby.create_room(ANN, "10.0.0.1")
    guests = [Guest(f"g_{i}", f"n{i}") for i in range(21)]
    for guest in guests[:20]:  # one each: the address's burst of 20, at one instant
        await node.lobby.create_room(guest, "10.0.0.2")
    with pytest.raises(ServerError) as address_full:
        await node.lobby.create_room(guests[20], "10.0.0.2")
    assert address_full.value.status == 429 and "address" in address_full.value.message
    assert address_full.value.retry_after == pytest.approx(1.0)
    assert await node.lobby.create_room(guests[20], "10.0.0.9")  # another address is not affected


async def test_guests_per_address() -> None:
    """An address makes a burst of 10 guests, then one every 5 s."""
    node, clock = lobby_hub()
    for _ in range(10):
        await node.lobby.admit_guest("10.0.0.1")
    with pytest.raises(ServerError) as refused:
        await node.lobby.admit_guest("10.0.0.1")
    assert refused.value.retry_after == pytest.approx(5.0)
    clock.now += 5.0
    await node.lobby.admit_guest("10.0.0.1")
    await node.lobby.admit_guest("10.0.0.2")
