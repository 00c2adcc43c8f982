"""VersusMatch: determinism, snapshots, input validation, the attack exchange, landings, gems and endings."""

from __future__ import annotations

import random
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from rules.kick.actors import GONE, HATCH_NEXT, HATCHING
from rules.kick.events import Crush, EggBroken, Kick, Line, RoundClear
from rules.kick.events import Eat as EatEvent
from rules.kick.geometry import CELL_PX, STEP, Cell
from rules.synctest import state_checksum
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
from rules.versus.inputs import FORFEIT, KICK_BIT, NEUTRAL, IllegalInputError
from rules.versus.match import COUNTER_GEM, MatchOverError, VersusConfig, VersusMatch
from rules.versus.tables import VERSUS_RULES, AttackTable, VersusRules

from .helpers import all_playing, idle, of_kind, random_inputs, roaming, run, until

ATTACK = VERSUS_RULES.attack


def fingerprint(match: VersusMatch) -> tuple[str, str, int, list[list[list[int]]]]:
    """Everything observable about a match's state: snapshot checksum, log hash, frame, moves."""
    return state_checksum(match.snapshot()), match.log_hash, match.frame, [list(m) for m in match.moves]


def playing_match(seed: int = 3, seats: int = 2, config: VersusConfig | None = None) -> VersusMatch:
    """A match stepped (neutral inputs) until every board is in play."""
    match = VersusMatch(config, seed, seats)
    until(match, all_playing)
    return match


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


# ---- the attack exchange: offset, chain, margin, targeting ------------------------------------------------


def test_offset_cancels_own_pending_oldest_first() -> None:
    """Outgoing units first cancel the sender's own pending units, oldest first; only the rest is sent."""
    match = VersusMatch(seed=1)
    records: list[Record] = []
    match._attack(1, 2, ["test"], 0, records)
    match._attack(1, 3, ["test"], 200, records)
    assert [p[2] for p in match.pending[0]] == [2, 3]
    records.clear()
    match._attack(0, 3, ["test"], 400, records)
    assert records == [Attack(0, 3, ("test",), False, False), Offset(0, 3)]
    assert [p[2] for p in match.pending[0]] == [2]  # the oldest (2) went whole, then 1 of the 3
    assert match.pending[1] == []
    records.clear()
    match._attack(0, 4, ["test"], 600, records)
    assert records[1] == Offset(0, 2)
    assert records[2] == Queued(1, 0, 3, 2, 600 + ATTACK.fuse_frames)
    assert match.pending[0] == []
    assert match.pending[1] == [[3, 0, 2, 600 + ATTACK.fuse_frames]]


def test_offset_exactly_cancels_and_sends_nothing() -> None:
    """An attack equal to the pending units cancels them all and queues nothing."""
    match = VersusMatch(seed=1)
    records: list[Record] = []
    match._attack(1, 4, ["test"], 0, records)
    records.clear()
    match._attack(0, 4, ["test"], 500, records)
    assert records == [Attack(0, 4, ("test",), False, False), Offset(0, 4)]
    assert match.pending == [[], []]


def test_chain_bonus_within_the_chain_window() -> None:
    """An attack within chain_frames of the sender's previous one gets +chain_bonus; one later does not."""
    match = VersusMatch(seed=1)
    records: list[Record] = []
    match._attack(0, 1, ["a"], 100, records)
    match._attack(0, 1, ["b"], 100 + ATTACK.chain_frames, records)
    match._attack(0, 1, ["c"], 100 + 2 * ATTACK.chain_frames + 1, records)
    attacks = of_kind(records, Attack)
    assert [(a.units, a.chain) for a in attacks] == [(1, False), (1 + ATTACK.chain_bonus, True), (1, False)]


def test_margin_time_multiplies_units_by_one_and_a_half() -> None:
    """From 2:00 on, units are multiplied by 1.5, rounded down, at least 1."""
    match = VersusMatch(seed=1)
    records: list[Record] = []
    start = ATTACK.margin_from_frame
    assert start == 2 * 60 * 60
    match._attack(0, 3, ["a"], start - 1000, records)
    for offset, units in enumerate((1, 2, 3, 4, 6)):
        match._attack(0, units, ["m"], start + 1000 * offset, records)
    attacks = of_kind(records, Attack)
    assert [(a.units, a.margin) for a in attacks] == [(3, False), (1, True), (3, True), (4, True), (6, True),
                                                      (9, True)]


def test_chain_and_margin_combine() -> None:
    """A chained attack in margin time adds the chain bonus first, then multiplies."""
    match = VersusMatch(seed=1)
    records: list[Record] = []
    start = ATTACK.margin_from_frame
    match._attack(0, 1, ["a"], start, records)
    match._attack(0, 3, ["b"], start + 10, records)
    assert of_kind(records, Attack)[1] == Attack(0, (3 + ATTACK.chain_bonus) * 3 // 2, ("b",), True, True)


@pytest.mark.parametrize("seats", [3, 4])
def test_the_leader_is_attacked(seats: int) -> None:
    """With 3–4 seats an attack goes to the live opponent with the highest score."""
    match = VersusMatch(seed=1, seats=seats)
    records: list[Record] = []
    leader = seats - 1
    match.games[leader].score = 5000
    match.games[1].score = 1000
    match._attack(0, 2, ["x"], 0, records)
    assert of_kind(records, Queued)[0].seat == leader
    match.pending = [[] for _ in range(seats)]
    records.clear()
    match._attack(leader, 2, ["x"], 500, records)  # the leader itself attacks the next best
    assert of_kind(records, Queued)[0].seat == 1
    match.pending = [[] for _ in range(seats)]
    records.clear()
    match.games[0].score = 7000  # the lead changes hands
    match._attack(1, 2, ["x"], 1000, records)
    assert of_kind(records, Queued)[0].seat == 0


@pytest.mark.parametrize("seats", [3, 4])
def test_targeting_ties_go_to_the_first_seat_after_the_sender(seats: int) -> None:
    """Equal scores: the first live seat after the sender is attacked; dead seats are skipped."""
    match = VersusMatch(seed=1, seats=seats)
    targets = []
    for sender in range(seats):
        records: list[Record] = []
        match._attack(sender, 1, ["x"], 0, records)
        targets.append(of_kind(records, Queued)[0].seat)
        match.pending = [[] for _ in range(seats)]
    assert targets == [(sender + 1) % seats for sender in range(seats)]
    match.alive[2] = False
    records = []
    match._attack(1, 1, ["x"], 500, records)
    assert of_kind(records, Queued)[0].seat == (3 if seats == 4 else 0)


def test_a_dead_leader_is_not_attacked() -> None:
    """A seat that is out is never a target, however high its score."""
    match = VersusMatch(seed=1, seats=3)
    match.games[2].score = 9000
    match.alive[2] = False
    records: list[Record] = []
    match._attack(0, 2, ["x"], 0, records)
    assert of_kind(records, Queued)[0].seat == 1


def test_units_from_board_events() -> None:
    """Crushes, lines, eats, broken eggs and round clears are worth the table's units, tiers included."""
    match = VersusMatch(seed=1)
    at = Cell(1, 1)
    events: list[Any] = [
        Crush(("a", "b", "c", "d", "e"), at, 6400),
        Line((at,), False, 10_000),
        Line((at,), True, 5_000),
        EatEvent("a", at, 100),
        EggBroken(at, 500),
        RoundClear(25.0, 2000),
    ]
    units, reasons = match._units(events)
    assert units == (ATTACK.crush[3] + ATTACK.line + ATTACK.line_wall + ATTACK.eat + ATTACK.egg
                     + ATTACK.round_clear + 3)
    assert reasons == ["crush5", "line", "line", "eat", "egg", "round-clear"]
    assert match._units([]) == (0, [])
    assert match._units([Crush(("a",), at, 400)]) == (ATTACK.crush[0], ["crush1"])
    assert match._units([Crush(("a", "b"), at, 1600)]) == (ATTACK.crush[1], ["crush2"])
    for bonus, extra in ((5000, 4), (2000, 3), (1000, 2), (500, 1), (10, 0), (0, 0)):
        assert match._units([RoundClear(0.0, bonus)]) == (ATTACK.round_clear + extra, ["round-clear"])


# ---- the fuse, the cap and the landings on a real board ---------------------------------------------------


def test_a_packet_lands_after_the_fuse() -> None:
    """A packet queued on frame f lands on frame f + 150 (2.5 s), not a frame earlier."""
    match = playing_match()
    queued_at = match.frame
    records: list[Record] = []
    match._attack(0, 2, ["test"], queued_at, records)
    assert of_kind(records, Queued)[0].lands_at == queued_at + ATTACK.fuse_frames == queued_at + 150
    landed_on = None
    while landed_on is None:
        frame = match.frame
        landings = of_kind(match.step([NEUTRAL, NEUTRAL]), Landing)
        if landings:
            landed_on = frame
            assert landings == [Landing(1, "garbage", 2, landings[0].blocks, (), ())]
    assert landed_on == queued_at + 150
    assert match.pending == [[], []]


def test_at_most_eight_units_land_at_once() -> None:
    """20 queued units land as 8, 8 and 4 on three consecutive frames (the per-landing cap)."""
    match = playing_match()
    queued_at = match.frame
    match._attack(0, 12, ["a"], queued_at, [])
    match._attack(0, 8, ["b"], queued_at + 500, [])  # a later attack, chained; lands after the first
    match.pending[1][1][3] = queued_at + ATTACK.fuse_frames  # make both due on the same frame
    match.pending[1][1][2] = 8
    landings: list[tuple[int, int, str]] = []
    for _ in range(ATTACK.fuse_frames + 5):
        frame = match.frame
        for landing in of_kind(match.step([NEUTRAL, NEUTRAL]), Landing):
            landings.append((frame, landing.units, landing.landing))
    due = queued_at + ATTACK.fuse_frames
    assert ATTACK.landing_cap == 8
    assert landings == [(due, 8, "gems"), (due + 1, 8, "gems"), (due + 2, 4, "nuisance")]


def _forbidden_cells(match: VersusMatch, seat: int) -> set[Cell]:
    """Cells garbage may not take: within 2 cells of the player, under an enemy or a sliding block."""
    game = match.games[seat]
    player = game.player
    px, py = player.px / CELL_PX, player.py / CELL_PX
    forbidden = {Cell(x, y) for x in range(game.cols) for y in range(game.rows)
                 if max(abs(x - px), abs(y - py)) < ATTACK.garbage_min_distance}
    for e in game.slots:
        if e.state in (GONE, HATCH_NEXT):
            continue
        for x in {e.px // CELL_PX, -(-e.px // CELL_PX)}:
            for y in {e.py // CELL_PX, -(-e.py // CELL_PX)}:
                forbidden.add(Cell(x, y))
    for block in game.board.slides:
        forbidden.add(block.cell)
        assert block.motion is not None
        step = STEP[block.motion.dir]
        forbidden.add(Cell(block.cx + step.x, block.cy + step.y))
    return forbidden


def test_garbage_avoids_the_player_enemies_and_sliding_blocks() -> None:
    """On a board crowded so that only 3 cells are allowed, 3 garbage units land exactly there."""
    match = playing_match(seed=3)
    until(match, lambda m: m.games[1].status == "playing" and roaming(m, 1) >= 2)
    game = match.games[1]
    board = game.board
    # Start a block sliding: a resting ice block with a free cell beyond it, away from the player.
    player = Cell(game.player.px // CELL_PX, game.player.py // CELL_PX)
    slide = None
    for block in sorted(board.blocks.values(), key=lambda b: (b.cy, b.cx)):
        if block.material != "ice" or block.egg is not None or block.breaking is not None:
            continue
        if max(abs(block.cx - player.x), abs(block.cy - player.y)) < 4:
            continue
        for direction, step in STEP.items():
            if board.free(block.cx + step.x, block.cy + step.y) and board.free(block.cx + 2 * step.x,
                                                                                  block.cy + 2 * step.y):
                slide = (block, direction)
                break
        if slide is not None:
            break
    assert slide is not None
    block, direction = slide
    assert board.push(block.cx, block.cy, direction, "player").kind == "slide"
    forbidden = _forbidden_cells(match, 1)
    free = [Cell(x, y) for y in range(game.rows) for x in range(game.cols) if board.free(x, y)]
    allowed = [c for c in free if c not in forbidden and
               min(max(abs(c.x - f.x), abs(c.y - f.y)) for f in forbidden) >= 3][:3]
    assert len(allowed) == 3
    for cell in free:
        if cell not in forbidden and cell not in allowed:
            game.drop_block(cell, "ice")
    landed: list[Landing] = []
    checked: list[set[Cell]] = []
    real_place = match._place

    def place(seat: int, units: int, frame: int, records: list[Record]) -> None:
        checked.append(_forbidden_cells(match, seat))
        real_place(seat, units, frame, records)
        landed.extend(of_kind(records, Landing))

    match._place = place  # type: ignore[method-assign]
    match.pending[1] = [[99, 0, 3, match.frame]]
    match.step([NEUTRAL, NEUTRAL])
    assert len(landed) == 1 and landed[0].landing == "garbage"
    assert sorted(landed[0].blocks) == sorted(allowed)
    assert not set(landed[0].blocks) & checked[0]
    assert board.slides, "the block was still sliding when the garbage landed"


def test_garbage_keeps_its_distance_over_many_landings() -> None:
    """Over many landings on a live board no garbage lands within 2 cells of the player or on an enemy."""
    match = playing_match(seed=6)
    real_place = match._place
    seen = 0

    def place(seat: int, units: int, frame: int, records: list[Record]) -> None:
        nonlocal seen
        forbidden = _forbidden_cells(match, seat)
        real_place(seat, units, frame, records)
        for landing in of_kind(records, Landing):
            assert not set(landing.blocks) & forbidden, (frame, landing)
            seen += len(landing.blocks)
        records.clear()

    match._place = place  # type: ignore[method-assign]
    inputs = random_inputs(6, 2, 1500)
    for frame, row in enumerate(inputs):
        if match.finished:
            break
        if frame % 20 == 0:
            for seat in (0, 1):
                match.pending[seat].append([1000 + frame, 1 - seat, 3, match.frame])
        match.step(row)
    assert seen > 100


def test_nuisance_hides_eggs_in_the_receivers_ice() -> None:
    """A 5-unit landing is 3 garbage blocks plus 2 eggs hidden in resting ice blocks, counted as eggs left."""
    match = playing_match()
    until(match, lambda m: roaming(m, 1) == 3)  # every slot awake: the hidden eggs wait their turn
    game = match.games[1]
    eggs_before = game.eggs_left
    match.pending[1] = [[99, 0, 5, match.frame]]
    landings = of_kind(match.step([NEUTRAL, NEUTRAL]), Landing)
    assert len(landings) == 1
    landing = landings[0]
    assert (landing.landing, landing.units, len(landing.blocks), len(landing.eggs)) == ("nuisance", 5, 3, 2)
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
    match.pending[1] = [[99, 0, 4, match.frame]]
    landing = of_kind(match.step([NEUTRAL, NEUTRAL]), Landing)[0]
    assert (landing.landing, len(landing.blocks), len(landing.eggs), landing.gems) == ("nuisance", 3, 1, ())


def test_counter_gems_land_count_down_and_thaw() -> None:
    """6+ units land units − 3 counter gems that count 4, 3, 2, 1 every 2 s and then thaw into ice."""
    config = VersusConfig(VersusRules(lives=99))
    match = playing_match(config=config)
    game = match.games[1]
    match.pending[1] = [[99, 0, 7, match.frame]]
    landed_on = match.frame
    landing = of_kind(match.step([NEUTRAL, NEUTRAL]), Landing)[0]
    assert (landing.landing, landing.units, len(landing.gems), landing.blocks) == ("gems", 7, 4, ())
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
    match.pending[1] = [[99, 0, 2, 0]]
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
    assert result is not None and result.reason == "elimination"
    outs = of_kind(records, SeatOut)
    assert len(outs) == 1 and outs[0].reason == "lives"
    loser = outs[0].seat
    assert result.winner == 1 - loser
    assert result.outcomes[loser] == "lost" and result.outcomes[1 - loser] == "won"
    assert match.games[loser].status == "lost"
    end = MatchEnd(result.winner, result.outcomes, "elimination", result.frame)
    assert of_kind(records, MatchEnd)[-1] == end


def test_time_limit_draw_and_win() -> None:
    """At the time limit the highest score wins; equal scores draw."""
    config = VersusConfig(VersusRules(time_limit_frames=300))
    drawn = VersusMatch(config, seed=2)
    idle(drawn, 300)
    assert drawn.result is not None
    assert (drawn.result.reason, drawn.result.winner) == ("time", None)
    assert drawn.result.outcomes == ("drawn", "drawn")
    assert drawn.result.frame == 300
    won = VersusMatch(config, seed=2, seats=3)
    idle(won, 299)
    assert not won.finished
    won.games[2].score += 10
    idle(won, 1)
    assert won.result is not None
    assert (won.result.reason, won.result.winner, won.result.outcomes) == ("time", 2, ("lost", "lost", "won"))


def test_forfeit_two_seats() -> None:
    """A forfeit byte takes the seat out for good; the other seat wins by forfeit."""
    match = playing_match()
    records = match.step([FORFEIT, NEUTRAL])
    assert SeatOut(0, "forfeit") in records
    assert match.result is not None
    assert (match.result.reason, match.result.winner, match.result.outcomes) == ("forfeit", 1,
                                                                                 ("forfeited", "won"))


def test_forfeit_in_a_four_seat_match_continues() -> None:
    """With four seats one forfeit leaves three playing; pending attacks against the forfeited seat vanish."""
    match = playing_match(seats=4)
    match.pending[2] = [[99, 0, 3, match.frame + 100]]
    match.step([NEUTRAL, NEUTRAL, FORFEIT, NEUTRAL])
    assert not match.finished and match.alive == [True, True, False, True]
    assert match.pending[2] == []
    idle(match, 50)  # the forfeited seat's board is no longer stepped
    for seat in (0, 3):
        match.step([FORFEIT if s == seat else NEUTRAL for s in range(4)])
    assert match.result is not None
    assert (match.result.reason, match.result.winner) == ("forfeit", 1)
    assert match.result.outcomes == ("forfeited", "won", "forfeited", "forfeited")


def test_attacks_in_a_real_match_follow_the_table() -> None:
    """In a played match every Queued packet follows an Attack and carries units minus the offset."""
    rules = VersusRules(attack=AttackTable(egg=4, crush=(3, 6, 8, 8), fuse_frames=60))
    match = VersusMatch(VersusConfig(rules), seed=4)
    records: list[Record] = []
    for row in random_inputs(4, 2, 6000):
        if match.finished:
            break
        records.extend(match.step(row))
    versus = [r for r in records if not isinstance(r, BoardRecord)]
    attacks = of_kind(versus, Attack)
    assert attacks, "the seed should produce attacks"
    for index, record in enumerate(versus):
        if isinstance(record, Queued):
            attack = next(r for r in reversed(versus[:index]) if isinstance(r, Attack))
            previous = versus[index - 1]
            offset = previous.units if isinstance(previous, Offset) else 0
            assert record.units == attack.units - offset
            assert record.source == attack.seat and record.seat != attack.seat
