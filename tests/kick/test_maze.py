"""The ice maze, egg and diamond cells and the act deal, against the Pengo listing ($2DA1, $2E46, $307C,
$2F84, $2FB2, $2F3A, $323A) and against their own invariants."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.kick.geometry import DIRECTIONS, Cell
from rules.kick.maze import (
    MAZE_STEP_MOST_DRAWS,
    ActDeal,
    IceMaze,
    deal_act,
    generate_ice_maze,
    pengo_start,
    pick_odd_cells,
)
from rules.kick.rng import LONGEST_CYCLE, KickRandom

seeds = st.integers(min_value=0, max_value=0xFFFF)
odd_sides = st.integers(min_value=1, max_value=12).map(lambda half: 2 * half + 1)

PENGO_BESIDE = frozenset({Cell(5, 5), Cell(7, 5), Cell(5, 7), Cell(7, 7)})


# ---------------------------------------------------------------------------------------------
# A literal model of the listing, slow and shaped like the asm, to check the port against.
# ---------------------------------------------------------------------------------------------


class ArcadeHang(Exception):
    """The literal model went round the generator's whole cycle without success: the arcade hangs."""


def literal_maze(
    stream: KickRandom, cols: int, rows: int, arcade_bug: bool
) -> tuple[list[str], list[Cell], int]:
    """$2DA1/$2E46/$307C in the listing's own terms, generalised from 7 × 8 nodes to any odd board.

    Nodes are (x, y) with x from 1 and y from 1 at the *bottom* (ix+0, ix+1). The node table at
    $8C27 has a set bit per unopened node and a clear border all round ($2E3C: rows 0 and 9 are 00,
    bit 7 is clear), so `unopened` reads False off the lattice. Holes are (ix+2, ix+3): cell x and
    cell row counted from the bottom ($311D turns ix+3 into screen row 30 - 2·ix+3).
    """
    node_cols, node_rows = cols // 2 + 1, rows // 2 + 1
    unopened = [
        [0 < x <= node_cols and 0 < y <= node_rows for x in range(node_cols + 2)]
        for y in range(node_rows + 2)
    ]
    unopened[1][1] = False  # $2E3C: row 1 is $3F, the bottom-left node's bit already clear
    holes: list[tuple[int, int]] = [(0, 0)]  # $2DCC-$2DD2

    def is_way_clear(x: int, y: int) -> bool:  # $30CA: Z when the node's bit is clear
        return not unopened[y][x]

    for scan_y in range(1, node_rows + 1):  # $2DD5: b = 8..1 gives ix+1 = 9 - b = 1..8
        for scan_x in range(1, node_cols + 1):  # $2DD8: c = 7..1 gives ix+0 = 8 - c = 1..7
            x, y = scan_x, scan_y  # $2DDA-$2DE4 reload ix+0, ix+1 from the loop counters
            if not is_way_clear(x, y):  # $2DEE: an unopened node starts nothing
                continue
            if all(is_way_clear(*n) for n in ((x, y + 1), (x, y - 1), (x - 1, y), (x + 1, y))):
                continue  # $2DF0-$2E02
            hole_x, hole_y = (x - 1) * 2, (y - 1) * 2  # $2E04-$2E13
            while True:  # $2E46 pushes its own address, so each `ret` comes back here
                for _ in range(LONGEST_CYCLE + 1):
                    code = stream.byte() & 3  # $2E4A
                    step_x, step_y = ((0, 1), (0, -1), (-1, 0), (1, 0))[code]  # $3040 $304F $305E $306D
                    if not is_way_clear(x + step_x, y + step_y):
                        break  # otherwise `ret z` and draw again
                else:
                    raise ArcadeHang(f"$2E46 never finds a way on from node ({x}, {y})")
                x, y = x + step_x, y + step_y  # inc/dec (ix+0) or (ix+1)
                unopened[y][x] = False  # $30AC-$30C8 via $30D2 (res)
                for _ in range(2):  # $30E9-$3110
                    hole_x, hole_y = hole_x + step_x, hole_y + step_y
                    holes.append((hole_x, hole_y))
                fourth = (x, y - 1) if arcade_bug else (x + 1, y)  # $3088 tests down again
                if all(is_way_clear(*n) for n in ((x, y + 1), (x, y - 1), (x - 1, y), fourth)):
                    break  # $308C: pop de / ret leaves $2E46
    carve_order = [Cell(hole_x, rows - 1 - hole_y) for hole_x, hole_y in holes]
    grid = [["#"] * cols for _ in range(rows)]
    for cell in carve_order:
        grid[cell.y][cell.x] = "."
    sealed = sum(row.count(True) for row in unopened)
    return ["".join(row) for row in grid], carve_order, sealed


def literal_cells(
    stream: KickRandom, count: int, cols: int, rows: int, reject: Callable[[Cell], bool]
) -> list[Cell]:
    """$2F84 with the loops of $2FB2/$2F3A, generalised from 6 × 7 odd slots to any odd board."""
    x_slots, y_slots = cols // 2, rows // 2
    x_mask = (1 << (x_slots - 1).bit_length()) - 1
    y_mask = (1 << (y_slots - 1).bit_length()) - 1
    # More draws than this for one cell prove a hang (the phase argument in rules/kick/maze.py).
    budget = (x_slots + 1) * LONGEST_CYCLE
    drawn = 0

    def draw(mask: int) -> int:
        nonlocal drawn
        drawn += 1
        if drawn > budget:
            raise ArcadeHang("the cell loop never finds a free cell")
        return stream.byte() & mask

    picked: list[Cell] = []
    for _ in range(count):
        drawn = 0
        while True:  # $2FD9 / $2F3A: every rejected cell comes back here, to x
            rx = draw(x_mask)  # $2F95: `and 7 / cp 6 / jr nc` redraws x alone
            while rx >= x_slots:
                rx = draw(x_mask)
            ry = draw(y_mask)  # $2F9F: `and 7 / cp 7 / jr nc` redraws y alone
            while ry >= y_slots:
                ry = draw(y_mask)
            cell = Cell(2 * rx + 1, 2 * ry + 1)
            if not reject(cell) and cell not in picked:
                break
        picked.append(cell)
    return picked


def literal_deal(stream: KickRandom, eggs: int, diamonds: int) -> ActDeal:
    """$0985-$0991 on 13 × 15: facings ($323A), maze ($2DA1), eggs ($2FB2), diamonds ($2F3A)."""
    first, second, third, fourth = (DIRECTIONS[stream.byte() & 3] for _ in range(4))
    rows, order, sealed = literal_maze(stream, 13, 15, True)
    egg_cells = literal_cells(stream, eggs, 13, 15, PENGO_BESIDE.__contains__)
    diamond_cells = literal_cells(stream, diamonds, 13, 15, set(egg_cells).__contains__)
    maze = IceMaze(map=tuple(rows), carve_order=tuple(order), sealed=sealed)
    return ActDeal((first, second, third, fourth), maze, tuple(egg_cells), tuple(diamond_cells))


# ---------------------------------------------------------------------------------------------
# Golden mazes
# ---------------------------------------------------------------------------------------------

# How these were checked. The first paths of each were followed by hand through the listing, byte
# by byte, on a printout of the generator's output (test_rng checks the generator against $2D7C).
# Cells are (x, y) with y from the top, as in the map; the listing counts node rows from the bottom.
#
# $365A: bytes F9 5A 58 E8 53 C9 C6 90 6C 72 E1 42 ... The scan starts at the bottom-left node (0,14),
#   already open; the node above it is sealed, so $2E46 runs. F9&3=1 (down) meets the empty row 0 of
#   the node table and 5A&3=2 (left) its clear bit 7: both `ret z`, draw again. 58&3=0 (up) opens
#   (0,13) (0,12); E8 up opens (0,11) (0,10); 53 right (1,10) (2,10); C9 down (2,11) (2,12). C6 left,
#   90 up, 6C up and 72 left point at open nodes; E1 down opens (2,13) (2,14). There $307C finds up,
#   down and left open and tests down again instead of right, so the path ends with the node (4,14)
#   to its right still sealed. The scan's own test ($2DFF) does look right, and the scan's next node
#   is (2,14): 42 A2 75 0A 1E 56 F2 A2 45 E9 09 are refused and 07&3=3 opens (3,14) (4,14). Cell
#   (1,14) stays ice.
# 1: bytes 01 06 1B 6C 95 B4 F7 ... 01 down and 06 left are refused, 1B right opens (1,14) (2,14),
#   6C up (2,13) (2,12), 95 down is refused, B4 up (2,11) (2,10), F7 right (3,10) (4,10).
# 210: bytes D4 F3 3C DA 01 5A 10 ... D4 up opens (0,13) (0,12), F3 right (1,12) (2,12), 3C up
#   (2,11) (2,10), DA left (1,10) (0,10), 01 down and 5A left are refused, 10 up (0,9) (0,8). That
#   first path never comes back to the bottom row. When the scan reaches the second node row, node
#   (2,12) opens (2,13) (2,14), and the bug ends that path with (4,14) sealed to its right; the scan
#   has left the bottom row behind, so (4,14) ... (12,14) and (4,12) stay sealed: sealed = 6.
#
# The whole maps were then compared with a separate literal model of the listing (the one above, with
# the node bit table and the hole formula of $311D), and that model with the port on every seed.
GOLDEN_MAZES: dict[int, tuple[int, tuple[str, ...]]] = {
    0x365A: (
        0,
        (
            ".#...#.....#.",
            ".#.###.###.#.",
            ".#.....#...#.",
            ".#######.###.",
            ".#.......#.#.",
            ".#.#######.#.",
            ".#...#...#.#.",
            ".###.###.#.#.",
            ".#.#.#...#...",
            ".#.#.#.###.#.",
            "...#...#...#.",
            ".#.###.#.###.",
            ".#.#...#...#.",
            ".#.#.#####.#.",
            ".#.........#.",
        ),
    ),
    1: (
        0,
        (
            ".#.#.#.....#.",
            ".#.#.#.###.#.",
            "...#...#.#.#.",
            "##.#.###.#.#.",
            "...#.#...#.#.",
            ".#######.#.#.",
            ".#.....#.#.#.",
            ".#.###.#.#.#.",
            ".#...#.#...#.",
            ".#####.#.###.",
            ".#...#.......",
            ".#.#.#######.",
            "...#.#.......",
            "##.#.#.######",
            "...#.........",
        ),
    ),
    210: (
        6,
        (
            ".....#.....#.",
            ".###.#####.#.",
            "...#...#...#.",
            "##.###.#.###.",
            "...#.#.#.#...",
            "####.#.#.#.#.",
            "...#.#.#...#.",
            ".#.#.#.#.###.",
            ".#.#...#.#...",
            ".###.###.#.##",
            ".......#.#.#.",
            "##.###.#.#.#.",
            "...###...#...",
            ".#.##########",
            ".#.##########",
        ),
    ),
}


@pytest.mark.parametrize("seed", sorted(GOLDEN_MAZES))
def test_golden_mazes(seed: int) -> None:
    """The 13 × 15 maps of three seeds, checked by hand against the listing (see the comment above)."""
    sealed, rows = GOLDEN_MAZES[seed]
    maze = generate_ice_maze(13, 15, seed)
    assert maze.map == rows
    assert maze.sealed == sealed
    assert maze.fallbacks == 0


def test_golden_first_carves_of_the_power_on_seed() -> None:
    """The carve order opens with the cells traced by hand above for $365A."""
    maze = generate_ice_maze(13, 15, 0x365A)
    column_0 = [(0, 14), (0, 13), (0, 12), (0, 11), (0, 10)]
    then_right_and_down = [(1, 10), (2, 10), (2, 11), (2, 12), (2, 13), (2, 14)]
    expected = column_0 + then_right_and_down
    assert maze.carve_order[: len(expected)] == tuple(Cell(x, y) for x, y in expected)
    assert maze.carve_order[len(expected) : len(expected) + 2] == (Cell(3, 14), Cell(4, 14))


def test_golden_deal_of_the_power_on_seed() -> None:
    """deal_act from $365A: facings FD 05 39 2A, then the maze four bytes later, then eggs and diamonds."""
    stream = KickRandom(0x365A)
    deal = deal_act(stream, 13, 15, 6, 3)
    assert deal.facings == ("down", "down", "down", "left")  # FD 05 39 2A & 3
    assert deal.maze.map == GOLDEN_MAZES[0x365A][1]  # this stream happens to give the same map
    assert deal.eggs == (Cell(1, 5), Cell(9, 5), Cell(3, 3), Cell(11, 13), Cell(9, 9), Cell(11, 5))
    assert deal.diamonds == (Cell(9, 1), Cell(3, 13), Cell(5, 5))  # (5, 5): diamonds may sit by Pengo
    assert deal.fallbacks == 0
    assert stream.state == 0xC2EE


# ---------------------------------------------------------------------------------------------
# The port against the literal model
# ---------------------------------------------------------------------------------------------


@settings(deadline=None)  # the literal model can take a whole cycle or more to prove a hang
@given(seeds, odd_sides, odd_sides, st.booleans())
def test_maze_matches_the_literal_model(seed: int, cols: int, rows: int, arcade_bug: bool) -> None:
    """On any odd board the port carves what the listing's loops carve and leaves the stream as they do."""
    model_stream = KickRandom(seed)
    try:
        expected = literal_maze(model_stream, cols, rows, arcade_bug)
    except ArcadeHang:
        assert generate_ice_maze(cols, rows, seed, arcade_bug).fallbacks > 0
        return
    port_stream = KickRandom(seed)
    maze = generate_ice_maze(cols, rows, arcade_bug=arcade_bug, random=port_stream)
    assert (list(maze.map), list(maze.carve_order), maze.sealed) == expected
    assert maze.fallbacks == 0
    assert port_stream.state == model_stream.state


@settings(deadline=None)  # the literal model can take a whole cycle or more to prove a hang
@given(seeds, st.integers(min_value=0, max_value=12), st.integers(min_value=0, max_value=3))
def test_deal_matches_the_literal_model(seed: int, eggs: int, diamonds: int) -> None:
    """deal_act on 13 × 15 draws what $0985-$0991 draw, in the same order."""
    try:
        expected = literal_deal(KickRandom(seed), eggs, diamonds)
    except ArcadeHang:
        assert deal_act(KickRandom(seed), 13, 15, eggs, diamonds).fallbacks > 0
        return
    assert deal_act(KickRandom(seed), 13, 15, eggs, diamonds) == expected


@pytest.mark.parametrize("seed", [0x0040, 0x8000, 0x1240, 0xFFC0, 0x0020, 0x77A0, 0x0010, 0x5A90])
def test_seeds_that_use_the_fallback_really_hang_the_arcade(seed: int) -> None:
    """Seeds from each degenerate class: the literal model proves the arcade hangs, the port does not."""
    with pytest.raises(ArcadeHang):
        literal_deal(KickRandom(seed), 12, 3)
    assert deal_act(KickRandom(seed), 13, 15, 12, 3).fallbacks > 0


# ---------------------------------------------------------------------------------------------
# Maze invariants
# ---------------------------------------------------------------------------------------------


def open_cells(maze: IceMaze) -> set[Cell]:
    return {Cell(x, y) for y, row in enumerate(maze.map) for x, char in enumerate(row) if char == "."}


@given(seeds, odd_sides, odd_sides, st.booleans(), st.booleans())
def test_maze_shape_and_alphabet(seed: int, cols: int, rows: int, arcade_bug: bool, complete: bool) -> None:
    """The map has rows × cols characters, all '#' or '.', and every odd/odd cell is ice."""
    maze = generate_ice_maze(cols, rows, seed, arcade_bug, complete)
    assert len(maze.map) == rows
    assert all(len(row) == cols and set(row) <= {"#", "."} for row in maze.map)
    assert all(maze.map[y][x] == "#" for y in range(1, rows, 2) for x in range(1, cols, 2))


@given(seeds, odd_sides, odd_sides, st.booleans(), st.booleans())
def test_maze_is_connected(seed: int, cols: int, rows: int, arcade_bug: bool, complete: bool) -> None:
    """Every open cell can be reached from the bottom-left node."""
    maze = generate_ice_maze(cols, rows, seed, arcade_bug, complete)
    opened = open_cells(maze)
    start = Cell(0, rows - 1)
    assert start in opened
    reached = {start}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for neighbour in (Cell(x, y - 1), Cell(x, y + 1), Cell(x - 1, y), Cell(x + 1, y)):
            if neighbour in opened and neighbour not in reached:
                reached.add(neighbour)
                queue.append(neighbour)
    assert reached == opened


@given(seeds, odd_sides, odd_sides, st.booleans(), st.booleans())
def test_carve_order_lists_each_open_cell_once(
    seed: int, cols: int, rows: int, arcade_bug: bool, complete: bool
) -> None:
    """carve_order is exactly the open cells, each once, and grows as a tree: two cells per new node."""
    maze = generate_ice_maze(cols, rows, seed, arcade_bug, complete)
    order = maze.carve_order
    assert len(set(order)) == len(order)
    assert set(order) == open_cells(maze)
    assert order[0] == Cell(0, rows - 1)
    nodes = (cols // 2 + 1) * (rows // 2 + 1)
    assert len(order) == 1 + 2 * (nodes - 1 - maze.sealed)
    seen = {order[0]}
    for between, node in zip(order[1::2], order[2::2], strict=True):
        assert node.x % 2 == 0 and node.y % 2 == 0
        origin = Cell(2 * between.x - node.x, 2 * between.y - node.y)
        assert abs(node.x - between.x) + abs(node.y - between.y) == 1
        assert origin in seen  # each step starts from a node already open
        seen.update((between, node))


@given(seeds, odd_sides, odd_sides, st.booleans(), st.booleans())
def test_sealed_counts_the_ice_nodes(
    seed: int, cols: int, rows: int, arcade_bug: bool, complete: bool
) -> None:
    """sealed is the number of lattice nodes (even column, even row) still ice."""
    maze = generate_ice_maze(cols, rows, seed, arcade_bug, complete)
    ice_nodes = sum(maze.map[y][x] == "#" for y in range(0, rows, 2) for x in range(0, cols, 2))
    assert maze.sealed == ice_nodes


@given(seeds, odd_sides, odd_sides, st.booleans())
def test_complete_opens_every_node(seed: int, cols: int, rows: int, arcade_bug: bool) -> None:
    """complete=True keeps scanning until no lattice node is sealed."""
    assert generate_ice_maze(cols, rows, seed, arcade_bug, complete=True).sealed == 0


@given(seeds, odd_sides, odd_sides)
def test_complete_extends_the_single_pass(seed: int, cols: int, rows: int) -> None:
    """complete=True only adds passes: its carve order begins with the one-pass carve order."""
    one_pass = generate_ice_maze(cols, rows, seed)
    full = generate_ice_maze(cols, rows, seed, complete=True)
    assert full.carve_order[: len(one_pass.carve_order)] == one_pass.carve_order


def test_single_pass_can_leave_pockets() -> None:
    """The arcade's single bottom-up pass leaves sealed nodes on some seeds (210 leaves six)."""
    assert generate_ice_maze(13, 15, 210).sealed == 6
    assert generate_ice_maze(13, 15, 210, complete=True).sealed == 0


def test_arcade_bug_changes_the_maze() -> None:
    """Testing right instead of down again changes the maze for most seeds, and seed 210's pocket."""
    differing = [
        s
        for s in range(1, 101)
        if generate_ice_maze(13, 15, s).map != generate_ice_maze(13, 15, s, False).map
    ]
    assert len(differing) > 50
    fixed = generate_ice_maze(13, 15, 210, arcade_bug=False)
    assert fixed.map != GOLDEN_MAZES[210][1]


@settings(deadline=None)  # the literal model can take a whole cycle or more to prove a hang
@given(seeds, odd_sides, odd_sides)
def test_given_random_is_drawn_from_and_advanced(seed: int, cols: int, rows: int) -> None:
    """With random, the maze comes from that stream (seed ignored) and leaves it after its last draw."""
    stream = KickRandom(seed)
    from_stream = generate_ice_maze(cols, rows, seed=12345, random=stream)
    assert from_stream == generate_ice_maze(cols, rows, seed)
    model_stream = KickRandom(seed)
    try:
        literal_maze(model_stream, cols, rows, True)
    except ArcadeHang:
        return
    assert stream.state == model_stream.state


def test_fixed_point_seed_terminates() -> None:
    """0x8000 gives 0x80 for ever (always up): the arcade hangs at the first sideways step, the port not."""
    stream = KickRandom(0x8000)
    maze = generate_ice_maze(13, 15, random=stream)
    assert maze.fallbacks > 0
    assert maze.sealed == 0  # the fallback's first sealed neighbour in order up, down, left, right
    assert stream.state == 0x8000
    assert MAZE_STEP_MOST_DRAWS == LONGEST_CYCLE


@pytest.mark.parametrize(
    ("cols", "rows", "field"),
    [
        (12, 15, "cols"),
        (13, 14, "rows"),
        (1, 15, "cols"),
        (13, 1, "rows"),
        (13.0, 15, "cols"),
        (True, 15, "cols"),
    ],
)
def test_maze_validates_the_board(cols: object, rows: object, field: str) -> None:
    """Board sides must be odd ints of at least 3; the error names the side."""
    with pytest.raises(ValueError, match=field):
        generate_ice_maze(cols, rows)  # type: ignore[arg-type]


def test_maze_validates_the_options() -> None:
    """seed, arcade_bug, complete and random are checked, each error naming its field."""
    with pytest.raises(ValueError, match="seed"):
        generate_ice_maze(13, 15, seed="1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="arcade_bug"):
        generate_ice_maze(13, 15, arcade_bug=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="complete"):
        generate_ice_maze(13, 15, complete=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="random"):
        generate_ice_maze(13, 15, random=7)  # type: ignore[arg-type]


def test_smallest_board() -> None:
    """3 × 3 has 2 × 2 nodes around one odd cell, which stays ice; complete opens all four nodes."""
    for seed in range(1, 50):
        maze = generate_ice_maze(3, 3, seed, complete=True)
        assert maze.map[1][1] == "#" and maze.sealed == 0
        assert len(maze.carve_order) == 7


# ---------------------------------------------------------------------------------------------
# Egg and diamond cells
# ---------------------------------------------------------------------------------------------


def no_cell(_: Cell) -> bool:
    return False


@settings(deadline=None)  # the literal model can take a whole cycle or more to prove a hang
@given(seeds, odd_sides, odd_sides, st.data())
def test_pick_odd_cells_matches_the_literal_model(
    seed: int, cols: int, rows: int, data: st.DataObject
) -> None:
    """Distinct odd/odd cells, none rejected, drawn exactly as $2F84 and its callers draw them."""
    slots = (cols // 2) * (rows // 2)
    banned = data.draw(st.sets(st.integers(min_value=0, max_value=slots - 1), max_size=slots // 2))
    all_cells = [Cell(x, y) for y in range(1, rows, 2) for x in range(1, cols, 2)]
    rejected = {all_cells[slot] for slot in banned}
    count = data.draw(st.integers(min_value=0, max_value=slots - len(rejected)))
    stream = KickRandom(seed)
    cells = pick_odd_cells(stream, count, cols, rows, rejected.__contains__)
    assert len(cells) == count == len(set(cells))
    assert all(cell.x % 2 == 1 and cell.y % 2 == 1 and cell not in rejected for cell in cells)
    model_stream = KickRandom(seed)
    try:
        expected = literal_cells(model_stream, count, cols, rows, rejected.__contains__)
    except ArcadeHang:
        return
    assert cells == expected
    assert stream.state == model_stream.state


def test_out_of_range_y_redraws_y_alone() -> None:
    """$2FA6 jumps back to $2F9F, not to x: an out-of-range y keeps the x already drawn."""
    for seed in range(1, 5000):
        probe = KickRandom(seed)
        first, second, third = probe.byte(), probe.byte(), probe.byte()
        if first & 7 < 6 and second & 7 == 7 and third & 7 < 7:
            break
    else:
        pytest.fail("no seed with the needed bytes")
    (cell,) = pick_odd_cells(KickRandom(seed), 1, 13, 15, no_cell)
    assert cell == Cell(2 * (first & 7) + 1, 2 * (third & 7) + 1)


def next_in_range(stream: KickRandom, slots: int) -> int:
    """The next value of one of $2F84's loops: a byte & 7 redrawn while it is slots or more."""
    value = stream.byte() & 7
    while value >= slots:
        value = stream.byte() & 7
    return value


def test_rejected_cell_redraws_x_and_y() -> None:
    """A rejected cell ($2FE4, $2F40) sends the draw back to x: the next x and y make the cell."""
    for seed in range(1, 200):
        probe = KickRandom(seed)
        first = Cell(2 * next_in_range(probe, 6) + 1, 2 * next_in_range(probe, 7) + 1)
        second = Cell(2 * next_in_range(probe, 6) + 1, 2 * next_in_range(probe, 7) + 1)
        if second != first:
            break
    (picked,) = pick_odd_cells(KickRandom(seed), 1, 13, 15, lambda cell: cell == first)
    assert picked == second


def test_pick_odd_cells_can_fill_the_board() -> None:
    """Asking for every candidate cell terminates and returns each once."""
    for seed in (1, 0x365A, 0x8000, 0x0040):
        cells = pick_odd_cells(KickRandom(seed), 42, 13, 15, no_cell)
        assert sorted(cells) == sorted(Cell(x, y) for y in range(1, 15, 2) for x in range(1, 13, 2))


def test_pick_odd_cells_refuses_too_many_and_draws_nothing() -> None:
    """Asking for more cells than remain raises ValueError and leaves the stream untouched."""
    stream = KickRandom(99)
    with pytest.raises(ValueError, match="count"):
        pick_odd_cells(stream, 39, 13, 15, PENGO_BESIDE.__contains__)
    assert stream.state == 99
    with pytest.raises(ValueError, match="count"):
        pick_odd_cells(stream, -1, 13, 15, no_cell)
    with pytest.raises(ValueError, match="random"):
        pick_odd_cells(99, 1, 13, 15, no_cell)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Pengo's start and the act deal
# ---------------------------------------------------------------------------------------------


def test_pengo_start_on_the_arcade_board() -> None:
    """Pengo starts at (6, 6) on 13 × 15 (pixel ($78, $70), $31C6)."""
    assert pengo_start(13, 15) == Cell(6, 6)


@given(odd_sides, odd_sides)
def test_pengo_start_is_the_even_cell_nearest_the_centre(cols: int, rows: int) -> None:
    """The start is an even cell, at most one cell from the centre, ties going up and left."""
    start = pengo_start(cols, rows)
    assert start.x % 2 == 0 and start.y % 2 == 0
    assert start.x in (cols // 2, cols // 2 - 1) and start.y in (rows // 2, rows // 2 - 1)


def test_deal_draws_facings_before_the_maze() -> None:
    """The first four bytes are the Sno-Bee facings; the maze is drawn from the fifth on ($0985, $0991)."""
    for seed in (1, 2, 0x365A, 0xBEEF):
        probe = KickRandom(seed)
        facings = tuple(DIRECTIONS[probe.byte() & 3] for _ in range(4))
        maze = generate_ice_maze(13, 15, random=probe)
        deal = deal_act(KickRandom(seed), 13, 15, 6, 3)
        assert deal.facings == facings
        assert deal.maze == maze


@given(seeds, st.integers(min_value=0, max_value=20), st.integers(min_value=0, max_value=5))
def test_deal_keeps_eggs_off_pengo_and_diamonds_off_eggs(seed: int, eggs: int, diamonds: int) -> None:
    """Eggs avoid Pengo's four diagonal cells and each other; diamonds avoid the eggs and each other."""
    deal = deal_act(KickRandom(seed), 13, 15, eggs, diamonds)
    assert len(deal.eggs) == eggs and len(deal.diamonds) == diamonds
    assert PENGO_BESIDE.isdisjoint(deal.eggs)
    assert len(set(deal.eggs + deal.diamonds)) == eggs + diamonds


def test_diamonds_may_sit_beside_pengo() -> None:
    """Unlike eggs, diamonds are not kept off Pengo's four cells ($2F3A has no such test)."""
    assert any(
        PENGO_BESIDE.intersection(deal_act(KickRandom(seed), 13, 15, 6, 3).diamonds) for seed in range(1, 100)
    )


def test_deal_validates_and_draws_nothing_on_error() -> None:
    """Too many eggs or diamonds raise ValueError naming the field, before anything is drawn."""
    stream = KickRandom(5)
    with pytest.raises(ValueError, match="eggs"):
        deal_act(stream, 13, 15, 39, 0)
    with pytest.raises(ValueError, match="diamonds"):
        deal_act(stream, 13, 15, 38, 5)
    with pytest.raises(ValueError, match="rows"):
        deal_act(stream, 13, 16, 6, 3)
    assert stream.state == 5


@settings(deadline=None)
@given(seeds, odd_sides, odd_sides, st.booleans())
def test_deal_on_any_board(seed: int, cols: int, rows: int, complete: bool) -> None:
    """Any odd board deals, with eggs and diamonds on odd/odd cells, which are ice in the maze."""
    slots = (cols // 2) * (rows // 2)
    eggs = min(slots - 4, 6) if slots > 4 else 0
    deal = deal_act(KickRandom(seed), cols, rows, eggs, min(3, slots - eggs), complete=complete)
    for cell in deal.eggs + deal.diamonds:
        assert deal.maze.map[cell.y][cell.x] == "#"


# ---------------------------------------------------------------------------------------------
# Every seed
# ---------------------------------------------------------------------------------------------

# From the survey in rules/kick/maze.py: the seeds whose deal needs the fallback on 13 × 15 with 3
# diamonds. Every other seed is dealt exactly as the arcade deals it.
FALLBACK_SEEDS = {6: 1023 + 1024, 12: 1023 + 1024 + 2048}


@pytest.mark.parametrize("eggs", [6, 12])
def test_every_seed_deals(eggs: int) -> None:
    """All 65,536 seeds deal on 13 × 15 without hanging: distinct odd/odd cells, eggs off Pengo's cells,
    and the fallback used only on the degenerate classes the survey found."""
    odd = {Cell(x, y) for y in range(1, 15, 2) for x in range(1, 13, 2)}
    wrong: list[int] = []
    fallback_seeds: list[int] = []
    maze_fallback_seeds: list[int] = []
    for seed in range(0x10000):
        deal = deal_act(KickRandom(seed), 13, 15, eggs, 3)
        cells = deal.eggs + deal.diamonds
        if (
            len(deal.eggs) != eggs
            or len(deal.diamonds) != 3
            or len(set(cells)) != eggs + 3
            or not odd.issuperset(cells)
            or not PENGO_BESIDE.isdisjoint(deal.eggs)
        ):
            wrong.append(seed)
        if deal.fallbacks:
            fallback_seeds.append(seed)
            if deal.maze.fallbacks:
                maze_fallback_seeds.append(seed)
    assert wrong == []
    assert len(fallback_seeds) == FALLBACK_SEEDS[eggs]
    # Seed 0 is seed 1; the maze hangs on the 1,023 other seeds whose low byte is ≡ 0 (mod 64).
    assert maze_fallback_seeds == [seed for seed in range(1, 0x10000) if seed % 64 == 0]
    # Every seed that needs the fallback has a low byte ≡ 0 (mod 16): 4 or more trailing zeros.
    assert all(seed % 16 == 0 for seed in fallback_seeds)
