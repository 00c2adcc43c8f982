"""The authored rooms of Ice Slide, the puzzle-action game played on Pengo's kick rules.

Each room is a small map in which every gem block must be kicked onto a goal tile; the room is cleared when
every goal is covered by a gem at rest. Rooms grow from 7 × 7 to 15 × 13 and from a single kick to puzzles
that need ordering, crates and other gems as stoppers, and detours around thick ice. A room has no border
row: the edge of the map is the wall, and a slide stops there.

Legend (one character per cell, rows of equal width):

- ``#`` steel: never moves.
- ``I`` ice: slides when kicked; breaks when kicked against something.
- ``R`` thick ice: slides; cracks on the first blocked kick and breaks on the second; enemies cannot chew it.
- ``C`` crate: moves exactly one cell per kick (if the cell beyond is free) and never breaks.
- ``G`` gem block: slides until the next cell is not free; unbreakable.
- ``*`` goal floor: a gem must come to rest on it.
- ``E`` ice hiding a Sno-Bee egg.
- ``P`` the player's start (exactly one per room).
- ``w`` walrus: patrols, walking straight and turning at obstacles.
- ``s`` seal: chases the player and kicks blocks at them.
- ``.`` floor.

A sliding block (ice, thick ice, gem, egg ice) travels in the kick's direction until the next cell is not free
(the edge, steel, any block at rest, a crate) and stops in the last free cell. The player walks one cell at a
time onto floor or goal tiles only. Every room is solvable with ice treated as fixed and enemies ignored
(checked by the tests); enemies start at least three cells from the player.
"""

from __future__ import annotations

from typing import NamedTuple


class IceSlideRoom(NamedTuple):
    """One authored room: its name and its map (rows of equal width, top row first)."""

    name: str
    map: tuple[str, ...]


ICE_SLIDE_ROOMS: tuple[IceSlideRoom, ...] = (
    IceSlideRoom(
        "First Kick",
        (
            ".......",
            ".#...#.",
            ".......",
            ".P.G..*",
            ".......",
            ".#...#.",
            ".......",
        ),
    ),
    IceSlideRoom(
        "Round the Corner",
        (
            ".......",
            ".P..G..",
            ".......",
            ".#.....",
            ".......",
            ".......",
            "....#.*",
        ),
    ),
    IceSlideRoom(
        "Steel Backstop",
        (
            "........",
            ".P......",
            "..G...I.",
            "........",
            "........",
            ".....*..",
            ".....#..",
        ),
    ),
    IceSlideRoom(
        "Crate Stopper",
        (
            "........",
            ".P.G..#.",
            "........",
            "..#.....",
            "........",
            "........",
            "..I..*..",
            "......C.",
        ),
    ),
    IceSlideRoom(
        "Gem on Gem",
        (
            ".........",
            ".P.......",
            "...G.....",
            ".......#.",
            "..#......",
            "......G..",
            "w........",
            ".......**",
        ),
    ),
    IceSlideRoom(
        "Thick Ice Pillars",
        (
            ".w.......",
            ".......G.",
            "..R...R.E",
            "...#.....",
            "....*R...",
            "....#..I.",
            "..R...R..",
            ".........",
            "....P....",
        ),
    ),
    IceSlideRoom(
        "Crate Ladder",
        (
            "..........",
            "....P.....",
            "..#....#..",
            "........#.",
            ".........w",
            "......*...",
            "..........",
            "I.#..GC#..",
            "....I.....",
        ),
    ),
    IceSlideRoom(
        "Stacked Gems",
        (
            ".......I.#.",
            "....I......",
            "..#.....#..",
            "...........",
            "s....*.....",
            ".....*EG...",
            ".....#...G.",
            "..#.....#..",
            ".......P...",
        ),
    ),
    IceSlideRoom(
        "Egg Nest",
        (
            "....#....#.",
            "....#......",
            ".G.....C...",
            "...........",
            ".....*.....",
            "....E*E....",
            "....EEE....",
            ".........G.",
            "..P........",
            "..........w",
        ),
    ),
    IceSlideRoom(
        "Thick Ice Vault",
        (
            "............",
            "..RRRRRR....",
            "..R..**R..s.",
            "..R....R....",
            "..R....R....",
            "..RR.RRR....",
            "............",
            "...I.....G..",
            ".G...#......",
            "..........P.",
        ),
    ),
    IceSlideRoom(
        "Borrowed Stopper",
        (
            "w...........",
            "..G.....#...",
            "..#......#..",
            "............",
            ".#..........",
            "......*.....",
            ".......C....",
            "............",
            "..#......#..",
            "I....G....P.",
            ".......*....",
        ),
    ),
    IceSlideRoom(
        "Locked In",
        (
            "..........I..",
            ".###.........",
            ".#P#.........",
            ".#.G........#",
            ".###..I......",
            ".......*...#.",
            "..R....R...E.",
            ".............",
            "..G.I........",
            "..........*..",
            "s.........R..",
        ),
    ),
    IceSlideRoom(
        "The Gate",
        (
            "......#.....I",
            ".P....#......",
            "......#......",
            "......#......",
            "..R.R.##.....",
            "......**.....",
            "..I...#......",
            "......#.....w",
            "......#..R.G.",
            "..G..I#......",
            "......#.E....",
            "s.........#..",
        ),
    ),
    IceSlideRoom(
        "Three in a Corner",
        (
            ".............s",
            "..G....#...G..",
            "....I.........",
            "..............",
            "..........#...",
            ".....E.*.....R",
            "......**#...I.",
            "......R.......",
            ".R.........I..",
            ".P...E...#....",
            "...........G..",
            ".............w",
        ),
    ),
    IceSlideRoom(
        "Glacier Finale",
        (
            "...E..........w",
            "........R......",
            "...............",
            "..........I.G..",
            "..........#....",
            "...............",
            "s..........*...",
            "...........*...",
            "......#C#..#...",
            "......#*#......",
            "......#.#......",
            "..I.G..#.G...R.",
            ".P.............",
        ),
    ),
)
