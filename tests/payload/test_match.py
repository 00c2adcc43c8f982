"""Payload through the Ruleset seam: the input byte, edges and refusals, determinism across processes,
snapshot/restore mid-run, SyncTest, configs as plain data, versus's exchange."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import IllegalInputError
from rules.payload.events import Received
from rules.payload.exchange import ExchangeRules, exchange, land, surplus_units
from rules.payload.inputs import (
    DROP,
    FORFEIT,
    INPUTS,
    NEUTRAL,
    PLACE,
    SELECT,
    SKIP,
    decode_move,
    encode_move,
    is_valid_input,
)
from rules.payload.match import PayloadConfig, PayloadMatch
from rules.payload.moves import Drop, Move, Place, Reroll, SelectOffer, Skip, TakeBlueprint
from rules.payload.plain import run_from_plain, run_plain
from rules.payload.ruleset import PAYLOAD, PAYLOAD_VERSUS
from rules.payload.run import start_run
from rules.payload.types import CELLS, CellIndex, Column
from rules.ruleset import Match, Ruleset
from rules.synctest import run_synctest
from tests.payload.play import bot_rows, summary

ROOT = Path(__file__).resolve().parents[2]


def test_every_move_round_trips_through_its_byte() -> None:
    """Each move has one byte and decodes back; other bytes are malformed; a byte stays held."""
    moves: list[Move] = [Skip(), Reroll()]
    moves += [SelectOffer(i) for i in range(8)]
    moves += [TakeBlueprint(i) for i in range(8)]
    moves += [Drop(Column(c)) for c in range(5)]
    moves += [Place(CellIndex(c)) for c in range(CELLS)]
    codes = {encode_move(move) for move in moves}
    assert len(codes) == len(moves) and all(0 < code < 0x80 for code in codes)
    for move in moves:
        assert decode_move(encode_move(move)) == move
    valid = {value for value in range(256) if is_valid_input(value)}
    assert valid == codes | {NEUTRAL, FORFEIT}
    assert not is_valid_input(True) and not is_valid_input(256)
    assert INPUTS.held(DROP + 2) == DROP + 2
    with pytest.raises(IllegalInputError):
        decode_move(0x7F)
    with pytest.raises(IllegalInputError):
        encode_move(Drop(Column(5)))


def test_a_move_is_its_bytes_edge() -> None:
    """A held byte moves once; a neutral frame between two equal bytes makes two moves; a move the
    phase does not allow is refused with a record and changes nothing."""
    match = PAYLOAD.new_match(PAYLOAD.default_config(), 9, ["p"])
    before = match.snapshot()["runs"]
    records = match.step([DROP + 2])
    assert [r["kind"] for r in records] == ["refused"] and "not dropping" in records[0]["reason"]
    assert match.snapshot()["runs"] == before
    match.step([SELECT])
    match.step([PLACE + 12])
    assert match.runs[0].board[12] is not None
    drops = []
    for value in (DROP + 2, DROP + 2, DROP + 2, NEUTRAL, DROP + 2):
        drops += [r for r in match.step([value]) if r["kind"] == "drop"]
    assert len(drops) == 2
    with pytest.raises(IllegalInputError):
        match.step([0x7F])
    with pytest.raises(IllegalInputError):
        match.step([SKIP, SKIP])


def test_same_seed_and_inputs_give_the_same_hash_in_another_process() -> None:
    """A solo run and a versus match played by bots in fresh processes (each with its own str hash
    seed) end with the same log hash, result and length as here."""
    cases = [("1", "payload", "easy", "31", "competent"),
             ("2", "payload-versus", "easy", "12", "competent", "lazy")]
    for hash_seed, name, difficulty, seed, *bots in cases:
        ruleset = {"payload": PAYLOAD, "payload-versus": PAYLOAD_VERSUS}[name]
        match, _ = bot_rows(ruleset, difficulty, int(seed), bots)  # type: ignore[arg-type]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-m", "tests.payload.play", name, difficulty, seed, *bots],
                              cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=120)
        assert done.stdout.strip() == summary(match)


def test_snapshot_restore_mid_run_continues_identically() -> None:
    """Restoring a mid-match snapshot and replaying the same inputs gives the same records, state and
    log hash (solo and versus); a snapshot is plain and its checksum pins it."""
    for ruleset, bots in ((PAYLOAD, ("competent",)), (PAYLOAD_VERSUS, ("competent", "competent"))):
        done, rows = bot_rows(ruleset, "easy", 2024, bots)
        match = ruleset.new_match(ruleset.default_config(), 2024, [f"s{i}" for i in range(len(bots))])
        middle = len(rows) // 2
        for row in rows[:middle]:
            match.step(row)
        snap = match.snapshot()
        first = [match.step(row) for row in rows[middle:]]
        assert match.log_hash == done.log_hash and match.result == done.result
        match.restore(snap)
        assert match.checksum(match.snapshot()) == match.checksum(snap)
        again = [match.step(row) for row in rows[middle:]]
        assert again == first and match.log_hash == done.log_hash


def test_synctest_rolls_back_every_frame() -> None:
    """SyncTest (snapshot, step, restore 4 frames back, re-step) finds no desync in a bot match."""
    _, rows = bot_rows(PAYLOAD_VERSUS, "easy", 8, ("competent", "lazy"))

    def make() -> PayloadMatch:
        return PAYLOAD_VERSUS.new_match(PAYLOAD_VERSUS.default_config(), 8, ["a", "b"])

    report = run_synctest(make, lambda m, row: m.step(row), rows, rollback=4, check_outputs=True)
    assert report.frames == len(rows)


VALID_BYTES = [value for value in range(256) if is_valid_input(value) and value != FORFEIT]


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(VALID_BYTES), st.sampled_from(VALID_BYTES)), min_size=1,
                max_size=120))
def test_synctest_over_any_input_stream(rows: list[tuple[int, int]]) -> None:
    """Any stream of well-formed bytes (most moves refused, some played) survives SyncTest: rolling
    back 3 frames and re-stepping gives the same states and the same records."""

    def make() -> PayloadMatch:
        return PAYLOAD_VERSUS.new_match(PAYLOAD_VERSUS.default_config(), 21, ["a", "b"])

    def step(match: PayloadMatch, row: tuple[int, int]) -> object:
        return [] if match.result is not None else match.step(list(row))

    run_synctest(make, step, rows, rollback=3, check_outputs=True)


def test_the_rulesets_meet_the_protocol() -> None:
    """Both are Rulesets whose matches are Matches; configs round-trip and bad ones are named."""
    for ruleset in (PAYLOAD, PAYLOAD_VERSUS):
        typed: Ruleset[PayloadConfig, object] = ruleset  # type: ignore[assignment]
        config = typed.default_config()
        plain = typed.config_plain(config)
        assert typed.config_from_plain(plain) == config
        with pytest.raises(ValueError, match="config.difficulty"):
            typed.config_from_plain({**plain, "difficulty": "medium"})
        with pytest.raises(ValueError, match="config.extra"):
            typed.config_from_plain({**plain, "extra": 1})
        assert typed.with_time_limit(config, 10).time_limit_frames == 10
        match: Match[object] = typed.new_match(config, 1, ["x"] * typed.min_seats)
        view = match.keyframe_view()
        assert len(view["seats"]) == typed.min_seats and view["seats"][0]["run"]["phase"]["phase"] == "draft"
        assert "deal" not in view["seats"][0]["run"] and "seed" not in view["seats"][0]["run"]
        with pytest.raises(ValueError, match="bot"):
            typed.make_bot("genius", 1)
    with pytest.raises(ValueError, match="seats"):
        PAYLOAD.new_match(PAYLOAD.default_config(), 1, ["a", "b"])


def test_time_limit_and_forfeit_end_the_match() -> None:
    """A solo run at its time limit is lost (`time`); a versus forfeit gives the other seat the win."""
    solo = PAYLOAD.new_match(PAYLOAD.with_time_limit(PAYLOAD.default_config(), 3), 1, ["p"])
    for _ in range(3):
        solo.step([NEUTRAL])
    assert solo.result is not None and solo.result.reason == "time"
    duel = PAYLOAD_VERSUS.new_match(PAYLOAD_VERSUS.default_config(), 1, ["a", "b"])
    duel.step([FORFEIT, NEUTRAL])
    assert duel.result is not None and duel.result.winner == 1 and duel.result.reason == "forfeit"
    assert [o.value for o in duel.result.outcomes] == ["forfeited", "won"]


def test_changes_rebuild_the_actors() -> None:
    """Applying each frame's changes to the actors shown before gives the actors shown now."""
    _, rows = bot_rows(PAYLOAD_VERSUS, "easy", 4, ("competent", "lazy"))
    match = PAYLOAD_VERSUS.new_match(PAYLOAD_VERSUS.default_config(), 4, ["a", "b"])
    shown = match.actors()
    for row in rows:
        match.step(row)
        for seat, change in enumerate(match.changes()):
            summary, records = list(shown[seat][0]), {r[0]: r for r in shown[seat][1]}
            parts = [*change, [], [], [], [], []][:5]
            for index in range(0, len(parts[0]), 2):
                summary[parts[0][index]] = parts[0][index + 1]
            assert parts[1] == []
            records.update({r[0]: r for r in parts[2]})
            for key in parts[3]:
                del records[key]
            now = match.actors()[seat]
            assert summary == now[0] and sorted(records.values()) == sorted(now[1])
        shown = match.actors()


def test_exchange_cancels_own_queue_first_and_caps() -> None:
    """Units: one per full margin over the quota; own queue cancelled first; the rest sent."""
    rules = ExchangeRules(margin_percent=50, queue_cap=4)
    assert [surplus_units(score, 30, rules) for score in (30, 44, 45, 60, 300)] == [0, 0, 1, 2, 18]
    assert exchange(3, 2) == (2, 1)
    assert exchange(1, 0) == (0, 1)


def test_landing_places_nuisance_or_jams_visibly() -> None:
    """A landing adds jams that bite this round or nuisance parts on empty cells, each with an event,
    the same for the same deal and round."""
    state, _ = start_run("easy", 17)
    landed, events = land(state, 4)
    assert len(events) == 4
    assert land(state, 4) == (landed, events)
    for event in events:
        assert isinstance(event, Received)
        if event.jam is not None:
            assert event.jam in landed.received
        else:
            assert event.cell is not None and state.board[event.cell] is None
            assert landed.board[event.cell] == event.part in ("rust", "snag")
    assert run_from_plain(run_plain(landed)) == landed


def test_versus_sends_surplus_to_the_opponent() -> None:
    """In a competent-vs-lazy match the competent seat's surplus lands on the lazy seat as recorded."""
    match, rows = bot_rows(PAYLOAD_VERSUS, "easy", 5, ("competent", "lazy"))
    replay = PAYLOAD_VERSUS.new_match(PAYLOAD_VERSUS.default_config(), 5, ["a", "b"])
    kinds = [record for row in rows for record in replay.step(row)]
    attacks = [r for r in kinds if r["kind"] == "attack" and r["seat"] == 0]
    received = [r for r in kinds if r["kind"] == "received" and r["seat"] == 1]
    assert attacks and received and replay.log_hash == match.log_hash
    assert match.result is not None and match.result.winner == 0
