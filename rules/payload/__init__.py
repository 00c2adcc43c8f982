"""Payload: a roguelike engine-builder. Draft parts onto a board, drop marbles down its columns;
parts change a marble's value and path, and each round's total must reach its quota.

The engine decides what happened, the view decides how to show it: `simulate_drop` returns a drop's
total and its ordered event log; the run reducer (run.py) moves an immutable RunState from phase to
phase. README.md maps the modules, the invariants, the keyed draws, the daily and the input byte
(inputs.py: a move is its byte's edge; a draft spans two frames).
"""

from __future__ import annotations

from .content import BLUEPRINTS, DIFFICULTIES, JAMS, PARTS, SCALER_KEYS, VARIANTS, compendium
from .daily import DailyRecord, Streak, daily_seed, daily_variant, share_text, update_streak
from .preview import column_projection, placement_projection
from .run import (
    IllegalMoveError,
    RunState,
    apply_drop,
    decline_blueprint,
    drops_for_round,
    jam_for,
    place_selected,
    quota_for,
    reroll,
    rules_for,
    select_offer,
    skip_draft,
    start_run,
    take_blueprint,
)
from .simulate import MARBLE_CAP, simulate_drop
from .types import CellIndex, Column, DropEvent, Phase

__all__ = [
    "BLUEPRINTS", "DIFFICULTIES", "JAMS", "MARBLE_CAP", "PARTS", "SCALER_KEYS", "VARIANTS", "CellIndex",
    "Column", "DailyRecord", "DropEvent", "IllegalMoveError", "Phase", "RunState", "Streak", "apply_drop",
    "column_projection", "compendium", "daily_seed", "daily_variant", "decline_blueprint",
    "drops_for_round", "jam_for", "place_selected", "placement_projection", "quota_for", "reroll",
    "rules_for", "select_offer", "share_text", "simulate_drop", "skip_draft", "start_run",
    "take_blueprint", "update_streak",
]
