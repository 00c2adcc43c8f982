"""Pengo's ice maze and act deal: routines $2DA1, $2E46, $307C, $2F84, $2FB2 and $2F3A, generalised.

The maze ($2DA1)
    The board starts full of ice. Lattice nodes sit at even columns and even rows (7 × 8 on Pengo's
    13 × 15 board). The bottom-left node is opened first ($2DCC). One pass scans the node rows from
    the bottom up, each row left to right ($2DD5-$2E1E). At an opened node with an unopened
    neighbour node two cells away (up, down, left or right, $2DEB-$2E02) a path starts ($2E46):
    `byte & 3` picks a direction (0 up, 1 down, 2 left, 3 right), redrawn while it does not point
    at an unopened node ($3040-$306D); the two cells to that node are opened and the path goes on
    from it while up, down or left still has an unopened node ($307C). The arcade tests "down" a
    second time where it means "right" ($3088), so a path whose only way on is to the right ends
    there; `arcade_bug=False` tests right instead. The scan's own test ($2DFF) does look right,
    so the pass restarts such a path when it reaches that node, if it has not gone past it; nodes
    it has gone past stay sealed. `complete=True` repeats the pass until no node is sealed.

The act deal ($0985 → $323A, $0991 → $2DA1 → $2E2D, $2E35)
    Four bytes for the Sno-Bee facings come before the maze, then the maze, the eggs and the
    diamonds, all from one stream.

Seeds on which the arcade hangs, and the fallback
    The generator only ever triples the low byte of its state, so the number of trailing zero
    bits of that low byte never changes (rules/kick/rng.py); the arcade's own seed, $365A, has one
    and lies on a cycle of 8,192 states. Seeds with four or more trailing zeros lie on cycles of
    1,024 states or fewer, and on some of those a redraw loop never sees the value it waits for.
    A survey of all 65,536 seeds, running the listing's loops literally with a budget of a whole
    cycle and more (tests/kick/test_maze.py keeps that model), found on 13 × 15 with 3 diamonds:

    =====================  ===========================================  ============  ============
    low byte of the seed   where the arcade hangs                       6 eggs        12 eggs
    =====================  ===========================================  ============  ============
    ≡ 0 (mod 64)           the maze loop $2E46                          1,023 seeds   1,023 seeds
    ≡ 32 (mod 64)          an egg ($2FD9) or diamond ($2F49, $2F62)     1,024 seeds   1,024 seeds
                           loop, from the 6th egg on
    ≡ 16 (mod 32)          the 11th or 12th egg or a diamond loop       none          2,048 seeds
    anything else          nowhere                                      63,489 seeds  61,441 seeds
    =====================  ===========================================  ============  ============

    (Seed 0 is seed 1, so the first row has 1,023 seeds, not 1,024.) Where the arcade finishes,
    the longest maze step takes 20 bytes and the longest egg or diamond 29.

    The port accepts every seed and never hangs. Each redraw loop notes the generator's state
    when it starts. The step is a bijection, so the stream is a pure cycle: a loop that comes
    back to that state, in the same phase of its own work, without having succeeded, would go
    round the same way for ever. That happens exactly where the arcade hangs, and nowhere else,
    on any board size, so the rule needs no tuned bound and cannot change a seed the arcade
    finishes. There the port stops drawing, with the stream back at the loop's starting state,
    and chooses deterministically:

    - a maze step takes the first unopened neighbour in the arcade's direction order (up, down,
      left, right), after at most MAZE_STEP_MOST_DRAWS bytes (one cycle);
    - an egg or diamond takes the first free cell in scan order (top row first, each row left
      to right). Its loop has two phases, x then y, so it compares the phase each time the
      stream is back at the start: at most (cols // 2 + 1) cycles; on 13 × 15 never more than 2.

    The stream being back where it was, a following maze step at that state that wants no new
    direction, or a following cell of the same call, would hang the same way; the port takes
    the fallback for it at once, with the same result as drawing the cycle again.
    `IceMaze.fallbacks` and `ActDeal.fallbacks` count the choices made this way. They are 0 on
    every seed the arcade finishes: tests/kick/test_maze.py checks the counts above on all
    65,536 seeds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from rules.kick.geometry import DIRECTIONS, Cell, Direction
from rules.kick.rng import LONGEST_CYCLE, KickRandom, successor_table

__all__ = [
    "MAZE_STEP_MOST_DRAWS",
    "ActDeal",
    "IceMaze",
    "deal_act",
    "generate_ice_maze",
    "pengo_start",
    "pick_odd_cells",
]

#: The most bytes one maze path step draws: a step that has not found an unopened neighbour after
#: a whole cycle of the generator never will (the arcade hangs there), and the fallback chooses.
MAZE_STEP_MOST_DRAWS = LONGEST_CYCLE
# An egg or diamond draws at most (cols // 2 + 1) · LONGEST_CYCLE bytes before its fallback: each
# time the stream is back at the loop's start the loop's phase (drawing x, or y for one of the
# cols // 2 x values) is compared with the phases seen there before, and there are that many.

# Padding around the board in the working grid: two cells, so that a node's neighbour two cells
# away is always inside the array and reads as "not ice" at the edges. It plays the part of the
# arcade's empty sentinel rows and clear bit 7 in the node table at $8C27 ($2E3C).
_PAD = 2

# bytes.translate table from the working grid (1 ice, 0 open) to the map's characters.
_TO_TEXT = bytes.maketrans(b"\x00\x01", b".#")


@dataclass(frozen=True, slots=True)
class IceMaze:
    """What generate_ice_maze returns."""

    map: tuple[str, ...]
    """Rows of '#' (ice) and '.' (open), top row first."""
    carve_order: tuple[Cell, ...]
    """The open cells in the order they were carved, each once (a presenter draws the maze so)."""
    sealed: int
    """Lattice nodes (even column, even row) left uncarved; 0 when complete."""
    fallbacks: int = 0
    """Path steps the hang fallback chose (module docstring); 0 on every seed the arcade finishes."""


@dataclass(frozen=True, slots=True)
class ActDeal:
    """Everything an act's start draws from the stream, in the arcade's order."""

    facings: tuple[Direction, Direction, Direction, Direction]
    """The four Sno-Bee slots' first facings (`byte & 3`, $323A), drawn before the maze."""
    maze: IceMaze
    """The ice maze."""
    eggs: tuple[Cell, ...]
    """Egg cells in draw order, which is also the hatch order ($3C6D)."""
    diamonds: tuple[Cell, ...]
    """Diamond block cells in draw order."""
    fallbacks: int = 0
    """Maze steps, eggs and diamonds the hang fallback chose; 0 on every seed the arcade finishes."""


def _check_side(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 3 or value % 2 == 0:
        raise ValueError(f"{name} must be an odd integer of at least 3, got {value!r}")
    return value


def _check_flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be a bool, got {value!r}")
    return value


def _check_random(random: object) -> KickRandom:
    if not isinstance(random, KickRandom):
        raise ValueError(f"random must be a KickRandom, got {type(random).__name__}")
    return random


def _check_count(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


# ---------------------------------------------------------------------------------------------
# The maze
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _MazeLayout:
    """Index arithmetic for one board size, worked out once (the maze loop runs on plain ints)."""

    blank: bytes
    """The padded working grid before carving: 1 on every board cell, 0 in the padding."""
    scan: tuple[int, ...]
    """Grid index of every lattice node in the arcade's scan order ($2DD5/$2DD8)."""
    node_steps: tuple[int, int, int, int]
    """Index offset to the next node for direction codes 0 up, 1 down, 2 left, 3 right."""
    row_starts: tuple[int, ...]
    """Grid index of each board row's first cell, top row first."""
    cells: dict[int, Cell]
    """The board cell at each grid index inside the board."""


@lru_cache(maxsize=32)
def _maze_layout(cols: int, rows: int) -> _MazeLayout:
    width = cols + 2 * _PAD
    blank = bytearray(width * (rows + 2 * _PAD))
    row_starts = tuple((y + _PAD) * width + _PAD for y in range(rows))
    cells: dict[int, Cell] = {}
    for y, start in enumerate(row_starts):
        blank[start : start + cols] = b"\x01" * cols
        for x in range(cols):
            cells[start + x] = Cell(x, y)
    scan = tuple(
        row_starts[y] + x
        for y in range(rows - 1, -1, -2)  # node rows from the bottom up
        for x in range(0, cols, 2)  # each row left to right
    )
    return _MazeLayout(
        blank=bytes(blank),
        scan=scan,
        node_steps=(-2 * width, 2 * width, -2, 2),
        row_starts=row_starts,
        cells=cells,
    )


def _wanted(ice: bytearray, node: int, node_steps: tuple[int, int, int, int]) -> int:
    """Bit c set when direction code c from node points at a sealed node."""
    return sum(1 << code for code, step in enumerate(node_steps) if ice[node + step])


def _first_wanted(ice: bytearray, node: int, node_steps: tuple[int, int, int, int]) -> int:
    """The fallback's choice: the first sealed neighbour node in the order up, down, left, right."""
    return next(node + step for step in node_steps if ice[node + step])


def generate_ice_maze(
    cols: int,
    rows: int,
    seed: int = 1,
    arcade_bug: bool = True,
    complete: bool = False,
    random: KickRandom | None = None,
) -> IceMaze:
    """Pengo's ice maze (routine $2DA1 with $2E46 and $307C), generalised to any odd board.

    cols and rows are odd and at least 3 (Pengo: 13 × 15). seed seeds a fresh KickRandom; when
    random is given it is drawn from (and advanced) instead, and seed is ignored. arcade_bug
    keeps the path-end test's second "down" ($3088); complete repeats the bottom-up pass until
    every lattice node is open. The module docstring has the steps and the hang fallback.

    >>> maze = generate_ice_maze(13, 15, seed=0x365A)
    >>> maze.map[-1], maze.sealed, len(maze.carve_order)
    ('.#.........#.', 0, 111)
    """
    cols = _check_side("cols", cols)
    rows = _check_side("rows", rows)
    arcade_bug = _check_flag("arcade_bug", arcade_bug)
    complete = _check_flag("complete", complete)
    stream = KickRandom(seed) if random is None else _check_random(random)
    return _carve_maze(stream, cols, rows, arcade_bug, complete)


def _carve_maze(stream: KickRandom, cols: int, rows: int, arcade_bug: bool, complete: bool) -> IceMaze:
    layout = _maze_layout(cols, rows)
    # 1 = ice. A lattice node is sealed while its cell is ice; the padding reads as open.
    ice = bytearray(layout.blank)
    node_steps = layout.node_steps
    up, down, left, right = node_steps
    # $307C tests up, down, left and then down again ($3088) where it means right.
    last_test = down if arcade_bug else right

    first = layout.scan[0]  # $2DCC-$2DD2: the bottom-left node is open from the start
    ice[first] = 0
    carved = [first]
    carve = carved.append
    still_sealed = len(layout.scan) - 1
    fallbacks = 0
    # The state at the last fallback, where the stream is back after its whole cycle, and the
    # directions wanted then: none of them occurs anywhere on that cycle.
    hung_state = -1
    hung_wanted = 0
    # The loop below steps the generator ($2D7C) through its successor table instead of calling
    # KickRandom.byte(): this is the hot path of every act deal, and the hang check needs the raw
    # state after each draw. The byte drawn is the new state's high byte.
    following = successor_table()
    state = stream.state

    while still_sealed:
        for node in layout.scan:
            # $2DEB-$2E02: skip sealed nodes and nodes with no sealed neighbour (right included).
            if ice[node] or not (ice[node + up] or ice[node + down] or ice[node + left] or ice[node + right]):
                continue
            while True:  # one path: $2E46 re-enters itself until $307C pops its return address
                if state == hung_state and not _wanted(ice, node, node_steps) & ~hung_wanted:
                    # Drawing would go round the same cycle again and find nothing: go straight to
                    # the fallback. The result is the same, the stream being back here either way.
                    target = _first_wanted(ice, node, node_steps)
                    fallbacks += 1
                else:
                    loop_start = state
                    while True:  # $2E4A-$2E52, $3040-$306D: redraw until it points at a sealed node
                        state = following[state]
                        target = node + node_steps[state >> 8 & 3]
                        if ice[target]:
                            break
                        if state == loop_start:
                            # A whole cycle without a way on: the arcade loops here for ever.
                            wanted = _wanted(ice, node, node_steps)
                            hung_wanted = wanted | hung_wanted if state == hung_state else wanted
                            hung_state = state
                            target = _first_wanted(ice, node, node_steps)
                            fallbacks += 1
                            break
                # $30E9-$3110: two holes, the cell between the nodes and the new node.
                between = (node + target) >> 1
                ice[between] = 0
                ice[target] = 0
                carve(between)
                carve(target)
                node = target
                still_sealed -= 1
                if not (ice[node + up] or ice[node + down] or ice[node + left] or ice[node + last_test]):
                    break
            if not still_sealed:
                break  # the rest of the scan would find nothing to do and draws nothing
        # A pass that starts with a sealed node opens at least one (some open node borders a
        # sealed one and the scan reaches it), so complete=True takes at most one pass per node.
        if not complete:
            break

    stream.state = state
    text = ice.translate(_TO_TEXT).decode("ascii")
    return IceMaze(
        map=tuple(text[start : start + cols] for start in layout.row_starts),
        carve_order=tuple(map(layout.cells.__getitem__, carved)),
        sealed=still_sealed,
        fallbacks=fallbacks,
    )


# ---------------------------------------------------------------------------------------------
# Eggs and diamonds
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _odd_cells(cols: int, rows: int) -> tuple[Cell, ...]:
    """Every odd/odd cell, indexed by slot = ry · (cols // 2) + rx: top row first, left to right."""
    return tuple(Cell(x, y) for y in range(1, rows, 2) for x in range(1, cols, 2))


def _slot_mask(slots: int) -> int:
    """Mask of the next power of two at or above slots ($2F98 `and 7` for 6 slots, $2FA2 for 7)."""
    return (1 << (slots - 1).bit_length()) - 1


def _draw_odd_cells(
    stream: KickRandom, count: int, cols: int, rows: int, free: bytearray
) -> tuple[list[Cell], int]:
    """Draw count cells the arcade's way ($2F84) among the slots marked 1 in free.

    free has one byte per odd cell slot (see _odd_cells); it is updated as cells are taken.
    Returns the cells in draw order and how many of them the hang fallback chose. The caller
    has checked that at least count slots are free.
    """
    x_slots = cols // 2
    y_slots = rows // 2
    x_mask = _slot_mask(x_slots)
    y_mask = _slot_mask(y_slots)
    odd_cells = _odd_cells(cols, rows)
    picked: list[Cell] = []
    fallbacks = 0
    # The state at the last fallback, where the stream is back after going round its cycle.
    hung_state = -1
    # The generator stepped through its successor table, as in _carve_maze.
    following = successor_table()
    state = stream.state
    for _ in range(count):
        if state == hung_state:
            # The last cell went round the whole cycle from this very state without finding a
            # free cell, and cells have only been taken since: this one would do the same.
            slot = free.index(1)
            fallbacks += 1
            free[slot] = 0
            picked.append(odd_cells[slot])
            continue
        loop_start = state
        # Phases (x slot, or -1 while x is being drawn) seen each time the stream came back to
        # loop_start; the loop starts at -1. One seen twice means the arcade loops for ever.
        phases_seen = 1
        column = -1
        while True:
            state = following[state]
            drawn = state >> 8
            if column < 0:
                # $2F95: x first (`and 7 / cp 6 / jr nc` on 13 columns), redrawn on its own.
                if drawn & x_mask < x_slots:
                    column = drawn & x_mask
            # $2F9F: then y (`and 7 / cp 7 / jr nc` on 15 rows), redrawn on its own.
            elif drawn & y_mask < y_slots:
                slot = (drawn & y_mask) * x_slots + column
                if free[slot]:
                    break
                # A taken or rejected cell starts the whole cell again from x: the egg loop jumps
                # back to $2FD9 (Pengo's cells $2FE4-$2FFC, other eggs $3001), the diamond loops to
                # $2F3A, $2F49 or $2F62.
                column = -1
            if state == loop_start:
                phase_bit = 1 << (column + 1)
                if phases_seen & phase_bit:
                    slot = free.index(1)  # the first free cell in scan order
                    fallbacks += 1
                    hung_state = state
                    break
                phases_seen |= phase_bit
        free[slot] = 0
        picked.append(odd_cells[slot])
    stream.state = state
    return picked, fallbacks


def pick_odd_cells(
    random: KickRandom, count: int, cols: int, rows: int, reject: Callable[[Cell], bool]
) -> list[Cell]:
    """count distinct random cells at odd column and odd row, as Pengo places eggs and diamonds.

    x = 2·rx + 1 and y = 2·ry + 1. rx is drawn first: a byte masked to the next power of two
    at or above cols // 2 and redrawn on its own while out of range; then ry the same way over
    rows // 2 ($2F84-$2FA6: `and 7 / cp 6` and `and 7 / cp 7` on 13 × 15). A cell that reject
    returns true for, or that this call has already picked, sends the draw back to rx ($2FB2,
    $2F3A). reject is called once per odd cell, before anything is drawn, so it must depend on
    the cell alone. Raises ValueError, drawing nothing, when fewer than count cells are left.
    The module docstring has the hang fallback.
    """
    stream = _check_random(random)
    count = _check_count("count", count)
    cols = _check_side("cols", cols)
    rows = _check_side("rows", rows)
    free = bytearray(0 if reject(cell) else 1 for cell in _odd_cells(cols, rows))
    available = free.count(1)
    if available < count:
        raise ValueError(f"count is {count} but only {available} odd cells are not rejected")
    cells, _ = _draw_odd_cells(stream, count, cols, rows, free)
    return cells


def pengo_start(cols: int, rows: int) -> Cell:
    """Pengo's start cell: (6, 6) on 13 × 15 (pixel ($78, $70), $31C6).

    Generalised as the even cell nearest the centre cell (cols // 2, rows // 2): a centre
    coordinate that is odd is rounded down, so ties go left and up. On 13 × 15 the centre is
    (6, 7), its nearest even cells are (6, 6) and (6, 8), and the tie rule takes (6, 6).
    """
    cols = _check_side("cols", cols)
    rows = _check_side("rows", rows)
    centre_x = cols // 2
    centre_y = rows // 2
    return Cell(centre_x - centre_x % 2, centre_y - centre_y % 2)


def deal_act(
    random: KickRandom,
    cols: int,
    rows: int,
    eggs: int,
    diamonds: int,
    arcade_bug: bool = True,
    complete: bool = False,
) -> ActDeal:
    """An act's start, drawn from random in the arcade's order.

    Four bytes give the Sno-Bee facings (`byte & 3`, $323A, one per slot even when the slot is
    disabled), then the maze ($2DA1), then the eggs ($2FB2: they avoid the four cells diagonal
    to Pengo's start, (5,5) (7,5) (5,7) (7,7) on 13 × 15, and each other), then the diamonds
    ($2F3A: they avoid the eggs and each other, but not Pengo's four cells). Raises ValueError,
    drawing nothing, when the board has too few odd cells for the counts.
    """
    stream = _check_random(random)
    cols = _check_side("cols", cols)
    rows = _check_side("rows", rows)
    eggs = _check_count("eggs", eggs)
    diamonds = _check_count("diamonds", diamonds)
    arcade_bug = _check_flag("arcade_bug", arcade_bug)
    complete = _check_flag("complete", complete)

    x_slots = cols // 2
    slot_count = x_slots * (rows // 2)
    egg_free = bytearray(b"\x01" * slot_count)
    pengo = pengo_start(cols, rows)
    for dy in (-1, 1):
        for dx in (-1, 1):
            x, y = pengo.x + dx, pengo.y + dy
            if 0 <= x < cols and 0 <= y < rows:
                egg_free[(y // 2) * x_slots + x // 2] = 0
    if egg_free.count(1) < eggs:
        raise ValueError(f"eggs is {eggs} but the board has only {egg_free.count(1)} cells for eggs")
    if slot_count - eggs < diamonds:
        raise ValueError(f"diamonds is {diamonds} but only {slot_count - eggs} cells are left after the eggs")

    draw = stream.byte
    first, second, third, fourth = (DIRECTIONS[draw() & 3] for _ in range(4))
    maze = _carve_maze(stream, cols, rows, arcade_bug, complete)
    egg_cells, egg_fallbacks = _draw_odd_cells(stream, eggs, cols, rows, egg_free)
    diamond_free = bytearray(b"\x01" * slot_count)
    for cell in egg_cells:
        diamond_free[(cell.y // 2) * x_slots + cell.x // 2] = 0
    diamond_cells, diamond_fallbacks = _draw_odd_cells(stream, diamonds, cols, rows, diamond_free)
    return ActDeal(
        facings=(first, second, third, fourth),
        maze=maze,
        eggs=tuple(egg_cells),
        diamonds=tuple(diamond_cells),
        fallbacks=maze.fallbacks + egg_fallbacks + diamond_fallbacks,
    )
