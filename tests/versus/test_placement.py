"""Putting a landing on a live board (rules/versus/placement.py), called directly on a match's boards."""

from __future__ import annotations

from rules.kick.actors import GONE, HATCH_NEXT
from rules.kick.game import KickGame
from rules.kick.geometry import CELL_PX, STEP, Cell
from rules.versus.gems import COUNTER_GEM, Gem
from rules.versus.landing import LandingKind
from rules.versus.placement import egg_holders, place_landing
from rules.versus.tables import VERSUS_RULES_V1 as VERSUS_RULES

from .helpers import playing_match, random_inputs, roaming, until

ATTACK = VERSUS_RULES.attack


def forbidden_cells(game: KickGame) -> set[Cell]:
    """Cells garbage may not take: within 2 cells of the player, under an enemy or a sliding block."""
    player = game.player
    px, py = player.px / CELL_PX, player.py / CELL_PX
    forbidden = {Cell(x, y) for x in range(game.cols) for y in range(game.rows)
                 if max(abs(x - px), abs(y - py)) < ATTACK.garbage_min_distance}
    for e in game.slots:
        if e.state in (GONE, HATCH_NEXT):
            continue
        for x in {e.px // CELL_PX, -(-e.px // CELL_PX)}:
            for y in {e.py // CELL_PX, -(-e.py // CELL_PX)}:
                forbidden.add(Cell(x, y))
    for block in game.board.slides:
        forbidden.add(block.cell)
        assert block.motion is not None
        step = STEP[block.motion.dir]
        forbidden.add(Cell(block.cx + step.x, block.cy + step.y))
    return forbidden


def test_garbage_avoids_the_player_enemies_and_sliding_blocks() -> None:
    """On a board crowded so that only 3 cells are allowed, 3 garbage units land exactly there."""
    match = playing_match(seed=3)
    until(match, lambda m: m.games[1].status == "playing" and roaming(m, 1) >= 2)
    game = match.games[1]
    board = game.board
    # Start a block sliding: a resting ice block with a free cell beyond it, away from the player.
    player = Cell(game.player.px // CELL_PX, game.player.py // CELL_PX)
    slide = None
    for block in sorted(board.blocks.values(), key=lambda b: (b.cy, b.cx)):
        if block.material != "ice" or block.egg is not None or block.breaking is not None:
            continue
        if max(abs(block.cx - player.x), abs(block.cy - player.y)) < 4:
            continue
        for direction, step in STEP.items():
            if board.free(block.cx + step.x, block.cy + step.y) and board.free(block.cx + 2 * step.x,
                                                                                  block.cy + 2 * step.y):
                slide = (block, direction)
                break
        if slide is not None:
            break
    assert slide is not None
    block, direction = slide
    assert board.push(block.cx, block.cy, direction, "player").kind == "slide"
    forbidden = forbidden_cells(game)
    free = [Cell(x, y) for y in range(game.rows) for x in range(game.cols) if board.free(x, y)]
    allowed = [c for c in free if c not in forbidden][:3]
    assert len(allowed) == 3
    for cell in free:
        if cell not in forbidden and cell not in allowed:
            game.drop_block(cell, "ice")
    placed = place_landing(game, 1, 3, match.seat_states[1].garbage, match.frame, ATTACK)
    landing = placed.record
    assert (landing.seat, landing.landing, landing.units, landing.eggs, landing.gems) == (
        1, LandingKind.GARBAGE, 3, (), ())
    assert sorted(landing.blocks) == sorted(allowed)
    assert placed.gems == ()
    assert board.slides, "the block was still sliding when the garbage landed"


def test_garbage_keeps_its_distance_over_many_landings() -> None:
    """Over many landings on a live board no garbage lands within 2 cells of the player or on an enemy."""
    match = playing_match(seed=6)
    streams = [seat.garbage for seat in match.seat_states]
    seen = 0
    for frame, row in enumerate(random_inputs(6, 2, 1500)):
        if match.finished:
            break
        if frame % 20 == 0:
            for seat, game in enumerate(match.games):
                if game.status != "playing":
                    continue  # the match lands nothing on a board out of play
                forbidden = forbidden_cells(game)
                placed = place_landing(game, seat, 3, streams[seat], match.frame, ATTACK)
                streams[seat] = placed.stream
                assert not set(placed.record.blocks) & forbidden, (frame, placed.record)
                seen += len(placed.record.blocks)
        match.step(row)
    assert seen > 100


def test_the_same_stream_lands_the_same_way_on_the_same_board() -> None:
    """Two equal boards given the same stream state get the same cells and the same stream state after."""
    first, second = playing_match(seed=4), playing_match(seed=4)
    stream = first.seat_states[0].garbage
    one = place_landing(first.games[0], 0, 3, stream, first.frame, ATTACK)
    two = place_landing(second.games[0], 0, 3, stream, second.frame, ATTACK)
    assert one == two
    assert one.stream != stream


def test_nuisance_hides_eggs_in_resting_ice() -> None:
    """A 5-unit landing drops 3 ice blocks and hides 2 eggs in resting ice blocks that held none."""
    match = playing_match()
    game = match.games[1]
    eggs_before = game.eggs_left
    placed = place_landing(game, 1, 5, match.seat_states[1].garbage, match.frame, ATTACK)
    landing = placed.record
    assert (landing.landing, len(landing.blocks), len(landing.eggs), landing.gems) == (
        LandingKind.NUISANCE, 3, 2, ())
    for cell in landing.eggs:
        block = game.board.block_at(*cell)
        assert block is not None and block.material == "ice" and block.egg is not None
    assert game.eggs_left == eggs_before + 2


def test_egg_holders_are_resting_ice_without_an_egg_in_row_major_order() -> None:
    """Only resting, unbroken ice holding no egg may hold a nuisance egg, listed row by row."""
    game = playing_match().games[0]
    holders = egg_holders(game.board.blocks.values())
    assert holders and [(b.cy, b.cx) for b in holders] == sorted((b.cy, b.cx) for b in holders)
    for block in game.board.blocks.values():
        eligible = (block.material == "ice" and block.egg is None and block.motion is None
                    and block.breaking is None)
        assert (block in holders) == eligible


def test_counter_gems_land_as_counter_gem_blocks_that_start_counting() -> None:
    """A 7-unit landing drops 4 counter-gem blocks, each showing gem_count and due gem_step_frames later."""
    match = playing_match()
    game = match.games[1]
    placed = place_landing(game, 1, 7, match.seat_states[1].garbage, match.frame, ATTACK)
    landing = placed.record
    assert (landing.landing, landing.units, len(landing.gems), landing.blocks, landing.eggs) == (
        LandingKind.GEMS, 7, 4, (), ())
    assert len(placed.gems) == 4
    for cell, gem in zip(landing.gems, placed.gems, strict=True):
        block = game.board.block_at(*cell)
        assert block is not None and block.material == COUNTER_GEM.id
        assert gem == Gem(block.id, ATTACK.gem_count, match.frame + ATTACK.gem_step_frames)
