"""A journaled match of any registered ruleset is taken over by a node whose default is another: the
journal's header names the ruleset and version, and `resume` finds them in rules/registry.py. Only a
ruleset version (or snapshot format) the build does not have is refused."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocol.replay_codec import decode_replay
from rules.payload.inputs import NEUTRAL
from rules.payload.ruleset import PAYLOAD_VERSUS
from rules.replay import verify
from rules.ruleset import seat_seed
from server.cluster.journal import Journal
from server.match.live import Finished, LiveMatch, Seat
from server.match.owner import MatchOwner, header_of, resume
from server.node import Node
from server.store.memory import MemoryStore
from tests.cluster.conftest import Backend
from tests.cluster.test_takeover_match import SETTINGS, Client, lapse
from tests.server.conftest import fast_config

HZ = 60
#: The match's time limit: long past the takeover, short enough that the idle seat's run ends it.
SECONDS = 8


async def drive(live: LiveMatch, owner: MatchOwner, ticks: range) -> None:
    """Tick, flush (log, then publish) and renew like the hub, until the match ends or the ticks run out."""
    for tick in ticks:
        now = tick / HZ
        live.tick(tick, now)
        assert await owner.flush(now) == []
        if tick % 3 == 0:
            assert await owner.renew(now) == []
        if live.ended_at is not None:
            return


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["memory"], indirect=True)
async def test_a_payload_match_is_taken_over_by_a_pengo_node(backend: Backend) -> None:
    """A payload-versus match journaled on node A (whose default ruleset is pengo-versus, like B's) is
    resumed by B from its header's ruleset: B plays it on to the end, and the replay names payload-versus,
    verifies, and is the straight run of the same seats (an idle player, the competent bot)."""
    config = fast_config()
    assert config.match.ruleset.name == "pengo-versus"
    settings = config.match.for_ruleset(PAYLOAD_VERSUS).with_time_limit(SECONDS)
    dispatcher = Node(config, MemoryStore()).dispatcher
    ended: list[Finished] = []
    seats = [Seat("ann", guest="g-ann"), Seat("bot", bot="competent")]
    live_a = LiveMatch(settings, seats, 0.0, ended.append, "m-payload", 4242, created_wall=7.0,
                       journaled=True)
    owner_a = MatchOwner(backend.ownership(SETTINGS), "node-a", SETTINGS)
    owner_a.adopt(live_a)
    live_a.attach_player(Client(config, dispatcher).session, 0, None, 0.0)
    await drive(live_a, owner_a, range(0, 120))
    assert live_a.ended_at is None and live_a.runner is not None and live_a.runner.confirmed > 60
    assert owner_a.snapshots >= 1

    other = backend.ownership(SETTINGS)
    await lapse(backend, other, "m-payload")
    owner_b = MatchOwner(other, "node-b", SETTINGS)
    live_b = await owner_b.take_over("m-payload", config.match, 1000, 121 / HZ, ended.append)
    assert live_b is not None and live_b.config.ruleset is PAYLOAD_VERSUS
    assert live_b.config.match_config == settings.match_config
    await drive(live_b, owner_b, range(1001, 1000 + (SECONDS + 2) * HZ))
    assert len(ended) == 1 and ended[0].replay is not None
    assert ended[0].record.ruleset == "payload-versus"

    replay = decode_replay(ended[0].replay)
    assert (replay.ruleset, replay.ruleset_version) == ("payload-versus", 1)
    verdict = verify(replay)
    assert verdict.ok, verdict.reason
    straight = PAYLOAD_VERSUS.new_match(settings.match_config, 4242, ["ann", "bot"])
    bot = PAYLOAD_VERSUS.make_bot("competent", seat_seed(4242, 1))
    while straight.result is None:
        straight.step([NEUTRAL, bot.decide(straight.seat_view(1), straight.frame)])
    assert straight.log_hash == replay.log_hash and straight.result == replay.result


def test_a_journal_of_a_ruleset_version_the_build_lacks_is_refused() -> None:
    """`resume` refuses a header naming an unknown ruleset or version (a ValueError naming it, which
    `take_over` logs and answers by giving the lease back), whatever the node's default; the same
    header with the version the build has resumes."""
    config = fast_config()
    settings = config.match.for_ruleset(PAYLOAD_VERSUS)
    live = LiveMatch(settings, [Seat("a", bot="lazy"), Seat("b", bot="lazy")], 0.0, lambda _: None, "m-old",
                     7, journaled=True)
    header = header_of(live)
    assert (header.ruleset, header.ruleset_version) == ("payload-versus", 1)
    for name, version, says in (("payload-versus", 9, "version 9"), ("chess", 1, "unknown ruleset")):
        journal = Journal(replace(header, ruleset=name, ruleset_version=version), None, ())
        with pytest.raises(ValueError, match=says):
            resume(journal, "m-old", config.match, 0, 0.0, lambda _: None)
    taken = resume(Journal(header, None, ()), "m-old", config.match, 0, 0.0, lambda _: None)
    assert taken.config.ruleset is PAYLOAD_VERSUS and taken.runner is not None
