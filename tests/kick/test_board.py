"""KickBoard against the seed's text: every method does what its entry says, plus property tests.

Boards are drawn as text: `I` ice, `E` ice hiding a Sno-Bee egg, `D` diamond (group 'diamond', never
breaks), `#` steel (never moves), `T` thick ice (cracks, then breaks), `C` crate (one cell per kick,
never crushes), `U` puck (slides, never breaks, never crushes), `*` a diamond goal, `.` floor.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.kick import (
    DIRECTIONS,
    STEP,
    Cell,
    ConfigError,
    Direction,
    KickBlockSpec,
    KickBlockState,
    KickBoard,
    KickBoardConfig,
    KickMaterial,
    KickPushResult,
)
from rules.kick.board import Block
from rules.kick.config import KickGoal
from rules.kick.events import BreakStart, Broken, Crack, KickBoardEvent, SlideStart, SlideStep, SlideStop
from rules.synctest import state_checksum

ICE = KickMaterial("ice", break_score=30)
DIAMOND = KickMaterial("diamond", breaks_when_blocked=False, enemy_breakable=False, group="diamond",
                       holds_eggs=False)
STEEL = KickMaterial("steel", slides=False, breaks_when_blocked=False, enemy_breakable=False,
                     holds_eggs=False)
THICK = KickMaterial("thick", hits=2, enemy_breakable=False)
CRATE = KickMaterial("crate", max_slide=1, breaks_when_blocked=False, enemy_breakable=False, crushes=False,
                     holds_eggs=False)
PUCK = KickMaterial("puck", breaks_when_blocked=False, crushes=False)
MATERIALS = (ICE, DIAMOND, STEEL, THICK, CRATE, PUCK)
GLYPHS = {"I": "ice", "E": "ice", "D": "diamond", "#": "steel", "T": "thick", "C": "crate", "U": "puck"}
GLYPH_OF = {"ice": "I", "diamond": "D", "steel": "#", "thick": "T", "crate": "C", "puck": "U"}
BY_ID = {m.id: m for m in MATERIALS}

#: Pengo's slide: one pixel per three main-loop passes, 16 pixels a cell, 780 passes a second.
PENGO_SLIDE = 16.25
PASS = 1 / 780


def make_board(rows: Sequence[str], **config: Any) -> KickBoard:
    """A board drawn as text (see the module docstring)."""
    specs = tuple(KickBlockSpec(x, y, GLYPHS[ch], "sno-bee" if ch == "E" else None)
                  for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in GLYPHS)
    goals = tuple(KickGoal(x, y, "diamond")
                  for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "*")
    return KickBoard(KickBoardConfig(cols=len(rows[0]), rows=len(rows), materials=MATERIALS, blocks=specs,
                                     goals=goals, **config))


def live_block(board: KickBoard, block_id: int) -> Block:
    """The live block `block_id` (one the test has put on the board)."""
    block = board.block(block_id)
    assert block is not None, block_id
    return block


def picture(board: KickBoard) -> list[str]:
    """Resting blocks as text from `state` (lower case while shattering); sliding blocks are not drawn."""
    grid = [["."] * board.cols for _ in range(board.rows)]
    for block in board.state:
        if block.motion is None:
            glyph = GLYPH_OF[block.material]
            grid[block.cell.y][block.cell.x] = glyph.lower() if block.breaking else glyph
    return ["".join(row) for row in grid]


def settle(board: KickBoard, obstacle: Callable[[int, int, Any], bool] | None = None) -> list[KickBoardEvent]:
    """Tick in 50 ms steps until nothing slides or shatters; returns the events."""
    events: list[KickBoardEvent] = []
    for _ in range(1000):
        events += board.tick(0.05, obstacle)
        if not board.moving and not board.shattering:
            return events
    raise AssertionError("the board never settled")


def only(board: KickBoard) -> KickBlockState:
    """The single block on a board."""
    (block,) = board.state
    return block


# ---- construction and configuration ---------------------------------------------------------------


def test_construction_defaults_and_initial_blocks() -> None:
    """A board keeps its size, Pengo's default slide speed and break time, and places the config's blocks."""
    board = make_board(["I.D", "..#"])
    assert (board.cols, board.rows) == (3, 2)
    assert board.slide_speed == 16.25 and board.break_seconds == 0.35
    assert picture(board) == ["I.D", "..#"]
    assert [b.id for b in board.state] == [1, 2, 3]
    assert not board.moving and not board.shattering and board.slides == ()
    assert KickBoard(KickBoardConfig(cols=1, rows=1, materials=MATERIALS)).inside(0, 0)
    assert KickBoard(KickBoardConfig(cols=1000, rows=1000, materials=MATERIALS)).inside(999, 999)


@pytest.mark.parametrize(("field", "changes"), [
    ("cols", {"cols": 0}), ("cols", {"cols": 1001}), ("cols", {"cols": 2.5}), ("cols", {"cols": True}),
    ("rows", {"rows": 0}), ("rows", {"rows": 1001}), ("rows", {"rows": -3}),
    ("slide_speed", {"slide_speed": 0.05}), ("slide_speed", {"slide_speed": 1000.5}),
    ("slide_speed", {"slide_speed": math.nan}), ("slide_speed", {"slide_speed": 0}),
    ("break_seconds", {"break_seconds": -0.01}), ("break_seconds", {"break_seconds": 30.5}),
    ("materials", {"materials": (ICE, ICE)}),
    ("goals", {"goals": (KickGoal(3, 0, "diamond"),)}),
])
def test_config_validation_names_the_field(field: str, changes: dict[str, Any]) -> None:
    """Bad sizes, speeds and break times, duplicate materials and off-board goals raise ValueError."""
    config: dict[str, Any] = {"cols": 3, "rows": 3, "materials": MATERIALS, **changes}
    with pytest.raises(ValueError, match=f"^{field}") as caught:
        KickBoard(KickBoardConfig(**config))
    assert isinstance(caught.value, ConfigError)


@pytest.mark.parametrize("speed", ["fast", True])
def test_config_validation_refuses_non_numbers(speed: object) -> None:
    """A slide speed that is not a number raises ValueError naming slide_speed."""
    with pytest.raises(ValueError, match="^slide_speed"):
        KickBoard(KickBoardConfig(cols=3, rows=3, materials=MATERIALS, slide_speed=speed))  # type: ignore[arg-type]


def test_material_and_material_ids() -> None:
    """material() returns the configured kind with its defaults resolved; unknown ids raise KeyError."""
    board = make_board(["..."])
    assert board.material_ids == ["ice", "diamond", "steel", "thick", "crate", "puck"]
    ice = board.material("ice")
    assert ice is ICE and ice.slides and ice.breaks_when_blocked and ice.hits == 1 and ice.crushes
    assert ice.chewable and ice.egg_holder  # enemy_breakable and holds_eggs default to breaks_when_blocked
    assert not board.material("diamond").chewable and not board.material("diamond").egg_holder
    assert board.material("thick").egg_holder and not board.material("thick").chewable
    with pytest.raises(KeyError, match="granite"):
        board.material("granite")


def test_inside() -> None:
    """inside is true exactly for 0 ≤ x < cols and 0 ≤ y < rows."""
    board = make_board(["....", "....", "...."])
    assert all(board.inside(x, y) for x in range(4) for y in range(3))
    assert not any(board.inside(x, y) for x, y in [(-1, 0), (0, -1), (4, 0), (0, 3), (4, 3), (-1, -1)])


# ---- adding, removing and reading blocks ------------------------------------------------------------


def test_add_places_a_block_and_refuses_taken_or_bad_cells() -> None:
    """add returns the next id and places the block; a taken or off-board cell or a bad spec raises."""
    board = make_board(["I...", "...."])
    new = board.add(KickBlockSpec(2, 1, "diamond"))
    assert new == 2 and board.block_at(2, 1) is board.block(new)
    assert picture(board) == ["I...", "..D."]
    assert board.add(KickBlockSpec(3, 0, "ice", "sno-bee")) == 3 and live_block(board, 3).egg == "sno-bee"
    with pytest.raises(ValueError, match="taken"):
        board.add(KickBlockSpec(0, 0, "ice"))
    with pytest.raises(ValueError, match="off the board"):
        board.add(KickBlockSpec(4, 0, "ice"))
    with pytest.raises(ValueError, match="material"):
        board.add(KickBlockSpec(1, 1, "granite"))
    with pytest.raises(ValueError, match="egg"):
        board.add(KickBlockSpec(1, 1, "diamond", "sno-bee"))
    assert len(board.state) == 3


def test_add_refuses_cells_under_a_slide_or_a_break() -> None:
    """A cell a block is sliding over, or a shattering block's cell, is taken."""
    board = make_board(["I.....", "....I."])
    board.push(0, 0, "right", "player")
    board.tick(8 * PASS)  # a few pixels into cell 1
    with pytest.raises(ValueError, match="taken"):
        board.add(KickBlockSpec(1, 0, "ice"))
    board.push(4, 1, "down", "player")  # against the border: it shatters
    with pytest.raises(ValueError, match="taken"):
        board.add(KickBlockSpec(4, 1, "ice"))


def test_remove_takes_a_block_away_at_once_without_events() -> None:
    """remove deletes a resting, sliding or shattering block at once, with no event; unknown ids raise."""
    board = make_board(["I....", "I...I", "....."])
    board.push(0, 0, "right", "player")
    board.push(4, 1, "right", "player")
    board.tick(0.0)  # flush the push events
    board.tick(10 * PASS)
    board.remove(1)
    board.remove(3)
    board.remove(2)
    assert board.state == [] and not board.moving and not board.shattering
    assert settle(board) == []
    assert all(board.free(x, y) for x in range(5) for y in range(3))
    with pytest.raises(KeyError):
        board.remove(1)


def test_state_is_a_copy_in_cells_and_seconds() -> None:
    """state copies every block; motion and breaking are plain dicts in cells and seconds."""
    board = make_board(["I..I"])
    before = board.state
    assert before == [KickBlockState(1, "ice", Cell(0, 0), 0.0, 0.0, None, 0, None, None),
                      KickBlockState(2, "ice", Cell(3, 0), 3.0, 0.0, None, 0, None, None)]
    board.push(0, 0, "right", "player")
    board.push(3, 0, "right", "enemy-1")  # against the border: shatters
    board.tick(60 * PASS)
    sliding, breaking = board.state
    assert before[0].x == 0.0 and before[0].motion is None  # the earlier copy did not move
    assert sliding.motion == {"dir": "right", "by": "player", "travelled": 1, "from": Cell(0, 0)}
    assert sliding.cell == Cell(1, 0) and sliding.x == pytest.approx(1 + 4 / 16) and sliding.y == 0.0
    assert breaking.breaking is not None and breaking.breaking["by"] == "enemy-1"
    assert breaking.breaking["total"] == pytest.approx(0.35, abs=PASS)
    assert breaking.breaking["remaining"] == pytest.approx(0.35 - 60 / 780, abs=PASS)


def test_block_states_are_kept_and_rebuilt_only_where_the_board_changed() -> None:
    """block_states() is the same tuple while nothing changes; every kind of change shows in the next
    one exactly as a board restored from a snapshot (which keeps no state) shows it."""
    board = make_board(["I.IE.", "..T..", "D...I"])

    def from_scratch() -> tuple[KickBlockState, ...]:
        twin = make_board(["....."] * 3)
        twin.restore(board.snapshot())
        return tuple(twin.state)

    first = board.block_states()
    assert board.block_states() is first and list(first) == board.state
    changes: list[Callable[[], object]] = [
        lambda: board.push(2, 1, "up", "player"),  # thick ice cracks
        lambda: board.set_egg(1, "sno-bee"),
        lambda: board.clear_egg(1),
        lambda: board.set_material(5, "ice"),
        lambda: board.add(KickBlockSpec(4, 1, "ice")),
        lambda: board.push(0, 0, "right", "player"),  # a slide, then its stop
        lambda: board.tick(0.2),
        lambda: board.tick(1.0),
        lambda: board.break_block(4, 2, "enemy-1"),
        lambda: board.tick(0.1),
        lambda: board.tick(1.0),
        lambda: board.remove(4),
    ]
    for change in changes:
        change()
        assert board.block_states() == from_scratch()
    assert board.block_states() is board.block_states()


def test_block_is_the_live_record() -> None:
    """block(id) is the live record (it moves as the board ticks); an unknown id gives None."""
    board = make_board(["I...."])
    live = board.block(1)
    assert live is not None and live.id == 1 and live.material == "ice" and live.cell == Cell(0, 0)
    board.push(0, 0, "right", "player")
    board.tick(100 * PASS)
    assert live.cell == Cell(2, 0) and live.x > 2 and live.motion is not None
    assert board.block(99) is None


def test_block_at_sliding_and_free_during_a_slide() -> None:
    """While a block slides it rests nowhere; sliding() finds it over its cell and the cell it enters."""
    board = make_board(["I.....D"])
    assert board.block_at(0, 0) is board.block(1) and board.block_at(1, 0) is None
    assert board.block_at(-1, 0) is None and board.block_at(7, 0) is None
    board.push(0, 0, "right", "player")
    board.tick(60 * PASS)  # 20 pixels: past the centre of cell 1, entering cell 2
    block = board.block(1)
    assert block is not None and block.cell == Cell(1, 0)
    assert all(board.block_at(x, 0) is None for x in range(6))
    assert board.sliding(1, 0) is block and board.sliding(2, 0) is block
    assert board.sliding(0, 0) is None and board.sliding(3, 0) is None
    assert not board.free(1, 0) and not board.free(2, 0) and board.free(0, 0) and board.free(3, 0)
    assert not board.free(6, 0) and not board.free(-1, 0) and not board.free(0, 1)
    assert board.slides == (block,) and board.moving and not board.shattering
    settle(board)
    assert board.block_at(5, 0) is block and board.sliding(5, 0) is None and not board.free(5, 0)
    assert not board.slides and not board.moving


def test_shattering_block_stays_at_rest_and_blocks_its_cell() -> None:
    """A shattering block is found by block_at and keeps its cell not free until it is gone."""
    board = make_board(["ID"])
    board.push(0, 0, "right", "player")
    assert board.shattering and not board.moving
    block = board.block_at(0, 0)
    assert block is not None and block.breaking is not None and not board.free(0, 0)
    settle(board)
    assert board.block_at(0, 0) is None and board.free(0, 0) and not board.shattering


def test_goals_and_goals_complete() -> None:
    """A goal is covered only by a resting, unbroken block of its group; complete needs every goal."""
    assert make_board(["D.."]).goals() == [] and not make_board(["D.."]).goals_complete
    board = make_board(["D.*.*", "....."])
    board.add(KickBlockSpec(4, 0, "ice"))
    assert board.goals() == [{"x": 2, "y": 0, "group": "diamond", "covered": False},
                             {"x": 4, "y": 0, "group": "diamond", "covered": False}]  # ice is not a diamond
    board.push(0, 0, "right", "player")
    board.tick(100 * PASS)
    assert live_block(board, 1).cell == Cell(2, 0)
    assert not board.goals()[0]["covered"]  # sliding over it does not cover it
    settle(board)
    assert picture(board) == ["...DI", "....."] and not board.goals_complete
    board.remove(2)
    board.push(3, 0, "right", "player")
    settle(board)
    assert [g["covered"] for g in board.goals()] == [False, True] and not board.goals_complete
    board.add(KickBlockSpec(2, 0, "diamond"))
    assert board.goals_complete
    board.break_block(2, 0, "wall", "any")
    assert [g["covered"] for g in board.goals()] == [False, True] and not board.goals_complete


# ---- push ------------------------------------------------------------------------------------------------


def test_push_slide_starts_a_slide_and_stops_in_front_of_the_first_obstacle() -> None:
    """A free cell beyond starts a slide that ends on the last free cell before the first obstacle."""
    board = make_board(["I...D.", "......", "....I."])
    assert board.push(0, 0, "right", "player") == KickPushResult("slide", 1)
    settle(board)
    assert picture(board) == ["...ID.", "......", "....I."]
    assert board.push(4, 2, "up", "player") == KickPushResult("slide", 3)
    settle(board)
    assert picture(board) == ["...ID.", "....I.", "......"]
    assert board.push(4, 1, "left", "player").kind == "slide"
    settle(board)
    assert picture(board) == ["...ID.", "I.....", "......"]  # to the border


@pytest.mark.parametrize(("rows", "x", "y", "direction", "expected", "after"), [
    (["ID"], 0, 0, "right", KickPushResult("break", 1, 1), ["iD"]),
    (["..I"], 2, 0, "right", KickPushResult("break", 1, 1), ["..i"]),
    (["DI"], 0, 0, "right", KickPushResult("blocked", 1), ["DI"]),
    (["D.."], 0, 0, "left", KickPushResult("blocked", 1), ["D.."]),
    (["#.."], 0, 0, "right", KickPushResult("blocked", 1), ["#.."]),
    (["CI."], 0, 0, "right", KickPushResult("blocked", 1), ["CI."]),
    (["UD"], 0, 0, "right", KickPushResult("blocked", 1), ["UD"]),
    (["I.."], 1, 0, "right", KickPushResult("empty"), ["I.."]),
    (["I.."], 3, 0, "right", KickPushResult("border"), ["I.."]),
    (["I.."], -1, 0, "left", KickPushResult("border"), ["I.."]),
    (["I.."], 0, 1, "down", KickPushResult("border"), ["I.."]),
])
def test_push_results(rows: list[str], x: int, y: int, direction: Direction, expected: KickPushResult,
                      after: list[str]) -> None:
    """push returns break, blocked, empty or border as the seed says, and changes the board to match."""
    board = make_board(rows)
    assert board.push(x, y, direction, "player") == expected
    assert picture(board) == after


def test_thick_ice_cracks_then_breaks() -> None:
    """A material with hits=2 cracks on the first blocked kick and breaks on the second."""
    board = make_board(["TD"])
    assert board.push(0, 0, "right", "player") == KickPushResult("crack", 1, 1)
    assert board.tick(0.0) == [Crack(1, Cell(0, 0), 1)]
    assert only_block(board, 0, 0).damage == 1 and not board.shattering
    assert board.push(0, 0, "right", "player") == KickPushResult("break", 1, 2)
    assert board.tick(0.0) == [BreakStart(1, Cell(0, 0), "player", None, "thick")]
    assert board.shattering


def only_block(board: KickBoard, x: int, y: int) -> KickBlockState:
    """The state of the block resting at (x, y)."""
    found = [b for b in board.state if b.cell == Cell(x, y) and b.motion is None]
    assert len(found) == 1
    return found[0]


def test_push_busy_while_shattering_and_empty_under_a_slide() -> None:
    """Kicking a shattering block is busy; kicking the cell of a sliding block finds it empty."""
    board = make_board(["ID", "I."])
    board.push(0, 0, "right", "player")
    assert board.push(0, 0, "down", "player") == KickPushResult("busy", 1)
    board.push(0, 1, "right", "player")
    board.tick(10 * PASS)
    assert board.push(0, 1, "right", "player") == KickPushResult("empty")
    assert board.push(1, 1, "left", "player") == KickPushResult("empty")


def test_push_refuses_an_unknown_direction() -> None:
    """An unknown direction raises ValueError and changes nothing."""
    board = make_board(["I."])
    with pytest.raises(ValueError, match="direction"):
        board.push(0, 0, "north", "player")  # type: ignore[arg-type]
    assert picture(board) == ["I."] and board.tick(0.0) == []


def test_crate_moves_one_cell_per_kick() -> None:
    """A max_slide=1 material moves exactly one cell per kick even with room beyond, and never crushes."""
    board = make_board(["C....D"])
    for expected in ([".C...D"], ["..C..D"], ["...C.D"], ["....CD"]):
        assert board.push(expected[0].index("C") - 1, 0, "right", "player").kind == "slide"
        events = settle(board)
        assert picture(board) == expected
        assert events[-1] == SlideStop(1, Cell(expected[0].index("C"), 0), "right", "player", 1, None)
    assert board.push(4, 0, "right", "player") == KickPushResult("blocked", 1)


def test_non_crushing_material_stops_short_of_an_obstacle_callback() -> None:
    """A block that does not crush stops before a cell the obstacle callback blocks; a crushing one won't."""
    asked: list[tuple[int, int, int]] = []

    def actor_at_4(x: int, y: int, block: Any) -> bool:
        asked.append((x, y, block.id))
        return (x, y) == (4, 0)

    board = make_board(["U......", "I......"])
    board.push(0, 0, "right", "player")
    settle(board, actor_at_4)
    assert picture(board)[0] == "...U..."
    assert asked and all(block_id == 1 for _, _, block_id in asked)
    asked.clear()
    board.push(0, 1, "right", "player")
    settle(board, lambda x, y, block: (x, y) == (4, 1))
    assert picture(board)[1] == "......I"  # ice crushes: the session, not the board, handles the actor


def test_break_block_by_rule() -> None:
    """break_block with rule 'enemy' needs a chewable material; 'any' shatters any resting block."""
    board = make_board(["IDT#", "...."])
    assert board.break_block(1, 0, "sno-bee-1", "enemy") is False
    assert board.break_block(2, 0, "sno-bee-1", "enemy") is False  # thick ice: enemy_breakable=False
    assert board.break_block(0, 0, "sno-bee-1", "enemy") is True
    assert board.break_block(0, 0, "sno-bee-1", "enemy") is False  # already shattering
    assert board.break_block(1, 0, "wall") is True and board.break_block(3, 0, "wall", "any") is True
    assert board.break_block(0, 1, "wall") is False and board.break_block(9, 9, "wall") is False
    starts = board.tick(0.0)
    assert all(isinstance(e, BreakStart) for e in starts)
    assert [(e.block, e.by) for e in starts if isinstance(e, BreakStart)] == [(1, "sno-bee-1"), (2, "wall"),
                                                                              (4, "wall")]
    with pytest.raises(ValueError, match="rule"):
        board.break_block(2, 0, "x", "some")  # type: ignore[arg-type]
    settle(board)
    assert picture(board) == ["..T.", "...."]


def test_break_block_ignores_sliding_blocks() -> None:
    """A sliding block is at rest nowhere, so break_block finds nothing to break."""
    board = make_board(["I...."])
    board.push(0, 0, "right", "player")
    board.tick(10 * PASS)
    assert not board.break_block(0, 0, "wall") and not board.break_block(1, 0, "wall")


def test_hatch_shatters_an_egg_block_from_inside() -> None:
    """hatch shatters a resting block with an egg (events by 'hatch' carry the egg); otherwise False."""
    board = make_board(["EI.", "E.."])
    assert board.hatch(2) is False and board.hatch(99) is False
    assert board.hatch(1) is True and board.hatch(1) is False
    assert board.tick(0.0) == [BreakStart(1, Cell(0, 0), "hatch", "sno-bee", "ice")]
    events = settle(board)
    assert events == [Broken(1, Cell(0, 0), "hatch", "sno-bee", "ice")]
    board.push(0, 1, "right", "player")
    board.tick(10 * PASS)
    assert board.hatch(3) is False  # sliding


def test_set_egg_and_clear_egg() -> None:
    """set_egg puts an egg in a block that may hold one; clear_egg removes it; others raise."""
    board = make_board(["IDT", "I.."])
    board.set_egg(1, "walrus")
    board.set_egg(3, "sno-bee")
    assert [b.egg for b in board.state] == ["walrus", None, "sno-bee", None]
    board.clear_egg(1)
    assert live_block(board, 1).egg is None
    with pytest.raises(ValueError, match="egg"):
        board.set_egg(2, "sno-bee")
    board.push(0, 1, "right", "player")
    board.tick(10 * PASS)
    with pytest.raises(ValueError, match="egg"):
        board.set_egg(4, "sno-bee")
    with pytest.raises(KeyError):
        board.set_egg(99, "sno-bee")
    with pytest.raises(KeyError):
        board.clear_egg(99)


# ---- time -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("speed", [PENGO_SLIDE, 6.5, 30.0])
def test_slide_covers_k_cells_in_k_over_speed_seconds(speed: float) -> None:
    """A slide at s cells per second is k cells along after k/s seconds and stops about d/s after the kick."""
    board = make_board(["I.......D"], slide_speed=speed)
    board.push(0, 0, "right", "player")
    block = board.block(1)
    assert block is not None
    elapsed = 0.0
    for k in range(1, 7):
        board.tick(k / speed - elapsed)
        elapsed = k / speed
        assert block.x == pytest.approx(k, abs=1 / 16) and block.motion is not None
    board.tick(7 / speed - elapsed - 0.01)
    assert board.moving
    board.tick(0.01 + 1 / (16 * speed) + 0.005)  # it settles on the pixel pass after reaching the centre
    assert not board.moving and picture(board) == [".......ID"]


def test_slide_steps_are_timed_per_cell() -> None:
    """At 16.25 cells per second the k-th slide-step comes about k/16.25 s after the kick."""
    board = make_board(["I.....D"])
    board.push(0, 0, "right", "player")
    times: list[float] = []
    for tick in range(1, 400):
        for event in board.tick(PASS):
            if isinstance(event, SlideStep):
                times.append(tick * PASS)
        if not board.moving:
            break
    assert len(times) == 5
    assert all(abs(t - k / PENGO_SLIDE) <= 4 * PASS for k, t in enumerate(times, start=1)), times


@pytest.mark.parametrize("seconds", [0.35, 0.5, 0.0])
def test_break_lasts_break_seconds(seconds: float) -> None:
    """A shattering block keeps its cell for break_seconds, then is broken and its cell is free."""
    board = make_board(["ID"], break_seconds=seconds)
    board.push(0, 0, "right", "player")
    board.tick(0.0)
    if seconds:
        assert board.tick(seconds - 0.01) == [] and board.block_at(0, 0) is not None
    events = board.tick(0.02)
    assert events == [Broken(1, Cell(0, 0), "player", None, "ice")]
    assert board.block_at(0, 0) is None and board.free(0, 0) and not board.shattering


def test_tick_accumulates_fractions_and_refuses_bad_durations() -> None:
    """Many small ticks add up to the same time as one long tick; dt outside 0–10 s raises."""
    one, many = make_board(["I......D"]), make_board(["I......D"])
    one.push(0, 0, "right", "player")
    many.push(0, 0, "right", "player")
    one.tick(0.3)
    for _ in range(300):
        many.tick(0.001)
    assert one.snapshot()["blocks"] == many.snapshot()["blocks"]
    for bad in (-0.001, 10.001, math.nan):
        with pytest.raises(ValueError, match="dt"):
            one.tick(bad)


def test_halt_stops_a_slide_at_its_cell() -> None:
    """halt stops a sliding block at its cell (back at it between cells) with a slide-stop; else no effect."""
    board = make_board(["I......", "I......"])
    board.push(0, 0, "right", "player")
    board.push(0, 1, "right", "player")
    board.tick(99 * PASS)  # both have just passed the centre of cell 2 (x = 2 + 1/16)
    board.tick(0.0)
    board.halt(1)
    board.tick(20 * PASS)  # block 2 is between cells 2 and 3
    board.halt(2)
    assert picture(board) == ["..I....", "..I...."] and not board.moving
    stops = [e for e in board.tick(0.0) if isinstance(e, SlideStop)]
    assert [(e.block, e.at, e.travelled) for e in stops] == [(2, Cell(2, 1), 2)]
    board.halt(1)
    board.halt(99)
    assert picture(board) == ["..I....", "..I...."] and board.tick(0.0) == []


def test_halt_at_a_cell_centre_stops_there() -> None:
    """A block halted exactly on a cell centre rests on that cell."""
    board = make_board(["I......"])
    board.push(0, 0, "right", "player")
    board.tick(96 * PASS)  # 32 pixels: exactly on the centre of cell 2
    assert live_block(board, 1).x == 2.0
    board.halt(1)
    assert picture(board) == ["..I...."]


def test_line_finds_runs_horizontal_first() -> None:
    """line finds the first run of a group (rows before columns, top-left first) and if it is along a wall."""
    assert make_board(["D..", "D..", "D.."]).line("diamond", 3) == (
        (Cell(0, 0), Cell(0, 1), Cell(0, 2)), True)
    board = make_board(["....", ".D..", ".DDD", ".D.."])
    assert board.line("diamond", 3) == ((Cell(1, 2), Cell(2, 2), Cell(3, 2)), False)
    assert board.line("diamond", 4) is None and board.line("ice", 1) is None
    assert make_board(["....", "DDD.", "...."]).line("diamond", 3) == (
        (Cell(0, 1), Cell(1, 1), Cell(2, 1)), False)
    assert make_board(["....", "....", ".DDD"]).line("diamond", 3) == (
        (Cell(1, 2), Cell(2, 2), Cell(3, 2)), True)
    found = make_board(["...D", "...D", "...D", "...."]).line("diamond", 3)
    assert found is not None and found[1] is True
    assert make_board([".D..", ".D..", ".D.."]).line("diamond", 3) == (
        (Cell(1, 0), Cell(1, 1), Cell(1, 2)), False)


def test_line_ignores_shattering_and_sliding_blocks() -> None:
    """Only resting, unbroken blocks of the group make a line."""
    board = make_board(["DDD.", "...."])
    board.break_block(1, 0, "wall")
    assert board.line("diamond", 3) is None
    board = make_board(["DD..D"])
    board.push(4, 0, "left", "player")
    board.tick(20 * PASS)
    assert board.line("diamond", 3) is None
    settle(board)
    assert board.line("diamond", 3) == ((Cell(0, 0), Cell(1, 0), Cell(2, 0)), True)


# ---- events ---------------------------------------------------------------------------------------------


def test_slide_events_carry_their_fields() -> None:
    """A slide emits slide-start, one slide-step per cell entered, and slide-stop with travel and group."""
    board = make_board(["..D..I"])
    board.push(2, 0, "left", "enemy-3")
    assert settle(board) == [
        SlideStart(1, Cell(2, 0), "left", "enemy-3"),
        SlideStep(1, Cell(1, 0), "left"),
        SlideStep(1, Cell(0, 0), "left"),
        SlideStop(1, Cell(0, 0), "left", "enemy-3", 2, "diamond"),
    ]
    board.push(5, 0, "left", "player")
    assert settle(board)[-1] == SlideStop(2, Cell(1, 0), "left", "player", 4, None)


def test_break_events_carry_their_fields() -> None:
    """A break emits break-start and broken with the kicker, the egg and the material."""
    board = make_board(["EI"])
    board.push(0, 0, "right", "player")
    assert settle(board) == [BreakStart(1, Cell(0, 0), "player", "sno-bee", "ice"),
                             Broken(1, Cell(0, 0), "player", "sno-bee", "ice")]


def test_tick_returns_each_event_once() -> None:
    """Events are returned by the tick after they happen and never again."""
    board = make_board(["I.D"])
    board.push(0, 0, "right", "player")
    first = board.tick(0.0)
    assert first == [SlideStart(1, Cell(0, 0), "right", "player")]
    assert board.tick(0.0) == []
    rest = settle(board)
    assert rest == [SlideStep(1, Cell(1, 0), "right"), SlideStop(1, Cell(1, 0), "right", "player", 1, None)]


# ---- snapshots -----------------------------------------------------------------------------------------


def snapshot_continues_identically(board: KickBoard, fresh: KickBoard, dts: Sequence[float]) -> None:
    """Restore board's snapshot (through msgpack) into fresh and require identical ticks afterwards."""
    snap = board.snapshot()
    state_checksum(snap)  # plain data, or TypeError
    fresh.restore(msgpack.unpackb(msgpack.packb(snap), strict_map_key=False))
    assert fresh.state == board.state and picture(fresh) == picture(board)
    for dt in dts:
        assert fresh.tick(dt) == board.tick(dt)
        assert fresh.state == board.state
        assert state_checksum(fresh.snapshot()) == state_checksum(board.snapshot())


def test_snapshot_restore_mid_slide_and_mid_break() -> None:
    """A snapshot taken mid-slide and mid-break restores into a fresh board that continues identically."""
    rows = ["I......D", "T.....I.", "E......."]
    board = make_board(rows)
    assert board.push(0, 1, "up", "player").kind == "crack"  # thick ice against the ice above
    assert board.push(0, 1, "up", "player").kind == "break"
    assert board.push(0, 0, "right", "player").kind == "slide"
    assert board.push(6, 1, "right", "player").kind == "slide"  # one cell, to the border
    assert board.hatch(5)
    board.tick(0.0)
    board.tick(37 * PASS + 0.0001)  # mid-pixel, with a fractional pass owed
    assert board.moving and board.shattering
    snapshot_continues_identically(board, make_board(rows), [0.013, 0.2, 0.001, 0.5, 1.0])


def test_restore_replaces_everything() -> None:
    """restore on a board that has played on puts back blocks, ids and time, and drops pending events."""
    board = make_board(["I..D", "...."])
    snap = board.snapshot()
    board.push(0, 0, "right", "player")
    board.add(KickBlockSpec(0, 1, "ice"))
    settle(board)
    board.push(3, 0, "down", "player")
    board.restore(snap)
    assert picture(board) == ["I..D", "...."] and board.tick(0.0) == []
    assert board.add(KickBlockSpec(1, 1, "ice")) == 3


# ---- engine bugs found here ----------------------------------------------------------------------------


def test_concurrent_slides_never_delete_blocks() -> None:
    """Three blocks kicked at once keep all five blocks on the board, each resting in its own cell."""
    board = make_board([
        "...D...",  # 1: kicked down column 3
        ".......",
        ".D..D..",  # 2: kicked right, stops at (3,2) before 3
        "..D..D.",  # 5: kicked left, stops at (3,3) before 4
        ".......",
    ])
    assert [board.push(3, 0, "down", "p").kind, board.push(1, 2, "right", "p").kind,
            board.push(5, 3, "left", "p").kind] == ["slide"] * 3
    events = settle(board)
    assert not [e for e in events if isinstance(e, Broken)]
    assert len(board.state) == 5
    cells = {block.cell for block in board.state}
    assert len(cells) == 5 and all(board.block_at(x, y) is not None for x, y in cells)


def test_halt_never_deletes_another_block() -> None:
    """Halting one of two slides leaves both blocks on the board."""
    board = make_board([
        "...U.",  # 1: the puck slides down column 3
        ".D..D",  # 2: slides right and reserves (3,1) before 3 at (4,1)
        ".....",
    ])
    board.push(1, 1, "right", "p")
    board.push(3, 0, "down", "p")
    board.tick(60 * PASS)  # the puck is past the centre of (3,1); the diamond has reserved (3,1)
    board.halt(1)
    events = settle(board)
    assert not [e for e in events if isinstance(e, Broken)]
    assert len(board.state) == 3 and all(board.block_at(b.cell.x, b.cell.y) is not None for b in board.state)


def test_push_into_a_sliding_block_does_not_slide() -> None:
    """Kicking a block toward a cell a sliding block is over is a blocked kick (ice: break), not a slide."""
    board = make_board(["I.....", "...I.."])
    board.push(0, 0, "right", "player")
    board.tick(120 * PASS)  # block 1 is between (2,0) and (3,0)
    assert not board.free(3, 0)
    assert board.push(3, 1, "up", "player").kind == "break"


# ---- properties ------------------------------------------------------------------------------------------

CELL_GLYPHS = st.sampled_from("......IIDD#TCUE")


@st.composite
def boards(draw: st.DrawFn) -> list[str]:
    """A random board of 1–8 × 1–8 cells."""
    cols, rows = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    return ["".join(draw(st.lists(CELL_GLYPHS, min_size=cols, max_size=cols))) for _ in range(rows)]


Op = tuple[Any, ...]


def ops(cols: int, rows: int) -> st.SearchStrategy[list[Op]]:
    """Kicks (including off-board cells), ticks of 0–0.2 s and enemy/any breaks."""
    xs, ys = st.integers(-1, cols), st.integers(-1, rows)
    return st.lists(st.one_of(
        st.tuples(st.just("push"), xs, ys, st.sampled_from(DIRECTIONS)),
        st.tuples(st.just("tick"), st.floats(0, 0.2)),
        st.tuples(st.just("break"), xs, ys, st.sampled_from(("enemy", "any"))),
    ), max_size=40)


def apply(board: KickBoard, op: Op, max_slides: int = 4) -> list[Any]:
    """Apply one op; returns what it gave (push result or events). Kicks wait while max_slides slide."""
    if op[0] == "push":
        if len(board.slides) >= max_slides:
            return ["skipped"]
        return [board.push(op[1], op[2], op[3], "player")]
    if op[0] == "tick":
        return board.tick(op[1])
    return [board.break_block(op[1], op[2], "enemy-1", op[3])]


def check_invariants(board: KickBoard, alive: set[int], broken: set[int], started: set[int]) -> None:
    """Resting blocks never overlap, nothing leaves the board, blocks vanish only by shattering."""
    resting: dict[Cell, int] = {}
    for block in board.state:
        assert board.inside(block.cell.x, block.cell.y)
        assert -1e-9 <= block.x <= board.cols - 1 and -1e-9 <= block.y <= board.rows - 1
        if block.motion is None:
            assert block.cell not in resting, f"{resting[block.cell]} and {block.id} share {block.cell}"
            resting[block.cell] = block.id
            assert (block.x, block.y) == (block.cell.x, block.cell.y)
            found = board.block_at(block.cell.x, block.cell.y)
            assert found is not None and found.id == block.id
    ids = {block.id for block in board.state}
    assert alive - ids <= broken, f"blocks {sorted(alive - ids - broken)} vanished without a broken event"
    assert broken <= started, "a broken event without a break-start"
    alive.clear()
    alive.update(ids)


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(data=st.data(), rows=boards())
def test_property_invariants_under_random_kicks_and_ticks(data: st.DataObject, rows: list[str]) -> None:
    """Random kicks (up to four slides at once), breaks and ticks keep every board invariant."""
    board = make_board(rows)
    alive = {block.id for block in board.state}
    broken: set[int] = set()
    started: set[int] = set()
    for op in data.draw(ops(board.cols, board.rows)) + [("tick", 10.0)]:
        for item in apply(board, op):
            if isinstance(item, BreakStart):
                started.add(item.block)
            elif isinstance(item, Broken):
                broken.add(item.block)
        started.update(e.block for e in board.drain() if isinstance(e, BreakStart))
        check_invariants(board, alive, broken, started)
    assert not board.moving and not board.shattering


def expected_push(rows: list[str], damage: dict[Cell, int], x: int, y: int, direction: Direction
                  ) -> tuple[str, Cell | None]:
    """An independent model of one kick on an idle board: the result kind and where the block ends."""
    cols, height = len(rows[0]), len(rows)

    def free(cx: int, cy: int) -> bool:
        return 0 <= cx < cols and 0 <= cy < height and rows[cy][cx] == "."

    if not (0 <= x < cols and 0 <= y < height):
        return "border", None
    if rows[y][x] == ".":
        return "empty", None
    material = BY_ID[GLYPHS[rows[y][x]]]
    step = STEP[direction]
    if material.slides and free(x + step.x, y + step.y):
        cx, cy, travelled = x, y, 0
        limit = material.max_slide
        while free(cx + step.x, cy + step.y) and (limit is None or travelled < limit):
            cx, cy, travelled = cx + step.x, cy + step.y, travelled + 1
        return "slide", Cell(cx, cy)
    if material.breaks_when_blocked:
        hits = damage.get(Cell(x, y), 0) + 1
        return ("break", None) if hits >= material.hits else ("crack", Cell(x, y))
    return "blocked", Cell(x, y)


@PROPERTY
@given(data=st.data(), rows=boards())
def test_property_slide_stops_in_front_of_the_first_obstacle(data: st.DataObject, rows: list[str]) -> None:
    """On an idle board every kick does what an independent model predicts, to the cell it stops in."""
    board = make_board(rows)
    kicks = data.draw(st.lists(st.tuples(st.integers(-1, board.cols), st.integers(-1, board.rows),
                                         st.sampled_from(DIRECTIONS)), max_size=25))
    for x, y, direction in kicks:
        now = picture(board)
        damage = {b.cell: b.damage for b in board.state}
        kind, end = expected_push(now, damage, x, y, direction)
        target = board.block_at(x, y) if board.inside(x, y) else None
        result = board.push(x, y, direction, "player")
        assert result.kind == kind, (now, x, y, direction)
        settle(board)
        if target is None:
            assert picture(board) == now
        elif end is None:
            assert board.block(target.id) is None and board.free(x, y)
        else:
            moved = board.block(target.id)
            assert moved is not None and moved.cell == end and moved.motion is None, (now, x, y, direction)


@PROPERTY
@given(data=st.data(), rows=boards())
def test_property_snapshot_restore_is_equivalent(data: st.DataObject, rows: list[str]) -> None:
    """Restoring a snapshot taken at a random point into a fresh board replays the rest identically."""
    board = make_board(rows)
    sequence = data.draw(ops(board.cols, board.rows))
    cut = data.draw(st.integers(0, len(sequence)))
    for op in sequence[:cut]:
        apply(board, op)
    board.drain()  # events that already happened are not state: a snapshot holds none
    snap = msgpack.unpackb(msgpack.packb(board.snapshot()), strict_map_key=False)
    fresh = make_board(rows)
    fresh.restore(snap)
    assert fresh.state == board.state
    for op in [*sequence[cut:], ("tick", 10.0)]:
        assert apply(fresh, op) == apply(board, op)
        assert fresh.drain() == board.drain()
        assert fresh.state == board.state
    assert state_checksum(fresh.snapshot()) == state_checksum(board.snapshot())
