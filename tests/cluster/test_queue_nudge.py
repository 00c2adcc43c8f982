"""`matched` for a ranked pair across nodes is pushed (issue 20; server/match/ranked.py's nudge on the
bus's QUEUE channel): with the queue's poll an hour apart, so that only the nudge can tell it in
time, a guest queued on one node and paired by the other hears `matched` at once, the same match as
its opponent; the poll stays the fallback (a lost nudge costs only time: the store holds the news)."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from protocol.messages import Matched, Queue
from server.node import Node
from server.store.memory import MemoryStore
from server.tokens import Guest
from tests.cluster.conftest import GENEROUS, Backend
from tests.cluster.test_follow import TIMEOUT, Player, welcome
from tests.server.conftest import fast_config
from tests.server.helpers import until


def matched(player: Player) -> list[Matched]:
    return [m for m in player.read() if isinstance(m, Matched)]


@pytest.mark.asyncio
async def test_a_pair_made_by_one_node_is_told_to_the_other_nodes_guest_at_once(backend: Backend) -> None:
    # The poll an hour apart: after each node's first look, only an arrival or a nudge starts a pass.
    config = fast_config(cluster=GENEROUS, ranked_pair_every=3600.0, ranked_min_play_seconds=0)
    store = MemoryStore()
    nodes: list[Node] = []
    try:
        for _ in range(2):
            node = Node(config, store, ownership=backend.ownership(GENEROUS), bus=backend.bus())
            await node.start()
            nodes.append(node)
        a, b = nodes
        ann, bob = Player(config, a, Guest("g-ann", "ann")), Player(config, b, Guest("g-bob", "bob"))
        await welcome(ann, bob)
        ann.say(Queue())
        await until(lambda: a.ranked.waiting() == 1, TIMEOUT, "ann waits on A")
        bob.say(Queue())  # B's pass on bob's arrival pairs them: B makes the match, A must be told
        await until(lambda: bool(matched(ann)) and bool(matched(bob)), TIMEOUT, "both told `matched`")
        told = matched(ann)[0], matched(bob)[0]
        assert told[0].match == told[1].match and {m.seat for m in told} == {0, 1}
        assert a.ranked.paired + b.ranked.paired == 1
        maker, other = (a, b) if a.ranked.paired else (b, a)
        assert told[0].match in maker.hub.matches and told[0].match not in other.hub.matches
        assert other.ranked.nudged_passes >= 1, "the other node looked when nudged"
    finally:
        for node in nodes:
            with contextlib.suppress(Exception):
                await node.stop()


def test_a_queue_nudge_round_trips_on_the_wire() -> None:
    from server.cluster.bus import QueueNudge, SeatRematch, decode_all, encode_relayed

    messages: list[Any] = [QueueNudge("node-a"), SeatRematch("node-b", "g-ann", 0, None),
                           SeatRematch("node-b", "g-ann", 1, True)]
    for message in messages:
        assert decode_all(encode_relayed(message)) == [message]
