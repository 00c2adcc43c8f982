"""Putting a landing on a board: the one place the attack exchange changes a `KickGame`.

`place_landing` plans the landing (rules/versus/landing.py), asks the board where garbage may go
(free floor cells at least `garbage_min_distance` from the player, not under an enemy or a sliding
block), picks from the seat's garbage stream, and drops the ice, hides the eggs or drops the counter
gems. It sees one board and the stream's state, never the match.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from rules.kick.board import Block
from rules.kick.game import KickGame
from rules.kick.geometry import Cell

from .events import Landing
from .gems import COUNTER_GEM, ICE, Gem, new_gem
from .landing import LandingKind, draw, landing_plan
from .tables import AttackTable


class Placement(NamedTuple):
    """What a landing did: its record, the counter gems it dropped, and the garbage stream after it."""

    record: Landing
    """The Landing record (the cells of its blocks, eggs and gems, in pick order)."""
    gems: tuple[Gem, ...]
    """The counter gems dropped, each starting its countdown."""
    stream: int
    """The state of the seat's garbage stream after the picks."""


def egg_holders(blocks: Iterable[Block]) -> list[Block]:
    """The blocks a nuisance egg may hide in: resting, unbroken ice holding no egg, in row-major order."""
    holders = [
        block
        for block in blocks
        if block.material == ICE and block.egg is None and block.motion is None and block.breaking is None
    ]
    holders.sort(key=lambda block: (block.cy, block.cx))
    return holders


def place_landing(
    game: KickGame, seat: int, units: int, stream: int, frame: int, table: AttackTable
) -> Placement:
    """Land `units` on `game` (seat `seat`'s board) on `frame`, picking from garbage stream state `stream`."""
    plan = landing_plan(units, table)
    cells = game.landing_cells(table.garbage_min_distance)
    if plan.kind is LandingKind.GEMS:
        picked, stream = draw(stream, cells, plan.gems)
        gems = tuple(new_gem(game.drop_block(cell, COUNTER_GEM.id), frame, table) for cell in picked)
        return Placement(Landing(seat, plan.kind, units, (), (), tuple(picked)), gems, stream)
    blocks, stream = draw(stream, cells, plan.blocks)
    for cell in blocks:
        game.drop_block(cell, ICE)
    eggs: list[Cell] = []
    if plan.eggs:
        # After the drops: the new garbage is resting ice too, so an egg may hide in it.
        chosen, stream = draw(stream, egg_holders(game.board.blocks.values()), plan.eggs)
        for block in chosen:
            game.hide_egg(block.id)
            eggs.append(block.cell)
    return Placement(Landing(seat, plan.kind, units, tuple(blocks), tuple(eggs), ()), (), stream)
