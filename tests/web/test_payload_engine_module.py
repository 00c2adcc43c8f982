"""The browser engine's Payload side (clients/web/src/engine/payload_engine.py) under CPython: what the
page is sent is rules/payload's own values, and a refused move or preview changes nothing.
(tests/web/test_payload_view.py runs the same module in Pyodide, in Chromium.)"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from rules.payload.bots.competent import competent_move
from rules.payload.content import compendium
from rules.payload.daily import daily_configs, daily_seed, daily_variant
from rules.payload.inputs import NEUTRAL, encode_move
from rules.payload.moves import Drop, Move, Place, Reroll, SelectOffer, Skip, TakeBlueprint
from rules.payload.plain import run_plain
from rules.payload.preview import column_projection, placement_projection
from rules.payload.rng import Mulberry32
from rules.payload.ruleset import PAYLOAD
from rules.payload.run import place_selected, select_offer, start_run
from rules.payload.types import CellIndex, Column
from rules.replay import Replay, input_rows, verify

MODULE = Path(__file__).resolve().parents[2] / "clients" / "web" / "src" / "engine" / "payload_engine.py"


@pytest.fixture
def engine() -> ModuleType:
    """A fresh copy of the module (its run is module state, as in the worker)."""
    spec = importlib.util.spec_from_file_location("payload_engine", MODULE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def call(engine: ModuleType, name: str, arg: Any = None) -> Any:
    function = getattr(engine, name)
    return json.loads(function() if arg is None else function(json.dumps(arg)))


def test_the_view_and_previews_are_the_rules_own(engine: ModuleType) -> None:
    assert call(engine, "content")["parts"] == compendium()
    view = call(engine, "start", {"difficulty": "hard", "seed": 11})
    state, _ = start_run("hard", 11)
    assert {key: view[key] for key in run_plain(state)} == run_plain(state)
    assert view["columns"] == list(column_projection(state).totals)
    answer = call(engine, "move", {"kind": "select", "index": 1})
    state, _ = select_offer(state, 1)
    assert answer["events"] == [{"kind": "selected", "index": 1, "part": state.phase.offers[1]}]  # type: ignore[union-attr]
    assert call(engine, "preview", {"cell": 17}) == list(
        placement_projection(state, state.phase.offers[1], CellIndex(17)).totals)  # type: ignore[union-attr]
    answer = call(engine, "move", {"kind": "place", "cell": 17})
    state, _ = place_selected(state, CellIndex(17))
    assert {key: answer["view"][key] for key in run_plain(state)} == run_plain(state)


def test_a_refused_move_changes_nothing(engine: ModuleType) -> None:
    before = call(engine, "start", {"difficulty": "easy", "seed": 3})
    with pytest.raises(ValueError, match="not dropping"):
        call(engine, "move", {"kind": "drop", "column": 0})
    with pytest.raises(ValueError, match="unknown kind"):
        call(engine, "move", {"kind": "teleport"})
    with pytest.raises(ValueError, match="no offer is selected"):
        call(engine, "preview", {"cell": 0})
    assert call(engine, "view") == before


def test_the_day_s_run_takes_the_day_s_seed_and_variant(engine: ModuleType) -> None:
    view = call(engine, "start", {"difficulty": "easy", "daily": "2026-12-03"})
    assert (view["seed"], view["variant"], view["daily"]) == (daily_seed("2026-12-03"),
                                                              daily_variant("2026-12-03"), "2026-12-03")
    shared = call(engine, "share", {"date": "2026-12-03", "streak": None})
    assert shared["text"].startswith("Payload 2026-12-03 · Easy")


def plain_move(move: Move) -> dict[str, Any]:
    """A move as the page sends it."""
    match move:
        case SelectOffer(index):
            return {"kind": "select", "index": index}
        case Place(cell):
            return {"kind": "place", "cell": cell}
        case Skip():
            return {"kind": "skip"}
        case Reroll():
            return {"kind": "reroll"}
        case TakeBlueprint(index):
            return {"kind": "blueprint", "index": index}
        case Drop(column):
            return {"kind": "drop", "column": column}
    raise AssertionError(move)


def server_board(difficulty: str, seed: int) -> dict[str, Any]:
    """A board of the server's daily as the page passes it (GET /api/daily?ruleset=payload's)."""
    config = PAYLOAD.config_plain(daily_configs(seed)[difficulty])  # type: ignore[index]
    return {"server": {"day": "2026-12-03", "ruleset": "payload", "ruleset_version": PAYLOAD.version,
                       "config": config, "seed": seed, "player": "g-ann", "name": "ann"}}


@pytest.mark.parametrize("difficulty", ["easy", "hard"])
def test_a_server_daily_replay_verifies_at_the_engine_total(engine: ModuleType, difficulty: str) -> None:
    """The competent bot's run on a server's board, move by move as the page sends them: the replay
    file the engine builds names the player, verifies, and scores the engine's total; a refused move
    changes nothing of it."""
    seed = 0x5EED_0001
    view = call(engine, "start", server_board(difficulty, seed))
    config = daily_configs(seed)[difficulty]  # type: ignore[index]
    shown = (view["server"], view["daily"], view["variant"], view["frame"])
    assert shown == (True, "2026-12-03", config.variant, 0)
    with pytest.raises(ValueError, match="not dropping"):
        call(engine, "move", {"kind": "drop", "column": 0})
    with pytest.raises(ValueError, match="has not ended"):
        call(engine, "replay")
    state, _ = start_run(config.difficulty, seed, config.variant)
    rng = Mulberry32(5)
    played: list[Move] = []
    while not state.over:
        move = competent_move(state, rng)
        view = call(engine, "move", plain_move(move))["view"]
        state = engine._state
        played.append(move)
    replay = Replay.from_plain(call(engine, "replay"))
    assert (replay.ruleset, replay.player, replay.seats, replay.seed) == ("payload", "g-ann", ("ann",), seed)
    verdict = verify(replay)
    assert verdict.ok, verdict.reason
    assert verdict.result is not None and verdict.result.scores == (view["total_score"],)
    # each move is its byte's edge: the bytes that differ from the frame before are the moves, in order
    rows = [row[0] for row in input_rows(replay)]
    edges = [value for frame, value in enumerate(rows) if value != (rows[frame - 1] if frame else NEUTRAL)]
    assert [value for value in edges if value != NEUTRAL] == [encode_move(move) for move in played]
    assert view["frame"] == replay.final_frame


def test_a_repeated_byte_takes_a_neutral_frame_between(engine: ModuleType) -> None:
    """Two drops down one column: the second byte equals the one held, so a neutral frame goes first."""
    call(engine, "start", server_board("easy", 3))
    while engine._state.phase.__class__.__name__ != "Dropping":
        call(engine, "move", {"kind": "skip"})
    frame = call(engine, "view")["frame"]
    call(engine, "move", {"kind": "drop", "column": 2})
    call(engine, "move", {"kind": "drop", "column": 2})
    byte = encode_move(Drop(Column(2)))
    assert engine._match.moves[0][-3:] == [[frame, byte], [frame + 1, NEUTRAL], [frame + 2, byte]]


def test_only_a_server_daily_run_is_recorded(engine: ModuleType) -> None:
    call(engine, "start", {"difficulty": "easy", "seed": 3})
    with pytest.raises(ValueError, match="only a run of the server's daily"):
        call(engine, "replay")
    wrong = server_board("easy", 3)
    wrong["server"]["ruleset_version"] = PAYLOAD.version + 1
    with pytest.raises(ValueError, match="this engine plays payload v1"):
        call(engine, "start", wrong)
