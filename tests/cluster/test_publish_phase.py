"""A tick slice's matches publish together (`LiveMatch.publish_phase`): a node that journals them logs a
slice's batches in one append, one a slice every `send_every` frames, however many matches it holds,
and no publication waits for another slice's tick. Driven by hand (no clock task): the hub's wake-ups
in turn (each ends with the owner's fast flush), each followed by what the flusher does."""

from __future__ import annotations

import pytest

from server.cluster.journal import Appended, Appending
from server.cluster.memory import MemoryBus, MemoryOwnership
from server.node import Node
from tests.cluster.conftest import GENEROUS
from tests.server.conftest import fast_config
from tests.server.test_session import FixedClock

pytestmark = pytest.mark.asyncio

MATCHES = 12
FRAMES = 40


async def test_a_slice_s_matches_are_logged_in_one_append_every_send_every_frames() -> None:
    config = fast_config().override(cluster=GENEROUS)
    clock = FixedClock()  # moved by the test
    ownership = MemoryOwnership(GENEROUS, clock=clock.monotonic)
    node = Node(config, clock=clock, ownership=ownership, bus=MemoryBus(GENEROUS))
    hub, shared = node.hub, node.shared
    assert shared is not None
    appends: list[list[str]] = []
    append_all, append_soon = ownership.append_all, ownership.append_soon

    async def counted(items: list[Appending]) -> list[Exception | None]:
        appends.append([lease.match_id for lease, _, _ in items])
        return await append_all(items)

    def counted_soon(items: list[Appending], done: Appended) -> bool:
        appends.append([lease.match_id for lease, _, _ in items])
        return append_soon(items, done)

    ownership.append_all = counted  # type: ignore[method-assign,assignment]
    ownership.append_soon = counted_soon  # type: ignore[method-assign,assignment]
    send_every = config.match.send_every
    subtick = 0

    async def frame() -> None:
        nonlocal subtick
        for _ in range(hub.slices):
            subtick += 1
            clock.now += 1 / (config.match.pace * hub.slices)
            hub._on_tick(subtick)  # the frame clock's call
            before = len(appends)
            await shared.owner.flush(clock.now)
            assert all(not live.sealed for live in lives), "a sealed publication waited past its own tick"
            assert len(appends) - before <= 1  # a wake-up's seals: one append at most

    # Half the matches start a frame after the others: by their own frame counts they would publish
    # on the other frames, two appends a slice where one does.
    lives = [hub.create_bot_duel("lazy", "lazy") for _ in range(MATCHES // 2)]
    await frame()
    lives += [hub.create_bot_duel("lazy", "lazy") for _ in range(MATCHES // 2)]
    slice_of = {live.id: live.publish_phase for live in lives}
    assert sorted(slice_of.values()) == sorted(i % hub.slices for i in range(MATCHES))
    assert len({live.start_tick for live in lives}) == 2
    for _ in range(FRAMES - 1):
        await frame()
    running = [ids for ids in appends if len(ids) == MATCHES // hub.slices]
    assert all(len({slice_of[match] for match in ids}) == 1 for ids in appends), "one slice per append"
    # Once every match runs: one append a slice every `send_every` frames, each with the slice's matches.
    assert len(running) >= (FRAMES - 5) * hub.slices // send_every
    assert len(appends) <= FRAMES * hub.slices // send_every + hub.slices
    assert {live.id for live in lives} == {match for ids in appends for match in ids}
    assert all(live.runner is not None and live.current_frame() >= FRAMES - 3 for live in lives)
