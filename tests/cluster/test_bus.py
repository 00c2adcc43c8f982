"""The bus between nodes, on every backend: a publish reaches every subscriber of its channel in order
(on a Redis Cluster, channels on every shard), nothing else; the bounds refuse; relayed messages
round-trip and malformed ones are refused."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.cluster.bus import (
    QUEUE,
    Base,
    BaseStream,
    Direct,
    Follow,
    Notice,
    SeatEvent,
    SeatInputs,
    SeatPing,
    StreamRecord,
    decode_all,
    decode_relayed,
    encode_bundles,
    encode_relayed,
    match_in,
    match_out,
)
from server.cluster.redis import RedisBus
from tests.cluster.conftest import Backend
from tests.server.helpers import until

#: How long a message may take to arrive (seconds; it takes a millisecond or so).
DELIVERY_TIMEOUT = 20.0


@pytest.mark.asyncio
async def test_a_publish_reaches_the_subscribers_of_its_channel_in_order(backend: Backend) -> None:
    """Node B's messages on a match's channel reach node A's two handlers in order; another channel's
    subscriber gets none of them, and an unsubscribed handler stops getting them."""
    a, b = backend.bus(), backend.bus()
    got: list[tuple[str, bytes]] = []
    also: list[bytes] = []
    other: list[bytes] = []
    first = await a.subscribe(match_out("m1"), lambda channel, data: got.append((channel, data)))
    await a.subscribe(match_out("m1"), lambda channel, data: also.append(data))
    await a.subscribe(match_out("m2"), lambda channel, data: other.append(data))
    for n in range(50):
        await b.publish(match_out("m1"), b"record %d" % n)
    await until(lambda: len(got) == 50 and len(also) == 50, DELIVERY_TIMEOUT, "delivery")
    assert got == [(match_out("m1"), b"record %d" % n) for n in range(50)] and also == [d for _, d in got]
    assert other == []
    await a.unsubscribe(first)
    await b.publish(match_out("m1"), b"after")
    await until(lambda: len(also) == 51, DELIVERY_TIMEOUT, "delivery after an unsubscription")
    assert len(got) == 50


@pytest.mark.asyncio
async def test_many_channels_published_at_once_arrive_each_in_order(backend: Backend) -> None:
    """`publish_all` (a round's bundles in one round trip): every channel's messages arrive in the
    order given, whichever shard holds the channel; an item over the size bound is refused alone."""
    backend.settings = replace(backend.settings, bus_max_message_bytes=1000)
    a, b = backend.bus(), backend.bus()
    got: dict[str, list[bytes]] = {}
    matches = [f"m{index}" for index in range(8)]
    for match_id in matches:
        await a.subscribe(match_out(match_id), lambda channel, data: got.setdefault(channel, []).append(data))
    items = [(match_out(match_id), b"%s %d" % (match_id.encode(), n))
             for n in range(5) for match_id in matches]
    answers = await b.publish_all([*items[:3], (match_out("m0"), bytes(1001)), *items[3:]])
    assert isinstance(answers[3], ValueError) and "over the 1000 bytes" in str(answers[3])
    assert answers[:3] + answers[4:] == [None] * len(items)
    await until(lambda: sum(len(seen) for seen in got.values()) == len(items), DELIVERY_TIMEOUT, "delivery")
    for match_id in matches:
        assert got[match_out(match_id)] == [b"%s %d" % (match_id.encode(), n) for n in range(5)]
    assert await b.publish_all([]) == []


@pytest.mark.asyncio
async def test_channels_on_every_shard_are_delivered(backend: Backend) -> None:
    """Many matches' channels (on a cluster: spread over all three shards) each get their own messages."""
    a, b = backend.bus(), backend.bus()
    got: dict[str, list[bytes]] = {}
    ids = [f"match-{index}" for index in range(24)]
    for match_id in ids:
        got[match_in(match_id)] = []
        await a.subscribe(match_in(match_id), lambda channel, data: got[channel].append(data))
    await a.subscribe(QUEUE, lambda channel, data: got.setdefault(channel, []).append(data))
    for match_id in ids:
        await b.publish(match_in(match_id), match_id.encode())
    await b.publish(QUEUE, b"listed")
    await until(lambda: all(got[match_in(m)] for m in ids) and bool(got.get(QUEUE)), DELIVERY_TIMEOUT,
                "delivery on every channel")
    assert all(got[match_in(m)] == [m.encode()] for m in ids) and got[QUEUE] == [b"listed"]
    if backend.kind == "cluster":
        assert isinstance(a, RedisBus) and len(a._shards) == 3  # the channels live on every master


@pytest.mark.asyncio
async def test_the_bus_bounds_refuse(backend: Backend) -> None:
    """A message over bus_max_message_bytes and a channel past bus_max_channels are refused."""
    backend.settings = replace(backend.settings, bus_max_message_bytes=1000, bus_max_channels=2)
    bus = backend.bus()
    with pytest.raises(ValueError, match="over the 1000 bytes"):
        await bus.publish(match_out("m1"), bytes(1001))
    await bus.subscribe(match_out("m1"), lambda channel, data: None)
    await bus.subscribe(match_out("m2"), lambda channel, data: None)
    await bus.subscribe(match_out("m2"), lambda channel, data: None)  # a channel followed already
    with pytest.raises(OverflowError, match="follows 2 channels"):
        await bus.subscribe(match_out("m3"), lambda channel, data: None)
    with pytest.raises(ValueError, match="channel name"):
        await bus.publish("", b"x")


def test_relayed_messages_round_trip_and_malformed_ones_are_refused() -> None:
    """Each relayed message decodes to itself; a wrong kind, shape or value is a ValueError."""
    for message in (
        SeatInputs("node-a", "g1", 1, 420, (3, 3, 11)),
        SeatEvent("node-b", "g2", 0, "dropped"),
        StreamRecord("spectators", 77, b"\x93\x01\x02\x03"),
        Follow("node-b", 12, -1),
        Follow("node-b", 12, 30, 2, {"g1": 48}),
        SeatPing("node-b", "g2", 9, 12345),
        Base("node-b", "node-a", {"joined": {"kind": "joined", "seats": ["a", "b"]}, "guests": ["g1", None],
                                  "frame": 40},
             BaseStream(12, 14, False, (b"\x01", b"\x02")), BaseStream(-1, 30, True, (b"\x03",))),
        Direct("node-b", "g2", b"\x81\xa4kind\xa4pong", 0),
        Direct("node-b", "g2", b"", 4001),
        Notice(b"\x81\xa4kind\xa6status"),
    ):
        assert decode_relayed(encode_relayed(message)) == message
    bad_ones = (b"", b"\xc1", b"\x91\xa1x", b"\x94\xa1r\xa6others\x01\xc4\x00",
                b"\x95\xa1e\xa1n\xa1g\x00\xa3bye")
    for bad in bad_ones:
        with pytest.raises(ValueError, match="malformed"):
            decode_relayed(bad)


def test_a_backlog_goes_out_in_bundles_within_the_message_bound() -> None:
    """A publisher's backlog for one channel: bundles of at most the bound, decoding to the messages in
    order; a single message goes as it is."""
    messages = [encode_relayed(StreamRecord("players", n, bytes(100))) for n in range(1, 200)]
    bundles = encode_bundles(messages, 4096)
    assert len(bundles) > 1 and all(len(bundle) <= 4096 for bundle in bundles)
    decoded = [message for bundle in bundles for message in decode_all(bundle)]
    assert [m.n for m in decoded if isinstance(m, StreamRecord)] == list(range(1, 200))
    assert encode_bundles(messages[:1], 4096) == messages[:1]
    assert decode_all(messages[0]) == [decode_relayed(messages[0])]
    with pytest.raises(ValueError, match="malformed"):
        decode_all(b"\x92\xa1m\x91\x01")
