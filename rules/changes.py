"""The per-frame change form of a stream, which any ruleset's seat view produces and protocol/delta.py
applies: one seat's `[changes, moves, whole, gone, notes]`, its empty tail left off.

A move of at most MAX_STEP pixels per axis travels as one small integer,
`(dx + MAX_STEP) * STEP_SPAN + dy + MAX_STEP`; both sides read the bound here, so it cannot drift.
"""

from __future__ import annotations

from typing import Any

#: The largest move, in pixels per axis, a `moves` step carries.
MAX_STEP = 4
STEP_SPAN = 2 * MAX_STEP + 1


def seat_change(
    changes: list[Any], moves: list[int], whole: list[Any], gone: list[int], notes: list[Any]
) -> list[Any]:
    """One seat's change with its empty tail left off (an unchanged seat is `[]`)."""
    if notes:
        return [changes, moves, whole, gone, notes]
    if gone:
        return [changes, moves, whole, gone]
    if whole:
        return [changes, moves, whole]
    if moves:
        return [changes, moves]
    return [changes] if changes else []
