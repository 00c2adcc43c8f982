"""A breadth-first solver for Ice Slide rooms, used by the tests to prove every authored room solvable.

The model is the puzzle without its action: ice (``I``, ``R``, ``E``) and steel (``#``) are fixed obstacles
(nothing is ever kicked into breaking), enemies (``w``, ``s``) are ignored and their cells are floor. Only
gem blocks (``G``) and crates (``C``) move. A gem slides in the kick's direction until the next cell is not
free (the map's edge, steel, ice, a gem or a crate) and stops in the last free cell; a crate moves one cell
if the cell beyond is free and otherwise stays. A kick that would not move its block is never generated.

A search state is (the smallest cell the player can walk to, the gem cells, the crate cells): walking is
free, so every position in one walkable region is the same state. A move is a kick of a gem or a crate by
the player standing, reachable, on the cell next to it on the far side from the kick's direction.
"""

from __future__ import annotations

from collections import deque

#: Kick directions and their unit steps (dx, dy); y grows downward.
STEPS: tuple[tuple[str, int, int], ...] = (("up", 0, -1), ("down", 0, 1), ("left", -1, 0), ("right", 1, 0))

#: Characters the player may walk on in the solver's model (floor, goal, start, and enemies' cells).
WALKABLE = frozenset(".*Psw")

#: Characters that never move in the solver's model: steel and every kind of ice.
FIXED = frozenset("#IRE")

#: Default bound on the number of states the search may visit.
MAX_STATES = 2_000_000

State = tuple[int, tuple[int, ...], tuple[int, ...]]


class SearchLimitExceeded(RuntimeError):
    """The search visited more states than its bound allowed."""


def solve(
    room_map: tuple[str, ...] | list[str], max_states: int = MAX_STATES
) -> list[tuple[str, ...]] | None:
    """Return the kicks of a shortest solution of room_map, or None when it has none.

    Each kick is ``("x,y", direction)``: the column and row (0 at the top left) of the block kicked, and the
    direction it is kicked in ("up", "down", "left" or "right"). The player walks freely between kicks.
    Raises SearchLimitExceeded when more than max_states states would be visited, and ValueError for a
    malformed map (unequal rows, not exactly one ``P``, unknown characters).
    """
    rows = list(room_map)
    if not rows or any(len(row) != len(rows[0]) for row in rows):
        raise ValueError("rows must be non-empty and of equal width")
    width, height = len(rows[0]), len(rows)
    fixed: set[int] = set()
    goals: set[int] = set()
    gems: list[int] = []
    crates: list[int] = []
    starts: list[int] = []
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            i = y * width + x
            if ch in FIXED:
                fixed.add(i)
            elif ch == "G":
                gems.append(i)
            elif ch == "C":
                crates.append(i)
            elif ch not in WALKABLE:
                raise ValueError(f"unknown map character {ch!r} at {x},{y}")
            if ch == "*":
                goals.add(i)
            if ch == "P":
                starts.append(i)
    if len(starts) != 1:
        raise ValueError("a room needs exactly one P")

    # neighbours[i][k]: the cell one step from i in STEPS[k], or -1 off the map.
    neighbours: list[tuple[int, ...]] = []
    for i in range(width * height):
        x, y = i % width, i // width
        neighbours.append(
            tuple(
                (y + dy) * width + (x + dx) if 0 <= x + dx < width and 0 <= y + dy < height else -1
                for _, dx, dy in STEPS
            )
        )

    # Walkable regions are flood-filled on bitboards: bit i is cell i.
    full = (1 << (width * height)) - 1
    left_column = sum(1 << (y * width) for y in range(height))
    not_left = full & ~left_column
    not_right = full & ~(left_column << (width - 1))
    fixed_mask = sum(1 << i for i in fixed)

    def mask(cells: tuple[int, ...]) -> int:
        """The bitboard of cells."""
        bits = 0
        for cell in cells:
            bits |= 1 << cell
        return bits

    def region(start: int, blocked: int) -> int:
        """The bitboard of the cells the player can walk to from start."""
        open_cells = full & ~blocked
        reach = 1 << start
        while True:
            grown = reach | (reach >> width) | ((reach << width) & full)
            grown |= ((reach << 1) & not_left) | ((reach >> 1) & not_right)
            grown &= open_cells
            if grown == reach:
                return reach
            reach = grown

    def lowest(bits: int) -> int:
        """The smallest cell of a non-empty bitboard."""
        return (bits & -bits).bit_length() - 1

    def solved(gem_cells: tuple[int, ...]) -> bool:
        """Is every goal covered by a gem?"""
        return bool(goals) and goals.issubset(gem_cells)

    start_gems, start_crates = tuple(sorted(gems)), tuple(sorted(crates))
    start_region = region(starts[0], fixed_mask | mask(start_gems) | mask(start_crates))
    start: State = (lowest(start_region), start_gems, start_crates)
    parents: dict[State, tuple[State, tuple[str, ...]] | None] = {start: None}
    queue: deque[tuple[State, int]] = deque([(start, start_region)])
    goal_state: State | None = start if solved(start_gems) else None

    while queue and goal_state is None:
        state, reach = queue.popleft()
        _, gem_cells, crate_cells = state
        blocked = fixed_mask | mask(gem_cells) | mask(crate_cells)
        for block in gem_cells + crate_cells:
            is_gem = block in gem_cells
            for k, (name, _, _) in enumerate(STEPS):
                behind = neighbours[block][k ^ 1]  # STEPS pairs opposites as (0, 1) and (2, 3)
                if behind < 0 or not reach >> behind & 1:
                    continue
                nxt = neighbours[block][k]
                if nxt < 0 or blocked >> nxt & 1:
                    continue  # the block cannot move this way
                stop = nxt
                if is_gem:
                    beyond = neighbours[stop][k]
                    while beyond >= 0 and not blocked >> beyond & 1:
                        stop = beyond
                        beyond = neighbours[stop][k]
                    new_gems = tuple(sorted(stop if c == block else c for c in gem_cells))
                    new_crates = crate_cells
                else:
                    new_gems = gem_cells
                    new_crates = tuple(sorted(stop if c == block else c for c in crate_cells))
                new_reach = region(behind, blocked & ~(1 << block) | 1 << stop)
                child: State = (lowest(new_reach), new_gems, new_crates)
                if child in parents:
                    continue
                kick: tuple[str, ...] = (f"{block % width},{block // width}", name)
                parents[child] = (state, kick)
                if len(parents) > max_states:
                    raise SearchLimitExceeded(f"more than {max_states} states")
                if solved(new_gems):
                    goal_state = child
                    break
                queue.append((child, new_reach))
            if goal_state is not None:
                break

    if goal_state is None:
        return None
    kicks: list[tuple[str, ...]] = []
    link = parents[goal_state]
    while link is not None:
        previous, kick = link
        kicks.append(kick)
        link = parents[previous]
    kicks.reverse()
    return kicks
