"""Putting a landing on a board: the one place the attack exchange changes a `KickGame` (with the
hurry a landing brings, `KickGame.hurry`), always through the game's own methods.

`place_landing` plans the landing (rules/versus/landing.py), asks the board where garbage may go
(free floor cells at least `garbage_min_distance` from the player, not under an enemy or a sliding
block; with a `garbage_max_distance`, the ring around the player first and the rest of the board
only when the ring is full), picks from the seat's garbage stream, and drops the ice, hides or
hatches the eggs, or drops the counter gems. It sees one board and the stream's state, never the match.

Nuisance eggs (`AttackTable.nuisance_eggs`):
- "hidden" (version 1): each hides in a resting ice block anywhere on the board and hatches in the
  board's order when a slot frees; broken before that, it pays the receiver as any egg does.
- "hatching" (version 2): each hides in one of the landing's own blocks (beside Pengo), goes first in
  the hatch order and has a slot waiting for it (an idle one, else one of `extra_slots` opened for
  the round), so it hatches on the next pass and is never the receiver's to break. An egg no slot
  could take is not laid (the block stays plain ice).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from rules.kick.board import Block
from rules.kick.game import KickGame
from rules.kick.geometry import CELL_PX, Cell

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


def near_and_far(game: KickGame, cells: list[Cell], max_distance: int) -> tuple[list[Cell], list[Cell]]:
    """The landing cells within `max_distance` cells (Chebyshev) of the player, and the others, each in
    the given order (max_distance 0: every cell is near)."""
    if not max_distance:
        return cells, []
    player = game.player
    px, py = player.px / CELL_PX, player.py / CELL_PX
    near: list[Cell] = []
    far: list[Cell] = []
    for cell in cells:
        (near if max(abs(cell.x - px), abs(cell.y - py)) <= max_distance else far).append(cell)
    return near, far


def draw_cells(game: KickGame, count: int, stream: int, table: AttackTable) -> tuple[list[Cell], int]:
    """`count` landing cells picked by the garbage stream: from the ring near the player first, then
    (when the ring has too few) from the rest of the board."""
    near, far = near_and_far(game, game.landing_cells(table.garbage_min_distance), table.garbage_max_distance)
    picked, stream = draw(stream, near, count)
    if len(picked) < count and far:
        more, stream = draw(stream, far, count - len(picked))
        picked += more
    return picked, stream


def place_landing(
    game: KickGame, seat: int, units: int, stream: int, frame: int, table: AttackTable, max_slots: int = 0
) -> Placement:
    """Land `units` on `game` (seat `seat`'s board) on `frame`, picking from garbage stream state `stream`;
    `max_slots`: the Sno-Bee slots the board may have at most (its round's own plus `extra_slots`)."""
    plan = landing_plan(units, table)
    if plan.kind is LandingKind.GEMS:
        picked, stream = draw_cells(game, plan.gems, stream, table)
        gems = tuple(new_gem(game.drop_block(cell, COUNTER_GEM.id), frame, table) for cell in picked)
        return Placement(Landing(seat, plan.kind, units, (), (), tuple(picked)), gems, stream)
    blocks, stream = draw_cells(game, plan.blocks, stream, table)
    dropped = [game.drop_block(cell, ICE) for cell in blocks]
    eggs: list[Cell] = []
    if plan.eggs and table.nuisance_eggs == "hatching":
        board_blocks = game.board.blocks
        chosen, stream = draw(stream, [board_blocks[block_id] for block_id in dropped], plan.eggs)
        for block in chosen:
            if game.hatch_egg_at_once(block.id, len(eggs), max_slots):
                eggs.append(block.cell)
    elif plan.eggs:
        # After the drops: the new garbage is resting ice too, so an egg may hide in it.
        chosen, stream = draw(stream, egg_holders(game.board.blocks.values()), plan.eggs)
        for block in chosen:
            game.hide_egg(block.id)
            eggs.append(block.cell)
    return Placement(Landing(seat, plan.kind, units, tuple(blocks), tuple(eggs), ()), (), stream)
