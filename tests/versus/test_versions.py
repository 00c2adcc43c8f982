"""pengo-versus 1, 2 and 3 on one engine: each version's config form, registry entry and replays, and
version 2's landings (garbage in the ring around Pengo, eggs that hatch at once and pay nothing, the
hurry), whose new state snapshots and restores exactly."""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from protocol.replay_codec import decode_replay
from rules.kick.actors import GONE, HATCH_NEXT
from rules.kick.enemies import scaled_period
from rules.kick.events import EggBroken, Hatch
from rules.kick.geometry import CELL_PX, Cell
from rules.registry import known, lookup
from rules.replay import record, verify
from rules.versus.attack import Packet
from rules.versus.bots import make_bot, seat_seed
from rules.versus.events import BoardRecord, Landing
from rules.versus.landing import LandingKind
from rules.versus.match import VersusConfig, VersusMatch, versus_config
from rules.versus.placement import place_landing
from rules.versus.ruleset import (
    PENGO_VERSUS,
    PENGO_VERSUS_V1,
    V2_FIELDS,
    V3_FIELDS,
    config_from_plain,
    config_plain,
)
from rules.versus.tables import (
    FIDELITY,
    RULES_BY_VERSION,
    SLOT_TIMERS,
    VERSUS_RULES_V1,
    VERSUS_RULES_V2,
    VERSUS_RULES_V3,
    AttackTable,
    VersusRules,
)

from .helpers import playing_match, random_inputs, roaming, run, until
from .regenerate_golden import GOLDEN_DIRS

V2 = versus_config(2)
V3 = versus_config(3)
V2_ATTACK = VERSUS_RULES_V2.attack
#: Version 1's config plain form before the bump (its keys, as every version-1 replay holds them).
V1_ATTACK_KEYS = {
    "crush", "line", "line_wall", "eat", "egg", "round_clear", "round_clear_tiers", "chain_frames",
    "chain_bonus", "fuse_frames", "landing_cap", "garbage_max", "nuisance_max", "garbage_min_distance",
    "gem_offset", "gem_count", "gem_step_frames", "margin_from_frame", "margin_num", "margin_den",
}


# ---- the versions ------------------------------------------------------------------------------------


def test_the_registry_serves_every_version_and_new_matches_use_three() -> None:
    """("pengo-versus", 1), 2 and 3 are registered; PENGO_VERSUS is version 3, whose default config is
    version 2's table on the arcade Sno-Bee with the arcade's slot timers; version 2's is the same
    without them; version 1's default is the dataclasses' defaults."""
    assert {("pengo-versus", 1), ("pengo-versus", 2), ("pengo-versus", 3)} <= set(known())
    assert lookup("pengo-versus", 1) is PENGO_VERSUS_V1 and lookup("pengo-versus", 3) is PENGO_VERSUS
    assert lookup("pengo-versus", 2).version == 2
    assert PENGO_VERSUS.version == 3
    assert lookup("pengo-versus", 2).default_config() == VersusConfig(VERSUS_RULES_V2, fidelity="arcade")
    assert PENGO_VERSUS.default_config() == VersusConfig(
        VERSUS_RULES_V2, fidelity="arcade", slot_timers="arcade")
    assert PENGO_VERSUS_V1.default_config() == VersusConfig()
    assert VersusConfig().rules == VERSUS_RULES_V1 == VersusRules()
    assert FIDELITY == {1: "first-port", 2: "arcade", 3: "arcade"}
    assert SLOT_TIMERS == {1: "first-port", 2: "first-port", 3: "arcade"}
    assert RULES_BY_VERSION == {1: VERSUS_RULES_V1, 2: VERSUS_RULES_V2, 3: VERSUS_RULES_V3}
    assert VERSUS_RULES_V3 == VERSUS_RULES_V2
    assert V2.board_config(7).fidelity == "arcade" and VersusConfig().board_config(7).fidelity == "first-port"
    assert V3.board_config(7).slot_timers == "arcade" and V2.board_config(7).slot_timers == "first-port"


def test_version_one_plain_form_is_the_one_it_always_had() -> None:
    """Version 1 writes exactly its old keys (no fidelity, none of version 2's attack fields) and reads
    them back to the same config; version 2 writes every field."""
    plain = config_plain(VersusConfig(), 1)
    assert set(plain) == {"rules", "difficulty"}
    assert set(plain["rules"]["attack"]) == V1_ATTACK_KEYS
    assert config_from_plain(plain, 1) == VersusConfig()
    assert PENGO_VERSUS_V1.config_plain(VersusConfig()) == plain
    full = config_plain(V2, 2)
    assert full["fidelity"] == "arcade" and "slot_timers" not in full
    assert set(full["rules"]["attack"]) == {f.name for f in dataclasses.fields(AttackTable)}
    assert config_from_plain(full, 2) == V2
    v3 = config_plain(V3, 3)
    assert v3 == {**full, "slot_timers": "arcade"} and {"slot_timers"} == V3_FIELDS
    assert config_from_plain(v3, 3) == V3
    omitted = {path.rsplit(".", 1)[-1] for path in V2_FIELDS}
    assert omitted == {"fidelity"} | ({f.name for f in dataclasses.fields(AttackTable)} - V1_ATTACK_KEYS)


def test_a_version_two_rule_is_not_written_as_version_one() -> None:
    """A config using a rule version 1 does not have cannot be written (or recorded) as version 1."""
    with pytest.raises(ValueError, match="is not a rule of this version"):
        config_plain(V2, 1)
    with pytest.raises(ValueError, match="config.fidelity"):
        config_plain(VersusConfig(fidelity="arcade"), 1)
    with pytest.raises(ValueError, match="config.slot_timers"):
        config_plain(V3, 2)
    ringed = VersusConfig(VersusRules(attack=AttackTable(garbage_max_distance=2)))
    with pytest.raises(ValueError, match="garbage_max_distance"):
        config_plain(ringed, 1)


@pytest.mark.parametrize(
    ("version", "change", "message"),
    [
        (1, ("fidelity", "arcade"), "config.fidelity: unknown field"),
        (2, ("fidelity", "exact"), "config.fidelity: must be one of"),
        (2, ("slot_timers", "arcade"), "config.slot_timers: unknown field"),
        (3, ("slot_timers", "stale"), "config.slot_timers: must be one of"),
        (2, ("rules.attack.nuisance_eggs", "sometimes"), "nuisance_eggs: must be one of"),
        (2, ("rules.attack.extra_slots", 99), "extra_slots"),
    ],
)
def test_each_version_reads_only_its_own_form(version: int, change: tuple[str, Any], message: str) -> None:
    """Version 1 refuses version 2's fields, version 2 version 3's; each refuses unknown words and
    out-of-bound numbers."""
    plain = config_plain(versus_config(version), version)
    path, value = change
    *parents, last = path.split(".")
    node = plain
    for key in parents:
        node = node[key]
    node[last] = value
    with pytest.raises(ValueError, match=message):
        config_from_plain(plain, version)


def _finished(config: VersusConfig, seed: int) -> VersusMatch:
    match = VersusMatch(config, seed, 2)
    run(match, random_inputs(seed, 2, 20_000))
    assert match.finished
    return match


@pytest.mark.parametrize(("version", "other"), [(1, 2), (2, 1), (3, 1)])
def test_a_replay_verifies_under_its_own_version_only(version: int, other: int) -> None:
    """A short match recorded under version N names N in its header, verifies under N, and relabelled
    as another version does not verify."""
    ruleset = lookup("pengo-versus", version)
    config = ruleset.with_time_limit(ruleset.default_config(), 1800)
    replay = record(_finished(config, 40 + version), ruleset)
    assert (replay.ruleset, replay.ruleset_version) == ("pengo-versus", version)
    assert verify(replay).ok
    relabelled = dataclasses.replace(replay, ruleset_version=other)
    assert not verify(relabelled).ok


def test_version_three_plays_otherwise_than_version_two_on_the_same_inputs() -> None:
    """Version 3's golden duel, relabelled as version 2 with its one extra field dropped (the configs are
    then equal), does not verify: the slot timers change the log of a match with deaths and stuns."""
    replay = decode_replay((GOLDEN_DIRS[3] / "duel-competent-lazy.replay").read_bytes())
    assert verify(replay).ok
    config = {key: value for key, value in replay.config.items() if key != "slot_timers"}
    assert config == config_plain(V2, 2)
    as_two = dataclasses.replace(replay, ruleset_version=2, config=config)
    verdict = verify(as_two)
    assert not verdict.ok and verdict.log_hash != replay.log_hash, verdict


# ---- version 2's landings --------------------------------------------------------------------------------


def _v2_playing(seed: int = 3) -> VersusMatch:
    match = playing_match(seed=seed, config=V2)
    until(match, lambda m: all(g.status == "playing" for g in m.games) and roaming(m, 1) >= 2)
    return match


def test_garbage_lands_in_the_ring_around_pengo_never_on_him() -> None:
    """Three garbage units land on free cells 1–2 cells (Chebyshev) from Pengo while the ring has room
    for them, landing after landing, and never on Pengo."""
    match = _v2_playing()
    game = match.games[1]
    stream = match.seat_states[1].garbage
    ringed = 0
    for landing in range(6):
        player = game.player
        px, py = player.px / CELL_PX, player.py / CELL_PX

        def distance(cell: Cell, px: float = px, py: float = py) -> float:
            return max(abs(cell.x - px), abs(cell.y - py))

        room = sum(1 for c in game.landing_cells(1) if distance(c) <= V2_ATTACK.garbage_max_distance)
        placed = place_landing(game, 1, 3, stream, match.frame, V2_ATTACK, 5)
        stream = placed.stream
        assert placed.record.landing == LandingKind.GARBAGE
        assert len(placed.record.blocks) == 3, landing
        near = [c for c in placed.record.blocks if distance(c) <= V2_ATTACK.garbage_max_distance]
        assert len(near) == min(3, room), (landing, placed.record.blocks, px, py)
        assert all(distance(c) >= 1 for c in placed.record.blocks)
        ringed += len(near)
        for _ in range(30):
            match.step([0, 0])
    assert ringed >= 9


def test_a_full_ring_spills_onto_the_rest_of_the_board() -> None:
    """With the ring around Pengo walled in, garbage still lands (farther away), never on him."""
    match = _v2_playing()
    game = match.games[1]
    player = game.player
    cx, cy = round(player.px / CELL_PX), round(player.py / CELL_PX)
    ring = [(x, y) for x in range(cx - 2, cx + 3) for y in range(cy - 2, cy + 3)
            if (x, y) != (cx, cy) and game.board.inside(x, y)]
    for cell in game.landing_cells(1):
        if (cell.x, cell.y) in ring:
            game.drop_block(cell, "ice")
    placed = place_landing(game, 1, 3, match.seat_states[1].garbage, match.frame, V2_ATTACK, 5)
    assert len(placed.record.blocks) == 3
    assert all(max(abs(c.x - cx), abs(c.y - cy)) > 2 for c in placed.record.blocks)


def test_landed_eggs_hatch_at_once_beside_pengo_and_pay_nothing() -> None:
    """A nuisance landing of 5 units (3 blocks, 2 eggs): the eggs are in the landing's own blocks, first
    in the hatch order, and both hatch within a few frames without an egg ever being paid for."""
    match = _v2_playing()
    seat = match.seat_states[1]
    seat.pending = (Packet(900, 0, 5, match.frame),)
    records = match.step([0, 0])
    landing = next(r for r in records if isinstance(r, Landing))
    assert landing.landing == LandingKind.NUISANCE and len(landing.eggs) == 2
    assert set(landing.eggs) <= set(landing.blocks)
    game = match.games[1]
    assert len(game.slots) <= seat.round_slots + V2_ATTACK.extra_slots
    hatched: set[Any] = set()
    broken = 0
    for _ in range(10):
        for record_ in match.step([0, 0]):
            if isinstance(record_, BoardRecord) and record_.seat == 1:
                if isinstance(record_.event, Hatch):
                    hatched.add(record_.event.at)
                elif isinstance(record_.event, EggBroken):
                    broken += 1
    assert set(landing.eggs) <= hatched and broken == 0


def test_eggs_open_extra_slots_up_to_the_table_then_are_not_laid() -> None:
    """With every slot busy each landed egg opens a slot, up to the round's slots plus extra_slots;
    past that the egg is not laid at all (it could only wait and be farmed)."""
    match = _v2_playing()
    game = match.games[1]
    seat = match.seat_states[1]
    base = seat.round_slots
    cap = base + V2_ATTACK.extra_slots
    holders = [b for b in game.board.blocks.values() if b.material == "ice" and b.egg is None
               and b.motion is None and b.breaking is None]
    laid = 0
    for block in holders[:6]:
        busy = [s for s in game.slots if s.state == HATCH_NEXT or (s.state == GONE and not s.from_map)]
        if busy:
            break
        if game.hatch_egg_at_once(block.id, 0, cap):
            laid += 1
            assert game.egg_table[0] == block.id
            match.step([0, 0])  # it hatches: the slot is busy again
    assert len(game.slots) == cap and laid >= V2_ATTACK.extra_slots
    before = list(game.egg_table)
    spare = next(b for b in holders[6:] if b.egg is None and b.id in game.board.blocks)
    if not any(s.state == HATCH_NEXT or (s.state == GONE and not s.from_map) for s in game.slots):
        assert not game.hatch_egg_at_once(spare.id, 0, cap)
        assert game.egg_table == before and game.board.blocks[spare.id].egg is None


def test_a_landing_hurries_the_receivers_snobees_then_they_calm() -> None:
    """A landing gives the receiver's Sno-Bees the hurry of a life a minute old for landing_hurry_frames;
    SeatView.hurried says so; then they take their kind's base period again."""
    match = _v2_playing()
    seat = match.seat_states[1]
    game = match.games[1]
    seat.pending = (Packet(900, 0, 2, match.frame),)
    landed_on = match.frame
    match.step([0, 0])
    assert seat.hurry_until == landed_on + V2_ATTACK.landing_hurry_frames
    assert match.seat_view(1).hurried and not match.seat_view(0).hurried
    hurried = game.pace.hurry_period(V2_ATTACK.landing_hurry_minutes)
    snobees = [e for e in game.slots
               if e.brain == "sno-bee" and e.state not in (GONE, HATCH_NEXT) and e.mode < 9]
    assert snobees and all((e.base_period, e.base_den) == hurried for e in snobees)
    assert hurried != game.pace.enemy_period
    while match.frame <= seat.hurry_until:
        match.step([0, 0])
    assert seat.hurry_until == -1 and not match.seat_view(1).hurried
    for e in game.slots:
        if e.brain == "sno-bee" and e.state not in (GONE, HATCH_NEXT) and e.mode < 9:
            base = scaled_period(game.pace.enemy_period, game.kinds[e.kind].speed_scale)
            assert (e.base_period, e.base_den) in (tuple(base), game.pace.angry_period)


def test_version_one_landings_neither_hurry_nor_open_slots() -> None:
    """The same landings under version 1: no hurry, the level's slots only, eggs hidden anywhere."""
    match = playing_match(seed=3)
    seat = match.seat_states[1]
    slots = len(match.games[1].slots)
    seat.pending = (Packet(900, 0, 5, match.frame),)
    records = match.step([0, 0])
    assert any(isinstance(r, Landing) for r in records)
    assert seat.hurry_until == -1 and len(match.games[1].slots) == slots


BUSY_V2 = replace(V2, rules=replace(VERSUS_RULES_V2, lives=9, attack=replace(
    V2_ATTACK, egg=6, crush=(4, 6, 8, 8), eat=2, fuse_frames=40)))


def test_version_two_snapshot_restore_mid_hurry_continues_identically() -> None:
    """Snapshots taken while hurries last and extra slots are open (through msgpack) restore into a fresh
    match that continues exactly as the original."""
    straight = VersusMatch(BUSY_V2, 77, 2)
    bots = [make_bot("competent", seat_seed(77, seat), 2) for seat in range(2)]
    inputs: list[list[int]] = []
    while not straight.finished and straight.frame < 6000:
        inputs.append([bot.decide(straight.seat_view(seat), straight.frame) for seat, bot in enumerate(bots)])
        straight.step(inputs[-1])
    expected = run(VersusMatch(BUSY_V2, 77, 2), inputs)
    checked = 0
    next_check = 0
    source = VersusMatch(BUSY_V2, 77, 2)
    for frame, row in enumerate(inputs):
        if source.finished:
            break
        seats = zip(source.games, source.seat_states, strict=True)
        hurried = any(s.hurry_until >= 0 for s in source.seat_states)
        opened = any(len(g.slots) > s.round_slots for g, s in seats)
        if (hurried or opened) and checked < 5 and frame >= next_check:
            next_check = frame + 300
            snap = msgpack.unpackb(msgpack.packb(source.snapshot()), strict_map_key=False)
            fresh = VersusMatch(BUSY_V2, 77, 2)
            fresh.restore(snap)
            assert run(fresh, inputs[frame : frame + 600]) == expected[frame : frame + 600]
            checked += 1
        source.step(row)
    assert checked >= 3
