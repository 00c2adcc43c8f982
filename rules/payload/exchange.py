"""Payload versus's exchange: a round's surplus is sent as units into the opponent's visible, capped
queue, after cancelling the sender's own queue first; a queue lands when its holder's next round
begins, each unit a jam for that round or a nuisance part on an empty cell.

- Units: every full `margin_percent` of the quota a round's score beats it by is one unit (50 %: a
  quota of 30 beaten with 45 sends 1 unit, with 60 sends 2). Rounds met exactly send nothing.
- Cancel first: the sender's units first take units off its own queue (its surplus defends), then
  the rest go to the opponent's queue, which holds at most `queue_cap` units (the rest are lost).
  Both seats' sends of a frame are settled together, so seat order never matters.
- Landing: unit u of a landing draws (keyed by the receiver's round, slot u and the purpose, from the
  shared deal) whether it is a jam (one of JAMS not already biting) or a nuisance part (NUISANCE_POOL)
  on an empty cell (the landing is skipped on a full board). A nuisance part can be built over with a
  draft's pick: that is the deliberate, costed counter.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .content import JAMS, NUISANCE_POOL
from .events import Received
from .rng import below, draw
from .run import RunState, Step, jam_for
from .types import CELLS, CellIndex, JamKey


@dataclass(frozen=True, slots=True)
class ExchangeRules:
    """The exchange's numbers."""

    margin_percent: int = 50
    queue_cap: int = 4


def surplus_units(score: int, quota: int, rules: ExchangeRules) -> int:
    """The units a round's score sends: one per full margin of the quota it beats the quota by."""
    if score <= quota or quota <= 0:
        return 0
    return (score - quota) * 100 // (quota * rules.margin_percent)


def exchange(units: int, own_queue: int) -> tuple[int, int]:
    """(units cancelled from the sender's own queue, units left to send) for `units` earned."""
    cancelled = min(units, own_queue)
    return cancelled, units - cancelled


def land(state: RunState, units: int) -> Step:
    """Land `units` queued units on a run at the start of its round (see the module docstring)."""
    events: list[Received] = []
    jams: list[JamKey] = list(state.received)
    board = state.board
    for unit in range(units):
        kind = below(draw(state.deal, state.round, unit, "landing"), 2)
        biting = set(jam_for(replace(state, received=tuple(jams))))
        free = [key for key in JAMS if key not in biting]
        if kind == 0 and free:
            jam = free[below(draw(state.deal, state.round, unit, "landing-jam"), len(free))]
            jams.append(jam)
            events.append(Received(jam, None, None))
            continue
        empty = [cell for cell in range(CELLS) if board[cell] is None]
        if not empty:
            continue
        cell = empty[below(draw(state.deal, state.round, unit, "landing-cell"), len(empty))]
        part = NUISANCE_POOL[below(draw(state.deal, state.round, unit, "landing-part"), len(NUISANCE_POOL))]
        board = board[:cell] + (part,) + board[cell + 1:]
        events.append(Received(None, part, CellIndex(cell)))
    return replace(state, board=board, received=tuple(jams)), tuple(events)
