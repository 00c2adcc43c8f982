"""The browser engine's Payload side: one solo run of `rules/payload`, held in the worker and moved by
the page (clients/web/src/games/payload/), values crossing as JSON text.

The page owns no rules: every number it shows — the offers, the quota, the drops left, the column and
placement previews, the drop's event log, the share text, the compendium — comes from here, computed by
`rules/payload` itself (the same code the server and the bots run). The run is the reducer's
`RunState`; each move is a `rules/payload/moves.py` move, so a run in the browser is the same list of
moves CPython would play (tests/web/test_payload_view.py replays it and compares the total).

    start('{"difficulty": "easy", "seed": 7}')            → the view
    start('{"difficulty": "hard", "daily": "2026-12-03"}') → the day's seed and variant
    move('{"kind": "select", "index": 0}')                 → {view, events}
    preview('{"cell": 12}')                                → each column's total with the pick on cell 12
    shown_preview('{"run": {…}, "cell": 12}')              → a streamed run's previews (Payload versus)
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, cast

from rules.payload.content import BLUEPRINTS, DIFFICULTIES, JAMS, VARIANTS, compendium
from rules.payload.daily import DailyRecord, Streak, daily_seed, daily_variant, share_text, update_streak
from rules.payload.events import event_plain
from rules.payload.moves import Drop, Move, Place, Reroll, SelectOffer, Skip, TakeBlueprint, apply_move
from rules.payload.plain import run_from_plain, run_plain
from rules.payload.preview import column_projection, placement_projection
from rules.payload.run import (
    LOOSE_SCREWS_REROLLS,
    RunState,
    drops_for_round,
    jam_specs,
    quota_for,
    rounds_in,
    start_run,
)
from rules.payload.types import COLS, ROWS, CellIndex, Column, DifficultyKey, Draft, VariantKey

_state: RunState | None = None
_daily: str | None = None
_log: list[dict[str, Any]] = []
_moves: list[dict[str, Any]] = []


def content() -> str:
    """The compendium's tables as the rules hold them: PARTS (compendium()), BLUEPRINTS, JAMS, VARIANTS,
    and each difficulty's rounds (quota, drops, jam)."""
    return json.dumps({
        "cols": COLS,
        "rows": ROWS,
        "parts": compendium(),
        "blueprints": [{"key": s.key, "name": s.name, "rule": s.rule} for s in BLUEPRINTS.values()],
        "jams": [{"key": s.key, "name": s.name, "rule": s.rule} for s in JAMS.values()],
        "variants": [{"key": s.key, "name": s.name, "rule": s.rule} for s in VARIANTS.values()],
        "difficulties": [
            {"key": d.key, "name": d.name,
             "rounds": [{"quota": r.quota, "drops": r.drops, "jam": None if r.jam is None else r.jam.key}
                        for r in d.rounds]}
            for d in DIFFICULTIES.values()
        ],
    })


def _need() -> RunState:
    if _state is None:
        raise ValueError("no Payload run: start one first")
    return _state


def _view() -> dict[str, Any]:
    state = _need()
    plain = run_plain(state)
    phase = state.phase
    return {
        **plain,
        "daily": _daily,
        "rounds": rounds_in(state),
        "quota": quota_for(state),
        "drops": drops_for_round(state),
        "jams": [{"key": s.key, "name": s.name, "rule": s.rule} for s in jam_specs(state)],
        "can_reroll": isinstance(phase, Draft) and "loose_screws" in state.blueprints
        and phase.rerolls < LOOSE_SCREWS_REROLLS,
        "columns": None if state.over else list(column_projection(state).totals),
        "moves": len(_moves),
    }


def start(text: str) -> str:
    """Start a run: `{"difficulty", "seed", "variant"}`, or `{"difficulty", "daily": "YYYY-MM-DD"}` for the
    day's seed and variant (rules/payload/daily.py). The view, as JSON."""
    global _state, _daily
    options = json.loads(text)
    difficulty = cast(DifficultyKey, options.get("difficulty", "easy"))
    date_key = options.get("daily")
    if date_key is not None:
        seed, variant = daily_seed(date_key), daily_variant(date_key)
    else:
        seed, variant = int(options.get("seed", 0)), cast(VariantKey, options.get("variant", "standard"))
    state, events = start_run(difficulty, seed, variant)
    _state, _daily = state, date_key
    _log.clear()
    _moves.clear()
    _log.extend(event_plain(event) for event in events)
    return json.dumps(_view())


def _move(data: dict[str, Any]) -> Move:
    kind = data.get("kind")
    if kind == "select":
        return SelectOffer(int(data["index"]))
    if kind == "place":
        return Place(CellIndex(int(data["cell"])))
    if kind == "skip":
        return Skip()
    if kind == "reroll":
        return Reroll()
    if kind == "blueprint":
        return TakeBlueprint(int(data["index"]))
    if kind == "drop":
        return Drop(Column(int(data["column"])))
    raise ValueError(f"move: unknown kind {kind!r}")


def move(text: str) -> str:
    """Play one move (`{"kind": "select"|"place"|"skip"|"reroll"|"blueprint"|"drop", …}`); the new view and
    the run events it made (a drop's carries its event log), as JSON. A move the phase does not allow
    raises (IllegalMoveError) and changes nothing."""
    global _state
    data = json.loads(text)
    state, events = apply_move(_need(), _move(data))
    _state = state
    _moves.append(data)
    plain = [event_plain(event) for event in events]
    _log.extend(plain)
    return json.dumps({"view": _view(), "events": plain})


def view() -> str:
    """The run as the page shows it, as JSON."""
    return json.dumps(_view())


def preview(text: str) -> str:
    """Each column's total this round: with the selected offer on `cell` when one is given (the placement
    preview), else the board as it is (the column preview). Exact: the preview is the drop."""
    state = _need()
    cell = json.loads(text).get("cell")
    if cell is None:
        return json.dumps(list(column_projection(state).totals))
    phase = state.phase
    if not isinstance(phase, Draft) or phase.selected is None:
        raise ValueError("preview: no offer is selected")
    part = phase.offers[phase.selected]
    return json.dumps(list(placement_projection(state, part, CellIndex(int(cell))).totals))


def log_hash() -> str:
    """SHA-256 of the run's events so far (what a daily record pins)."""
    return hashlib.sha256(json.dumps(_log, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def share(text: str) -> str:
    """The run over: its daily record and the share text (rules/payload/daily.py), the streak updated from
    `{"streak": {"current", "best", "last_date"}}` (the page keeps it). A practice run is shared under the
    date key it is given. JSON {record, streak, text, moves}."""
    state = _need()
    options = json.loads(text)
    date_key = _daily or options["date"]
    record = DailyRecord(date_key, state.difficulty, state.variant, state.won, state.rounds_cleared,
                         state.total_score, log_hash())
    held = options.get("streak") or {}
    streak = Streak(int(held.get("current", 0)), int(held.get("best", 0)), held.get("last_date"))
    streak = update_streak(streak, record) if state.over and _daily is not None else streak
    return json.dumps({
        "record": {"date_key": record.date_key, "difficulty": record.difficulty, "variant": record.variant,
                   "won": record.won, "rounds_cleared": record.rounds_cleared, "score": record.score,
                   "log_hash": record.log_hash},
        "streak": {"current": streak.current, "best": streak.best, "last_date": streak.last_date},
        "text": share_text(record, streak),
        "moves": _moves,
    })


def shown_preview(text: str) -> str:
    """The previews of a run as a match's stream shows it (Payload versus's own board:
    clients/web/src/games/payload/versus.ts): `{"run": <run_plain without seed and deal>, "cell": n}`.
    A preview never reads the deal (a drop is the board under this round's rules: preview.py), so the
    run is rebuilt with a zero seed and deal. `{"columns": each column's total now (null once over),
    "placement": each column's total with the selected offer on `cell` (null without a cell or a pick)}`."""
    data = json.loads(text)
    state = run_from_plain({**data["run"], "seed": 0, "deal": 0})
    columns = None if state.over else list(column_projection(state).totals)
    placement = None
    cell = data.get("cell")
    phase = state.phase
    if cell is not None and isinstance(phase, Draft) and phase.selected is not None:
        part = phase.offers[phase.selected]
        placement = list(placement_projection(state, part, CellIndex(int(cell))).totals)
    return json.dumps({"columns": columns, "placement": placement})
