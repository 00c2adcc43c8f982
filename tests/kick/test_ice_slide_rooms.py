"""Tests of the Ice Slide rooms (well formed, growing, solvable) and of the breadth-first solver."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import pytest

from rules.kick.ice_slide_rooms import ICE_SLIDE_ROOMS, IceSlideRoom
from tests.kick.ice_slide_solver import SearchLimitExceeded, solve

#: Every character a room map may use.
LEGEND = frozenset("#IRCG*EPws.")

#: Characters that must each appear in at least two rooms.
TWO_ROOM_CHARS = "#IRCEws"

ROOM_IDS = [room.name for room in ICE_SLIDE_ROOMS]


@cache
def solution(index: int) -> tuple[tuple[str, ...], ...] | None:
    """The solver's shortest solution of room index (solved once per test session)."""
    kicks = solve(ICE_SLIDE_ROOMS[index].map)
    return None if kicks is None else tuple(kicks)


def min_kicks(index: int) -> int:
    """The number of kicks of the shortest solution of room index (-1 when unsolvable)."""
    kicks = solution(index)
    return -1 if kicks is None else len(kicks)


def cells(room_map: Sequence[str], chars: str) -> list[tuple[int, int]]:
    """The (x, y) cells of room_map holding any of chars."""
    return [(x, y) for y, row in enumerate(room_map) for x, ch in enumerate(row) if ch in chars]


def replay(room_map: tuple[str, ...], kicks: Sequence[tuple[str, ...]]) -> bool:
    """Play kicks on room_map by the rules (ice fixed, enemies ignored); True when every goal ends covered."""
    grid = [list(row) for row in room_map]
    width, height = len(grid[0]), len(grid)
    steps = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
    player = cells(room_map, "P")[0]
    goals = cells(room_map, "*")
    for x, y in cells(room_map, "*Pws"):
        grid[y][x] = "."

    def free(x: int, y: int) -> bool:
        """Is (x, y) on the map and empty floor?"""
        return 0 <= x < width and 0 <= y < height and grid[y][x] == "."

    for cell, direction in kicks:
        bx, by = (int(part) for part in cell.split(","))
        dx, dy = steps[direction]
        stand = (bx - dx, by - dy)
        seen, todo = {player}, [player]
        while todo:
            x, y = todo.pop()
            for sx, sy in steps.values():
                if free(x + sx, y + sy) and (x + sx, y + sy) not in seen:
                    seen.add((x + sx, y + sy))
                    todo.append((x + sx, y + sy))
        block = grid[by][bx]
        if stand not in seen or block not in "GC" or not free(bx + dx, by + dy):
            return False
        grid[by][bx] = "."
        x, y = bx + dx, by + dy
        while block == "G" and free(x + dx, y + dy):
            x, y = x + dx, y + dy
        grid[y][x] = block
        player = stand
    return all(grid[y][x] == "G" for x, y in goals)


def area(room: IceSlideRoom) -> int:
    """The number of cells of room."""
    return len(room.map) * len(room.map[0])


def test_there_are_at_least_fourteen_rooms_with_unique_names() -> None:
    """The set holds at least fourteen rooms, each with its own non-empty name."""
    assert len(ICE_SLIDE_ROOMS) >= 14
    assert all(room.name.strip() for room in ICE_SLIDE_ROOMS)
    assert len(set(ROOM_IDS)) == len(ROOM_IDS)


@pytest.mark.parametrize("room", ICE_SLIDE_ROOMS, ids=ROOM_IDS)
def test_room_is_well_formed(room: IceSlideRoom) -> None:
    """A room has equal-width rows, one player start, as many gems as goals and only legend characters."""
    assert isinstance(room.map, tuple) and room.map
    widths = {len(row) for row in room.map}
    assert len(widths) == 1, f"unequal row widths {sorted(widths)}"
    assert len(cells(room.map, "P")) == 1
    gems, goals = len(cells(room.map, "G")), len(cells(room.map, "*"))
    assert gems == goals >= 1
    assert set("".join(room.map)) <= LEGEND


@pytest.mark.parametrize("room", ICE_SLIDE_ROOMS, ids=ROOM_IDS)
def test_room_has_obstacles(room: IceSlideRoom) -> None:
    """A room has at least one obstacle besides its gems, so no room is an empty field."""
    assert cells(room.map, "#IRCE")


@pytest.mark.parametrize("room", ICE_SLIDE_ROOMS, ids=ROOM_IDS)
def test_enemies_start_at_least_three_cells_from_the_player(room: IceSlideRoom) -> None:
    """Every walrus and seal starts at least three rows or columns away from the player."""
    (px, py) = cells(room.map, "P")[0]
    for x, y in cells(room.map, "ws"):
        assert max(abs(x - px), abs(y - py)) >= 3, (x, y)


def test_every_legend_character_is_used() -> None:
    """Across the set every legend character appears in some room."""
    used = set("".join("".join(room.map) for room in ICE_SLIDE_ROOMS))
    assert used == LEGEND


@pytest.mark.parametrize("char", TWO_ROOM_CHARS)
def test_each_special_character_appears_in_two_rooms(char: str) -> None:
    """Steel, ice, thick ice, crates, eggs, walruses and seals each appear in at least two rooms."""
    assert sum(any(char in row for row in room.map) for room in ICE_SLIDE_ROOMS) >= 2


def test_sizes_grow() -> None:
    """Room areas never shrink, from about 7×7 for the first room to about 15×13 for the last."""
    areas = [area(room) for room in ICE_SLIDE_ROOMS]
    assert areas == sorted(areas)
    assert 42 <= areas[0] <= 64
    assert 160 <= areas[-1] <= 225
    for room in ICE_SLIDE_ROOMS:
        assert 7 <= len(room.map) <= 15 and 7 <= len(room.map[0]) <= 15


@pytest.mark.parametrize("index", range(len(ICE_SLIDE_ROOMS)), ids=ROOM_IDS)
def test_room_is_solvable(index: int) -> None:
    """The solver finds a solution of every room, and replaying its kicks by the rules clears the room."""
    kicks = solution(index)
    assert kicks is not None
    assert replay(ICE_SLIDE_ROOMS[index].map, kicks)


def test_minimum_kicks_grow() -> None:
    """The first room needs one kick, the last four at least six each, and difficulty never drops by much."""
    kicks = [min_kicks(i) for i in range(len(ICE_SLIDE_ROOMS))]
    assert kicks[0] == 1
    assert all(k >= 6 for k in kicks[-4:]), kicks
    assert all(later >= earlier - 1 for earlier, later in zip(kicks, kicks[1:], strict=False)), kicks
    assert max(kicks[:3]) < min(kicks[-4:])


def test_solver_finds_a_one_kick_solution() -> None:
    """A gem one slide from a goal against the edge is solved by that one kick."""
    assert solve(("P.G..*",)) == [("2,0", "right")]


def test_solver_finds_a_shortest_two_kick_solution() -> None:
    """A gem that must turn a corner takes two kicks, the first from the cell the player walks to."""
    room = (
        "P....",
        "..G..",
        ".....",
        "....*",
    )
    kicks = solve(room)
    assert kicks is not None and len(kicks) == 2
    assert replay(room, kicks)
    assert not replay(room, kicks[:1])


def test_solver_reports_a_cornered_gem_unsolvable() -> None:
    """A gem stuck in a corner, away from the goal, can never be kicked, so there is no solution."""
    room = (
        "G....",
        ".....",
        "..P..",
        ".....",
        "....*",
    )
    assert solve(room) is None


def test_solver_reports_a_goal_without_stopper_unsolvable() -> None:
    """A goal in open floor with nothing beyond it to stop a slide cannot be reached."""
    assert solve(("P.G.*.",)) is None


def test_solver_treats_ice_as_fixed_and_enemies_as_floor() -> None:
    """Ice stops a gem like steel, and a walrus in the way blocks neither the player nor the slide."""
    assert solve(("PG.*Iw",)) == [("1,0", "right")]
    assert solve(("PG.*Rw",)) == [("1,0", "right")]
    assert solve(("PGw*E.",)) == [("1,0", "right")]
    assert solve(("Pw.G*#",)) == [("3,0", "right")]


def test_solver_uses_a_crate_as_a_stopper() -> None:
    """A crate pushed up beside the goal stops the gem there, so the crate must be kicked first."""
    room = (
        "P.G..*.",
        "......C",
        ".......",
    )
    assert solve(room) == [("6,1", "up"), ("2,0", "right")]
    assert solve(tuple(row.replace("C", ".") for row in room)) is None


def test_solver_moves_a_crate_one_cell_per_kick() -> None:
    """A crate travels one cell per kick, so bringing it four cells across takes four kicks."""
    room = (
        "P.G...*.",
        "...C....",
        "........",
    )
    kicks = solve(room)
    assert kicks is not None and len(kicks) == 6
    assert kicks[-1] == ("2,0", "right")


def test_solver_leaves_a_blocked_crate_in_place() -> None:
    """A crate kicked against steel or the edge does not move, so it can never become the goal's stopper."""
    stuck = (
        "PG..*.",
        "....#C",
    )
    assert solve(stuck) is None
    assert solve((*stuck, "......")) == [("5,1", "up"), ("1,0", "right")]


def test_solver_rejects_malformed_maps() -> None:
    """Unequal rows, a missing player or an unknown character raise ValueError."""
    with pytest.raises(ValueError):
        solve(("P.G*", "..."))
    with pytest.raises(ValueError):
        solve(("..G*",))
    with pytest.raises(ValueError):
        solve(("P.G*x",))


def test_solver_raises_when_the_search_bound_is_exceeded() -> None:
    """A search bound smaller than the state space makes the solver raise instead of running on."""
    room = ICE_SLIDE_ROOMS[-1].map
    with pytest.raises(SearchLimitExceeded):
        solve(room, max_states=3)
