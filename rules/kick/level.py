"""Level building: what each level of a config is, read once, and what it starts with.

`Levels` answers for one config: the level-table row of a level number and its act, the periods and
thresholds in force (`LevelPace`), what stays fixed for the whole level (`LevelFrame`: its size, goals,
authored enemies and start cell, which is all `restore` needs back) and the deal the level starts
with (`LevelDeal`). An authored map is parsed once per level-table row, and that one parse serves the
level start, every restore and the respawn search; a generated board is dealt from the session's
stream in the arcade's order (`maze.deal_act`), so it is dealt anew at each level start.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actors import NEVER
from .board import KickBlockSpec, KickBoard, KickBoardConfig
from .config import KickConfig, KickGoal, KickLevel
from .deal import level_deal_seed
from .geometry import Cell, Direction
from .maze import deal_act, pengo_start
from .rng import KickRandom
from .tables import (
    ANGRY_PERIOD_STEP,
    ENEMY_SPEED,
    FLEE_AFTER_MINUTES,
    FLEE_ALL_SECONDS,
    FLEE_PERIOD,
    GAME_MINUTE_PASSES,
    HIGH_BYTE_VBLANKS,
    ICE_BREAK_T32,
    ICE_PASSABLE_T32,
    LAST_FLEE_HIGH_BYTE,
    PENGO_LOOP_HZ,
    SLOTS_LATE,
    T32,
    VBLANK_HZ,
)
from .timers import period_for_speed

#: A period as passes per pixel, numerator and denominator (whole for the arcade's periods).
Period = tuple[int, int]

#: Slot facings of a level without a generator (the maze deal draws them otherwise).
MAP_FACINGS: tuple[Direction, ...] = ("down",) * SLOTS_LATE


def plain_cells(cells: tuple[Cell, ...]) -> tuple[tuple[int, int], ...]:
    """Cells as plain pairs (a snapshot holds no named tuples)."""
    return tuple((cell.x, cell.y) for cell in cells)


def _period(speed: float) -> Period:
    period = period_for_speed(speed)
    return period.numerator, period.denominator


@dataclass(frozen=True)
class LevelPace:
    """The periods and thresholds in force on a level (derived from the config, never snapshotted)."""

    enemy_period: Period
    """Every enemy's base period ($324E), before its kind's speed scale."""
    angry_period: Period
    """The base period once fewer than `angry_below` remain ($342E)."""
    angry_below: int
    flee_period: Period
    """The period of a fleeing enemy ($340A)."""
    flee_minutes: int
    """Minutes into a life after which every enemy flees ($33E6); NEVER when the config has no flight."""
    minute_passes: int
    """Passes of the clock per (game-)minute of a life, patience applied."""
    hurry_enabled: bool
    """Enemies hurry from the first minute of a life on ($344B)."""
    last_flee_enabled: bool
    last_flee_high: int
    """The high byte of the last-enemy clock at which the last enemy flees ($33ED)."""
    exact_period: int | None
    """The level table's arcade period when the difficulty leaves speeds alone (the hurry subtracts)."""
    hurry_periods: tuple[Period, ...]
    """The base period in each minute of a life after the first, from the level's hurry speeds."""

    def hurry_period(self, minutes: int) -> Period:
        """The base period `minutes` into a life ($344B: P − 1 − minutes, never below 1)."""
        if self.exact_period is not None:
            return max(1, self.exact_period - ANGRY_PERIOD_STEP - minutes), 1
        if not self.hurry_periods:
            return self.angry_period
        return self.hurry_periods[min(minutes, len(self.hurry_periods)) - 1]

    def life_minutes(self, life_passes: int) -> int:
        """Whole (game-)minutes in `life_passes` of a life's play."""
        return life_passes // self.minute_passes


@dataclass(frozen=True)
class LevelFrame:
    """What stays fixed through a level; restore takes it back from here instead of a snapshot."""

    cols: int
    rows: int
    goals: tuple[KickGoal, ...]
    enemies: tuple[tuple[str, Cell], ...]
    """The authored enemies (kind, home cell) in map order: one slot each after the egg slots."""
    start: Cell
    """The player's start cell (a map's player cell, else the configured start, else a centre)."""


@dataclass(frozen=True)
class LevelDeal:
    """What a level starts with."""

    frame: LevelFrame
    blocks: tuple[KickBlockSpec, ...]
    eggs: tuple[Cell, ...]
    """The egg cells in hatch order (the order they were drawn or authored)."""
    facings: tuple[Direction, ...]
    """The egg slots' first facings ($323A)."""
    carve: tuple[Cell, ...]
    """The order the maze was carved (a presenter draws it so); empty for maps."""
    slots: int
    """How many egg slots the level opens (the level's active count, difficulty applied)."""


class Levels:
    """The level table of one config: rows, acts, paces, frames and deals (maps parsed once)."""

    def __init__(self, config: KickConfig) -> None:
        self._config = config
        self._legend = dict(config.legend)
        self._paces: dict[int, LevelPace] = {}
        self._authored: dict[int, LevelDeal | None] = {}
        self._generated: LevelFrame | None = None

    def index(self, level: int) -> int:
        """The 0-based level-table row of a level number (1-based), looping when the config loops."""
        rows = len(self._config.levels)
        return (level - 1) % rows if self._config.loop else min(level, rows) - 1

    def row(self, level: int) -> KickLevel:
        """The level-table row for a level number, with looping applied."""
        return self._config.levels[self.index(level)]

    def act_of(self, level: int) -> int:
        """The level-table row number (Pengo's ACT) for a level."""
        return self.index(level) + 1

    def pace(self, level: int) -> LevelPace:
        """The periods and thresholds in force on a level."""
        index = self.index(level)
        pace = self._paces.get(index)
        if pace is None:
            pace = self._paces[index] = _pace(self._config, self._config.levels[index])
        return pace

    def frame(self, level: int) -> LevelFrame:
        """What stays fixed through a level (no draw: restore and the respawn read it)."""
        authored = self._authored_deal(self.index(level))
        return authored.frame if authored is not None else self._generated_frame()

    def deal(self, level: int, rng: KickRandom) -> LevelDeal:
        """What a level starts with; a generated board draws it from `rng` in the arcade's order.

        A per-level deal first restarts the stream from the level's own seed (versus: every seat gets
        the same act k), authored maps included.
        """
        config = self._config
        if config.deal == "per-level":
            rng.state = level_deal_seed(config.seed, level)
        index = self.index(level)
        authored = self._authored_deal(index)
        if authored is not None:
            return authored
        return self._generated_deal(config.levels[index], rng)

    def board(self, frame: LevelFrame, blocks: tuple[KickBlockSpec, ...] = ()) -> KickBoard:
        """A board of the level's size and goals on the config's block rules, holding `blocks`."""
        config = self._config
        arcade = config.timing == "arcade"
        return KickBoard(
            KickBoardConfig(
                cols=frame.cols,
                rows=frame.rows,
                materials=config.materials,
                blocks=blocks,
                goals=frame.goals,
                slide_speed=config.slide_speed,
                break_seconds=config.shatter_seconds,
                break_tick=T32 if arcade else None,
                break_ticks=ICE_BREAK_T32,
                passable_ticks=ICE_PASSABLE_T32 if arcade else None,
            )
        )

    # ---- building ----------------------------------------------------------------------------------

    def _level_map(self, level: KickLevel) -> tuple[str, ...] | None:
        if level.map is not None:
            return level.map
        if self._config.generator is not None:
            return None
        return self._config.map

    def _authored_deal(self, index: int) -> LevelDeal | None:
        if index not in self._authored:
            level = self._config.levels[index]
            level_map = self._level_map(level)
            self._authored[index] = None if level_map is None else self._read_map(level, level_map)
        return self._authored[index]

    def _read_map(self, level: KickLevel, level_map: tuple[str, ...]) -> LevelDeal:
        """The one parse of an authored map."""
        blocks: list[KickBlockSpec] = []
        goals: list[KickGoal] = []
        enemies: list[tuple[str, Cell]] = []
        eggs: list[Cell] = []
        start = self._config.player.start
        for y, text in enumerate(level_map):
            for x, ch in enumerate(text):
                entry = self._legend.get(ch)
                if entry is None:
                    continue
                if entry.material is not None:
                    blocks.append(KickBlockSpec(x, y, entry.material, entry.egg))
                    if entry.egg is not None:
                        eggs.append(Cell(x, y))
                if entry.goal is not None:
                    goals.append(KickGoal(x, y, entry.goal))
                if entry.player:
                    start = Cell(x, y)
                if entry.enemy is not None:
                    enemies.append((entry.enemy, Cell(x, y)))
        eggs = self._thin_eggs(eggs, blocks)
        rows, cols = len(level_map), len(level_map[0])
        if start is None:
            start = Cell(cols // 2, rows // 2)
        frame = LevelFrame(cols, rows, tuple(goals), tuple(enemies), start)
        return LevelDeal(frame, tuple(blocks), tuple(eggs), MAP_FACINGS, (), self._slots(level))

    def _generated_frame(self) -> LevelFrame:
        if self._generated is None:
            config = self._config
            cols, rows = config.cols, config.rows
            assert cols is not None and rows is not None
            start = config.player.start or pengo_start(cols, rows)
            self._generated = LevelFrame(cols, rows, (), (), start)
        return self._generated

    def _generated_deal(self, level: KickLevel, rng: KickRandom) -> LevelDeal:
        generator = self._config.generator
        assert generator is not None
        frame = self._generated_frame()
        diamonds = sum(count for _, count in generator.specials)
        deal = deal_act(
            rng, frame.cols, frame.rows, self._eggs(level), diamonds, generator.arcade_bug, generator.complete
        )
        egg_cells = set(deal.eggs)
        special_at: dict[Cell, str] = {}
        drawn = list(deal.diamonds)
        for material_id, count in generator.specials:
            for _ in range(count):
                special_at[drawn.pop(0)] = material_id
        blocks: list[KickBlockSpec] = []
        for y, text in enumerate(deal.maze.map):
            for x, ch in enumerate(text):
                cell = Cell(x, y)
                if cell in special_at:
                    blocks.append(KickBlockSpec(x, y, special_at[cell]))
                elif ch == "#":
                    egg = generator.egg if cell in egg_cells else None
                    blocks.append(KickBlockSpec(x, y, generator.material, egg))
        return LevelDeal(
            frame, tuple(blocks), deal.eggs, deal.facings, deal.maze.carve_order, self._slots(level)
        )

    def _eggs(self, level: KickLevel) -> int:
        """The eggs a generated board hides, population scaled."""
        eggs = level.eggs if level.eggs is not None else 0
        population = self._config.difficulty.population
        if eggs and population != 1:
            eggs = max(1, round(eggs * population))
        return eggs

    def _thin_eggs(self, eggs: list[Cell], blocks: list[KickBlockSpec]) -> list[Cell]:
        """Population scaling on authored eggs: keep the first ⌈n·population⌉, clear the rest."""
        population = self._config.difficulty.population
        if population == 1 or not eggs:
            return eggs
        keep = max(1, round(len(eggs) * population))
        dropped = set(eggs[keep:])
        for index, spec in enumerate(blocks):
            if Cell(spec.x, spec.y) in dropped:
                blocks[index] = KickBlockSpec(spec.x, spec.y, spec.material, None)
        return eggs[:keep]

    def _slots(self, level: KickLevel) -> int:
        """Egg slots open at once: the level's count (all four by default, $326E), difficulty applied."""
        active = level.active if level.active is not None else SLOTS_LATE
        return max(1, active + self._config.difficulty.active) if active else 0


def _pace(config: KickConfig, level: KickLevel) -> LevelPace:
    arcade = config.timing == "arcade"
    scale = config.difficulty.speed
    patience = config.difficulty.patience
    exact = level.period if level.period is not None and scale == 1 else None
    if exact is not None:
        enemy_period: Period = (exact, 1)
        angry_period: Period = (max(1, exact - ANGRY_PERIOD_STEP), 1)  # $342E
    else:
        enemy_period = _period((level.enemy_speed or ENEMY_SPEED) * scale)
        angry_period = _period((level.angry_speed or level.enemy_speed or ENEMY_SPEED) * scale)
    flee_all = config.flee_all_seconds
    if arcade:
        minute_passes = round(GAME_MINUTE_PASSES * patience)
    else:
        flight = flee_all or FLEE_ALL_SECONDS
        minute_passes = round(flight / FLEE_AFTER_MINUTES * PENGO_LOOP_HZ * patience)
    last_flee_high = LAST_FLEE_HIGH_BYTE
    if config.last_flee_seconds is not None and not arcade:
        vblanks = config.last_flee_seconds * patience * VBLANK_HZ
        last_flee_high = max(1, round(vblanks / HIGH_BYTE_VBLANKS))
    return LevelPace(
        enemy_period=enemy_period,
        angry_period=angry_period,
        angry_below=level.angry_below or 0,
        flee_period=(FLEE_PERIOD, 1) if arcade else _period(config.flee_speed),
        flee_minutes=NEVER if flee_all is None else FLEE_AFTER_MINUTES,
        minute_passes=minute_passes,
        hurry_enabled=bool(level.hurry_speeds) or level.period is not None,
        last_flee_enabled=config.last_flee_seconds is not None,
        last_flee_high=last_flee_high,
        exact_period=exact,
        hurry_periods=tuple(_period(speed * scale) for speed in level.hurry_speeds or ()),
    )

