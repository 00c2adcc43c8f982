"""The whole-game bot: pengo-versus 2's (and 3's) "competent" — the competent bot, and it gathers the
diamonds, counters the attacks pending against it, widens its margins while hurried and opens each life
its own way (see `WholeGameBot`).
"""

from __future__ import annotations

from collections.abc import Callable

from rules.kick.geometry import CELL_PX, DIRECTIONS, STEP

from ..inputs import NEUTRAL
from ..view import BoardView, SeatView
from .competent import KICK_SLACK, SLACK, CompetentBot
from .seeing import ACTIVE, STEPS
from .targets import Goal, in_line, line_distance

__all__ = [
    "COUNTER_BONUS",
    "LINE_CLEAR_DISCOUNT",
    "LINE_STEP_MAX",
    "LINE_STEP_VALUE",
    "LINE_VALUE",
    "OPENING_CLEAR",
    "PAYING",
    "START_WAIT",
    "WholeGameBot",
]

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
PAYING = ("crush", "eat", "egg", "line")


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
                       for e in view.enemies() if e.phase in ACTIVE)
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

    def _score(self, goal: Goal, dist: list[int], bee: list[int]) -> float:
        score = super()._score(goal, dist, bee)
        if self._pending and goal.why in PAYING:
            score += COUNTER_BONUS
        return score

    def _line_goals(self, view: SeatView, can_stop: Callable[[int], bool], cols: int) -> list[Goal]:
        """Pushes that line the diamonds up or gather them, and ice to clear for such a push."""
        if self.line_level == view.level:
            return []
        board = view.board
        diamonds = [b for b in board.blocks() if b.material == "diamond"]
        if len(diamonds) != 3 or any(b.moving or b.breaking for b in diamonds):
            return []
        cells = [(b.cx, b.cy) for b in diamonds]
        if in_line(cells):
            self.line_level = view.level
            return []
        rows = board.rows
        now = line_distance(cells, cols, rows)
        goals: list[Goal] = []
        for i, (x, y) in enumerate(cells):
            others = cells[:i] + cells[i + 1 :]
            for d, sx, sy in STEPS:
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
                if in_line(moved):
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
                    goals.append(Goal(py * cols + px, d, value, why))
        return [goal for goal in goals if goal.cell >= 0]

    @staticmethod
    def _clear_goal(
        board: BoardView, bx: int, by: int, value: float, can_stop: Callable[[int], bool], cols: int
    ) -> Goal:
        """Kick the ice block at (bx, by) away (or break it) from the nearest free side Pengo can stop
        at; a goal with cell -1 when there is none."""
        for d, sx, sy in STEPS:
            px, py = bx - sx, by - sy
            if board.tile_free(px, py) and can_stop(py * cols + px):
                return Goal(py * cols + px, d, value, "line-clear")
        return Goal(-1, None, 0.0, "line-clear")
