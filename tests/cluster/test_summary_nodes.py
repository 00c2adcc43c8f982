"""`GET /api/matches/{id}` of another node's live match (issue 20; Node.live_elsewhere): a node that
does not own the match answers with the owner's name (the holder of its lease), so a room's match,
which no live list shows, is found too; the owner answers for its own match, naming itself."""

from __future__ import annotations

from typing import Any

import pytest

from server.match.live import Seat
from tests.cluster.conftest import GENEROUS
from tests.cluster.test_follow import TIMEOUT, Pair
from tests.cluster.test_follow import make_pair as make_pair  # noqa: F401  # the two nodes' fixture
from tests.server.helpers import until_awaited


@pytest.mark.asyncio
async def test_a_node_tells_which_node_owns_a_live_room_match(make_pair: Any) -> None:
    pair: Pair = await make_pair(GENEROUS)
    a, b = pair.a, pair.b
    # A private match (made from a room: no live list shows it) of two bots, so it starts at once (a
    # match's lease is taken with its first journal write, once it runs).
    live = a.hub.new_match([Seat("lazy-bot", bot="lazy"), Seat("lazy-bot", bot="lazy")], invite="i" * 24)
    assert live.private

    async def found() -> bool:
        return await b.live_elsewhere(live.id) is not None

    await until_awaited(found, TIMEOUT, "B finds A's match")
    summary = await b.live_elsewhere(live.id)
    assert summary == {"live": True, "id": live.id, "node": a.name, "result": None}
    assert await a.live_elsewhere(live.id) is None  # A hosts it: its own summary answers
    assert await b.live_elsewhere("no-such-match") is None
