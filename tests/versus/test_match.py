"""VersusMatch: determinism, snapshots, input validation, the attack exchange, landings, gems and endings."""

from __future__ import annotations

import random
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from rules.kick.actors import GONE, HATCH_NEXT, HATCHING
from rules.kick.events import Kick
from rules.kick.geometry import CELL_PX, STEP, Cell
from rules.result import Outcome
from rules.synctest import state_checksum
from rules.versus.attack import Packet
from rules.versus.bots import make_bot, seat_seed
from rules.versus.ending import EndReason, OutReason
from rules.versus.events import (
    Attack,
    BoardRecord,
    GemCount,
    GemThaw,
    Landing,
    MatchEnd,
    Offset,
    Queued,
    Record,
    SeatOut,
)
from rules.versus.gems import COUNTER_GEM
from rules.versus.inputs import FORFEIT, KICK_BIT, NEUTRAL, IllegalInputError
from rules.versus.landing import LandingKind
from rules.versus.match import MatchOverError, VersusConfig, VersusMatch
from rules.versus.tables import VERSUS_RULES_V1 as VERSUS_RULES
from rules.versus.tables import AttackTable, VersusRules

from .helpers import idle, of_kind, playing_match, random_inputs, roaming, run, until

ATTACK = VERSUS_RULES.attack


def fingerprint(match: VersusMatch) -> tuple[str, str, int, list[list[list[int]]]]:
    """Everything observable about a match's state: snapshot checksum, log hash, frame, moves."""
    return state_checksum(match.snapshot()), match.log_hash, match.frame, [list(m) for m in match.moves]


# ---- determinism and snapshots ----------------------------------------------------------------------------


def test_same_match_twice_gives_identical_logs_and_hashes() -> None:
    """Two matches with the same config, seed and inputs produce the same log, hash and result."""
    inputs = random_inputs(11, 2, 2400)
    first, second = VersusMatch(seed=11), VersusMatch(seed=11)
    assert run(first, inputs) == run(second, inputs)
    assert first.log_hash == second.log_hash
    assert first.result == second.result
    assert first.moves == second.moves


def test_different_seed_gives_a_different_log() -> None:
    """The seed matters: another seed deals other boards and so another log hash."""
    inputs = random_inputs(11, 2, 300)
    first, second = VersusMatch(seed=11), VersusMatch(seed=12)
    run(first, inputs)
    run(second, inputs)
    assert first.log_hash != second.log_hash


def test_snapshot_restore_at_random_frames_continues_identically() -> None:
    """Rolling back to a snapshot taken at a random frame and re-stepping reproduces the straight run."""
    inputs = random_inputs(5, 3, 1800)
    straight = VersusMatch(seed=5, seats=3)
    log = run(straight, inputs)
    rng = random.Random(99)
    match = VersusMatch(seed=5, seats=3)
    frame = 0
    while frame < len(log):
        take = min(frame + rng.randrange(1, 200), len(log))
        run(match, inputs[frame:take])
        snap = match.snapshot()
        ahead = min(take + rng.randrange(1, 60), len(log))
        run(match, [[NEUTRAL] * 3] * (ahead - take))  # a wrong future, thrown away
        match.restore(snap)
        assert state_checksum(match.snapshot()) == state_checksum(snap)
        replayed = run(match, inputs[take:ahead])
        assert replayed == log[take:ahead]
        frame = ahead
    assert fingerprint(match) == fingerprint(straight)
    assert match.result == straight.result


def test_msgpack_round_trip_of_a_snapshot_restores() -> None:
    """A snapshot packed with msgpack and unpacked restores into a fresh match that continues identically."""
    inputs = random_inputs(8, 2, 1500)
    straight = VersusMatch(seed=8)
    log = run(straight, inputs)
    source = VersusMatch(seed=8)
    run(source, inputs[:700])
    packed = msgpack.packb(source.snapshot(), use_bin_type=True)
    fresh = VersusMatch(seed=8)
    fresh.restore(msgpack.unpackb(packed, raw=False, strict_map_key=False))
    assert state_checksum(fresh.snapshot()) == state_checksum(source.snapshot())
    assert fresh.moves == source.moves
    assert run(fresh, inputs[700:]) == log[700:]
    assert fresh.log_hash == straight.log_hash
    assert fresh.result == straight.result


def test_restoring_into_a_fresh_match_keeps_the_move_lists() -> None:
    """A snapshot restored into a fresh match carries the move lists, so its replay verifies."""
    inputs = random_inputs(8, 2, 1500)
    straight = VersusMatch(seed=8)
    run(straight, inputs)
    source = VersusMatch(seed=8)
    run(source, inputs[:700])
    fresh = VersusMatch(seed=8)
    fresh.restore(source.snapshot())
    run(fresh, inputs[700:])
    assert fresh.moves == straight.moves


def test_step_after_the_end_raises() -> None:
    """Stepping a finished match raises MatchOverError and changes nothing."""
    match = VersusMatch(VersusConfig(VersusRules(time_limit_frames=30)), seed=2)
    idle(match, 30)
    assert match.finished
    before = fingerprint(match)
    with pytest.raises(MatchOverError):
        match.step([NEUTRAL, NEUTRAL])
    assert fingerprint(match) == before


# ---- input validation -------------------------------------------------------------------------------------


@pytest.mark.parametrize("inputs", [[], [0], [0, 0, 0], [0, 5], [0, 0x10], [0x81, 0], [256, 0], [-1, 0],
                                    [True, 0], [0, None], [0, "up"], [0, 1.0]])
def test_bad_inputs_raise_and_change_nothing(inputs: list[Any]) -> None:
    """A wrong number of inputs or a malformed byte raises IllegalInputError and changes nothing."""
    match = VersusMatch(seed=4)
    run(match, random_inputs(4, 2, 200))
    before = fingerprint(match)
    with pytest.raises(IllegalInputError):
        match.step(inputs)
    assert fingerprint(match) == before


def test_moves_record_only_changes() -> None:
    """The move list holds [frame, byte] only where a seat's byte changes (neutral at first is implied)."""
    match = VersusMatch(seed=4)
    for row in ([0, 1], [0, 1], [2, 1], [2, 0], [2, 0]):
        match.step(row)
    assert match.moves == [[[2, 2]], [[0, 1], [3, 0]]]


# ---- the fuse, the cap and the landings on a real board ---------------------------------------------------


def test_a_packet_lands_on_its_frame_not_a_frame_earlier() -> None:
    """A pending packet due on frame f (a fuse of 150 frames after it was sent) lands on frame f exactly."""
    match = playing_match()
    due = match.frame + ATTACK.fuse_frames
    assert ATTACK.fuse_frames == 150
    match.seat_states[1].pending = (Packet(1, 0, 2, due),)
    landed_on = None
    while landed_on is None:
        frame = match.frame
        landings = of_kind(match.step([NEUTRAL, NEUTRAL]), Landing)
        if landings:
            landed_on = frame
            assert landings == [Landing(1, LandingKind.GARBAGE, 2, landings[0].blocks, (), ())]
    assert landed_on == due
    assert [seat.pending for seat in match.seat_states] == [(), ()]


def test_at_most_eight_units_land_at_once() -> None:
    """20 pending units land as 8, 8 and 4 on three consecutive frames (the per-landing cap)."""
    match = playing_match()
    due = match.frame + ATTACK.fuse_frames
    match.seat_states[1].pending = (Packet(1, 0, 12, due), Packet(2, 0, 8, due))  # both due on one frame
    landings: list[tuple[int, int, str]] = []
    for _ in range(ATTACK.fuse_frames + 5):
        frame = match.frame
        for landing in of_kind(match.step([NEUTRAL, NEUTRAL]), Landing):
            landings.append((frame, landing.units, landing.landing))
    assert ATTACK.landing_cap == 8
    gems, nuisance = LandingKind.GEMS, LandingKind.NUISANCE
    assert landings == [(due, 8, gems), (due + 1, 8, gems), (due + 2, 4, nuisance)]


def test_nuisance_hides_eggs_in_the_receivers_ice() -> None:
    """A 5-unit landing is 3 garbage blocks plus 2 eggs hidden in resting ice blocks, counted as eggs left."""
    match = playing_match()
    until(match, lambda m: roaming(m, 1) == 3)  # every slot awake: the hidden eggs wait their turn
    game = match.games[1]
    eggs_before = game.eggs_left
    match.seat_states[1].pending = (Packet(99, 0, 5, match.frame),)
    landings = of_kind(match.step([NEUTRAL, NEUTRAL]), Landing)
    assert len(landings) == 1
    landing = landings[0]
    assert (landing.landing, landing.units, len(landing.blocks), len(landing.eggs)) == (
        LandingKind.NUISANCE, 5, 3, 2)
    for cell in landing.blocks:
        block = game.board.block_at(*cell)
        assert block is not None and block.material == "ice"
    for cell in landing.eggs:
        block = game.board.block_at(*cell)
        assert block is not None and block.material == "ice" and block.egg is not None
    assert game.eggs_left == eggs_before + 2


def test_four_units_are_nuisance_with_one_egg() -> None:
    """4 units: 3 garbage blocks and 1 hidden egg."""
    match = playing_match()
    match.seat_states[1].pending = (Packet(99, 0, 4, match.frame),)
    landing = of_kind(match.step([NEUTRAL, NEUTRAL]), Landing)[0]
    assert (landing.landing, len(landing.blocks), len(landing.eggs), landing.gems) == (
        LandingKind.NUISANCE, 3, 1, ())


def test_counter_gems_land_count_down_and_thaw() -> None:
    """6+ units land units − 3 counter gems that count 4, 3, 2, 1 every 2 s and then thaw into ice."""
    config = VersusConfig(VersusRules(lives=99))
    match = playing_match(config=config)
    game = match.games[1]
    match.seat_states[1].pending = (Packet(99, 0, 7, match.frame),)
    landed_on = match.frame
    landing = of_kind(match.step([NEUTRAL, NEUTRAL]), Landing)[0]
    assert (landing.landing, landing.units, len(landing.gems), landing.blocks) == (LandingKind.GEMS, 7, 4, ())
    ids = []
    for cell in landing.gems:
        block = game.board.block_at(*cell)
        assert block is not None and block.material == COUNTER_GEM.id
        ids.append(block.id)
    steps: dict[int, list[Any]] = {}
    for _ in range(ATTACK.gem_count * ATTACK.gem_step_frames + 2):
        frame = match.frame
        for record in match.step([NEUTRAL, NEUTRAL]):
            if isinstance(record, GemCount | GemThaw):
                steps.setdefault(frame - landed_on, []).append(record)
    assert ATTACK.gem_step_frames == 120 and ATTACK.gem_count == 5
    assert sorted(steps) == [120, 240, 360, 480, 600]
    for k, count in enumerate((4, 3, 2, 1)):
        assert [(r.seat, r.count) for r in steps[120 * (k + 1)]] == [(1, count)] * 4
    assert sorted(r.at for r in steps[600]) == sorted(landing.gems)
    assert all(isinstance(r, GemThaw) for r in steps[600])
    for block_id in ids:
        block = game.board.blocks[block_id]
        assert block.material == "ice"


def test_counter_gems_cannot_be_kicked_or_chewed() -> None:
    """A kick at a counter gem is blocked and leaves it in place; Sno-Bees cannot chew it; ice can be both."""
    match = playing_match(seed=3)
    game = match.games[0]
    player = game.player
    assert player.px % CELL_PX == 0 and player.py % CELL_PX == 0
    step = STEP[player.facing]
    target = Cell(player.px // CELL_PX + step.x, player.py // CELL_PX + step.y)
    block = game.board.block_at(*target)
    if block is None:
        block_id = game.drop_block(target, COUNTER_GEM.id)
    else:
        block_id = block.id
        game.transmute(block_id, COUNTER_GEM.id)
    kicks = []
    for _ in range(120):
        for record in match.step([NEUTRAL | KICK_BIT, NEUTRAL]):
            if isinstance(record, BoardRecord) and record.seat == 0 and isinstance(record.event, Kick):
                kicks.append(record.event)
        match.step([NEUTRAL, NEUTRAL])
        if len(kicks) >= 2:
            break
    assert len(kicks) >= 2 and all(k.result == "blocked" and k.at == target for k in kicks), kicks
    gem = game.board.blocks[block_id]
    assert gem.cell == target and gem.motion is None and gem.breaking is None
    until(match, lambda m: any(e.state not in (GONE, HATCH_NEXT, HATCHING) for e in m.games[0].slots))
    enemy = next(e for e in game.slots if e.state not in (GONE, HATCH_NEXT, HATCHING))
    assert not game._enemies.can_chew(enemy, gem)
    ice = next(b for b in game.board.blocks.values() if b.material == "ice")
    assert game._enemies.can_chew(enemy, ice)


def test_landings_wait_while_the_board_is_not_in_play() -> None:
    """A due packet waits while its receiver is not playing (READY) and lands on the first frame of play."""
    match = VersusMatch(seed=3)
    assert match.games[1].status != "playing"
    match.seat_states[1].pending = (Packet(99, 0, 2, 0),)
    statuses = []
    while True:
        landed = of_kind(match.step([NEUTRAL, NEUTRAL]), Landing)
        statuses.append(match.games[1].status)
        if landed:
            break
    assert len(statuses) > 60
    assert statuses[-1] == "playing" and "playing" not in statuses[:-1]


# ---- endings ----------------------------------------------------------------------------------------------


def test_elimination_ends_the_match() -> None:
    """A seat that loses its last life is out; the last seat standing wins by elimination."""
    match = VersusMatch(VersusConfig(VersusRules(lives=1)), seed=21)
    records: list[Record] = []
    for row in random_inputs(21, 2, 20_000):
        if match.finished:
            break
        records.extend(match.step(row))
    result = match.result
    assert result is not None and result.reason is EndReason.ELIMINATION
    outs = of_kind(records, SeatOut)
    assert len(outs) == 1 and outs[0].reason is OutReason.LIVES
    loser = outs[0].seat
    assert result.winner == 1 - loser
    assert result.outcomes[loser] is Outcome.LOST and result.outcomes[1 - loser] is Outcome.WON
    assert match.games[loser].status == "lost"
    end = MatchEnd(result.winner, result.outcomes, EndReason.ELIMINATION, result.frame)
    assert of_kind(records, MatchEnd)[-1] == end


def test_time_limit_draw_and_win() -> None:
    """At the time limit the highest score wins; equal scores draw."""
    config = VersusConfig(VersusRules(time_limit_frames=300))
    drawn = VersusMatch(config, seed=2)
    idle(drawn, 300)
    assert drawn.result is not None
    assert (drawn.result.reason, drawn.result.winner) == (EndReason.TIME, None)
    assert drawn.result.outcomes == (Outcome.DRAWN, Outcome.DRAWN)
    assert drawn.result.frame == 300
    won = VersusMatch(config, seed=2, seats=3)
    idle(won, 299)
    assert not won.finished
    won.games[2].score += 10
    idle(won, 1)
    assert won.result is not None
    assert (won.result.reason, won.result.winner) == (EndReason.TIME, 2)
    assert won.result.outcomes == (Outcome.LOST, Outcome.LOST, Outcome.WON)


def test_forfeit_two_seats() -> None:
    """A forfeit byte takes the seat out for good; the other seat wins by forfeit."""
    match = playing_match()
    records = match.step([FORFEIT, NEUTRAL])
    assert SeatOut(0, OutReason.FORFEIT) in records
    assert match.result is not None
    assert (match.result.reason, match.result.winner) == (EndReason.FORFEIT, 1)
    assert match.result.outcomes == (Outcome.FORFEITED, Outcome.WON)


def test_forfeit_in_a_four_seat_match_continues() -> None:
    """With four seats one forfeit leaves three playing; pending attacks against the forfeited seat vanish."""
    match = playing_match(seats=4)
    pending: tuple[Packet, ...] = (Packet(99, 0, 3, match.frame + 100),)
    match.seat_states[2].pending = pending
    match.step([NEUTRAL, NEUTRAL, FORFEIT, NEUTRAL])
    assert not match.finished and [seat.alive for seat in match.seat_states] == [True, True, False, True]
    assert match.seat_states[2].pending == ()
    idle(match, 50)  # the forfeited seat's board is no longer stepped
    for seat in (0, 3):
        match.step([FORFEIT if s == seat else NEUTRAL for s in range(4)])
    assert match.result is not None
    assert (match.result.reason, match.result.winner) == (EndReason.FORFEIT, 1)
    assert match.result.outcomes == (Outcome.FORFEITED, Outcome.WON, Outcome.FORFEITED, Outcome.FORFEITED)


def test_attacks_in_a_real_match_follow_the_table() -> None:
    """In a bot match every attack is offset first, queued for the opponent a fuse later, chained by time."""
    rules = VersusRules(attack=AttackTable(egg=4, crush=(3, 6, 8, 8), fuse_frames=60), time_limit_frames=3600)
    table = rules.attack
    match = VersusMatch(VersusConfig(rules), seed=1)
    bots = [make_bot("competent", seat_seed(1, seat)) for seat in range(2)]
    versus: list[tuple[int, Record]] = []
    while not match.finished:
        frame = match.frame
        row = [bots[s.index].decide(s.view, frame) if s.alive else NEUTRAL for s in match.seat_states]
        versus.extend((frame, r) for r in match.step(row) if not isinstance(r, BoardRecord))
    attacks = [(frame, r) for frame, r in versus if isinstance(r, Attack)]
    assert len(attacks) > 10, "the seed should produce attacks"
    assert any(isinstance(r, Offset) for _, r in versus) and any(a.chain for _, a in attacks)
    last_attack: dict[int, int] = {}
    for frame, attack in attacks:
        previous = last_attack.get(attack.seat)
        assert attack.chain == (previous is not None and frame - previous <= table.chain_frames)
        last_attack[attack.seat] = frame
    for index, (frame, record) in enumerate(versus):
        if isinstance(record, Queued):
            attack_frame, attack = next((f, r) for f, r in reversed(versus[:index]) if isinstance(r, Attack))
            preceding = versus[index - 1][1]
            offset = preceding.units if isinstance(preceding, Offset) else 0
            assert record.units == attack.units - offset
            assert record.source == attack.seat and record.seat != attack.seat
            assert frame == attack_frame and record.lands_at == frame + table.fuse_frames
        if isinstance(record, Offset):
            assert versus[index - 1][1] == next(r for f, r in attacks if f == frame and r.seat == record.seat)
