"""The competent bot: greedy on exact previews.

- Draft: every (offer, cell) pair is tried on a copy of the board (replacing what is there) and
  scored by what the board's best column would pay this round; the best pair is placed (ties broken
  by the bot's seeded generator), or the draft is skipped when nothing beats the board as it is. With
  Loose Screws it rerolls a draft that offers no gain.
- Blueprint: the choice whose folded-in rules pay most over the round's drops.
- Drop: the best column (the preview is the drop; ties broken by the generator).

Bot runs underplay Prism catchers and Spring loops (one part at a time, no plan), so read their
results as the pessimistic bound.
"""

from __future__ import annotations

from dataclasses import replace

from ..moves import Drop, Move, Place, Reroll, SelectOffer, Skip, TakeBlueprint
from ..preview import project, with_part
from ..rng import Mulberry32
from ..run import LOOSE_SCREWS_REROLLS, RunState, drops_for_round, rules_for
from ..types import CELLS, Blueprints, CellIndex, Column, Draft, Dropping


def _value(state: RunState) -> int:
    """What the run's board pays over this round's drops (best column every time)."""
    return project(state.board, rules_for(state)).top * drops_for_round(state)


#: A placement whose gain is within this share (percent) of the best gain counts as a tie: the bot's
#: generator picks among them, so two competent bots on one deal build different machines.
NEAR_BEST_PERCENT = 90


def best_placements(state: RunState) -> tuple[int, list[tuple[int, CellIndex]]]:
    """The most a draft's (offer, cell) adds to the board's best column this round, and every pair that
    adds at least NEAR_BEST_PERCENT of it (none when nothing beats the board as it is), best first."""
    phase = state.phase
    assert isinstance(phase, Draft)
    rules = rules_for(state)
    base = project(state.board, rules).top
    gains: list[tuple[int, int, CellIndex]] = []
    for index, part in enumerate(phase.offers):
        for cell in range(CELLS):
            if state.board[cell] == part:
                continue
            gain = project(with_part(state.board, part, CellIndex(cell)), rules).top - base
            if gain > 0:
                gains.append((gain, index, CellIndex(cell)))
    if not gains:
        return 0, []
    best = max(gain for gain, _, _ in gains)
    near = sorted((g for g in gains if g[0] * 100 >= best * NEAR_BEST_PERCENT), key=lambda g: -g[0])
    return best, [(index, cell) for _, index, cell in near]


def competent_move(state: RunState, rng: Mulberry32) -> Move:
    """The competent bot's next move (the run must not be over); `rng` breaks ties (the bot's seed)."""
    phase = state.phase
    if isinstance(phase, Draft):
        _, best = best_placements(state)
        if not best:
            if "loose_screws" in state.blueprints and phase.rerolls < LOOSE_SCREWS_REROLLS:
                return Reroll()
            return Skip()
        # Once an offer is picked, place it (among its own near-best cells); otherwise pick one.
        mine = [pair for pair in best if pair[0] == phase.selected]
        if mine:
            return Place(mine[rng.below(len(mine))][1])
        return SelectOffer(best[rng.below(len(best))][0])
    if isinstance(phase, Blueprints):
        values = [
            _value(replace(state, blueprints=(*state.blueprints, key))) for key in phase.choices
        ]
        top = max(values)
        tied = [i for i, value in enumerate(values) if value == top]
        return TakeBlueprint(tied[rng.below(len(tied))])
    if isinstance(phase, Dropping):
        totals = project(state.board, rules_for(state)).totals
        tied = [col for col, total in enumerate(totals) if total == max(totals)]
        return Drop(Column(tied[rng.below(len(tied))]))
    raise ValueError("competent_move: the run is over")

