"""Rematch offers of a match owned by another node (issue 20; server/match/follow.py forwards them,
server/match/relay.py hands them to the owner's offers, server/match/rematch.py): ann plays a ranked
match owned by A from node B, bob from A. Ann's offer from B reaches bob, bob's decline reaches ann;
bob's offer reaches ann on B, her accept from B makes the rematch once, on A, and both are told its id."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.messages import (
    Join,
    Leave,
    Over,
    Rematch,
    RematchAnswer,
    RematchOffer,
    RematchReady,
    RematchRefused,
)
from server.match.follow import FollowedMatch
from server.tokens import Guest
from tests.cluster.conftest import GENEROUS
from tests.cluster.test_follow import TIMEOUT, Pair, Player, welcome
from tests.cluster.test_follow import make_pair as make_pair  # noqa: F401  # the two nodes' fixture
from tests.server.helpers import until


def told(player: Player, kind: type) -> list[Any]:
    return [m for m in player.read() if isinstance(m, kind)]


@pytest.mark.asyncio
async def test_a_player_on_a_non_owning_node_offers_and_accepts_a_rematch(make_pair: Any) -> None:
    pair: Pair = await make_pair(GENEROUS)
    a, b = pair.a, pair.b
    ann, bob = Guest("g-ann", "ann"), Guest("g-bob", "bob")
    live = a.hub.create_ranked_match(ann, bob, a.ids.match_id(), ("127.0.0.1", "127.0.0.2"))
    on_b, on_a = Player(pair.config, b, ann), Player(pair.config, a, bob)
    await welcome(on_b, on_a)
    on_b.say(Join(match=live.id))
    await until(lambda: isinstance(on_b.session.match, FollowedMatch) and on_b.session.seat == 0, TIMEOUT,
                "ann follows A's match from B")
    on_a.say(Join(match=live.id))
    await until(lambda: live.runner is not None and live.runner.match.frame > 10, TIMEOUT,
                "the match running")
    on_a.say(Leave())  # bob forfeits: the match is over
    await until(lambda: bool(told(on_b, Over)) and bool(told(on_a, Over)), TIMEOUT, "both told the end")
    assert live.id not in b.hub.matches

    on_b.say(Rematch(match=live.id))  # from B: A's offers decide
    await until(lambda: bool(told(on_a, RematchOffer)) and bool(told(on_b, RematchOffer)), TIMEOUT,
                "ann's offer reached bob on A, and ann")
    assert told(on_a, RematchOffer)[0].seat == 0 and told(on_a, RematchOffer)[0].name == "ann"
    on_a.say(RematchAnswer(match=live.id, accept=False))
    await until(lambda: bool(told(on_b, RematchRefused)), TIMEOUT, "bob's decline reached ann on B")
    assert told(on_b, RematchRefused)[0].reason == "declined"

    on_a.say(Rematch(match=live.id))
    await until(lambda: len(told(on_b, RematchOffer)) == 2, TIMEOUT, "bob's offer reached ann on B")
    matches_before = set(a.hub.matches) | set(b.hub.matches)
    on_b.say(RematchAnswer(match=live.id, accept=True))
    await until(lambda: bool(told(on_a, RematchReady)) and bool(told(on_b, RematchReady)), TIMEOUT,
                "both told the rematch")
    ready = told(on_b, RematchReady)[0], told(on_a, RematchReady)[0]
    rematch = ready[0].rematch
    assert ready[1].rematch == rematch != live.id and [r.seat for r in ready] == [0, 1]
    made = (set(a.hub.matches) | set(b.hub.matches)) - matches_before
    assert made == {rematch} and rematch in a.hub.matches, "one rematch, made by the owner"
    new = a.hub.matches[rematch]
    assert [s.guest for s in new.seats] == [ann.id, bob.id] and new.private and not new.ranked
    # Ann plays it from B (B follows A's new match), bob on A: it starts.
    on_b.say(Join(match=rematch))
    on_a.say(Join(match=rematch))
    await until(lambda: new.runner is not None, TIMEOUT, "the rematch started")
    on_b.say(Rematch(match=live.id))  # made already: told again where it is
    await until(lambda: len(told(on_b, RematchReady)) == 2, TIMEOUT, "the rematch told again")
    assert told(on_b, RematchReady)[1].rematch == rematch
    assert len(a.hub.matches.keys() - matches_before) == 1
