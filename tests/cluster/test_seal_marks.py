"""A journaled match's batch carries the stream numbers its publication reaches (`LiveMatch._seal`'s
marks: a takeover numbers on from the last logged ones), counted before anything is sent: after each
sealed publication is published, the players' and the spectators' heads, the frames the players'
speculative and confirmed records reach and whether the streams are over are exactly its marks. Driven
with a player whose inputs come ahead of their frame, in the past within the rollback window (the
players' stream rewinds) and too late for it (moved on, answered `input-late`), through keyframes to
the end; unranked (the spectators follow at once) and ranked (they follow `ranked_spectator_delay`
late: their marks are what they were sent), and on a match taken over from its journal (the runner's
counts start again there: `LiveMatch._count_from_here`)."""

from __future__ import annotations

import pytest

from server.cluster.memory import MemoryOwnership
from server.match.live import LiveMatch, Sealed, Seat
from server.match.owner import MatchOwner
from server.match.settings import RankedSettings
from server.node import Node
from server.store.memory import MemoryStore
from tests.cluster.conftest import GENEROUS, Backend
from tests.cluster.test_takeover_match import HZ, Client
from tests.server.conftest import fast_config

pytestmark = pytest.mark.asyncio

#: How the player's inputs are stamped, by tick: ahead, within the window behind (a rollback), past it.
OFFSETS = (2, -3, 1, -12, 2, -5)


def heads(live: LiveMatch) -> dict[str, int]:
    """What `live` has published (`_heads_now`, read off its streams), in the marks' names."""
    players, speculated, confirmed, watchers, watched = live._heads_now()
    return {"p": players, "pf": speculated, "pc": confirmed, "s": watchers, "sc": watched,
            "o": int(live.ended_at is not None)}


@pytest.mark.parametrize("ranked", [False, True])
async def test_a_sealed_publication_s_marks_are_the_streams_after_it(ranked: bool) -> None:
    config = fast_config()
    dispatcher = Node(config, MemoryStore()).dispatcher
    seats = [Seat("ann", guest="g-ann"), Seat("bot", bot="lazy")]
    live = LiveMatch(config.match, seats, 0.0, lambda finished: None, "m-marks", 99, created_wall=1.0,
                     ranked=ranked, ranked_rules=RankedSettings(ranked_spectator_delay=0.2), journaled=True)
    owner = MatchOwner(MemoryOwnership(GENEROUS), "node-a", GENEROUS)
    owner.adopt(live)
    player, spectator = Client(config, dispatcher), Client(config, dispatcher)
    live.attach_player(player.session, 0, None, 0.0)
    live.attach_spectator(spectator.session, None, 0.0)
    checked: list[dict[str, int]] = []
    publish_sealed = live.publish_sealed

    def publish_and_check(sealed: Sealed, now: float) -> None:
        publish_sealed(sealed, now)
        if live.spectator_delay > 0:
            live._feed.release(now)  # what the delayed stream has sent by now: its marks say so
        assert heads(live) == sealed.marks, f"batch {sealed.seq}"
        checked.append(sealed.marks)

    live.publish_sealed = publish_and_check  # type: ignore[method-assign]
    rewound, late, _ = await play(live, owner, range(0, 60 * HZ))
    assert live.ended_at is not None, "the match ended"
    assert rewound and late, "the players' stream rewound and some inputs were late"
    assert checked[-1]["o"] == 1 and len(checked) > 100


async def play(live: LiveMatch, owner: MatchOwner, ticks: range) -> tuple[int, int, int]:
    """Tick the match with the player's inputs, logging and publishing each tick as the hub does, until
    it ends or `ticks` do: how many advances rewound, inputs were late, and the last tick."""
    rewound = late = 0
    tick = ticks.start
    for tick in ticks:
        if live.ended_at is not None:
            break
        now = tick / HZ
        live.tick(tick, now)
        if tick % 4 == 0 and live.runner is not None and live.state.value == "running":
            offset = OFFSETS[(tick // 4) % len(OFFSETS)]
            frame = max(0, live.runner.now + offset)
            live.tell_inputs(0, frame, [(0x01, 0x03, 0x02, 0x04)[(tick // 4) % 4]])
        rewound += sum(out.rewind_to is not None for unit in live.sealed for out in unit.advances)
        late += sum(len(unit.late) for unit in live.sealed)  # a journaled match answers with its batch
        await owner.flush(now)
    return rewound, late, tick


async def test_a_taken_over_match_s_marks_are_its_streams_after_each_publication() -> None:
    """The node that takes a match over numbers on from the journal's marks: each publication it seals
    after that reaches exactly the heads its marks say, through rewinds and late inputs to the end."""
    config = fast_config()
    backend = Backend("memory", GENEROUS, "marks")
    seats = [Seat("ann", guest="g-ann"), Seat("bot", bot="lazy")]
    live_a = LiveMatch(config.match, seats, 0.0, lambda finished: None, "m-taken", 7, created_wall=1.0,
                       journaled=True)
    owner_a = MatchOwner(backend.ownership(), "node-a", GENEROUS)
    owner_a.adopt(live_a)
    dispatcher = Node(config, MemoryStore()).dispatcher
    player = Client(config, dispatcher)
    live_a.attach_player(player.session, 0, None, 0.0)
    _, _, last = await play(live_a, owner_a, range(0, 3 * HZ))
    assert live_a.ended_at is None and owner_a.batches > 50
    backend.lapse()  # node A is gone
    owner_b = MatchOwner(backend.ownership(), "node-b", GENEROUS)
    live_b = await owner_b.take_over("m-taken", config.match, last + 1, (last + 1) / HZ,
                                     lambda finished: None)
    assert live_b is not None
    live_b.attach_player(Client(config, dispatcher).session, 0, player.numbered()[-1].n, (last + 1) / HZ)
    checked: list[dict[str, int]] = []
    publish_sealed = live_b.publish_sealed

    def publish_and_check(sealed: Sealed, now: float) -> None:
        publish_sealed(sealed, now)
        assert heads(live_b) == sealed.marks, f"batch {sealed.seq}"
        checked.append(sealed.marks)

    live_b.publish_sealed = publish_and_check  # type: ignore[method-assign]
    rewound, late, _ = await play(live_b, owner_b, range(last + 1, last + 1 + 60 * HZ))
    assert live_b.ended_at is not None, "the match ended on node B"
    assert rewound and late, "the players' stream rewound and some inputs were late on node B"
    assert checked[-1]["o"] == 1 and len(checked) > 100
