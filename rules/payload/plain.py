"""A RunState as plain data and back (the match's snapshot, a replay's end state), strictly."""

from __future__ import annotations

from typing import Any, assert_never, cast

from .content import BLUEPRINTS, DIFFICULTIES, JAMS, PARTS, VARIANTS
from .run import RunState
from .types import CELLS, BlueprintKey, Blueprints, Draft, Dropping, JamKey, PartKey, Phase, RunOver


def phase_plain(phase: Phase) -> dict[str, Any]:
    """A phase as plain data."""
    match phase:
        case Draft(offers, selected, rerolls):
            return {"phase": "draft", "offers": list(offers), "selected": selected, "rerolls": rerolls}
        case Blueprints(choices):
            return {"phase": "blueprints", "choices": list(choices)}
        case Dropping(drops_left):
            return {"phase": "dropping", "drops_left": drops_left}
        case RunOver(won):
            return {"phase": "over", "won": won}
        case _:
            assert_never(phase)


def phase_from_plain(data: dict[str, Any]) -> Phase:
    """A phase from phase_plain."""
    kind = data["phase"]
    if kind == "draft":
        return Draft(tuple(_part(p) for p in data["offers"]), data["selected"], data["rerolls"])
    if kind == "blueprints":
        return Blueprints(tuple(_blueprint(b) for b in data["choices"]))
    if kind == "dropping":
        return Dropping(data["drops_left"])
    if kind == "over":
        return RunOver(bool(data["won"]))
    raise ValueError(f"phase: unknown phase {kind!r}")


def _part(value: object) -> PartKey:
    if value not in PARTS:
        raise ValueError(f"part: unknown part {value!r}")
    return cast(PartKey, value)


def _blueprint(value: object) -> BlueprintKey:
    if value not in BLUEPRINTS:
        raise ValueError(f"blueprint: unknown blueprint {value!r}")
    return cast(BlueprintKey, value)


def _jam(value: object) -> JamKey:
    if value not in JAMS:
        raise ValueError(f"jam: unknown jam {value!r}")
    return cast(JamKey, value)


def run_plain(state: RunState) -> dict[str, Any]:
    """A run as plain data."""
    return {
        "difficulty": state.difficulty,
        "variant": state.variant,
        "seed": state.seed,
        "deal": state.deal,
        "round": state.round,
        "board": list(state.board),
        "phase": phase_plain(state.phase),
        "round_score": state.round_score,
        "total_score": state.total_score,
        "rounds_cleared": state.rounds_cleared,
        "blueprints": list(state.blueprints),
        "received": list(state.received),
    }


def run_from_plain(data: dict[str, Any]) -> RunState:
    """A run from run_plain (ValueError for an unknown key or a board of the wrong size)."""
    if data["difficulty"] not in DIFFICULTIES or data["variant"] not in VARIANTS:
        raise ValueError(f"run: unknown difficulty or variant {data['difficulty']!r}/{data['variant']!r}")
    board = tuple(None if cell is None else _part(cell) for cell in data["board"])
    if len(board) != CELLS:
        raise ValueError(f"run.board: expected {CELLS} cells, got {len(board)}")
    return RunState(
        difficulty=data["difficulty"],
        variant=data["variant"],
        seed=data["seed"],
        deal=data["deal"],
        round=data["round"],
        board=board,
        phase=phase_from_plain(data["phase"]),
        round_score=data["round_score"],
        total_score=data["total_score"],
        rounds_cleared=data["rounds_cleared"],
        blueprints=tuple(_blueprint(b) for b in data["blueprints"]),
        received=tuple(_jam(j) for j in data["received"]),
    )
