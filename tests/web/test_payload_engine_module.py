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

from rules.payload.content import compendium
from rules.payload.daily import daily_seed, daily_variant
from rules.payload.plain import run_plain
from rules.payload.preview import column_projection, placement_projection
from rules.payload.run import place_selected, select_offer, start_run
from rules.payload.types import CellIndex

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
