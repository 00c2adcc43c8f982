"""KickGame: a kick-block arcade session on an integer core of main-loop passes and pixels.

The session advances in main-loop passes (780 per second). Each pass runs, in the arcade's order
($09E7, PENGO-RULES §1): the enemy slots 1…n, the player, the sliding blocks (catches at cell
centres), the breaking blocks, then the contact tests and the round-flow checks. Passes on which
nothing is due are skipped, which is what keeps a Python board hundreds of times faster than real
time. Blocking sequences (READY, the line bonus, the death animation, the clear) stop the passes
while the round clock runs on, as the arcade's vblank clock does.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

from .actors import (
    BLINKING,
    CARRIED,
    EATEN,
    EATEN_HIDE,
    GONE,
    HATCH_NEXT,
    HATCHING,
    MODE_NAME,
    MOVING,
    NEVER,
    P_BREAK,
    P_FROZEN,
    P_PUSH,
    P_READY,
    P_SHAKE,
    P_WALK,
    PAUSE,
    PHASE_OF_STATE,
    PLAYER_ACTION,
    SQUASH_HIDE,
    SQUASH_SCORE,
    SQUASHED,
    STUN_MOVING,
    STUNNED,
    VANISHED,
    VANISHING,
    Enemy,
    Player,
)
from .board import (
    Block,
    KickBlockSpec,
    KickBlockState,
    KickBoard,
    KickBoardConfig,
    Motion,
)
from .config import KickConfig, KickDifficulty, KickGoal, KickLevel, normalize_config
from .deal import level_deal_seed
from .events import Complete as CompleteEvent
from .events import (
    Crush,
    Death,
    Eat,
    EggBroken,
    ExtraLife,
    Flee,
    GameOver,
    Hatch,
    Hurry,
    Kick,
    KickBoardEvent,
    KickEvent,
    LastEnemy,
    LevelStart,
    Line,
    RoundClear,
    Score,
    Shake,
    Stun,
    Vanish,
    from_plain,
    to_plain,
)
from .geometry import CELL_PX, DIRECTIONS, OPPOSITE, STEP, Cell, Direction
from .maze import deal_act, pengo_start
from .rng import KickRandom
from .snobee import decide, stun_recovery_facing
from .tables import (
    BREAK_POSE_T32,
    CLEAR_VBLANKS,
    DEATH_VBLANKS,
    EATEN_WRAPS,
    EGG_SHELL_T32,
    EGG_SHELL_T64,
    FLEE_AFTER_MINUTES,
    FLEE_PERIOD,
    GAME_MINUTE_PASSES,
    GAME_SECOND_PASSES,
    HATCH_BREAK_T32,
    HATCH_CHEWS,
    HATCH_FLASH_T16,
    HATCH_T64,
    ICE_BREAK_T32,
    ICE_PASSABLE_T32,
    LAST_FLEE_HIGH_BYTE,
    LINE_VBLANKS,
    LINE_WALL_VBLANKS,
    PAUSE_SHORT_WRAPS,
    PAUSE_WRAPS,
    PENGO_LOOP_HZ,
    PENGO_RESPAWN,
    READY_VBLANKS,
    READY_WRAPS,
    SHAKE_STUN_AT_T32,
    SQUASHED_POSE_WRAPS,
    SQUASHED_SCORE_WRAPS,
    STUN_BLINK_WRAPS,
    STUN_STILL_WRAPS,
    T16,
    T32,
    T64,
    VANISH_T64,
    VBLANK_PASSES,
    WRAP,
)
from .timers import next_tick, passes_for_seconds, period_for_speed

#: A pressed kick is held for one 1/60 s frame: the arcade samples the button only at centres
#: ($3F85) and has no kick buffer, so a tap between centres is lost, as on the board.
KICK_PRESS_PASSES = 13
#: Passes per versus frame (1/60 s).
PASSES_PER_FRAME = 13
#: The most a single tick(dt) may advance (the seed's limit).
MAX_TICK_SECONDS = 10.0

STATUSES = ("drawing", "ready", "playing", "bonus", "dying", "clear", "lost", "complete")


class IllegalInputError(ValueError):
    """An input the session cannot take (unknown direction, bad duration); nothing changed."""


@dataclass(frozen=True)
class KickPlayerState:
    """The player's visible state (cells and seconds)."""

    x: float
    y: float
    facing: Direction
    moving: bool
    action: str
    action_time: float
    jump: int


@dataclass(frozen=True)
class KickEnemyState:
    """An enemy's visible state."""

    id: str
    kind: str
    x: float
    y: float
    dir: Direction
    phase: str
    phase_time: float
    mode: str
    chewing: bool
    blinking: bool
    score: int
    carried_by: int | None
    jump: int


@dataclass(frozen=True)
class KickState:
    """A copy of the session state."""

    status: str
    status_time: float
    status_remaining: float
    level: int
    act: int
    score: int
    lives: int
    player: KickPlayerState
    enemies: tuple[KickEnemyState, ...]
    blocks: tuple[KickBlockState, ...]
    goals: tuple[dict[str, Any], ...]
    eggs: int
    remaining: int
    egg_flash: bool
    shake: dict[str, Any] | None
    line: dict[str, Any] | None
    round_time: float
    life_time: float
    hurry: bool
    carve_order: tuple[Cell, ...]
    bonus: dict[str, Any] | None
    cols: int
    rows: int


#: Scalar session fields that a snapshot carries (everything else is derived from the config).
_STATE_FIELDS = (
    "status",
    "status_due",
    "status_start",
    "level",
    "score",
    "lives",
    "extra_index",
    "now",
    "clock",
    "life_start",
    "round_banked",
    "remaining_count",
    "eggs_left",
    "line_paid",
    "flash_until",
    "last_base",
    "last_t0",
    "last_enemy_told",
    "hurry_told",
    "bonus",
    "next_enemy",
    "held",
    "button_until",
    "time_debt",
    "hold_round",
    "cols",
    "rows",
    "line_show",
)


class KickGame:
    """A kick-block arcade session: control(), kick(), tick(dt) or advance(passes), drain()."""

    def __init__(self, config: KickConfig) -> None:
        self.config: KickConfig = normalize_config(config)
        self.difficulty: KickDifficulty = self.config.difficulty
        self.kinds = self.config.enemy_by_id()
        self.materials = self.config.material_by_id()
        self.arcade = self.config.timing == "arcade"
        self._legend = dict(self.config.legend)
        self._special_materials = (
            {m for m, _ in self.config.generator.specials} if self.config.generator else set()
        )
        self.rng = KickRandom((self.config.seed & 0xFFFF) or 1)
        self._events: list[KickEvent] = []
        self.reset()

    # ---- level table -----------------------------------------------------------------------------

    def row(self, level: int | None = None) -> KickLevel:
        """The level-table row for a level number (1-based), with looping applied."""
        level = self.level if level is None else level
        levels = self.config.levels
        index = (level - 1) % len(levels) if self.config.loop else min(level, len(levels)) - 1
        return levels[index]

    def act_of(self, level: int) -> int:
        """The level-table row number (Pengo's ACT) for a level."""
        levels = len(self.config.levels)
        return (level - 1) % levels + 1 if self.config.loop else min(level, levels)

    # ---- public API ------------------------------------------------------------------------------

    def reset(self) -> None:
        """Start a new game at the configured level."""
        config = self.config
        self.rng.state = (config.seed & 0xFFFF) or 1
        self._events.clear()
        self.score = 0
        self.lives = config.lives
        self.extra_index = 0
        self.now = 0
        self.clock = 0
        self.time_debt = 0.0
        self.held: Direction | None = None
        self.button_until = -1
        self.next_enemy = 1
        self.last_base = 0
        self.last_t0 = 0
        self._set_carve(())
        self.bonus: list[float] | None = None
        self._start_level(config.level)

    def _set_carve(self, carve: tuple[Cell, ...]) -> None:
        """The maze's carve order for the level, and its plain form, which every snapshot shares."""
        self.carve = carve
        self._carve_plain: tuple[tuple[int, int], ...] = tuple((cell.x, cell.y) for cell in carve)

    def control(self, direction: Direction | None) -> None:
        """Hold a direction (None to stop)."""
        if direction is not None and direction not in OPPOSITE:
            raise IllegalInputError(f"direction: expected one of {DIRECTIONS} or None, got {direction!r}")
        self.held = direction

    def kick(self) -> None:
        """Press the kick button (held for one frame plus the configured kick buffer)."""
        buffer_passes = passes_for_seconds(self.config.player.kick_buffer)
        self.button_until = self.now + KICK_PRESS_PASSES + buffer_passes

    @property
    def kick_board(self) -> KickBoard:
        """The live board (read it; change it only through the session)."""
        return self.board

    def drain(self) -> list[KickEvent]:
        """Events since the last drain."""
        events = list(self._events)
        self._events.clear()
        return events

    def remaining(self) -> int:
        """Live enemies (not finishing) plus eggs."""
        return self.remaining_count

    def tick(self, dt: float) -> KickState:
        """Advance by dt seconds (at most 10 per call); returns the state."""
        if isinstance(dt, bool) or not isinstance(dt, int | float) or not 0 <= dt <= MAX_TICK_SECONDS:
            raise IllegalInputError(f"dt: must be 0 to {MAX_TICK_SECONDS} seconds, got {dt!r}")
        self.time_debt += dt * PENGO_LOOP_HZ
        passes = int(self.time_debt + 1e-9)
        self.time_debt -= passes
        self.advance(passes)
        return self.state

    def step_frame(self) -> None:
        """Advance one 1/60 s frame (13 passes): the versus step."""
        self.advance(PASSES_PER_FRAME)

    def go_to_level(self, level: int) -> None:
        """Jump to a level (keeps score and lives)."""
        if isinstance(level, bool) or not isinstance(level, int) or level < 1:
            raise IllegalInputError(f"level: must be a positive integer, got {level!r}")
        self._start_level(level)

    # ---- level start -----------------------------------------------------------------------------

    def _level_map(self, level: KickLevel) -> tuple[str, ...] | None:
        if level.map is not None:
            return level.map
        if self.config.generator is not None:
            return None
        return self.config.map

    def _start_level(self, level_number: int) -> None:
        config = self.config
        self.level = level_number
        level = self.row(level_number)
        act = self.act_of(level_number)
        self._resolve_level(level, act)
        if config.deal == "per-level":
            self.rng.state = level_deal_seed(config.seed, level_number)
        self.remaining_count = 0
        self.eggs_left = 0
        self.line_paid = False
        self.line_show: list[Any] | None = None
        self.hold_round = False
        self.flash_until = 0
        self.life_start = self.clock
        self._death_cause = "enemy"
        self.last_enemy_told = False
        self.hurry_told = 0
        self.bonus = None
        self.egg_table: list[int] = []
        self.shells: list[list[int]] = []
        self.carried: dict[int, list[int]] = {}
        self.hits: dict[int, int] = {}
        self.crush_ids: dict[int, list[str]] = {}
        self.round_banked = 0
        self.player = Player()
        period = period_for_speed(config.player.speed)
        self.player.period_num, self.player.period_den = period.numerator, period.denominator
        facings: tuple[Direction, ...] = ("down",) * 4
        specs: list[KickBlockSpec] = []
        goals: list[KickGoal] = []
        map_enemies: list[tuple[str, Cell]] = []
        level_map = self._level_map(level)
        start: Cell | None = config.player.start
        if level_map is None:
            generator = config.generator
            assert generator is not None
            cols, rows = config.cols, config.rows
            assert cols is not None and rows is not None
            eggs = self._scaled_eggs(level)
            diamonds = sum(count for _, count in generator.specials)
            deal = deal_act(self.rng, cols, rows, eggs, diamonds, generator.arcade_bug, generator.complete)
            facings = deal.facings
            self._set_carve(deal.maze.carve_order)
            egg_cells = set(deal.eggs)
            special_at: dict[Cell, str] = {}
            remaining_diamonds = list(deal.diamonds)
            for material_id, count in generator.specials:
                for _ in range(count):
                    special_at[remaining_diamonds.pop(0)] = material_id
            for y, text in enumerate(deal.maze.map):
                for x, ch in enumerate(text):
                    cell = Cell(x, y)
                    if cell in special_at:
                        specs.append(KickBlockSpec(x, y, special_at[cell]))
                    elif ch == "#":
                        specs.append(
                            KickBlockSpec(
                                x, y, generator.material, generator.egg if cell in egg_cells else None
                            )
                        )
            egg_order = list(deal.eggs)
            if start is None:
                start = pengo_start(cols, rows)
        else:
            rows = len(level_map)
            cols = len(level_map[0])
            self._set_carve(())
            egg_order = []
            for y, text in enumerate(level_map):
                for x, ch in enumerate(text):
                    entry = self._legend.get(ch)
                    if entry is None:
                        continue
                    if entry.material is not None:
                        specs.append(KickBlockSpec(x, y, entry.material, entry.egg))
                        if entry.egg is not None:
                            egg_order.append(Cell(x, y))
                    if entry.goal is not None:
                        goals.append(KickGoal(x, y, entry.goal))
                    if entry.player:
                        start = Cell(x, y)
                    if entry.enemy is not None:
                        map_enemies.append((entry.enemy, Cell(x, y)))
            egg_order = self._thin_eggs(egg_order, specs)
            if start is None:
                start = Cell(cols // 2, rows // 2)
        self.cols, self.rows = cols, rows
        board_config = KickBoardConfig(
            cols=cols,
            rows=rows,
            materials=config.materials,
            blocks=tuple(specs),
            goals=tuple(goals),
            slide_speed=config.slide_speed,
            break_seconds=config.shatter_seconds,
            break_tick=T32 if self.arcade else None,
            break_ticks=ICE_BREAK_T32,
            passable_ticks=ICE_PASSABLE_T32 if self.arcade else None,
        )
        self.board = KickBoard(board_config)
        self.board.now = self.now
        self.board._pending = cast(list[KickBoardEvent], self._events)
        self.board.on_stop = self._on_stop
        start_block = self.board.block_at(start.x, start.y)
        if start_block is not None:
            self.board.remove(start_block.id)
        self.start_cell = start
        self._place_player()
        for cell in egg_order:
            block = self.board.block_at(cell.x, cell.y)
            if block is not None and block.egg is not None:
                self.egg_table.append(block.id)
        self.eggs_left = len(self.egg_table)
        self.slots: list[Enemy] = []
        egg_kind = (
            config.generator.egg
            if config.generator
            else (self.board.blocks[self.egg_table[0]].egg if self.egg_table else None)
        )
        active = self._active_slots(level)
        for index in range(max(active, 0) if egg_kind else 0):
            facing = facings[index] if index < len(facings) else "down"
            assert egg_kind is not None
            slot = Enemy(index, egg_kind, self.kinds[egg_kind].brain, facing)
            self._reset_slot_mind(slot)
            self.slots.append(slot)
        for kind, _cell in map_enemies:
            slot = Enemy(len(self.slots), kind, self.kinds[kind].brain, "left")
            self._reset_slot_mind(slot)
            slot.from_map = True
            self.slots.append(slot)
        self.remaining_count = self.eggs_left + len(map_enemies)
        self._map_enemy_cells = map_enemies
        self._events.append(LevelStart(level_number))
        draw = passes_for_seconds(config.draw_seconds)
        self._begin_status("drawing" if draw else "ready", draw or self._ready_passes())

    def _reset_slot_mind(self, slot: Enemy) -> None:
        slot.base_period, slot.base_den = self.enemy_period
        slot.period_num, slot.period_den = self.enemy_period
        slot.mode = 1

    def _scaled_eggs(self, level: KickLevel) -> int:
        eggs = level.eggs if level.eggs is not None else 0
        if eggs and self.difficulty.population != 1:
            eggs = max(1, round(eggs * self.difficulty.population))
        return eggs

    def _thin_eggs(self, egg_order: list[Cell], specs: list[KickBlockSpec]) -> list[Cell]:
        """Population scaling on authored eggs: keep the first ⌈n·population⌉, clear the rest."""
        if self.difficulty.population == 1 or not egg_order:
            return egg_order
        keep = max(1, round(len(egg_order) * self.difficulty.population))
        dropped = set(egg_order[keep:])
        for index, spec in enumerate(specs):
            if Cell(spec.x, spec.y) in dropped:
                specs[index] = KickBlockSpec(spec.x, spec.y, spec.material, None)
        return egg_order[:keep]

    def _active_slots(self, level: KickLevel) -> int:
        active = level.active if level.active is not None else 4
        return max(1, active + self.difficulty.active) if active else 0

    def _resolve_level(self, level: KickLevel, act: int) -> None:
        """Periods and thresholds in force this level (derived from the config, not snapshotted)."""
        scale = self.difficulty.speed
        patience = self.difficulty.patience
        self.level_period = level.period
        if level.period is not None and scale == 1:
            base = Fraction(level.period)
            self.enemy_period = (level.period, 1)
            self.angry_period = (max(1, level.period - 1), 1)  # $342E
        else:
            speed = (level.enemy_speed or 2.6) * scale
            base = period_for_speed(speed)
            self.enemy_period = (base.numerator, base.denominator)
            angry = period_for_speed((level.angry_speed or level.enemy_speed or 2.6) * scale)
            self.angry_period = (angry.numerator, angry.denominator)
        self._hurry_speeds = level.hurry_speeds
        self._base_fraction = base
        self.angry_below = level.angry_below or 0
        self.flee_period = (
            (FLEE_PERIOD, 1)
            if self.arcade
            else (
                period_for_speed(self.config.flee_speed).numerator,
                period_for_speed(self.config.flee_speed).denominator,
            )
        )
        flee_all = self.config.flee_all_seconds
        self.flee_minutes = NEVER if flee_all is None else FLEE_AFTER_MINUTES
        self._minute_passes = (
            round(GAME_MINUTE_PASSES * patience)
            if self.arcade
            else round((flee_all or 120.0) / FLEE_AFTER_MINUTES * PENGO_LOOP_HZ * patience)
        )
        self.hurry_enabled = bool(level.hurry_speeds) or level.period is not None
        self.last_flee_enabled = self.config.last_flee_seconds is not None
        self.last_flee_high = LAST_FLEE_HIGH_BYTE
        if self.config.last_flee_seconds is not None and not self.arcade:
            self.last_flee_high = max(1, round(self.config.last_flee_seconds * patience * 60 / 256))

    def hurry_period(self, minutes: int) -> tuple[int, int]:
        """The base period a minute into a life ($344B: P − 1 − minutes, never below 1)."""
        if self.level_period is not None and self.difficulty.speed == 1:
            return max(1, self.level_period - 1 - minutes), 1
        speeds = self._hurry_speeds or ()
        if not speeds:
            return self.angry_period
        speed = speeds[min(minutes, len(speeds)) - 1] * self.difficulty.speed
        period = period_for_speed(speed)
        return period.numerator, period.denominator

    # ---- statuses --------------------------------------------------------------------------------

    def _ready_passes(self) -> int:
        if self.arcade:
            return READY_VBLANKS * VBLANK_PASSES
        return passes_for_seconds(self.config.ready_seconds)

    def _begin_status(self, status: str, duration: int) -> None:
        self.status = status
        self.status_start = self.clock
        self.status_due = self.clock + duration

    def _end_status(self) -> None:
        status = self.status
        if status == "drawing":
            self._begin_status("ready", self._ready_passes())
        elif status == "ready":
            self._begin_play()
        elif status == "bonus":
            self._end_line()
        elif status == "dying":
            self._after_death()
        elif status == "clear":
            self._next_level()

    def _begin_play(self) -> None:
        """A life starts: the life clock is zeroed ($09D6), the eggs flash, slots wake."""
        self.status = "playing"
        self.status_start = self.clock
        self.status_due = NEVER
        self.life_start = self.clock
        self.hurry_told = 0
        self.flash_until = self.clock + passes_for_seconds(self.config.egg_flash_seconds)
        player = self.player
        if player.state == P_READY and player.due == NEVER:
            self._place_player()
            player.due = self._wraps(READY_WRAPS) if self.arcade else self.now + passes_for_seconds(0.3)
        for slot in self.slots:
            if slot.state == PAUSE and slot.due == NEVER:  # after a death: resume after 1–4 wraps ($0DD0)
                slot.due = self._after(self._wraps(PAUSE_WRAPS), self.config.hatch_pause_seconds)
            elif slot.state == GONE and slot.id == "" and not slot.from_map:
                slot.state = HATCH_NEXT  # $326E: every enabled slot starts by hatching
                slot.due = self.now + 1
            elif slot.state == GONE and slot.from_map and slot.id == "":
                self._spawn_map_enemy(slot)

    def _place_player(self) -> None:
        player = self.player
        player.px, player.py = self.start_cell.x * CELL_PX, self.start_cell.y * CELL_PX
        player.facing = "down"
        player.jump += 1

    def _spawn_map_enemy(self, slot: Enemy) -> None:
        index = sum(1 for s in self.slots[: slot.slot] if s.from_map)
        kind, cell = self._map_enemy_cells[index]
        slot.id = f"{kind}-{self.next_enemy}"
        self.next_enemy += 1
        slot.px, slot.py = cell.x * CELL_PX, cell.y * CELL_PX
        slot.state = MOVING
        slot.jump += 1
        self._schedule_move(slot)

    # ---- timers ----------------------------------------------------------------------------------

    def _wraps(self, count: int) -> int:
        """The pass on which a counter of `count` on wraps runs out."""
        return next_tick(self.now, WRAP) + (count - 1) * WRAP

    def _ticks(self, length: int, count: int, since: int | None = None) -> int:
        base = self.now if since is None else since
        return next_tick(base, length) + (count - 1) * length

    def _after(self, arcade_due: int, seconds: float) -> int:
        return arcade_due if self.arcade else self.now + max(1, passes_for_seconds(seconds))

    def life_minutes(self) -> int:
        """Whole (game-)minutes into this life's play."""
        return (self.clock - self.life_start) // self._minute_passes

    def zero_last_enemy_clock(self) -> None:
        """$33F9: the high byte of the vblank counter $8823 is zeroed."""
        vblanks = self.clock // VBLANK_PASSES
        self.last_base = vblanks & 0xFF
        self.last_t0 = vblanks

    def last_enemy_clock_high(self) -> int:
        """The high byte of the vblank counter $8823 since it was last zeroed."""
        vblanks = self.clock // VBLANK_PASSES
        return (self.last_base + vblanks - self.last_t0) >> 8

    def set_base(self, e: Enemy, num: int, den: int) -> None:
        """Rewrite the base period +1C and the period in force +6."""
        e.base_period, e.base_den = num, den
        e.period_num, e.period_den = num, den

    def set_period(self, e: Enemy, num: int, den: int) -> None:
        """Rewrite the period in force (+6)."""
        e.period_num, e.period_den = num, den

    def _schedule_move(self, actor: Enemy | Player) -> None:
        num, den = actor.period_num, actor.period_den
        if den == 1:
            actor.next_move = self.now + num
            actor.counter = 0
            return
        steps = -(-(num - actor.counter) // den)
        actor.next_move = self.now + steps
        actor.counter += steps * den - num

    # ---- the main loop ---------------------------------------------------------------------------

    def advance(self, passes: int) -> None:
        """Run `passes` main-loop passes of time (blocking sequences consume them without play)."""
        if isinstance(passes, bool) or not isinstance(passes, int) or passes < 0:
            raise IllegalInputError(f"passes: must be a non-negative integer, got {passes!r}")
        budget = passes
        while budget > 0:
            if self.status != "playing":
                if self.status in ("lost", "complete"):
                    self.clock += budget
                    return
                use = min(self.status_due - self.clock, budget)
                self.clock += use
                budget -= use
                if self.clock >= self.status_due:
                    self._end_status()
                continue
            due = self._next_due()
            gap = due - self.now
            if gap > budget:
                self.now += budget
                self.clock += budget
                self.board.now = self.now
                return
            self.now = due
            self.clock += gap
            budget -= gap
            self.board.now = due
            self._pass()

    def _next_due(self) -> int:
        """The next pass on which anything acts (the passes between are skipped)."""
        now = self.now
        due = NEVER
        for slot in self.slots:
            state = slot.state
            wake = slot.next_move if state in (MOVING, STUN_MOVING) else slot.due
            if wake < due:
                due = wake
        player = self.player
        if not self.hold_round:
            wake = player.next_move if player.state == P_WALK else player.due
            if wake < due:
                due = wake
            if player.shake_tests and player.shake_tests[0] < due:
                due = player.shake_tests[0]
        board = self.board
        if board.sliding_blocks or board.breaking_blocks:
            board_due = board.next_due()
            if board_due is not None and board_due < due:
                due = board_due
        for shell in self.shells:
            if shell[0] < due:
                due = shell[0]
        if self.hurry_enabled and self.hurry_told + 1 < FLEE_AFTER_MINUTES:
            minute_due = now + (self.life_start + (self.hurry_told + 1) * self._minute_passes - self.clock)
            if minute_due < due:
                due = minute_due
        return due if due > now else now + 1

    def _pass(self) -> None:
        """One main-loop pass in the arcade's order ($09E7)."""
        now = self.now
        moved = False
        for slot in self.slots:
            state = slot.state
            if state in (MOVING, STUN_MOVING):
                if slot.next_move == now:
                    self._enemy_pass(slot)
                    moved = True
            elif slot.due == now:
                self._enemy_pass(slot)
                moved = True
        player = self.player
        if not self.hold_round:
            wake = player.next_move if player.state == P_WALK else player.due
            if wake == now:
                self._player_pass()
                moved = True
            if player.shake_tests and player.shake_tests[0] == now:
                player.shake_tests.pop(0)
                self._shake_stun()
        board = self.board
        if board.sliding_blocks:
            board.step_slides(self._obstacle, self._catch)
            if self.carried:
                self._carry()
        if board.breaking_blocks:
            for block in board.step_breaks():
                self._broken(block)
        if self.shells:
            self._shells_due()
        if moved:
            self._contacts()
        if (not self.last_enemy_told and self.remaining_count == 1) or (
            self.hurry_enabled
            and self.hurry_told + 1 < FLEE_AFTER_MINUTES
            and self.clock - self.life_start >= (self.hurry_told + 1) * self._minute_passes
        ):
            self._clock_events()
        if self.status == "playing" and (
            player.dead or self.remaining_count <= 0 or self.config.objective.goals
        ):
            self._round_flow()

    # ---- enemies ---------------------------------------------------------------------------------

    def _enemy_pass(self, e: Enemy) -> None:
        state = e.state
        if state == MOVING:
            self._enemy_move(e)
        elif state == STUN_MOVING:
            if e.px % CELL_PX == 0 and e.py % CELL_PX == 0:
                e.state = STUNNED
                e.due = self._after(self._wraps(STUN_STILL_WRAPS), self.config.stun.seconds)
            else:
                self._step_enemy(e)
                self._schedule_move(e)
        elif state == PAUSE:
            e.state = MOVING
            self._schedule_move(e)
        elif state == STUNNED:
            e.state = BLINKING
            e.due = self._after(self._wraps(STUN_BLINK_WRAPS), self.config.stun.blink_seconds)
        elif state == BLINKING:
            e.dir = stun_recovery_facing(self, e)  # $3A2E
            e.mode = 2
            e.state = MOVING
            self._schedule_move(e)
        elif state == EATEN:
            e.state = EATEN_HIDE
            self.remaining_count -= 1  # $3AA8
            e.due = self.now + 1
        elif state in (EATEN_HIDE, SQUASH_HIDE, VANISHED):
            self._slot_free(e)
        elif state == SQUASHED:
            e.state = SQUASH_SCORE
            self._squash_score(e)
            e.due = self._after(self._wraps(SQUASHED_SCORE_WRAPS), 1.0)
        elif state == SQUASH_SCORE:
            e.state = SQUASH_HIDE
            self.remaining_count -= 1  # $3C3E
            self.flash_until = self.clock + passes_for_seconds(self.config.egg_flash_seconds)  # $3C42
            e.due = self.now + 1
        elif state == HATCH_NEXT:
            self._hatch_next(e)
        elif state == HATCHING:
            e.state = PAUSE
            e.due = self._after(self._wraps(PAUSE_SHORT_WRAPS), self.config.hatch_pause_seconds)
        elif state == VANISHING:
            e.state = VANISHED
            self.remaining_count -= 1  # $3D63
            e.due = self.now + 1
        elif state == CARRIED:
            e.due = NEVER

    def _slot_free(self, e: Enemy) -> None:
        e.id = ""
        e.carried_by = None
        e.chewing = False
        if e.from_map:
            e.state = GONE
            e.due = NEVER
            return
        e.state = HATCH_NEXT
        e.due = self.now + 1

    def _enemy_move(self, e: Enemy) -> None:
        if e.px % CELL_PX == 0 and e.py % CELL_PX == 0:
            self._pause_after = False
            steps = self._decide(e)
            if e.state != MOVING:
                return
            if steps:
                self._step_enemy(e)
            self._schedule_move(e)
            if self._pause_after:
                e.state = PAUSE
                e.due = self._after(self._wraps(PAUSE_SHORT_WRAPS), self.config.hatch_pause_seconds)
            return
        self._step_enemy(e)
        self._schedule_move(e)

    def pause_after_step(self, e: Enemy) -> None:
        """$3745: take this step, then pause until the next wrap."""
        self._pause_after = True

    def _decide(self, e: Enemy) -> bool:
        brain = e.brain
        if brain == "sno-bee":
            return decide(self, e)
        from .brains import decide_simple

        return decide_simple(self, e)

    def _step_enemy(self, e: Enemy) -> None:
        step = STEP[e.dir]
        px = e.px + step.x
        py = e.py + step.y
        right = (self.cols - 1) * CELL_PX
        bottom = (self.rows - 1) * CELL_PX
        if 0 <= px <= right and 0 <= py <= bottom:  # $3922: the clamp
            e.px, e.py = px, py

    def can_chew(self, e: Enemy, block: Block) -> bool:
        """May this enemy break this block (egg blocks and specials are turned away from)."""
        return self.kinds[e.kind].chews and self.materials[block.material].chewable

    def enemy_chews(self, e: Enemy, block: Block) -> None:
        """Start a breaking slot on the block ahead ($3908)."""
        self.board.start_break(block, e.id)

    def enemy_flees(self, e: Enemy) -> None:
        """Flee start ($340A)."""
        self._events.append(Flee(e.id))

    def enemy_vanishes(self, e: Enemy) -> None:
        """A fleeing enemy reached its corner ($34F3)."""
        e.state = VANISHING
        e.due = self._after(self._ticks(T64, VANISH_T64), 1.9)
        self._events.append(Vanish(e.id, Cell(e.px // CELL_PX, e.py // CELL_PX)))

    def _hatch_next(self, e: Enemy) -> None:
        """$3C6C: hatch the first egg in draw order that is not sliding; none left: the slot is done."""
        if not self.egg_table:
            e.state = GONE
            e.due = NEVER
            return
        block = None
        for block_id in self.egg_table:
            candidate = self.board.blocks.get(block_id)
            if candidate is not None and candidate.motion is None and candidate.breaking is None:
                block = candidate
                break
        if block is None:
            e.due = self.now + 1  # every remaining egg is sliding: defer (the arcade's scan never ends)
            return
        self.egg_table.remove(block.id)
        self.eggs_left -= 1
        arcade_due = self._ticks(T16, HATCH_FLASH_T16, self._ticks(T32, HATCH_BREAK_T32))
        self.board.hatch(block.id, self._after(arcade_due, self.config.hatch_seconds))
        kind = block.egg or e.kind
        e.kind = kind
        e.brain = self.kinds[kind].brain
        e.id = f"{kind}-{self.next_enemy}"
        self.next_enemy += 1
        e.px, e.py = block.cx * CELL_PX, block.cy * CELL_PX
        e.jump += 1
        e.mode = (self.rng.byte() & 7) + 1  # $3CA8
        e.chews = HATCH_CHEWS
        e.chewing = False
        e.score = 0
        self._reset_base(e)
        e.state = HATCHING
        e.due = self._after(self._ticks(T64, HATCH_T64), self.config.hatch_seconds)
        self._events.append(Hatch(e.id, Cell(block.cx, block.cy)))
        if not any(slot.mode == 2 for slot in self.slots if slot.brain == "sno-bee"):  # $3CBD
            for slot in self.slots:
                if slot.state == MOVING and slot.brain == "sno-bee":
                    slot.mode = 2
                    break

    def _reset_base(self, e: Enemy) -> None:
        num, den = self.enemy_period
        scale = self.kinds[e.kind].speed_scale
        if scale != 1:
            period = Fraction(num, den) / Fraction(scale).limit_denominator(1000)
            num, den = period.numerator, period.denominator
        self.set_base(e, num, den)

    def _squash_score(self, e: Enemy) -> None:
        """$3BBF: the slot that holds the count pays the slide's total."""
        if e.crush_count <= 0:
            return
        ids = self.crush_ids.pop(e.slot, [e.id])
        points = self.crush_points(e.crush_count)
        e.score = points
        at = Cell(e.px // CELL_PX, e.py // CELL_PX)
        self._events.append(Crush(tuple(ids), at, points))
        self._add_score(points, at, "crush")

    def crush_points(self, count: int) -> int:
        """Points for crushing `count` enemies with one slide (the last entry doubles beyond)."""
        table = self.config.crush_scores
        if count <= len(table):
            return table[count - 1]
        return int(table[-1] << (count - len(table)))

    # ---- the player ------------------------------------------------------------------------------

    def _button_down(self) -> bool:
        return self.now <= self.button_until

    def _player_pass(self) -> None:
        player = self.player
        state = player.state
        if state == P_WALK:
            self._player_walk()
        elif state in (P_READY, P_PUSH, P_BREAK, P_SHAKE):
            player.state = P_WALK
            player.due = NEVER
            self._schedule_move(player)

    def _player_walk(self) -> None:
        player = self.player
        board = self.board
        px, py = player.px, player.py
        if px % CELL_PX == 0 and py % CELL_PX == 0:
            held = self.held
            if held is not None:
                player.facing = held  # $3EF4: even when that way is blocked
            pressed = self._button_down()
            if pressed and player.button_seen_released:
                player.button_seen_released = False
                if self._kick_now():
                    player.moving = False
                    return
            elif not pressed:
                player.button_seen_released = True
            if held is None:
                player.moving = False
            else:
                step = STEP[player.facing]
                nx, ny = px // CELL_PX + step.x, py // CELL_PX + step.y
                if board.tile_free(nx, ny):  # $3E36: both tiles of the next cell passable
                    player.px += step.x
                    player.py += step.y
                    player.moving = True
                else:
                    player.moving = False
            self._schedule_move(player)
            return
        direction = player.facing
        held = self.held
        if held is not None and held != direction:
            axis_offset = (py if direction in ("up", "down") else px) % CELL_PX
            if 1 <= axis_offset <= 3:  # $3EA6: steered back to the centre behind
                direction = "up" if direction in ("up", "down") else "left"
            elif axis_offset >= 12:
                direction = "down" if direction in ("up", "down") else "right"
            player.facing = direction
        step = STEP[direction]
        player.px += step.x
        player.py += step.y
        player.moving = True
        self._schedule_move(player)

    def _player_busy(self) -> bool:
        return self.config.one_slide and any(
            b.motion is not None and b.motion.by == "player" for b in self.board.sliding_blocks
        )

    def _kick_now(self) -> bool:
        """The fire button at a centre ($3F85) and the kick's resolution ($41D9). True: Pengo is busy."""
        player = self.player
        if self._player_busy():
            return False  # $3F92: swallowed while the block is busy
        board = self.board
        facing = player.facing
        step = STEP[facing]
        cx, cy = player.px // CELL_PX, player.py // CELL_PX
        nx, ny = cx + step.x, cy + step.y
        at = Cell(nx, ny)
        if not board.inside(nx, ny):
            if self.config.wall_shake_seconds is None:
                self._events.append(Kick(at, facing, "border"))
                return False
            self._events.append(Kick(at, facing, "border"))
            self._events.append(Shake(facing))
            player.state = P_SHAKE
            player.shake_side = facing
            if self.arcade:
                player.due = self._ticks(T32, BREAK_POSE_T32)
                player.shake_tests = [self._ticks(T32, n) for n in SHAKE_STUN_AT_T32]
            else:
                player.due = self.now + passes_for_seconds(self.config.wall_shake_seconds)
                player.shake_tests = [self.now + 1]
            return True
        block = board.block_at(nx, ny)
        if block is None or block.breaking is not None:
            self._events.append(Kick(at, facing, "empty" if block is None else "busy"))
            return False
        egg = block.egg
        result = board.push(nx, ny, facing, "player")
        self._events.append(Kick(at, facing, result.kind))
        if result.kind == "slide":
            self.hits[block.id] = 0
            player.state = P_PUSH
            player.due = self._after(self._wraps(1), self.config.player.push_seconds)
            return True
        if result.kind == "break" and egg is not None:
            self._egg_destroyed(block, egg)
        player.state = P_BREAK
        player.due = self._after(self._ticks(T32, BREAK_POSE_T32), self.config.player.break_seconds)
        return True

    def _egg_destroyed(self, block: Block, egg: str) -> None:
        """$42BD: remaining and eggs drop at once; the 500 comes when the shell is gone ($4AFD)."""
        if block.id in self.egg_table:
            self.egg_table.remove(block.id)
        self.eggs_left -= 1
        self.remaining_count -= 1
        shell_due = self._ticks(
            T64,
            EGG_SHELL_T64,
            self._ticks(T32, EGG_SHELL_T32, block.breaking.due if block.breaking else self.now),
        )
        due = self._after(shell_due, self.config.shatter_seconds + 1.0)
        self.shells.append([due, block.cx, block.cy])

    def _shells_due(self) -> None:
        now = self.now
        for shell in [s for s in self.shells if s[0] <= now]:
            self.shells.remove(shell)
            at = Cell(shell[1], shell[2])
            self._events.append(EggBroken(at, self.config.egg_score))
            self._add_score(self.config.egg_score, at, "egg")

    def _shake_stun(self) -> None:
        """$4167: Sno-Bees moving exactly on the shaken border line are stunned."""
        side = self.player.shake_side
        right = (self.cols - 1) * CELL_PX
        bottom = (self.rows - 1) * CELL_PX
        for e in self.slots:
            if e.state != MOVING or not self.kinds[e.kind].stunnable:
                continue
            on_line = (
                (side == "up" and e.py == 0)
                or (side == "down" and e.py == bottom)
                or (side == "left" and e.px == 0)
                or (side == "right" and e.px == right)
            )
            if on_line:
                self._stun(e, "shake")

    def _stun(self, e: Enemy, cause: str) -> None:
        e.state = STUN_MOVING
        self._events.append(Stun(e.id, "shake" if cause == "shake" else "line"))

    # ---- blocks ----------------------------------------------------------------------------------

    def _obstacle(self, x: int, y: int, block: Block) -> bool:
        player = self.player
        if player.px // CELL_PX == x and player.py // CELL_PX == y:
            return True
        return any(
            e.state in (PAUSE, MOVING, STUN_MOVING, STUNNED, BLINKING)
            and e.px // CELL_PX == x
            and e.py // CELL_PX == y
            for e in self.slots
        )

    def _catch(self, block: Block) -> None:
        """$43E5 at a cell centre: catch enemies in the block's window ($4467–$44E8)."""
        motion = block.motion
        assert motion is not None
        if not self.materials[block.material].crushes:
            return
        bx, by = block.px, block.py
        d = motion.dir
        if d == "up":
            x0, x1, y0, y1 = bx - 8, bx + 7, by - 16, by + 15
        elif d == "down":
            x0, x1, y0, y1 = bx - 8, bx + 7, by - 8, by + 23
        elif d == "left":
            x0, x1, y0, y1 = bx - 16, bx + 15, by - 8, by + 7
        else:
            x0, x1, y0, y1 = bx - 8, bx + 23, by - 8, by + 7
        for e in self.slots:
            if (
                PAUSE <= e.state <= BLINKING
                and x0 <= e.px <= x1
                and y0 <= e.py <= y1
                and self.kinds[e.kind].crushable
            ):
                e.state = CARRIED
                e.due = NEVER
                e.carried_by = block.id
                e.chewing = False
                self.carried.setdefault(block.id, []).append(e.slot)
                self.hits[block.id] = self.hits.get(block.id, 0) + 1
        player = self.player
        if (
            motion.by != "player"
            and self.config.crush_player
            and not self.config.invulnerable
            and not player.dead
            and x0 <= player.px <= x1
            and y0 <= player.py <= y1
        ):
            self._kill_player("block")

    def _carry(self) -> None:
        """Carried enemies ride ahead of their block ($3AD7) and freeze when it runs out ($44EC)."""
        for block_id, slots in self.carried.items():
            block = self.board.blocks.get(block_id)
            if block is None or block.motion is None or block.motion.stopping:
                continue
            step = STEP[block.motion.dir]
            for slot in slots:
                e = self.slots[slot]
                e.px = block.px + step.x * CELL_PX
                e.py = block.py + step.y * CELL_PX

    def _on_stop(self, block: Block, motion: Motion) -> None:
        """Block state 4 ($4529): settle crushes, then test the line."""
        slots = self.carried.pop(block.id, [])
        count = self.hits.pop(block.id, 0)
        if slots:
            first = min(slots)
            ids = [self.slots[s].id for s in sorted(slots)]
            for slot in slots:
                e = self.slots[slot]
                e.px, e.py = block.cx * CELL_PX, block.cy * CELL_PX
                e.state = SQUASHED
                e.carried_by = None
                e.crush_count = count if slot == first else 0
                e.due = self._after(self._wraps(SQUASHED_POSE_WRAPS), 0.3)
            self.crush_ids[first] = ids
        line = self.config.line
        material = self.materials[block.material]
        if line is not None and material.group == line.group and (line.repeat or not self.line_paid):
            found = self.board.line(line.group, line.length)
            if found is not None:
                cells, along_wall = found
                points = line.wall_score if along_wall else line.score
                self.line_paid = True
                self._events.append(Line(cells, along_wall, points))
                self._add_score(points, cells[0], "line")
                self.line_show = [[list(c) for c in cells], points]
                if self.arcade:
                    duration = (LINE_WALL_VBLANKS if along_wall else LINE_VBLANKS) * VBLANK_PASSES
                else:
                    duration = passes_for_seconds(line.pause_seconds)
                self._begin_status("bonus", duration)

    def _end_line(self) -> None:
        """After the payout every moving Sno-Bee is stunned ($4728)."""
        self.status = "playing"
        self.status_due = NEVER
        self.line_show = None
        if self.config.line is not None and self.config.line.stun:
            for e in self.slots:
                if e.state == MOVING and self.kinds[e.kind].stunnable:
                    self._stun(e, "line")

    def _broken(self, block: Block) -> None:
        breaking = block.breaking
        if breaking is None:
            return
        if breaking.by == "player":
            material = self.materials[block.material]
            if material.break_score and block.egg is None:
                at = Cell(block.cx, block.cy)
                self._add_score(material.break_score, at, "break")  # $49D7: only Pengo's breaks pay

    # ---- contact, scores, round flow -------------------------------------------------------------

    def _contacts(self) -> None:
        """$4BE6 and $4C55: same 8-pixel tile kills, unless the Sno-Bee is stunned (then it is eaten)."""
        player = self.player
        if player.dead or player.state > P_SHAKE or player.state < P_READY or self.hold_round:
            return
        ppx, ppy = player.px, player.py
        arcade = self.arcade
        tx, ty = ppx >> 3, ppy >> 3
        reach = int(self.config.contact * CELL_PX)
        for e in self.slots:
            state = e.state
            if state < PAUSE or state > BLINKING:
                continue
            if arcade:
                if (e.px >> 3) != tx or (e.py >> 3) != ty:
                    continue
            elif abs(e.px - ppx) >= reach or abs(e.py - ppy) >= reach:
                continue
            if state >= STUNNED:
                e.state = EATEN
                e.score = self.config.stunned_score
                e.due = self._after(self._wraps(EATEN_WRAPS), 0.8)
                at = Cell(e.px // CELL_PX, e.py // CELL_PX)
                self._events.append(Eat(e.id, at, self.config.stunned_score))
                self._add_score(self.config.stunned_score, at, "eat")
            elif not self.config.invulnerable:
                self._kill_player("enemy")
                return

    def _kill_player(self, cause: str) -> None:
        player = self.player
        player.dead = True
        player.state = P_FROZEN
        player.due = NEVER
        player.moving = False
        self._death_cause = cause

    def _add_score(self, points: int, at: Cell | None, reason: str) -> None:
        self.score += points
        self._events.append(Score(points, at, reason))
        thresholds = self.config.extra_lives
        while True:
            if self.extra_index < len(thresholds):
                threshold = thresholds[self.extra_index]
            elif self.config.extra_life_every:
                beyond = self.extra_index - len(thresholds) + 1
                threshold = (thresholds[-1] if thresholds else 0) + beyond * self.config.extra_life_every
            else:
                return
            if self.score < threshold:
                return
            self.extra_index += 1
            self.lives += 1
            self._events.append(ExtraLife(self.lives))

    def _clock_events(self) -> None:
        if (
            self.hurry_enabled
            and self.hurry_told + 1 < FLEE_AFTER_MINUTES
            and self.life_minutes() > self.hurry_told
        ):
            self.hurry_told += 1
            self._events.append(Hurry())
        if not self.last_enemy_told and self.remaining_count == 1 and self.eggs_left == 0:
            self.last_enemy_told = True
            self._events.append(LastEnemy())

    def _settled(self) -> bool:
        """$0BDD / $0C26: no enemy in a finishing state, no slide, no break."""
        if self.board.sliding_blocks or self.board.breaking_blocks:
            return False
        return all(e.state in (GONE, PAUSE, MOVING, HATCH_NEXT) for e in self.slots)

    def _objective_met(self) -> bool:
        objective = self.config.objective
        if objective.goals and not self.board.goals_complete:
            return False
        if objective.enemies and self.remaining_count > 0:
            return False
        return objective.goals or objective.enemies

    def _round_flow(self) -> None:
        player = self.player
        if player.dead:
            for e in self.slots:
                if e.state in (MOVING, PAUSE):  # $0BF9: held still while the death waits
                    e.state = PAUSE
                    e.due = NEVER
            if self._settled():
                self._events.append(
                    Death(
                        Cell(player.px // CELL_PX, player.py // CELL_PX),
                        "block" if self._death_cause == "block" else "enemy",
                    )
                )
                player.state = 6
                self._begin_status(
                    "dying",
                    DEATH_VBLANKS * VBLANK_PASSES
                    if self.arcade
                    else passes_for_seconds(self.config.death_seconds),
                )
            return
        if self._objective_met():
            self.hold_round = True
            for e in self.slots:
                if e.state in (MOVING, PAUSE):
                    e.state = PAUSE
                    e.due = NEVER
            if self._settled():
                self._clear_round()

    def round_time_passes(self) -> int:
        """Round time so far (all lives), in passes of the clock."""
        if self.status == "playing":
            return self.round_banked + self.clock - self.life_start
        return self.round_banked

    def _clear_round(self) -> None:
        round_passes = self.round_time_passes()
        self.round_banked = round_passes
        bonus = 0
        if self.arcade:
            seconds_game = round_passes // GAME_SECOND_PASSES
            if seconds_game < 60:
                bonus = next((b.score for b in self.config.time_bonus if seconds_game < b.under), 0)
            self.rng.byte()  # $0CA6: the walk-out's stumble pose draws one byte
        else:
            seconds = round_passes / PENGO_LOOP_HZ
            bonus = next((b.score for b in self.config.time_bonus if seconds < b.under), 0)
        seconds_real = round_passes / PENGO_LOOP_HZ
        self.bonus = [seconds_real, bonus]
        self._events.append(RoundClear(seconds_real, bonus))
        if bonus:
            self._add_score(bonus, None, "time-bonus")
        self._begin_status(
            "clear",
            CLEAR_VBLANKS * VBLANK_PASSES if self.arcade else passes_for_seconds(self.config.clear_seconds),
        )

    def _next_level(self) -> None:
        if not self.config.loop and self.level >= len(self.config.levels):
            self.status = "complete"
            self.status_start = self.clock
            self.status_due = NEVER
            self._events.append(CompleteEvent())
            return
        self._start_level(self.level + 1)

    def _after_death(self) -> None:
        """$0CF5–$0D20, then the next life ($08F0)."""
        self.round_banked += self.clock - self.life_start
        self.lives -= 1
        if self.lives <= 0:
            self.status = "lost"
            self.status_start = self.clock
            self.status_due = NEVER
            self._events.append(GameOver())
            return
        self._respawn()
        self._begin_status("ready", self._ready_passes())

    def _respawn(self) -> None:
        player = self.player
        player.dead = False
        player.state = P_READY
        player.due = NEVER
        player.moving = False
        player.shake_tests = []
        board = self.board
        chosen = self._respawn_cell()
        block = board.block_at(chosen.x, chosen.y)
        if block is not None and self.materials[block.material].breaks_when_blocked:
            board.remove(block.id)  # $09B0: the ice under Pengo is erased
        self.start_cell = chosen
        corners = (
            (0, 0, 1),
            (self.cols - 1, self.rows - 1, -1),
            (self.cols - 1, 0, 1),
            (0, self.rows - 1, -1),
        )
        for e in self.slots:
            if e.state == GONE or e.state == HATCH_NEXT:
                continue
            if e.from_map:
                index = sum(1 for s in self.slots[: e.slot] if s.from_map)
                home = self._map_enemy_cells[index][1]
                if board.tile_free(home.x, home.y) and home != chosen:
                    e.px, e.py = home.x * CELL_PX, home.y * CELL_PX
                e.jump += 1
                e.state = PAUSE
                e.due = NEVER
                continue
            x, y, dy = corners[e.slot % 4]
            for _ in range(self.rows):  # $0DD0: the first free cell down (or up) a border column
                if board.tile_free(x, y) and (x, y) != (chosen.x, chosen.y):
                    e.px, e.py = x * CELL_PX, y * CELL_PX
                    break
                y += dy
            e.jump += 1
            e.state = PAUSE
            e.due = NEVER

    def _respawn_cell(self) -> Cell:
        """Where the player comes back: the respawn table's first cell without an egg or a special
        block ($0D66); on authored maps, the map's start cell or the free cell nearest to it."""
        board = self.board
        if self.config.player.respawn is not None or self.config.generator is not None:
            candidates = self.config.player.respawn or tuple(Cell(x, y) for x, y in PENGO_RESPAWN)
            for cell in candidates:
                if not board.inside(cell.x, cell.y):
                    continue
                block = board.block_at(cell.x, cell.y)
                if block is not None and (
                    block.egg is not None
                    or block.breaking is not None
                    or not self.materials[block.material].breaks_when_blocked
                ):
                    continue
                return Cell(cell.x, cell.y)
            return self.start_cell
        start = self._map_start()
        seen = {start}
        frontier = [start]
        while frontier:
            cell = frontier.pop(0)
            if board.free(cell.x, cell.y):
                return cell
            for step in STEP.values():
                nxt = Cell(cell.x + step.x, cell.y + step.y)
                if board.inside(nxt.x, nxt.y) and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        return start

    def _map_start(self) -> Cell:
        level_map = self._level_map(self.row(self.level))
        if level_map is not None:
            for y, text in enumerate(level_map):
                for x, ch in enumerate(text):
                    entry = self._legend.get(ch)
                    if entry is not None and entry.player:
                        return Cell(x, y)
        return self.config.player.start or Cell(self.cols // 2, self.rows // 2)

    # ---- effects from outside the board (versus attacks) -----------------------------------------

    def landing_cells(self, min_distance: int) -> list[Cell]:
        """Free floor cells at least `min_distance` cells (Chebyshev) from the player and not under an
        enemy or a sliding block, in row-major order: where garbage may land."""
        board = self.board
        player = self.player
        px, py = player.px / CELL_PX, player.py / CELL_PX
        taken: set[tuple[int, int]] = set()
        for e in self.slots:
            if e.state in (GONE, HATCH_NEXT):
                continue
            for x in {e.px // CELL_PX, -(-e.px // CELL_PX)}:
                for y in {e.py // CELL_PX, -(-e.py // CELL_PX)}:
                    taken.add((x, y))
        cells = []
        for y in range(self.rows):
            for x in range(self.cols):
                if max(abs(x - px), abs(y - py)) < min_distance or (x, y) in taken:
                    continue
                if board.free(x, y):
                    cells.append(Cell(x, y))
        return cells

    def drop_block(self, cell: Cell, material: str) -> int:
        """Put a block of `material` on a free floor cell (raises ValueError when it is taken)."""
        return self.board.add(KickBlockSpec(cell.x, cell.y, material))

    def hide_egg(self, block_id: int, kind: str | None = None) -> None:
        """Hide an egg in a resting block; it joins the hatch order last, and counts as remaining."""
        generator = self.config.generator
        egg_kind = kind or (generator.egg if generator is not None else None) or next(iter(self.kinds))
        self.board.set_egg(block_id, egg_kind)
        self.egg_table.append(block_id)
        self.eggs_left += 1
        self.remaining_count += 1
        for slot in self.slots:
            if slot.state == GONE and not slot.from_map:
                slot.state = HATCH_NEXT
                slot.due = self.now + 1
                break

    def transmute(self, block_id: int, material: str) -> None:
        """Change a resting block's material (a counter gem thawing into ice)."""
        block = self.board.blocks.get(block_id)
        if block is None or block.motion is not None:
            raise ValueError(f"block {block_id} is not at rest")
        if material not in self.materials:
            raise ValueError(f"material: unknown material {material!r}")
        block.material = material

    # ---- state -----------------------------------------------------------------------------------

    @property
    def state(self) -> KickState:
        """A copy of the session state."""
        hz = PENGO_LOOP_HZ
        player = self.player
        if player.state == P_WALK:
            action_time = 0.0
        else:
            action_time = max(0, player.due - self.now) / hz if player.due != NEVER else 0.0
        player_state = KickPlayerState(
            player.px / CELL_PX,
            player.py / CELL_PX,
            player.facing,
            player.moving,
            "dying" if player.dead or player.state == 6 else PLAYER_ACTION[player.state],
            action_time,
            player.jump,
        )
        enemies = []
        for e in self.slots:
            if e.state in (GONE, HATCH_NEXT):
                continue
            phase_time = (
                0.0 if e.due == NEVER or e.state in (MOVING, STUN_MOVING) else max(0, e.due - self.now) / hz
            )
            enemies.append(
                KickEnemyState(
                    e.id,
                    e.kind,
                    e.px / CELL_PX,
                    e.py / CELL_PX,
                    e.dir,
                    PHASE_OF_STATE[e.state],
                    phase_time,
                    MODE_NAME.get(e.mode, "roam")
                    if e.brain == "sno-bee"
                    else ("hunt" if e.brain != "patrol" else "roam"),
                    e.chewing,
                    e.state == BLINKING,
                    e.score,
                    e.carried_by,
                    e.jump,
                )
            )
        status_remaining = 0.0 if self.status_due == NEVER else max(0, self.status_due - self.clock) / hz
        life_time = (self.clock - self.life_start) / hz if self.status == "playing" else 0.0
        shake = None
        if player.state == P_SHAKE and player.shake_side is not None:
            shake = {"side": player.shake_side, "remaining": action_time}
        line = None
        if self.line_show is not None:
            line = {"cells": [Cell(*c) for c in self.line_show[0]], "score": self.line_show[1]}
        return KickState(
            status=self.status,
            status_time=(self.clock - self.status_start) / hz,
            status_remaining=status_remaining,
            level=self.level,
            act=self.act_of(self.level),
            score=self.score,
            lives=self.lives,
            player=player_state,
            enemies=tuple(enemies),
            blocks=tuple(self.board.state),
            goals=tuple(self.board.goals()),
            eggs=self.eggs_left,
            remaining=self.remaining_count,
            egg_flash=self.clock < self.flash_until,
            shake=shake,
            line=line,
            round_time=self.round_time_passes() / hz,
            life_time=life_time,
            hurry=self.status == "playing" and self.hurry_enabled and self.life_minutes() >= 1,
            carve_order=self.carve,
            bonus=None if self.bonus is None else {"time": self.bonus[0], "score": self.bonus[1]},
            cols=self.cols,
            rows=self.rows,
        )

    # ---- snapshots -------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """A plain-data snapshot (msgpack can encode it)."""
        s = {name: getattr(self, name) for name in _STATE_FIELDS}
        s["bonus"] = None if self.bonus is None else list(self.bonus)
        s["line_show"] = None if self.line_show is None else [list(self.line_show[0]), self.line_show[1]]
        s["egg_table"] = list(self.egg_table)
        s["shells"] = [list(x) for x in self.shells]
        s["carried"] = [[k, list(v)] for k, v in self.carried.items()]
        s["hits"] = [[k, v] for k, v in self.hits.items()]
        s["crush_ids"] = [[k, list(v)] for k, v in self.crush_ids.items()]
        s["start_cell"] = list(self.start_cell)
        s["carve"] = self._carve_plain  # immutable for the level: shared, not copied
        s["death_cause"] = self._death_cause
        s["events"] = [to_plain(e) for e in self._events]
        return {
            "s": s,
            "board": self.board.snapshot(),
            "rng": self.rng.state,
            "slots": [e.plain() for e in self.slots],
            "player": self.player.plain(),
        }

    def restore(self, snap: dict[str, Any]) -> None:
        """Restore a snapshot taken from a session with the same configuration."""
        s = snap["s"]
        for name in _STATE_FIELDS:
            setattr(self, name, s[name])
        self.bonus = None if s["bonus"] is None else list(s["bonus"])
        self.line_show = None if s["line_show"] is None else [list(s["line_show"][0]), s["line_show"][1]]
        self.egg_table = list(s["egg_table"])
        self.shells = [list(x) for x in s["shells"]]
        self.carried = {k: list(v) for k, v in s["carried"]}
        self.hits = {k: v for k, v in s["hits"]}
        self.crush_ids = {k: list(v) for k, v in s["crush_ids"]}
        self.start_cell = Cell(*s["start_cell"])
        if s["carve"] is not self._carve_plain:
            self._set_carve(tuple(Cell(*c) for c in s["carve"]))
        self._death_cause = s["death_cause"]
        level = self.row(self.level)
        self._resolve_level(level, self.act_of(self.level))
        self._map_enemy_cells = self._map_enemies_of(level)
        board_config = KickBoardConfig(
            cols=self.cols,
            rows=self.rows,
            materials=self.config.materials,
            goals=self._goals_of(level),
            slide_speed=self.config.slide_speed,
            break_seconds=self.config.shatter_seconds,
            break_tick=T32 if self.arcade else None,
            break_ticks=ICE_BREAK_T32,
            passable_ticks=ICE_PASSABLE_T32 if self.arcade else None,
        )
        self.board = KickBoard(board_config)
        self.board.restore(snap["board"])
        self._events.clear()
        self._events.extend(from_plain(e) for e in s["events"])
        self.board._pending = cast(list[KickBoardEvent], self._events)
        self.board.on_stop = self._on_stop
        self.rng.state = snap["rng"]
        self.slots = [Enemy.from_plain(list(e)) for e in snap["slots"]]
        self.player = Player.from_plain(list(snap["player"]))

    def _map_enemies_of(self, level: KickLevel) -> list[tuple[str, Cell]]:
        level_map = self._level_map(level)
        out: list[tuple[str, Cell]] = []
        if level_map is None:
            return out
        for y, text in enumerate(level_map):
            for x, ch in enumerate(text):
                entry = self._legend.get(ch)
                if entry is not None and entry.enemy is not None:
                    out.append((entry.enemy, Cell(x, y)))
        return out

    def _goals_of(self, level: KickLevel) -> tuple[KickGoal, ...]:
        level_map = self._level_map(level)
        if level_map is None:
            return ()
        return tuple(
            KickGoal(x, y, entry.goal)
            for y, text in enumerate(level_map)
            for x, ch in enumerate(text)
            if (entry := self._legend.get(ch)) is not None and entry.goal is not None
        )


def create_kick_game(config: KickConfig) -> KickGame:
    """Create a kick-block session."""
    return KickGame(config)
