"""The store interface, as every store must keep it: records once, replays, and the limit counters."""

from __future__ import annotations

import pytest

from protocol.messages import MatchState
from server.store.base import MatchRecord, Store

pytestmark = pytest.mark.asyncio


def record(match_id: str, ended: float = 2.0) -> MatchRecord:
    """A finished match's record."""
    return MatchRecord(match_id, ("a", "b"), ("g_a", None), MatchState.OVER, {"winner": 0}, match_id, 1.0,
                       ended, 60)


async def test_a_match_is_recorded_once(store: Store) -> None:
    """The first put_match wins; a second one for the same id changes nothing and says so."""
    assert await store.put_match(record("m1")) is True
    assert await store.put_match(record("m1", ended=9.0)) is False
    got = await store.get_match("m1")
    assert got is not None and got.ended == 2.0 and got.plain()["outcome"] == "over"
    assert await store.get_match("m2") is None


async def test_recent_matches_are_newest_first(store: Store) -> None:
    """recent_matches lists the last recorded first, up to the limit."""
    for index in range(5):
        await store.put_match(record(f"m{index}"))
    assert [r.id for r in await store.recent_matches(3)] == ["m4", "m3", "m2"]


async def test_replays_round_trip_their_bytes(store: Store) -> None:
    """A replay's bytes come back as they were put; an unknown id is None."""
    await store.put_replay("r1", b"\x00\x01floe")
    assert await store.get_replay("r1") == b"\x00\x01floe"
    assert await store.get_replay("nope") is None


async def test_a_token_bucket_per_key(store: Store) -> None:
    """A bucket starts full, gives `burst` tokens at once, then one per 1/rate seconds; keys are apart."""
    waits = [await store.take_token("ip:1", 2.0, 3.0, 100.0) for _ in range(4)]
    assert waits[:3] == [0.0, 0.0, 0.0] and waits[3] == pytest.approx(0.5)
    assert await store.take_token("ip:2", 2.0, 3.0, 100.0) == 0.0
    assert await store.take_token("ip:1", 2.0, 3.0, 100.5) == 0.0
    assert await store.take_token("ip:1", 2.0, 3.0, 100.5) == pytest.approx(0.5)


async def test_a_claim_has_one_holder_until_it_expires_or_is_released(store: Store) -> None:
    """The first holder keeps the key (and renews it); others see it until it expires or is released."""
    assert await store.claim("live:g1", "m1", 10.0, 0.0) == "m1"
    assert await store.claim("live:g1", "m2", 10.0, 5.0) == "m1"
    assert await store.claim("live:g1", "m1", 10.0, 8.0) == "m1"  # renewed to 18
    assert await store.claim("live:g1", "m2", 10.0, 15.0) == "m1"
    assert await store.claim("live:g1", "m2", 10.0, 18.5) == "m2"
    await store.release("live:g1", "m1")  # not the holder: nothing happens
    assert await store.claim("live:g1", "m3", 10.0, 19.0) == "m2"
    await store.release("live:g1", "m2")
    assert await store.claim("live:g1", "m3", 10.0, 19.0) == "m3"


async def test_a_bounded_set_counts_live_members(store: Store) -> None:
    """A set takes members up to its limit; renewing one is free; expired and removed ones make room."""
    assert await store.add_member("rooms:g1", "r1", 2, 10.0, 0.0)
    assert await store.add_member("rooms:g1", "r2", 2, 10.0, 1.0)
    assert not await store.add_member("rooms:g1", "r3", 2, 10.0, 2.0)
    assert await store.add_member("rooms:g1", "r1", 2, 10.0, 3.0)  # renewed to 13
    await store.remove_member("rooms:g1", "r2")
    assert await store.add_member("rooms:g1", "r3", 2, 10.0, 4.0)
    assert not await store.add_member("rooms:g1", "r4", 2, 10.0, 12.0)
    assert await store.add_member("rooms:g1", "r4", 2, 10.0, 13.5)  # r1 expired at 13
