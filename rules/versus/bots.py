"""Versus bots: one input byte per frame, decided from what a player sees.

Every bot is a `Bot`: `decide(view, frame)` with the seat's read-only `SeatView` (rules/versus/view.py),
the way a player reads the screen: the blocks (material, whether one slides, shatters or moves), the
visible enemies (position, facing, visible phase, blinking), Pengo (position, facing, whether he can
walk), the status and the egg blocks while the eggs flash (when they are on screen: the bot may
remember them, by block, so a kicked egg block is followed). It cannot read the random stream, a
slot's mode or timers, or hidden eggs, and it cannot change the match.

The server ("play a bot"), `floe match`, the benchmarks and the golden regeneration all build bots
with `make_bot(name, seat_seed(match_seed, seat))`: one formula for a seat's bot seed. `Bot` and
`seat_seed` are rules/ruleset.py's (every ruleset's bots have that shape); they are re-exported here.

Every choice a bot makes is drawn from its own `KickRandom`, so a bot is a pure function of its seed
and what it has seen. Bots decide cheaply between cell centres (they keep holding) and search only
when Pengo is at, or a few pixels from, a cell centre: the engine reads the stick and the kick button
only there ($3EF4, $3F85).

The kick is an edge: the engine takes a kick only at a centre sample, and a new kick needs the button
seen released at an earlier sample, so a bot presses for one frame and releases for at least one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

from rules.kick.geometry import CELL_PX, DIRECTIONS, OPPOSITE, STEP, Direction
from rules.kick.rng import KickRandom
from rules.ruleset import Bot, seat_seed

from .inputs import KICK_BIT, NEUTRAL, encode_input
from .tables import RULESET_VERSION
from .twister import Twister
from .view import BoardView, EnemyView, SeatView

__all__ = [
    "BOTS",
    "BOTS_BY_VERSION",
    "BOT_NAMES",
    "Bot",
    "CompetentBot",
    "LazyBot",
    "RandomBot",
    "WholeGameBot",
    "make_bot",
    "seat_seed",
]

#: Plan for the next cell centre once Pengo is this many pixels (or fewer) from it: the engine's turn
#: assist ($3EA6) then steers toward that centre, and the plan is at most a few frames old when used.
DECIDE_PX = 3
#: Frames between two presses of the kick button (one frame pressed, at least one released).
PRESS_GAP = 3
#: How far (in cells of walking) the competent bot looks for something to do, and for an ambush cell.
HORIZON = 14
AMBUSH_REACH = 8

_BYTES: dict[tuple[Direction | None, bool], int] = {
    (direction, kick): encode_input(direction, kick)
    for direction in (None, *DIRECTIONS)
    for kick in (False, True)
}
_STEPS: tuple[tuple[Direction, int, int], ...] = tuple((d, STEP[d].x, STEP[d].y) for d in DIRECTIONS)
#: Phases of a Sno-Bee that can reach Pengo (hatching ones soon), and of one a slide crushes.
_ACTIVE = ("moving", "pause", "hatching")
_TARGETS = ("moving", "pause", "stunned")




def bot_random(seed: int, salt: int) -> KickRandom:
    """A KickRandom for a bot; the low byte is made odd, which puts it on a longest cycle."""
    mixed = (seed * 0x9E37 + salt * 0x3B1 + (seed >> 16) * 0x61) & 0xFFFF
    return KickRandom(mixed | 1)


def _next_centre(view: SeatView) -> tuple[int, int, bool] | None:
    """The cell centre Pengo decides at next (x, y, at it now), or None while it is too far away."""
    player = view.player
    px, py = player.px, player.py
    if px % CELL_PX == 0 and py % CELL_PX == 0:
        return px // CELL_PX, py // CELL_PX, True
    step = STEP[player.facing]
    offset = (px if step.x else py) % CELL_PX
    distance = CELL_PX - offset if step.x + step.y > 0 else offset
    if distance > DECIDE_PX:
        return None
    return (px + step.x * distance) // CELL_PX, (py + step.y * distance) // CELL_PX, False


class LazyBot:
    """Wanders: holds a random direction for 0.5–2 s (or until blocked), kicks at random now and then."""

    def __init__(self, seed: int) -> None:
        self.rng = bot_random(seed, 0x1A)
        self.held: Direction | None = None
        self.until = 0
        self.last_press = -PRESS_GAP

    def decide(self, view: SeatView, frame: int) -> int:
        """Keep wandering; maybe kick."""
        if view.status != "playing":
            return NEUTRAL
        rng = self.rng
        blocked = False
        if self.held is not None:
            player = view.player
            if player.walking and player.px % CELL_PX == 0 and player.py % CELL_PX == 0:
                step = STEP[self.held]
                cx, cy = player.px // CELL_PX, player.py // CELL_PX
                blocked = not view.board.tile_free(cx + step.x, cy + step.y)
        if frame >= self.until or (blocked and rng.chance(4)):
            choice = rng.below(6)
            self.held = None if choice >= 4 else DIRECTIONS[choice]
            self.until = frame + 30 + rng.below(91)
        kick = False
        if frame - self.last_press >= PRESS_GAP and rng.chance(40):
            kick = True
            self.last_press = frame
        return _BYTES[(self.held, kick)]


class _Goal:
    """Something worth doing from a cell: a kick in a direction (or, with kick None, walking onto it)."""

    __slots__ = ("cell", "kick", "value", "why")

    def __init__(self, cell: int, kick: Direction | None, value: float, why: str) -> None:
        self.cell = cell
        self.kick = kick
        self.value = value
        self.why = why


#: Sno-Bee distance of a cell no Sno-Bee can walk to.
FAR = 99
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
        self._geometry: tuple[int, int] = (0, 0)
        self._neighbours: list[tuple[tuple[Direction, int], ...]] = []
        self._adjacent: list[tuple[int, ...]] = []
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
            return _BYTES[(self.held, False)]
        centre = _next_centre(view)
        if centre is None:
            return _BYTES[(self.held, False)]
        x, y, here = centre
        if self.planned == (x, y):
            if self.kick_dir is not None and here:
                return self._press(view, x, y, frame)
            if not here or player.moving:
                return _BYTES[(self.held, False)]
            if frame % 4:  # standing at a centre: a full search every fourth frame, a crush check always
                shot = self._best_shot(view, x, y)
                if shot is not None:
                    self._kick(shot)
                    return self._press(view, x, y, frame)
                return _BYTES[(self.held, False)]
        self.planned = (x, y)
        self._plan(view, x, y)
        if here and self.kick_dir is not None:
            return self._press(view, x, y, frame)
        return _BYTES[(self.held, False)]

    def _press(self, view: SeatView, x: int, y: int, frame: int) -> int:
        """Press the kick planned at this centre (once the button has been up long enough)."""
        direction = self.kick_dir
        assert direction is not None
        if frame - self.last_press < PRESS_GAP:
            return _BYTES[(direction, False)]
        if not self._kick_still_good(view.board, x, y, direction):
            self.kick_dir = None
            self.planned = None
            return _BYTES[(None, False)]
        self.last_press = frame
        self.kick_dir = None
        self.planned = None
        self.held = None
        return _BYTES[(direction, True)]

    def _remember_eggs(self, view: SeatView) -> None:
        """While the eggs flash they are on screen: note which blocks hold one."""
        for block_id in view.egg_blocks():
            if block_id not in self.eggs:
                self.eggs[block_id] = None

    # ---- geometry ----------------------------------------------------------------------------------

    def _setup(self, cols: int, rows: int) -> None:
        if self._geometry == (cols, rows):
            return
        self._geometry = (cols, rows)
        neighbours: list[tuple[tuple[Direction, int], ...]] = []
        for i in range(cols * rows):
            x, y = i % cols, i // cols
            neighbours.append(
                tuple(
                    (d, (y + sy) * cols + x + sx)
                    for d, sx, sy in _STEPS
                    if 0 <= x + sx < cols and 0 <= y + sy < rows
                )
            )
        self._neighbours = neighbours
        self._adjacent = [tuple(there for _d, there in around) for around in neighbours]

    # ---- what is on the board ----------------------------------------------------------------------

    @staticmethod
    def _enemies(enemies: tuple[EnemyView, ...]) -> tuple[list[EnemyView], list[EnemyView]]:
        """(dangerous: paused, moving or hatching; stunned, blinking or not) Sno-Bees."""
        active: list[EnemyView] = []
        stunned: list[EnemyView] = []
        for e in enemies:
            phase = e.phase
            if phase in _ACTIVE:
                active.append(e)
            elif phase == "stunned":
                stunned.append(e)
        return active, stunned

    @staticmethod
    def _slideable(board: BoardView, x: int, y: int) -> bool:
        block = board.block_at(x, y)
        return block is not None and not block.breaking and block.slides

    def _best_shot(self, view: SeatView, x: int, y: int) -> Direction | None:
        """The kick from (x, y) that crushes the most Sno-Bees, or None."""
        targets = [e for e in view.enemies() if e.phase in _TARGETS]
        if not targets:
            return None
        best: Direction | None = None
        best_count = 0
        board = view.board
        for d in DIRECTIONS:
            count = self._crush_count(board, x, y, d, targets)
            if count > best_count:
                best, best_count = d, count
        return best

    def _crush_count(self, board: BoardView, x: int, y: int, d: Direction, targets: list[EnemyView]) -> int:
        """Sno-Bees a kick from (x, y) toward d crushes: the block next to Pengo must slide, and a
        target must be on the free run beyond it, close enough to the line to be caught on arrival."""
        sx, sy = STEP[d].x, STEP[d].y
        if not self._slideable(board, x + sx, y + sy):
            return 0
        bx, by = x + 2 * sx, y + 2 * sy
        if not board.tile_free(bx, by):
            return 0
        run = 0
        while board.tile_free(bx + run * sx, by + run * sy):
            run += 1
        count = 0
        for e in targets:
            ex, ey = e.px, e.py
            if sx:
                along, perp, line, start = ex, ey, y * CELL_PX, bx * CELL_PX
            else:
                along, perp, line, start = ey, ex, x * CELL_PX, by * CELL_PX
            delta = (along - start) * (sx + sy)  # pixels along the run from its first cell
            if delta < -8 or delta > (run - 1) * CELL_PX + 8:
                continue
            offset = perp - line
            if offset == 0:
                count += 1
                continue
            if abs(offset) > 7:
                continue
            if e.phase != "moving":
                count += 1
                continue
            # Moving across the line: where it will be when the block gets there (a pixel per ~11
            # passes for the Sno-Bee, per 3 for the block, plus a frame before the kick).
            cells = 1 + delta / CELL_PX
            drift = (13 + cells * 48) / 11
            es = STEP[e.facing]
            moving = es.y if sx else es.x
            if abs(offset + moving * drift) <= 7:
                count += 1
        return count

    @staticmethod
    def _kick_still_good(board: BoardView, x: int, y: int, d: Direction) -> bool:
        """Re-check a planned kick at the centre it was planned for: a block (or the border) is there."""
        nx, ny = x + STEP[d].x, y + STEP[d].y
        if not board.inside(nx, ny):
            return True
        block = board.block_at(nx, ny)
        return block is not None and not block.breaking

    # ---- the plan ----------------------------------------------------------------------------------

    def _plan(self, view: SeatView, x: int, y: int) -> None:
        """Decide what to do at centre (x, y): set self.held (walk) or self.kick_dir (kick there)."""
        self.searches += 1
        board = view.board
        cols, rows = board.cols, board.rows
        self._setup(cols, rows)
        self.kick_dir = None
        # 1. A crush from here.
        shot = self._best_shot(view, x, y)
        if shot is not None:
            self.intent = "crush"
            self._kick(shot)
            return
        active, stunned = self._enemies(view.enemies())
        hunters = [e for e in active if e.phase != "hatching"]
        start = y * cols + x
        grid = board.occupancy()
        self._open = self._openness(grid, cols, rows)
        bee = self._bee_distance(active, grid, cols, rows)
        # 2. A shake on Sno-Bees walking along the border Pengo stands on.
        side = self._shake(board, x, y, hunters)
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
        dist, parent, order = self._search(start, grid, bee, self._slack)
        self._jitter = rng.below(64)
        best: _Goal | None = None
        best_score = 0.0
        for goal in self._goals(view, hunters, stunned, dist, bee, cols):
            score = self._score(goal, dist, bee)
            if score > best_score:
                best, best_score = goal, score
        if best is not None:
            self.intent = best.why
            if best.cell != start:
                self.held = self._first_step(start, best.cell, parent)
                return
            if best.kick is not None:
                self._kick(best.kick)
                return
        # 5. Nothing to do: wait in ambush.
        self.intent = "ambush"
        self.held = self._ambush(board, start, order, dist, parent, bee, grid)

    def _margins(self, view: SeatView) -> None:
        """Set this decision's safety margins (the competent bot keeps SLACK and KICK_SLACK)."""

    def _score(self, goal: _Goal, dist: list[int], bee: list[int]) -> float:
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
        width = cols + 1
        total = [0] * (width * (rows + 1))  # a summed-area table of free cells
        for y in range(rows):
            row = 0
            base = y * cols
            for x in range(cols):
                row += not grid[base + x]
                total[(y + 1) * width + x + 1] = total[y * width + x + 1] + row
        out = [0] * (cols * rows)
        for y in range(rows):
            y0, y1 = max(0, y - 2), min(rows, y + 3)
            for x in range(cols):
                x0, x1 = max(0, x - 2), min(cols, x + 3)
                top, low = y0 * width, y1 * width
                out[y * cols + x] = total[low + x1] - total[top + x1] - total[low + x0] + total[top + x0]
        self._open_grid = grid
        return out

    def _noise(self, cell: int) -> float:
        """A small per-decision tie-breaker for a cell (0 to 0.47), from one draw per search."""
        return ((cell * 37 + self._jitter) & 15) / 32

    def _kick(self, d: Direction) -> None:
        self.kick_dir = d
        self.held = d

    def _bee_distance(
        self, active: list[EnemyView], grid: tuple[int, ...], cols: int, rows: int
    ) -> list[int]:
        """Steps each cell is from the nearest Sno-Bee over free cells (FAR: none can walk there).

        A Sno-Bee between two centres counts from both; a hatching one from its egg block, a step late.
        """
        size = cols * rows
        dist = [FAR] * size
        queue: deque[int] = deque()
        for e in active:
            delay = 1 if e.phase == "hatching" else 0
            for cx, cy in (
                (e.px // CELL_PX, e.py // CELL_PX),
                ((e.px + CELL_PX - 1) // CELL_PX, (e.py + CELL_PX - 1) // CELL_PX),
            ):
                cell = cy * cols + cx
                if 0 <= cell < size and dist[cell] > delay:
                    dist[cell] = delay
                    queue.append(cell)
        adjacent = self._adjacent
        while queue:
            here = queue.popleft()
            depth = dist[here] + 1
            for there in adjacent[here]:
                if dist[there] > depth and not grid[there]:
                    dist[there] = depth
                    queue.append(there)
        return dist

    def _search(
        self, start: int, grid: tuple[int, ...], bee: list[int], slack: int, depth0: int = 0
    ) -> tuple[list[int], list[int], list[int]]:
        """Breadth-first over free cells Pengo reaches `slack` steps before any Sno-Bee could:
        (distance, parent) per cell, -1 when unreached, and the cells in the order reached."""
        size = len(grid)
        dist = [-1] * size
        parent = [-1] * size
        dist[start] = depth0
        order = [start]
        adjacent = self._adjacent
        index = 0
        while index < len(order):
            here = order[index]
            index += 1
            depth = dist[here] + 1
            if depth > HORIZON:
                continue
            for there in adjacent[here]:
                if dist[there] < 0 and not grid[there] and bee[there] - depth >= slack:
                    dist[there] = depth
                    parent[there] = here
                    order.append(there)
        return dist, parent, order

    def _first_step(self, start: int, goal: int, parent: list[int]) -> Direction | None:
        cell = goal
        while parent[cell] != start:
            cell = parent[cell]
            if cell < 0:
                return None
        for d, there in self._neighbours[start]:
            if there == cell:
                return d
        return None

    @staticmethod
    def _shake(board: BoardView, x: int, y: int, hunters: list[EnemyView]) -> Direction | None:
        """A border side Pengo stands on with a Sno-Bee walking along it (and no other one close)."""
        cols, rows = board.cols, board.rows
        right, bottom = (cols - 1) * CELL_PX, (rows - 1) * CELL_PX
        sides: tuple[tuple[Direction, bool], ...] = (
            ("left", x == 0),
            ("right", x == cols - 1),
            ("up", y == 0),
            ("down", y == rows - 1),
        )
        for side, on_side in sides:
            if not on_side:
                continue
            walkers = 0
            others_close = False
            for e in hunters:
                on_line = (
                    (side == "left" and e.px == 0)
                    or (side == "right" and e.px == right)
                    or (side == "up" and e.py == 0)
                    or (side == "down" and e.py == bottom)
                )
                near = abs(e.px / CELL_PX - x) + abs(e.py / CELL_PX - y)
                if on_line and e.phase == "moving" and 1.6 <= near <= 6:
                    walkers += 1
                elif near < 2.5:
                    others_close = True
            if walkers and not others_close:
                return side
        return None

    def _flee(self, start: int, grid: tuple[int, ...], bee: list[int]) -> Direction | None:
        """Step to the free neighbour with the most room Pengo reaches before the Sno-Bees do."""
        best: Direction | None = None
        best_score = -1.0
        for d in self.rng_order():
            there = self._step(start, d)
            if there < 0 or grid[there] or bee[there] < 1:
                continue
            room = len(self._search(there, grid, bee, 1, 1)[2])
            score = min(room, ROOM) + 4 * min(bee[there] - 1, 4) + 2 * OPEN_WEIGHT * self._open[there]
            if score > best_score:
                best, best_score = d, score
        return best

    def _step(self, cell: int, d: Direction) -> int:
        for direction, there in self._neighbours[cell]:
            if direction == d:
                return there
        return -1

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
    ) -> list[_Goal]:
        board = view.board
        goals: list[_Goal] = []

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
                if not self._slideable(board, cx, cy):
                    continue
                kx, ky = cx + step.x, cy + step.y
                if not board.tile_free(kx, ky):
                    continue
                cell = ky * cols + kx
                if not can_stop(cell):
                    continue
                value = (9.0 if e.phase in ("moving", "pause") else 6.0) - 0.4 * gap
                goals.append(_Goal(cell, OPPOSITE[d], value, "crush"))
        # Stunned Sno-Bees to eat.
        for e in stunned:
            ex, ey = (e.px + CELL_PX // 2) // CELL_PX, (e.py + CELL_PX // 2) // CELL_PX
            cell = ey * cols + ex
            if 0 <= cell < len(dist) and dist[cell] >= 0:
                if e.blinking and dist[cell] > 3:
                    continue
                goals.append(_Goal(cell, None, 8.0, "eat"))
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
                    goals.append(_Goal(py * cols + px, d, 5.0, "egg"))
        goals += self._line_goals(view, can_stop, cols)
        return goals

    def _line_goals(self, view: SeatView, can_stop: Callable[[int], bool], cols: int) -> list[_Goal]:
        """A diamond that one push lines up (the line pays once a round)."""
        board = view.board
        goals: list[_Goal] = []
        if self.line_level != view.level:
            diamonds = [b for b in board.blocks() if b.material == "diamond" and not b.moving]
            if len(diamonds) == 3:
                if _in_line([(b.cx, b.cy) for b in diamonds]):
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
                            if (sx, sy) != (b.cx, b.cy) and _in_line([(sx, sy), *others]):
                                goals.append(_Goal(py * cols + px, d, 14.0, "line"))
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
        slide = self._slide_map(board)
        neighbours = self._neighbours
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
        return self._first_step(start, best, parent)

    @staticmethod
    def _slide_map(board: BoardView) -> bytearray:
        """1 for every cell holding a resting, unbroken block that slides when kicked."""
        cols = board.cols
        slide = bytearray(cols * board.rows)
        for block in board.blocks():
            if not block.moving and not block.breaking and block.slides:
                slide[block.cy * cols + block.cx] = 1
        return slide


def _in_line(cells: list[tuple[int, int]]) -> bool:
    """Are the cells side by side in one row or one column?"""
    xs = sorted(c[0] for c in cells)
    ys = sorted(c[1] for c in cells)
    if len(set(ys)) == 1:
        return all(xs[i] + 1 == xs[i + 1] for i in range(len(xs) - 1))
    if len(set(xs)) == 1:
        return all(ys[i] + 1 == ys[i + 1] for i in range(len(ys) - 1))
    return False


#: A push that lines the diamonds up is worth the competent bot's 14 (more than any crush: the line
#: pays 12 units and stuns every Sno-Bee).
LINE_VALUE = 14.0
#: A push that brings the diamonds closer to a line (`line_distance` falls by n) is worth
#: LINE_STEP_VALUE + n, at most LINE_STEP_MAX: below a good crush, above waiting in ambush, so the
#: bot gathers the diamonds in the lulls and crushes when it can.
LINE_STEP_VALUE = 4.0
LINE_STEP_MAX = 8.0
#: Clearing the ice in front of a diamond so that the push after it gathers them: one less.
LINE_CLEAR_DISCOUNT = 1.5
#: With attacks pending against the seat, a goal that pays units when it is done gains this much:
#: units sent now cancel the pending ones (offset), so a crush now beats gathering diamonds.
COUNTER_BONUS = 5.0
#: Frames the whole-game bot may wait before its first move of a life (a reaction, drawn from its own
#: seed): two seats' bots on one deal, whose attacks of a frame cross simultaneously, must part ways
#: early, or a mirror match is played move for move alike to a draw (a tenth of them were; waits
#: alone left 5 %: the boards fall back into step, hence the opening step too).
START_WAIT = 30
#: The first step of a life goes in a drawn direction (so two seats' boards part ways: Sno-Bees that
#: hunt read Pengo's cell) unless a Sno-Bee is this near (Manhattan cells).
OPENING_CLEAR = 4
#: The goals that pay units when they are done.
_PAYING = ("crush", "eat", "egg", "line")


def _median(values: list[int]) -> int:
    return sorted(values)[len(values) // 2]


def line_distance(cells: Sequence[tuple[int, int]], cols: int, rows: int) -> int:
    """How far three cells are from a line: the fewest cell steps (Manhattan, summed) that would put
    them side by side in one row or one column of a cols × rows board (0: they are a line)."""
    best = 1 << 30
    for along, across, length, width in ((0, 1, cols, rows), (1, 0, rows, cols)):
        line = min(max(_median([c[across] for c in cells]), 0), width - 1)
        ordered = sorted(c[along] for c in cells)
        shifted = [value - index for index, value in enumerate(ordered)]
        start = min(max(_median(shifted), 0), length - len(cells))
        cost = sum(abs(c[across] - line) for c in cells) + sum(abs(v - start) for v in shifted)
        best = min(best, cost)
    return best


class WholeGameBot(CompetentBot):
    """The competent bot playing the whole versus game (pengo-versus 2's "competent"): everything
    CompetentBot does, and

    - gathers the diamonds: a push that lines them up is worth LINE_VALUE; one that brings them
      closer to a line (`line_distance`) is worth a little, and so is clearing the ice in front of a
      diamond for such a push (each diamond slides to the next block or the border, and Pengo pushes
      from the free cell behind it), so the bot gathers them in the lulls between crushes;
    - counters: while attacks are pending against it (`SeatView.incoming`), goals that pay units now
      gain COUNTER_BONUS (a crush that offsets beats gathering diamonds);
    - keeps a wider berth while a landing's hurry lasts (`SeatView.hurried`: the Sno-Bees are faster
      than the step counts assume): one step more on both safety margins;
    - opens each life its own way: a reaction of up to START_WAIT frames once Pengo can move, then a
      step in a direction drawn from its seed (two seats on one deal must part ways, see START_WAIT).
    """

    def __init__(self, seed: int, opening: bool = True) -> None:
        """`opening`: wait and step aside at the start of each life (off: a constructed scene decides
        from its first frame)."""
        super().__init__(seed)
        self._pending = 0
        self._openings = opening
        self._was_playing = False
        self._wait_until = 0
        self._opening = False

    def decide(self, view: SeatView, frame: int) -> int:
        """As the competent bot, after an opening at the start of each life: a reaction of 0 to
        START_WAIT − 1 frames, then a first step in a direction drawn from its seed (see _plan)."""
        if view.status != "playing":
            self._was_playing = False
        elif not self._was_playing and view.player.walking:  # Pengo can move: the life starts now
            self._was_playing = True
            if self._openings:
                self._wait_until = frame + self._draw(START_WAIT)
                self._opening = True
        if frame < self._wait_until:
            return NEUTRAL
        return super().decide(view, frame)

    def _plan(self, view: SeatView, x: int, y: int) -> None:
        """The first decision of a life is a step to a free neighbour in a direction drawn from the bot's
        seed, unless a Sno-Bee is within OPENING_CLEAR cells; every other one is the competent bot's."""
        if self._opening:
            self._opening = False
            board = view.board
            near = any(abs(e.px / CELL_PX - x) + abs(e.py / CELL_PX - y) <= OPENING_CLEAR
                       for e in view.enemies() if e.phase in _ACTIVE)
            k = self._draw(4)
            order = DIRECTIONS[k:] + DIRECTIONS[:k]
            free = [d for d in order if board.tile_free(x + STEP[d].x, y + STEP[d].y)]
            if free and not near:
                self.searches += 1
                self.kick_dir = None
                self.intent = "opening"
                self.held = free[0]
                return
        super()._plan(view, x, y)

    def _draw(self, n: int) -> int:
        """A number in [0, n) from the high bits of one byte of the bot's generator (its low bits repeat
        with short periods: below(4) after below(30) gives the same number for every seed)."""
        return (self.rng.byte() * n) >> 8

    def _noise(self, cell: int) -> float:
        """A per-decision tie-breaker for a cell, twice the competent bot's (0 to 0.97): two seats'
        bots on one deal, whose attacks of a frame cross simultaneously, must part ways early; with
        the smaller one a tenth of the mirror matches were played move for move alike to a draw."""
        return ((cell * 37 + self._jitter) & 31) / 32

    def _margins(self, view: SeatView) -> None:
        hurried = 1 if view.hurried else 0
        self._slack = SLACK + hurried
        self._kick_slack = KICK_SLACK + hurried
        self._pending = sum(packet.units for packet in view.incoming)

    def _score(self, goal: _Goal, dist: list[int], bee: list[int]) -> float:
        score = super()._score(goal, dist, bee)
        if self._pending and goal.why in _PAYING:
            score += COUNTER_BONUS
        return score

    def _line_goals(self, view: SeatView, can_stop: Callable[[int], bool], cols: int) -> list[_Goal]:
        """Pushes that line the diamonds up or gather them, and ice to clear for such a push."""
        if self.line_level == view.level:
            return []
        board = view.board
        diamonds = [b for b in board.blocks() if b.material == "diamond"]
        if len(diamonds) != 3 or any(b.moving or b.breaking for b in diamonds):
            return []
        cells = [(b.cx, b.cy) for b in diamonds]
        if _in_line(cells):
            self.line_level = view.level
            return []
        rows = board.rows
        now = line_distance(cells, cols, rows)
        goals: list[_Goal] = []
        for i, (x, y) in enumerate(cells):
            others = cells[:i] + cells[i + 1 :]
            for d, sx, sy in _STEPS:
                px, py = x - sx, y - sy
                if not board.tile_free(px, py):
                    continue
                front = board.block_at(x + sx, y + sy)
                clear = front is not None and front.material == "ice" and not (front.breaking or front.moving)
                if not clear and not board.tile_free(x + sx, y + sy):
                    continue
                nx, ny = x + sx, y + sy  # the slide, with the ice in front cleared when it must be
                while board.tile_free(nx + sx, ny + sy):
                    nx += sx
                    ny += sy
                moved = [*others, (nx, ny)]
                if _in_line(moved):
                    value, why = LINE_VALUE, "line"
                else:
                    gain = now - line_distance(moved, cols, rows)
                    if gain <= 0:
                        continue
                    value, why = min(LINE_STEP_VALUE + gain, LINE_STEP_MAX), "line-setup"
                if clear:
                    value -= LINE_CLEAR_DISCOUNT
                    goals.append(self._clear_goal(board, x + sx, y + sy, value, can_stop, cols))
                elif can_stop(py * cols + px):
                    goals.append(_Goal(py * cols + px, d, value, why))
        return [goal for goal in goals if goal.cell >= 0]

    @staticmethod
    def _clear_goal(
        board: BoardView, bx: int, by: int, value: float, can_stop: Callable[[int], bool], cols: int
    ) -> _Goal:
        """Kick the ice block at (bx, by) away (or break it) from the nearest free side Pengo can stop
        at; a goal with cell -1 when there is none."""
        for d, sx, sy in _STEPS:
            px, py = bx - sx, by - sy
            if board.tile_free(px, py) and can_stop(py * cols + px):
                return _Goal(py * cols + px, d, value, "line-clear")
        return _Goal(-1, None, 0.0, "line-clear")


class RandomBot:
    """Holds a random direction (or none) for a random while and taps kick at random; sees nothing.

    Its draws are CPython's `random.Random(seed)` ones (rules/versus/twister.py): it played the golden
    replay `duel-random-busy` with them.
    """

    def __init__(self, seed: int) -> None:
        self.rng = Twister(seed)
        self.held = NEUTRAL
        self.frames_left = 0

    def decide(self, view: object, frame: int) -> int:
        """The next input byte (the view is not looked at)."""
        rng = self.rng
        if self.frames_left <= 0:
            self.held = encode_input(rng.choice((None, *DIRECTIONS)))
            self.frames_left = 4 + rng.below(40)
        self.frames_left -= 1
        return self.held | (KICK_BIT if rng.below(12) == 0 else 0)


#: Every bot by name.
BOTS: dict[str, Callable[[int], Bot[SeatView]]] = {
    "competent": CompetentBot,
    "lazy": LazyBot,
    "random": RandomBot,
}
#: The bots make_bot knows.
BOT_NAMES: tuple[str, ...] = tuple(BOTS)


#: Every bot by name, per ruleset version: version 1 keeps the bots that played its golden replays.
BOTS_BY_VERSION: dict[int, dict[str, Callable[[int], Bot[SeatView]]]] = {
    1: BOTS,
    2: {**BOTS, "competent": WholeGameBot},
    3: {**BOTS, "competent": WholeGameBot},
}


def make_bot(name: str, seed: int, version: int = RULESET_VERSION) -> Bot[SeatView]:
    """A bot by name ("competent", "lazy" or "random") of a ruleset version, with its own seeded choices."""
    factory = BOTS_BY_VERSION[version].get(name)
    if factory is None:
        raise ValueError(f"bot: unknown bot {name!r}; one of {BOT_NAMES}")
    return factory(seed)
