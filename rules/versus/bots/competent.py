"""The competent bot: crushes Sno-Bees with slides, eats stunned ones, breaks the eggs it saw, and keeps
out of reach (pengo-versus 1's "competent"; rules/versus/bots/whole_game.py builds version 2's on it).

It decides at a cell centre (or a few pixels before one, rules/versus/bots/seeing.py), searching the
cells Pengo reaches before any Sno-Bee could (rules/versus/bots/paths.py) for the best goal
(rules/versus/bots/targets.py); between centres it holds its byte.
"""

from __future__ import annotations

from collections.abc import Callable

from rules.kick.geometry import CELL_PX, DIRECTIONS, OPPOSITE, STEP, Direction

from ..inputs import NEUTRAL
from ..view import BoardView, EnemyView, SeatView
from .paths import Paths, openness
from .seeing import (
    BYTES,
    PRESS_GAP,
    bot_random,
    kick_still_good,
    next_centre,
    slide_map,
    slideable,
    split_enemies,
)
from .targets import Goal, best_shot, in_line, shake

__all__ = ["AMBUSH_REACH", "KICK_SLACK", "OPEN_WEIGHT", "ROOM", "SLACK", "CompetentBot"]

#: How far (in cells of walking) the competent bot looks for an ambush cell.
AMBUSH_REACH = 8
#: A cell is safe to walk through when Pengo gets there this many steps before any Sno-Bee could.
SLACK = 2
#: ... and safe to stop and kick at with this many.
KICK_SLACK = 3
#: Fleeing, the free cells Pengo can reach ahead of the Sno-Bees count up to this many.
ROOM = 12
#: Near Sno-Bees, each free cell in the 5 × 5 square around a cell is worth this much (open floor
#: leaves ways out; corridors and dead ends are where Pengo gets caught).
OPEN_WEIGHT = 0.2


class CompetentBot:
    """Lines up slides on Sno-Bees, eats stunned ones, breaks the eggs it saw, avoids contact.

    At a cell centre (or a few pixels before one) it decides, in order: a kick from here that crushes
    a Sno-Bee (a slideable block next to Pengo with a Sno-Bee on the free run beyond); a border shake
    when a Sno-Bee walks along the border Pengo stands on; stepping away (toward the most room) when a
    Sno-Bee could reach Pengo within two steps; otherwise a breadth-first search over the cells Pengo
    reaches well before any Sno-Bee could (each Sno-Bee's walking distance is a second search) for the
    best goal nearby — a crush position, a stunned Sno-Bee, a remembered egg block that a kick breaks,
    a diamond that one push lines up — and failing that an ambush cell: next to a block with a long
    free run beyond it, a few steps from the nearest Sno-Bee, not at the end of a dead end.
    """

    def __init__(self, seed: int) -> None:
        self.rng = bot_random(seed, 0xC5)
        self.held: Direction | None = None
        self.planned: tuple[int, int] | None = None
        self.kick_dir: Direction | None = None
        self.last_press = -PRESS_GAP
        self.eggs: dict[int, None] = {}
        self.level = -1
        self.line_level = -1
        self._paths = Paths()
        self._jitter = 0
        self._open: list[int] = []
        self._open_grid: tuple[int, ...] = ()
        #: Searches made (for the bench): one per decision at a centre.
        self.searches = 0
        #: What the last search decided (crush, shake, flee, a goal's kind, ambush): for reading logs.
        self.intent = ""
        #: The safety margins of this decision (SLACK, KICK_SLACK; a subclass may widen them).
        self._slack = SLACK
        self._kick_slack = KICK_SLACK

    # ---- the frame ---------------------------------------------------------------------------------

    def decide(self, view: SeatView, frame: int) -> int:
        """Hold the plan between centres; plan (and maybe kick) at or just before a centre."""
        if view.status != "playing":
            self.planned = None
            self.kick_dir = None
            self.held = None
            return NEUTRAL
        if view.level != self.level:
            self.level = view.level
            self.eggs = {}
        if view.eggs_flashing:
            self._remember_eggs(view)
        player = view.player
        if not player.walking:
            self.planned = None
            self.kick_dir = None
            return BYTES[(self.held, False)]
        centre = next_centre(view)
        if centre is None:
            return BYTES[(self.held, False)]
        x, y, here = centre
        if self.planned == (x, y):
            if self.kick_dir is not None and here:
                return self._press(view, x, y, frame)
            if not here or player.moving:
                return BYTES[(self.held, False)]
            if frame % 4:  # standing at a centre: a full search every fourth frame, a crush check always
                shot = best_shot(view, x, y)
                if shot is not None:
                    self._kick(shot)
                    return self._press(view, x, y, frame)
                return BYTES[(self.held, False)]
        self.planned = (x, y)
        self._plan(view, x, y)
        if here and self.kick_dir is not None:
            return self._press(view, x, y, frame)
        return BYTES[(self.held, False)]

    def _press(self, view: SeatView, x: int, y: int, frame: int) -> int:
        """Press the kick planned at this centre (once the button has been up long enough)."""
        direction = self.kick_dir
        assert direction is not None
        if frame - self.last_press < PRESS_GAP:
            return BYTES[(direction, False)]
        if not kick_still_good(view.board, x, y, direction):
            self.kick_dir = None
            self.planned = None
            return BYTES[(None, False)]
        self.last_press = frame
        self.kick_dir = None
        self.planned = None
        self.held = None
        return BYTES[(direction, True)]

    def _remember_eggs(self, view: SeatView) -> None:
        """While the eggs flash they are on screen: note which blocks hold one."""
        for block_id in view.egg_blocks():
            if block_id not in self.eggs:
                self.eggs[block_id] = None

    # ---- geometry ----------------------------------------------------------------------------------

    # ---- what is on the board ----------------------------------------------------------------------

    # ---- the plan ----------------------------------------------------------------------------------

    def _plan(self, view: SeatView, x: int, y: int) -> None:
        """Decide what to do at centre (x, y): set self.held (walk) or self.kick_dir (kick there)."""
        self.searches += 1
        board = view.board
        cols, rows = board.cols, board.rows
        self._paths.setup(cols, rows)
        self.kick_dir = None
        # 1. A crush from here.
        shot = best_shot(view, x, y)
        if shot is not None:
            self.intent = "crush"
            self._kick(shot)
            return
        active, stunned = split_enemies(view.enemies())
        hunters = [e for e in active if e.phase != "hatching"]
        start = y * cols + x
        grid = board.occupancy()
        self._open = self._openness(grid, cols, rows)
        bee = self._paths.bee_distance(active, grid, cols, rows)
        # 2. A shake on Sno-Bees walking along the border Pengo stands on.
        side = shake(board, x, y, hunters)
        if side is not None:
            self.intent = "shake"
            self._kick(side)
            return
        # 3. A Sno-Bee could be here within two steps: make room.
        self._margins(view)
        if bee[start] <= self._slack:
            self.intent = "flee"
            self.held = self._flee(start, grid, bee)
            return
        # 4. The best goal nearby.
        rng = self.rng
        dist, parent, order = self._paths.search(start, grid, bee, self._slack)
        self._jitter = rng.below(64)
        best: Goal | None = None
        best_score = 0.0
        for goal in self._goals(view, hunters, stunned, dist, bee, cols):
            score = self._score(goal, dist, bee)
            if score > best_score:
                best, best_score = goal, score
        if best is not None:
            self.intent = best.why
            if best.cell != start:
                self.held = self._paths.first_step(start, best.cell, parent)
                return
            if best.kick is not None:
                self._kick(best.kick)
                return
        # 5. Nothing to do: wait in ambush.
        self.intent = "ambush"
        self.held = self._ambush(board, start, order, dist, parent, bee, grid)

    def _margins(self, view: SeatView) -> None:
        """Set this decision's safety margins (the competent bot keeps SLACK and KICK_SLACK)."""

    def _score(self, goal: Goal, dist: list[int], bee: list[int]) -> float:
        """How good a goal is from here: its value, less its walking distance, more for open floor
        near Sno-Bees, plus a small tie-breaker."""
        cell = goal.cell
        score = goal.value - 0.6 * dist[cell] + self._noise(cell)
        if bee[cell] < 8:
            score += OPEN_WEIGHT * (self._open[cell] - 12)
        return score

    def _openness(self, grid: tuple[int, ...], cols: int, rows: int) -> list[int]:
        """Free cells in the 5 × 5 square around each cell (corridors score low, open floor high);
        recomputed only when the resting blocks changed."""
        if self._open_grid == grid:
            return self._open
        out = openness(grid, cols, rows)
        self._open_grid = grid
        return out

    def _noise(self, cell: int) -> float:
        """A small per-decision tie-breaker for a cell (0 to 0.47), from one draw per search."""
        return ((cell * 37 + self._jitter) & 15) / 32

    def _kick(self, d: Direction) -> None:
        self.kick_dir = d
        self.held = d

    def _flee(self, start: int, grid: tuple[int, ...], bee: list[int]) -> Direction | None:
        """Step to the free neighbour with the most room Pengo reaches before the Sno-Bees do."""
        best: Direction | None = None
        best_score = -1.0
        for d in self.rng_order():
            there = self._paths.step(start, d)
            if there < 0 or grid[there] or bee[there] < 1:
                continue
            room = len(self._paths.search(there, grid, bee, 1, 1)[2])
            score = min(room, ROOM) + 4 * min(bee[there] - 1, 4) + 2 * OPEN_WEIGHT * self._open[there]
            if score > best_score:
                best, best_score = d, score
        return best

    def rng_order(self) -> tuple[Direction, ...]:
        """The four directions, rotated by a draw (ties break differently from game to game)."""
        k = self.rng.below(4)
        return DIRECTIONS[k:] + DIRECTIONS[:k]

    def _goals(
        self,
        view: SeatView,
        hunters: list[EnemyView],
        stunned: list[EnemyView],
        dist: list[int],
        bee: list[int],
        cols: int,
    ) -> list[Goal]:
        board = view.board
        goals: list[Goal] = []

        def can_stop(cell: int) -> bool:
            return dist[cell] >= 0 and bee[cell] - dist[cell] >= self._kick_slack

        # Crush positions: from each target, back along its row and column to the first block.
        for e in (*hunters, *stunned):
            off_x, off_y = e.px % CELL_PX, e.py % CELL_PX
            if off_x and off_y:
                continue
            ex, ey = (e.px + CELL_PX // 2) // CELL_PX, (e.py + CELL_PX // 2) // CELL_PX
            for d in DIRECTIONS:
                step = STEP[d]
                if (step.x and off_y) or (step.y and off_x):
                    continue  # not on this line
                if e.phase == "moving" and (off_x or off_y) and e.facing != d and e.facing != OPPOSITE[d]:
                    continue
                # d points from the target back toward the kicker.
                cx, cy = ex + step.x, ey + step.y
                gap = 0
                while board.tile_free(cx, cy):
                    cx += step.x
                    cy += step.y
                    gap += 1
                if not slideable(board, cx, cy):
                    continue
                kx, ky = cx + step.x, cy + step.y
                if not board.tile_free(kx, ky):
                    continue
                cell = ky * cols + kx
                if not can_stop(cell):
                    continue
                value = (9.0 if e.phase in ("moving", "pause") else 6.0) - 0.4 * gap
                goals.append(Goal(cell, OPPOSITE[d], value, "crush"))
        # Stunned Sno-Bees to eat.
        for e in stunned:
            ex, ey = (e.px + CELL_PX // 2) // CELL_PX, (e.py + CELL_PX // 2) // CELL_PX
            cell = ey * cols + ex
            if 0 <= cell < len(dist) and dist[cell] >= 0:
                if e.blinking and dist[cell] > 3:
                    continue
                goals.append(Goal(cell, None, 8.0, "eat"))
        # Egg blocks seen while the eggs flashed: a kick breaks one that cannot slide.
        for block_id in list(self.eggs):
            block = board.block(block_id)
            if block is None or block.breaking:
                del self.eggs[block_id]
                continue
            if block.moving:
                continue
            for d in DIRECTIONS:
                step = STEP[d]
                if board.tile_free(block.cx + step.x, block.cy + step.y):
                    continue
                px, py = block.cx - step.x, block.cy - step.y
                if board.tile_free(px, py) and can_stop(py * cols + px):
                    goals.append(Goal(py * cols + px, d, 5.0, "egg"))
        goals += self._line_goals(view, can_stop, cols)
        return goals

    def _line_goals(self, view: SeatView, can_stop: Callable[[int], bool], cols: int) -> list[Goal]:
        """A diamond that one push lines up (the line pays once a round)."""
        board = view.board
        goals: list[Goal] = []
        if self.line_level != view.level:
            diamonds = [b for b in board.blocks() if b.material == "diamond" and not b.moving]
            if len(diamonds) == 3:
                if in_line([(b.cx, b.cy) for b in diamonds]):
                    self.line_level = view.level
                else:
                    for b in diamonds:
                        others = [(o.cx, o.cy) for o in diamonds if o is not b]
                        for d in DIRECTIONS:
                            step = STEP[d]
                            px, py = b.cx - step.x, b.cy - step.y
                            if not board.tile_free(px, py) or not can_stop(py * cols + px):
                                continue
                            sx, sy = b.cx, b.cy
                            while board.tile_free(sx + step.x, sy + step.y):
                                sx += step.x
                                sy += step.y
                            if (sx, sy) != (b.cx, b.cy) and in_line([(sx, sy), *others]):
                                goals.append(Goal(py * cols + px, d, 14.0, "line"))
        return goals

    def _ambush(
        self,
        board: BoardView,
        start: int,
        order: list[int],
        dist: list[int],
        parent: list[int],
        bee: list[int],
        grid: tuple[int, ...],
    ) -> Direction | None:
        """Head for (or stay at) a cell next to a slideable block with a long free run beyond it, a few
        steps from the nearest Sno-Bee, with more than one way out."""
        cols, rows = board.cols, board.rows
        slide = slide_map(board)
        neighbours = self._paths.neighbours
        best = start
        best_score = -1e9
        for cell in order:
            reach = dist[cell]
            if reach > AMBUSH_REACH:
                break
            x, y = cell % cols, cell // cols
            lanes = 0
            exits = 0
            for d, there in neighbours[cell]:
                if not grid[there]:
                    exits += 1
                    continue
                if not slide[there]:
                    continue
                sx, sy = STEP[d]
                run = 0
                bx, by = x + 2 * sx, y + 2 * sy
                while run < 6 and 0 <= bx < cols and 0 <= by < rows and not grid[by * cols + bx]:
                    run += 1
                    bx += sx
                    by += sy
                lanes += run
            near = bee[cell]
            score = min(lanes, 10) - 0.3 * reach - 0.5 * abs(min(near, 12) - 5) + self._noise(cell)
            if exits <= 1:
                score -= 3
            if near < 8:
                score += OPEN_WEIGHT * (self._open[cell] - 12)
            if score > best_score:
                best, best_score = cell, score
        if best == start:
            return None
        return self._paths.first_step(start, best, parent)
