"""KickBoard: a sliding-block board in whole pixels and main-loop passes.

Positions are kept in pixels (16 per cell, pixel 0 at the centre of column/row 0) and time in
main-loop passes (780 per second), so the board is exact and its snapshots are small integers; the
seed API's cells and seconds are computed at the edge (`x`, `y`, `tick(dt)`).

Arcade semantics the board keeps (PENGO-RULES §3):
- a sliding block checks, at every cell centre, the cell *two* ahead ($43A1); when that one is not
  free it reserves the next cell at once ($4422), so nobody may enter the cell it will stop in;
- a shattering block keeps its cell until it is gone; from the second half of an ice break a sliding
  or kicked block treats the cell as free ($43A1: tiles $70–$7F), and a block that reserves such a
  cell cancels the break silently ($49AF);
- the board's own tests read resting blocks only (`tile_free`): a sliding block never makes a cell
  "not free" to walkers, as on the arcade, while the seed API's `free` also counts sliding blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from .config import ConfigError, KickGoal, KickMaterial, check_integer, check_number
from .events import BreakStart, Broken, Crack, KickBoardEvent, SlideStart, SlideStep, SlideStop
from .geometry import CELL_PX, DIRECTIONS, STEP, Cell, Direction
from .tables import PENGO_LOOP_HZ
from .timers import passes_for_seconds, period_for_speed, ticks_due

#: Called at each cell centre of a slide with (next cell x, y, block): True stops the block short.
Obstacle = Callable[[int, int, "Block"], bool]
#: Called at each cell centre of a slide before the stop check (the session catches enemies here).
CentreHook = Callable[["Block"], None]


class Motion:
    """A sliding block's motion."""

    __slots__ = (
        "dir",
        "by",
        "travelled",
        "from_x",
        "from_y",
        "num",
        "den",
        "counter",
        "next_pass",
        "stopping",
        "limit",
    )

    def __init__(
        self, direction: Direction, by: str, from_cell: Cell, period: Fraction, now: int, limit: int | None
    ) -> None:
        self.dir: Direction = direction
        self.by = by
        self.travelled = 0
        self.from_x, self.from_y = from_cell
        self.num = period.numerator
        self.den = period.denominator
        self.counter = 0
        self.next_pass = now + -(-self.num // self.den)
        self.counter = (self.next_pass - now) * self.den - self.num
        self.stopping = False
        self.limit = limit

    def advance(self) -> None:
        """Schedule the next pixel after one was taken on next_pass."""
        steps = -(-(self.num - self.counter) // self.den)
        self.next_pass += steps
        self.counter += steps * self.den - self.num

    def plain(self) -> list[Any]:
        return [
            self.dir,
            self.by,
            self.travelled,
            self.from_x,
            self.from_y,
            self.num,
            self.den,
            self.counter,
            self.next_pass,
            self.stopping,
            self.limit,
        ]

    @classmethod
    def from_plain(cls, data: list[Any]) -> Motion:
        motion = cls.__new__(cls)
        (
            motion.dir,
            motion.by,
            motion.travelled,
            motion.from_x,
            motion.from_y,
            motion.num,
            motion.den,
            motion.counter,
            motion.next_pass,
            motion.stopping,
            motion.limit,
        ) = data
        return motion


class Breaking:
    """A shattering block: gone on pass `due`; a block may slide over it from pass `passable`."""

    __slots__ = ("by", "started", "due", "passable")

    def __init__(self, by: str, started: int, due: int, passable: int | None) -> None:
        self.by = by
        self.started = started
        self.due = due
        self.passable = passable

    def plain(self) -> list[Any]:
        return [self.by, self.started, self.due, self.passable]


class Block:
    """A block: live record (read it; change it only through the board)."""

    __slots__ = ("id", "material", "cx", "cy", "px", "py", "egg", "damage", "motion", "breaking")

    def __init__(self, block_id: int, material: str, x: int, y: int, egg: str | None = None) -> None:
        self.id = block_id
        self.material = material
        self.cx = x
        self.cy = y
        self.px = x * CELL_PX
        self.py = y * CELL_PX
        self.egg = egg
        self.damage = 0
        self.motion: Motion | None = None
        self.breaking: Breaking | None = None

    @property
    def cell(self) -> Cell:
        """The cell it occupies (its current cell while sliding)."""
        return Cell(self.cx, self.cy)

    @property
    def x(self) -> float:
        """Continuous column in cell units."""
        return self.px / CELL_PX

    @property
    def y(self) -> float:
        """Continuous row in cell units."""
        return self.py / CELL_PX

    def plain(self) -> list[Any]:
        return [
            self.id,
            self.material,
            self.cx,
            self.cy,
            self.px,
            self.py,
            self.egg,
            self.damage,
            None if self.motion is None else self.motion.plain(),
            None if self.breaking is None else self.breaking.plain(),
        ]

    @classmethod
    def from_plain(cls, data: list[Any]) -> Block:
        block = cls.__new__(cls)
        (
            block.id,
            block.material,
            block.cx,
            block.cy,
            block.px,
            block.py,
            block.egg,
            block.damage,
            motion,
            breaking,
        ) = data
        block.motion = None if motion is None else Motion.from_plain(motion)
        block.breaking = None if breaking is None else Breaking(*breaking)
        return block


@dataclass(frozen=True)
class KickBlockState:
    """A copy of a block's visible state, in cell units and seconds."""

    id: int
    material: str
    cell: Cell
    x: float
    y: float
    egg: str | None
    damage: int
    motion: dict[str, Any] | None
    breaking: dict[str, Any] | None


@dataclass(frozen=True)
class KickBlockSpec:
    """A block placed by a map or by code."""

    x: int
    y: int
    material: str
    egg: str | None = None


@dataclass(frozen=True)
class KickBoardConfig:
    """Configures a KickBoard."""

    cols: int
    rows: int
    materials: tuple[KickMaterial, ...]
    blocks: tuple[KickBlockSpec, ...] = ()
    goals: tuple[KickGoal, ...] = ()
    slide_speed: float = 16.25
    break_seconds: float = 0.35
    #: Arcade timing: breaks end on ticks of `break_tick` passes (Pengo: t32 ticks, $4972), after
    #: `break_ticks` of them, and turn passable to blocks after `passable_ticks`. None: seconds.
    break_tick: int | None = None
    break_ticks: int = 0
    passable_ticks: int | None = None


PushKind = Literal["slide", "break", "crack", "blocked", "busy", "empty", "border"]


@dataclass(frozen=True)
class KickPushResult:
    """What one push did; block is None for empty and border."""

    kind: PushKind
    block: int | None = None
    damage: int = 0


class KickBoard:
    """A sliding-block board. Pure and deterministic: push, break_block, hatch and tick change it."""

    def __init__(self, config: KickBoardConfig) -> None:
        check_integer("cols", config.cols, 1, 1000)
        check_integer("rows", config.rows, 1, 1000)
        check_number("slide_speed", config.slide_speed, 0.1, 1000)
        check_number("break_seconds", config.break_seconds, 0, 30)
        self.cols: int = config.cols
        self.rows: int = config.rows
        self.slide_speed: float = config.slide_speed
        self.break_seconds: float = config.break_seconds
        self.slide_period = period_for_speed(config.slide_speed)
        self._materials: dict[str, KickMaterial] = {}
        for material in config.materials:
            if material.id in self._materials:
                raise ConfigError(f"materials: duplicate material {material.id!r}")
            self._materials[material.id] = material
        self._break_tick = config.break_tick
        self._break_ticks = config.break_ticks
        self._passable_ticks = config.passable_ticks
        self._goals: tuple[KickGoal, ...] = tuple(config.goals)
        for goal in self._goals:
            if not self.inside(goal.x, goal.y):
                raise ConfigError(f"goals: cell ({goal.x}, {goal.y}) is off the board")
        #: Resting, shattering or reserved (a stopping slide's target) block id per cell; 0 = none.
        self.grid: list[int] = [0] * (self.cols * self.rows)
        self.blocks: dict[int, Block] = {}
        self.sliding_blocks: list[Block] = []
        self.breaking_blocks: list[Block] = []
        self.next_id = 1
        self.now = 0
        self._time_debt = 0.0
        self._pending: list[KickBoardEvent] = []
        #: Called when a slide comes to rest (the session settles crushes and lines there).
        self.on_stop: Callable[[Block, Motion], None] | None = None
        #: Each block's last built state, in the board's order, and the tuple of them (None: rebuild);
        #: the blocks changed since; whether blocks came or went since.
        self._views: dict[int, KickBlockState] = {}
        self._states: tuple[KickBlockState, ...] | None = None
        self._changed: set[int] = set()
        self._reordered = True
        for spec in config.blocks:
            self.add(spec)

    # ---- reading -------------------------------------------------------------------------------

    def material(self, material_id: str) -> KickMaterial:
        """The resolved material; raises KeyError for an unknown id."""
        try:
            return self._materials[material_id]
        except KeyError:
            raise KeyError(f"unknown material {material_id!r}") from None

    @property
    def material_ids(self) -> list[str]:
        """Every material id."""
        return list(self._materials)

    def inside(self, x: int, y: int) -> bool:
        """Is (x, y) on the board?"""
        return 0 <= x < self.cols and 0 <= y < self.rows

    @property
    def state(self) -> list[KickBlockState]:
        """A copy of every block."""
        return list(self.block_states())

    def block_states(self) -> tuple[KickBlockState, ...]:
        """Every block's state, in the board's order.

        Kept from call to call: only sliding and shattering blocks and the blocks changed since are
        built again (a resting block's state holds nothing mutable, so it can be shared).
        """
        changed = self._changed
        if self._states is not None and not (changed or self.sliding_blocks or self.breaking_blocks):
            return self._states
        views = self._views
        blocks = self.blocks
        for block_id in changed:
            block = blocks.get(block_id)
            if block is not None:
                views[block_id] = self._state_of(block)
        changed.clear()
        for block in self.sliding_blocks:
            views[block.id] = self._state_of(block)
        for block in self.breaking_blocks:
            views[block.id] = self._state_of(block)
        if self._reordered:  # blocks came or went: follow the board's order
            self._views = views = {
                block_id: views[block_id] if block_id in views else self._state_of(block)
                for block_id, block in blocks.items()
            }
            self._reordered = False
        self._states = tuple(views.values())
        return self._states

    def _forget_states(self) -> None:
        """Every block's state is to be built again (a restored board)."""
        self._views = {}
        self._states = None
        self._changed.clear()
        self._reordered = True

    def _touched(self, block: Block) -> None:
        """A block changed what its state shows outside a slide or a break."""
        self._changed.add(block.id)
        self._states = None

    def _restructured(self) -> None:
        """Blocks came or went."""
        self._reordered = True
        self._states = None

    def _state_of(self, b: Block) -> KickBlockState:
        motion = None
        if b.motion is not None:
            m = b.motion
            motion = {"dir": m.dir, "by": m.by, "travelled": m.travelled, "from": Cell(m.from_x, m.from_y)}
        breaking = None
        if b.breaking is not None:
            br = b.breaking
            breaking = {
                "remaining": max(0, br.due - self.now) / PENGO_LOOP_HZ,
                "by": br.by,
                "total": (br.due - br.started) / PENGO_LOOP_HZ,
            }
        return KickBlockState(b.id, b.material, b.cell, b.x, b.y, b.egg, b.damage, motion, breaking)

    def block(self, block_id: int) -> Block | None:
        """The live block record by id (read-only use)."""
        return self.blocks.get(block_id)

    def block_at(self, x: int, y: int) -> Block | None:
        """The block resting (or shattering) at (x, y); sliding blocks are not at rest anywhere."""
        if not (0 <= x < self.cols and 0 <= y < self.rows):
            return None
        block_id = self.grid[y * self.cols + x]
        if not block_id:
            return None
        block = self.blocks[block_id]
        return None if block.motion is not None else block

    def tile_free(self, x: int, y: int) -> bool:
        """On the board with nothing resting, shattering or reserved there (sliding blocks ignored)."""
        return 0 <= x < self.cols and 0 <= y < self.rows and not self.grid[y * self.cols + x]

    def passable_for_block(self, x: int, y: int, mover: Block | None = None) -> bool:
        """Can a block enter (x, y): free, or an ice break in its second half ($43A1).

        A cell that another sliding block covers is not passable either (the arcade has one moving
        block; with several, blocks must not run through each other).
        """
        if not (0 <= x < self.cols and 0 <= y < self.rows):
            return False
        block_id = self.grid[y * self.cols + x]
        if block_id:
            breaking = self.blocks[block_id].breaking
            if breaking is None or breaking.passable is None or self.now < breaking.passable:
                return False
        if len(self.sliding_blocks) > (0 if mover is None else 1):
            other = self.sliding(x, y)
            if other is not None and other is not mover:
                return False
        return True

    def sliding(self, x: int, y: int) -> Block | None:
        """A sliding block over (x, y): its current cell or the cell it is entering."""
        for b in self.sliding_blocks:
            m = b.motion
            assert m is not None
            if b.cx == x and b.cy == y:
                return b
            step = STEP[m.dir]
            if (
                (b.px != b.cx * CELL_PX or b.py != b.cy * CELL_PX)
                and b.cx + step.x == x
                and b.cy + step.y == y
            ):
                return b
        return None

    def free(self, x: int, y: int) -> bool:
        """On the board with no block at rest, shattering or sliding over it."""
        return self.tile_free(x, y) and self.sliding(x, y) is None

    @property
    def slides(self) -> tuple[Block, ...]:
        """The blocks sliding right now (live records)."""
        return tuple(self.sliding_blocks)

    @property
    def moving(self) -> bool:
        """Is a block moving anywhere?"""
        return bool(self.sliding_blocks)

    @property
    def shattering(self) -> bool:
        """Is a block shattering anywhere?"""
        return bool(self.breaking_blocks)

    def goals(self) -> list[dict[str, Any]]:
        """Goal cells and whether a resting block of their group covers each."""
        out = []
        for goal in self._goals:
            block = self.block_at(goal.x, goal.y)
            covered = (
                block is not None
                and block.breaking is None
                and self._materials[block.material].group == goal.group
            )
            out.append({"x": goal.x, "y": goal.y, "group": goal.group, "covered": covered})
        return out

    @property
    def goals_complete(self) -> bool:
        """True when the board has goals and every one is covered by a resting block of its group."""
        return bool(self._goals) and all(g["covered"] for g in self.goals())

    # ---- changing ------------------------------------------------------------------------------

    def add(self, spec: KickBlockSpec) -> int:
        """Place a block; raises ValueError if the cell is taken or off the board. Returns its id."""
        if spec.material not in self._materials:
            raise ValueError(f"material: unknown material {spec.material!r}")
        if not self.inside(spec.x, spec.y):
            raise ValueError(f"cell ({spec.x}, {spec.y}) is off the board")
        if self.grid[spec.y * self.cols + spec.x] or self.sliding(spec.x, spec.y) is not None:
            raise ValueError(f"cell ({spec.x}, {spec.y}) is taken")
        if spec.egg is not None and not self._materials[spec.material].egg_holder:
            raise ValueError(f"egg: material {spec.material!r} cannot hold an egg")
        block = Block(self.next_id, spec.material, spec.x, spec.y, spec.egg)
        self.next_id += 1
        self.blocks[block.id] = block
        self.grid[spec.y * self.cols + spec.x] = block.id
        self._restructured()
        return block.id

    def remove(self, block_id: int) -> None:
        """Remove a block at once (no animation, no event)."""
        block = self.blocks.pop(block_id, None)
        if block is None:
            raise KeyError(f"no block {block_id}")
        self._restructured()
        if block.motion is not None:
            self.sliding_blocks.remove(block)
            if block.motion.stopping:
                self._clear_cell(
                    block.cx + STEP[block.motion.dir].x, block.cy + STEP[block.motion.dir].y, block.id
                )
        else:
            self._clear_cell(block.cx, block.cy, block.id)
        if block.breaking is not None:
            self.breaking_blocks.remove(block)

    def _clear_cell(self, x: int, y: int, block_id: int) -> None:
        index = y * self.cols + x
        if 0 <= x < self.cols and 0 <= y < self.rows and self.grid[index] == block_id:
            self.grid[index] = 0

    def push(self, x: int, y: int, direction: Direction, by: str) -> KickPushResult:
        """Kick the block at (x, y) in `direction`.

        A free cell beyond starts a slide (if the material slides and the kick was not from behind
        an immovable obstacle); an obstacle beyond damages a breakable block (crack, then break) and
        otherwise leaves it where it is.
        """
        if direction not in STEP:
            raise ValueError(f"direction: unknown direction {direction!r}")
        if not self.inside(x, y):
            return KickPushResult("border")
        block = self.block_at(x, y)
        if block is None:
            return KickPushResult("empty")
        if block.breaking is not None:
            return KickPushResult("busy", block.id)
        material = self._materials[block.material]
        step = STEP[direction]
        if material.slides and self.passable_for_block(x + step.x, y + step.y):
            self._start_slide(block, direction, by, material.max_slide)
            return KickPushResult("slide", block.id)
        if material.breaks_when_blocked:
            block.damage += 1
            if block.damage >= material.hits:
                self.start_break(block, by)
                return KickPushResult("break", block.id, block.damage)
            self._touched(block)
            self._pending.append(Crack(block.id, block.cell, block.damage))
            return KickPushResult("crack", block.id, block.damage)
        return KickPushResult("blocked", block.id)

    def _start_slide(self, block: Block, direction: Direction, by: str, limit: int | None) -> None:
        self.grid[block.cy * self.cols + block.cx] = 0
        block.motion = Motion(direction, by, block.cell, self.slide_period, self.now, limit)
        self.sliding_blocks.append(block)
        self._pending.append(SlideStart(block.id, block.cell, direction, by))

    def start_break(self, block: Block, by: str, due: int | None = None, passable: bool = True) -> None:
        """Start shattering a resting block; `due` overrides the board's break timing."""
        if block.breaking is not None or block.motion is not None:
            raise ValueError(f"block {block.id} is not at rest")
        if due is None:
            due = self.break_due()
        passable_at = None
        if passable and self._break_tick is not None and self._passable_ticks is not None:
            passable_at = ticks_due(self.now, self._break_tick, self._passable_ticks)
        block.breaking = Breaking(by, self.now, due, passable_at)
        self.breaking_blocks.append(block)
        self._pending.append(BreakStart(block.id, block.cell, by, block.egg, block.material))

    def break_due(self) -> int:
        """The pass on which a break started now ends."""
        if self._break_tick is not None:
            return ticks_due(self.now, self._break_tick, self._break_ticks)
        return self.now + max(1, passes_for_seconds(self.break_seconds))

    def break_block(self, x: int, y: int, by: str, rule: Literal["enemy", "any"] = "any") -> bool:
        """Shatter the resting block at (x, y) if enemy rules allow it (enemy_breakable) or at all."""
        if rule not in ("enemy", "any"):
            raise ValueError(f"rule: must be 'enemy' or 'any', got {rule!r}")
        block = self.block_at(x, y)
        if block is None or block.breaking is not None:
            return False
        if rule == "enemy" and not self._materials[block.material].chewable:
            return False
        self.start_break(block, by)
        return True

    def hatch(self, block_id: int, due: int | None = None) -> bool:
        """Shatter a block from the inside: its egg hatches (the events carry by='hatch')."""
        block = self.blocks.get(block_id)
        if block is None or block.egg is None or block.motion is not None or block.breaking is not None:
            return False
        self.start_break(block, "hatch", due, passable=False)
        return True

    def clear_egg(self, block_id: int) -> None:
        """Remove the egg from a block."""
        block = self.blocks.get(block_id)
        if block is None:
            raise KeyError(f"no block {block_id}")
        block.egg = None
        self._touched(block)

    def set_egg(self, block_id: int, kind: str) -> None:
        """Put an egg of `kind` into a resting block that may hold one."""
        block = self.blocks.get(block_id)
        if block is None:
            raise KeyError(f"no block {block_id}")
        if not self._materials[block.material].egg_holder or block.motion is not None:
            raise ValueError(f"block {block_id} cannot hold an egg")
        block.egg = kind
        self._touched(block)

    def set_material(self, block_id: int, material: str) -> None:
        """Change a resting block's material (a counter gem thawing into ice)."""
        block = self.blocks.get(block_id)
        if block is None or block.motion is not None:
            raise ValueError(f"block {block_id} is not at rest")
        if material not in self._materials:
            raise ValueError(f"material: unknown material {material!r}")
        block.material = material
        self._touched(block)

    def halt(self, block_id: int) -> None:
        """Stop a sliding block where it is (at its cell centre; between cells, back at its cell)."""
        block = self.blocks.get(block_id)
        if block is None or block.motion is None:
            return
        motion = block.motion
        if motion.stopping:
            step = STEP[motion.dir]
            self._clear_cell(block.cx + step.x, block.cy + step.y, block.id)
        if block.px % CELL_PX == 0 and block.py % CELL_PX == 0:
            self._settle(block, block.px // CELL_PX, block.py // CELL_PX)
        else:
            self._settle(block, block.cx, block.cy)

    def _settle(self, block: Block, x: int, y: int) -> None:
        motion = block.motion
        assert motion is not None
        self.sliding_blocks.remove(block)
        block.motion = None
        block.cx, block.cy = x, y
        block.px, block.py = x * CELL_PX, y * CELL_PX
        self._touched(block)
        index = y * self.cols + x
        other = self.grid[index]
        if other and other != block.id:
            if self.blocks[other].breaking is None:
                raise AssertionError(
                    f"block {block.id} settled on resting block {other}"
                )  # a broken invariant
            self._cancel_break(self.blocks[other])
        self.grid[index] = block.id
        group = self._materials[block.material].group
        self._pending.append(SlideStop(block.id, block.cell, motion.dir, motion.by, motion.travelled, group))
        if self.on_stop is not None:
            self.on_stop(block, motion)

    def _cancel_break(self, block: Block) -> None:
        """A block reserved a cell whose ice was breaking: the break ends silently ($49AF)."""
        self.blocks.pop(block.id, None)
        self._restructured()
        if block in self.breaking_blocks:
            self.breaking_blocks.remove(block)
        breaking = block.breaking
        self._pending.append(
            Broken(block.id, block.cell, breaking.by if breaking else "overrun", block.egg, block.material)
        )

    # ---- time ----------------------------------------------------------------------------------

    def next_due(self) -> int | None:
        """The next pass on which a slide moves or a break ends, or None."""
        due: int | None = None
        for b in self.sliding_blocks:
            assert b.motion is not None
            if due is None or b.motion.next_pass < due:
                due = b.motion.next_pass
        for b in self.breaking_blocks:
            assert b.breaking is not None
            if due is None or b.breaking.due < due:
                due = b.breaking.due
        return due

    def step_slides(self, obstacle: Obstacle | None = None, at_centre: CentreHook | None = None) -> None:
        """Move every slide whose period fires on pass `now` by one pixel (centre logic first)."""
        if not self.sliding_blocks:
            return
        now = self.now
        for block in list(self.sliding_blocks):
            motion = block.motion
            if motion is None or motion.next_pass != now:
                continue
            motion.advance()
            self._slide_pixel(block, motion, obstacle, at_centre)

    def _slide_pixel(
        self, block: Block, motion: Motion, obstacle: Obstacle | None, at_centre: CentreHook | None
    ) -> None:
        px, py = block.px, block.py
        step = STEP[motion.dir]
        if px % CELL_PX == 0 and py % CELL_PX == 0:
            cx, cy = px // CELL_PX, py // CELL_PX
            if cx != block.cx or cy != block.cy:
                block.cx, block.cy = cx, cy
                motion.travelled += 1
                self._pending.append(SlideStep(block.id, Cell(cx, cy), motion.dir))
            if motion.stopping:
                self._settle(block, cx, cy)
                return
            if at_centre is not None:
                at_centre(block)
                if block.motion is None:
                    return
            nx, ny = cx + step.x, cy + step.y
            material = self._materials[block.material]
            if not self.passable_for_block(nx, ny, block) or (
                not material.crushes and obstacle is not None and obstacle(nx, ny, block)
            ):
                self._settle(block, cx, cy)
                return
            stop = motion.limit is not None and motion.travelled + 1 >= motion.limit
            if not stop:
                stop = not self.passable_for_block(nx + step.x, ny + step.y, block) or (
                    obstacle is not None
                    and not material.crushes
                    and obstacle(nx + step.x, ny + step.y, block)
                )
            if stop:
                motion.stopping = True
                index = ny * self.cols + nx
                other = self.grid[index]
                if other:
                    self._cancel_break(self.blocks[other])
                self.grid[index] = block.id
        block.px = px + step.x
        block.py = py + step.y

    def step_breaks(self) -> list[Block]:
        """End every break due on pass `now`; returns the blocks that are gone."""
        if not self.breaking_blocks:
            return []
        now = self.now
        done = [b for b in self.breaking_blocks if b.breaking is not None and b.breaking.due <= now]
        if done:
            self._restructured()
        for block in done:
            breaking = block.breaking
            assert breaking is not None
            self.breaking_blocks.remove(block)
            self.blocks.pop(block.id, None)
            self._clear_cell(block.cx, block.cy, block.id)
            self._pending.append(Broken(block.id, block.cell, breaking.by, block.egg, block.material))
        return done

    def advance(self, passes: int, obstacle: Obstacle | None = None) -> list[KickBoardEvent]:
        """Run `passes` main-loop passes, skipping those where nothing is due."""
        end = self.now + passes
        while True:
            due = self.next_due()
            if due is None or due > end:
                break
            self.now = due
            self.step_slides(obstacle)
            self.step_breaks()
        self.now = end
        return self.drain()

    def tick(self, dt: float, obstacle: Obstacle | None = None) -> list[KickBoardEvent]:
        """Advance slides and shattering by dt seconds; returns the events since the last tick."""
        if not 0 <= dt <= 10:
            raise ValueError(f"dt: must be 0 to 10 seconds, got {dt!r}")
        self._time_debt += dt * PENGO_LOOP_HZ
        passes = int(self._time_debt + 1e-9)
        self._time_debt -= passes
        return self.advance(passes, obstacle)

    def drain(self) -> list[KickBoardEvent]:
        """The events since the last drain."""
        events, self._pending = self._pending, []
        return events

    def line(self, group: str, length: int) -> tuple[tuple[Cell, ...], bool] | None:
        """The first run of `length` resting blocks of `group` side by side, horizontal first ($4896).

        Returns (cells, along_wall) or None; along_wall is true for a run on the outer row or column
        parallel to it (Pengo pays half for it).
        """

        def of_group(x: int, y: int) -> bool:
            block = self.block_at(x, y)
            return (
                block is not None
                and block.breaking is None
                and self._materials[block.material].group == group
            )

        for y in range(self.rows):
            for x in range(self.cols - length + 1):
                if all(of_group(x + i, y) for i in range(length)):
                    return tuple(Cell(x + i, y) for i in range(length)), y in (0, self.rows - 1)
        for x in range(self.cols):
            for y in range(self.rows - length + 1):
                if all(of_group(x, y + i) for i in range(length)):
                    return tuple(Cell(x, y + i) for i in range(length)), x in (0, self.cols - 1)
        return None

    # ---- snapshots -----------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """A plain-data copy for restore()."""
        return {
            "blocks": [b.plain() for b in self.blocks.values()],
            "sliding": [b.id for b in self.sliding_blocks],
            "breaking": [b.id for b in self.breaking_blocks],
            "grid": list(self.grid),
            "next_id": self.next_id,
            "now": self.now,
            "debt": self._time_debt,
        }

    def restore(self, snap: dict[str, Any]) -> None:
        """Restore a snapshot taken from a board of the same configuration."""
        self.blocks = {}
        for data in snap["blocks"]:
            block = Block.from_plain(list(data))
            self.blocks[block.id] = block
        self.sliding_blocks = [self.blocks[i] for i in snap["sliding"]]
        self.breaking_blocks = [self.blocks[i] for i in snap["breaking"]]
        self.grid = list(snap["grid"])
        self.next_id = snap["next_id"]
        self.now = snap["now"]
        self._time_debt = snap["debt"]
        self._pending = []
        self._forget_states()

    def render(self, glyphs: dict[str, str] | None = None) -> list[str]:
        """Rows of text: one glyph per resting block (material's first letter), '.' for floor."""
        glyphs = glyphs or {}
        rows = [["."] * self.cols for _ in range(self.rows)]
        for goal in self._goals:
            rows[goal.y][goal.x] = "*"
        for block in self.blocks.values():
            if block.motion is None:
                glyph = glyphs.get(block.material, block.material[:1].upper())
                rows[block.cy][block.cx] = glyph.lower() if block.breaking else glyph
        return ["".join(r) for r in rows]


def direction_between(a: Cell, b: Cell) -> Direction | None:
    """The direction of a unit step from a to b, or None."""
    for d in DIRECTIONS:
        s = STEP[d]
        if a.x + s.x == b.x and a.y + s.y == b.y:
            return d
    return None


def blocks_from_specs(specs: Iterable[KickBlockSpec]) -> tuple[KickBlockSpec, ...]:
    """A tuple of specs (a convenience for configs)."""
    return tuple(specs)
