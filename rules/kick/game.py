"""KickGame: a kick-block arcade session on an integer core of main-loop passes and pixels.

The session advances in main-loop passes (780 per second). Each pass runs, in the arcade's order
($09E7, PENGO-RULES §1): the enemy slots 1…n, the player, the sliding blocks (catches at cell
centres), the breaking blocks, then the contact tests and the round-flow checks. Passes on which
nothing is due are skipped, which is what keeps a Python board hundreds of times faster than real
time. Blocking sequences (READY, the line bonus, the death animation, the clear) stop the passes
while the round clock runs on, as the arcade's vblank clock does.

This module is the session's record, its public API, the round flow and the pass scheduler with
everything it runs on every pass (the actors' pixel steps, the brain call, the contact test). The
rest is in the modules of its concepts: `level` (what each level is and starts with), `enemies`
(the slots between their steps, and the `BrainHost` the brains of `brain.BRAINS` decide through),
`player` (the kick, the shake, the respawn), `view` (the state a caller reads) and `snapshot`.
"""

from __future__ import annotations

import weakref
from typing import Any, cast

from rules.errors import IllegalInputError

from .actors import (
    BLINKING,
    GONE,
    HATCH_NEXT,
    MOVING,
    NEVER,
    P_BREAK,
    P_DYING,
    P_PUSH,
    P_READY,
    P_SHAKE,
    P_WALK,
    PAUSE,
    STUN_MOVING,
    STUNNED,
    Enemy,
    Player,
    schedule_move,
)
from .board import Block, KickBlockSpec, KickBoard, Motion
from .brain import BRAINS
from .config import KickConfig, KickDifficulty, KickLevel, normalize_config
from .enemies import EnemyRules
from .events import Complete as CompleteEvent
from .events import (
    Death,
    ExtraLife,
    GameOver,
    Hurry,
    KickBoardEvent,
    KickEvent,
    LastEnemy,
    LevelStart,
    Line,
    RoundClear,
    Score,
)
from .geometry import CELL_PX, DIRECTIONS, OPPOSITE, STEP, Cell, Direction
from .level import LevelFrame, LevelPace, Levels, plain_cells
from .player import PlayerRules
from .rng import KickRandom
from .snapshot import put as put_snapshot
from .snapshot import take as take_snapshot
from .status import STATUSES, KickStatus
from .tables import (
    CLEAR_VBLANKS,
    CONTACT_TILE_SHIFT,
    DEATH_VBLANKS,
    FLEE_AFTER_MINUTES,
    GAME_MINUTE_SECONDS,
    GAME_SECOND_PASSES,
    KICK_PRESS_PASSES,
    LINE_VBLANKS,
    LINE_WALL_VBLANKS,
    MAX_TICK_SECONDS,
    PASSES_PER_FRAME,
    PENGO_LOOP_HZ,
    READY_VBLANKS,
    STEER_BACK_PX,
    STEER_ON_PX,
    VBLANK_PASSES,
)
from .timers import passes_for_seconds, period_for_speed
from .view import KickEnemyState, KickPlayerState, KickState, LazyKickState

__all__ = [
    "KICK_PRESS_PASSES",
    "MAX_TICK_SECONDS",
    "PASSES_PER_FRAME",
    "STATUSES",
    "IllegalInputError",
    "KickEnemyState",
    "KickGame",
    "KickPlayerState",
    "KickState",
    "create_kick_game",
]


#: The statuses as module constants: looking a member up on the enum costs more than the comparison
#: (the status is tested on every executed pass).
_DRAWING, _READY, _PLAYING = KickStatus.DRAWING, KickStatus.READY, KickStatus.PLAYING
_BONUS, _DYING, _CLEAR = KickStatus.BONUS, KickStatus.DYING, KickStatus.CLEAR
_LOST, _COMPLETE = KickStatus.LOST, KickStatus.COMPLETE

#: What `tick(dt)` takes as a number of seconds (a bool is refused apart).
_NUMBER = (int, float)


class KickGame:
    """A kick-block arcade session: control(), kick(), tick(dt) or advance(passes), drain()."""

    def __init__(self, config: KickConfig) -> None:
        self.config: KickConfig = normalize_config(config)
        self.difficulty: KickDifficulty = self.config.difficulty
        self.kinds = self.config.enemy_by_id()
        self.materials = self.config.material_by_id()
        self.arcade = self.config.timing == "arcade"
        #: Contact distance in pixels per axis (seconds timing; arcade timing compares 8-pixel tiles).
        self._reach = int(self.config.contact * CELL_PX)
        #: Goals clear the round: the round flow is checked on every pass.
        self._goal_rounds = self.config.objective.goals
        self.levels = Levels(self.config)
        self.rng = KickRandom((self.config.seed & 0xFFFF) or 1)
        self._events: list[KickEvent] = []
        #: The state last handed out and not frozen yet, held weakly (view.py).
        self._view: weakref.ref[LazyKickState] | None = None
        self._enemies = EnemyRules(self, self._events, self._add_score)
        self._player_rules = PlayerRules(self, self._events, self._enemies)
        self.reset()

    # ---- level table -----------------------------------------------------------------------------

    def row(self, level: int | None = None) -> KickLevel:
        """The level-table row for a level number (1-based), with looping applied."""
        return self.levels.row(self.level if level is None else level)

    def act_of(self, level: int) -> int:
        """The level-table row number (Pengo's ACT) for a level."""
        return self.levels.act_of(level)

    # ---- public API ------------------------------------------------------------------------------

    def reset(self) -> None:
        """Start a new game at the configured level."""
        self._freeze_view()
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
        self.carve_plain = plain_cells(carve)

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
        if isinstance(dt, bool) or not isinstance(dt, _NUMBER) or not 0 <= dt <= MAX_TICK_SECONDS:
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
        self._freeze_view()
        self._start_level(level)

    @property
    def state(self) -> KickState:
        """A copy of the session state (each part is built when first read)."""
        view = None if self._view is None else self._view()
        if view is None:
            view = LazyKickState.of(self)
            self._view = weakref.ref(view)
        return view

    def _freeze_view(self) -> None:
        """The session is about to change what a state shows: the state handed out keeps its moment."""
        if self._view is not None:
            view = self._view()
            self._view = None
            if view is not None:
                view.freeze()

    def snapshot(self) -> dict[str, Any]:
        """A plain-data snapshot (msgpack can encode it)."""
        return take_snapshot(self, self._events)

    def restore(self, snap: dict[str, Any]) -> None:
        """Restore a snapshot taken from a session with the same configuration."""
        self._freeze_view()
        board = put_snapshot(self, snap, self._events)
        self._set_level_rules(self.level)
        self._schedule_hurry()
        self._attach(self.levels.board(self.frame), board)

    # ---- level start -----------------------------------------------------------------------------

    def _set_level_rules(self, level: int) -> None:
        """The level's pace, frame and size (derived from the config, so never snapshotted)."""
        self.pace: LevelPace = self.levels.pace(level)
        self.frame: LevelFrame = self.levels.frame(level)
        frame = self.frame
        self.cols, self.rows = frame.cols, frame.rows
        #: The Sno-Bees' pixel clamp ($3922): the outer cells' centres.
        self._right_px = (frame.cols - 1) * CELL_PX
        self._bottom_px = (frame.rows - 1) * CELL_PX

    def _schedule_hurry(self) -> None:
        """The clock at which the next minute of the life hurries the enemies ($344B), or NEVER."""
        pace = self.pace
        minute = self.hurry_told + 1
        if pace.hurry_enabled and minute < FLEE_AFTER_MINUTES:
            self._hurry_due = self.life_start + minute * pace.minute_passes
        else:
            self._hurry_due = NEVER

    def _attach(self, board: KickBoard, snap: dict[str, Any] | None = None) -> None:
        """Make `board` (restored from `snap` if given) the session's: its events join the session's."""
        if snap is not None:
            board.restore(snap)
        board._pending = cast(list[KickBoardEvent], self._events)
        board.on_stop = self._on_stop
        self.board = board

    def _start_level(self, level_number: int) -> None:
        self.level = level_number
        self._set_level_rules(level_number)
        deal = self.levels.deal(level_number, self.rng)
        frame = deal.frame
        self.remaining_count = 0
        self.eggs_left = 0
        self.line_paid = False
        self.line_show: list[Any] | None = None
        self.hold_round = False
        self.flash_until = 0
        self.life_start = self.clock
        self.last_enemy_told = False
        self.hurry_told = 0
        self._schedule_hurry()
        self.bonus = None
        self.egg_table: list[int] = []
        self.shells: list[list[int]] = []
        self.carried: dict[int, list[int]] = {}
        self.hits: dict[int, int] = {}
        self.crush_ids: dict[int, list[str]] = {}
        self.round_banked = 0
        self.player = Player()
        period = period_for_speed(self.config.player.speed)
        self.player.period_num, self.player.period_den = period.numerator, period.denominator
        self._set_carve(deal.carve)
        board = self.levels.board(frame, deal.blocks)
        board.now = self.now
        self._attach(board)
        start_block = board.block_at(frame.start.x, frame.start.y)
        if start_block is not None:
            board.remove(start_block.id)
        self.start_cell = frame.start
        self._player_rules.place()
        for cell in deal.eggs:
            block = board.block_at(cell.x, cell.y)
            if block is not None and block.egg is not None:
                self.egg_table.append(block.id)
        self.eggs_left = len(self.egg_table)
        self.slots: list[Enemy] = self._enemies.open_slots(deal.facings, deal.slots)
        self.remaining_count = self.eggs_left + len(frame.enemies)
        self._events.append(LevelStart(level_number))
        draw = passes_for_seconds(self.config.draw_seconds)
        self._begin_status(KickStatus.DRAWING if draw else KickStatus.READY, draw or self._ready_passes())

    # ---- statuses --------------------------------------------------------------------------------

    def _ready_passes(self) -> int:
        if self.arcade:
            return READY_VBLANKS * VBLANK_PASSES
        return passes_for_seconds(self.config.ready_seconds)

    def _begin_status(self, status: KickStatus, duration: int) -> None:
        self.status = status
        self.status_start = self.clock
        self.status_due = self.clock + duration

    def _end_status(self) -> None:
        status = self.status
        if status is _DRAWING:
            self._begin_status(KickStatus.READY, self._ready_passes())
        elif status is _READY:
            self._begin_play()
        elif status is _BONUS:
            self._end_line()
        elif status is _DYING:
            self._after_death()
        elif status is _CLEAR:
            self._next_level()

    def _begin_play(self) -> None:
        """A life starts: the life clock is zeroed ($09D6), the eggs flash, slots wake."""
        self.status = KickStatus.PLAYING
        self.status_start = self.clock
        self.status_due = NEVER
        self.life_start = self.clock
        self.hurry_told = 0
        self._schedule_hurry()
        self.flash_until = self.clock + passes_for_seconds(self.config.egg_flash_seconds)
        self._player_rules.ready()
        self._enemies.wake_for_play()

    # ---- the main loop ---------------------------------------------------------------------------

    def advance(self, passes: int) -> None:
        """Run `passes` main-loop passes of time (blocking sequences consume them without play)."""
        if isinstance(passes, bool) or not isinstance(passes, int) or passes < 0:
            raise IllegalInputError(f"passes: must be a non-negative integer, got {passes!r}")
        if self._view is not None:
            self._freeze_view()
        budget = passes
        while budget > 0:
            if self.status is not _PLAYING:
                if self.status is _LOST or self.status is _COMPLETE:
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
        hurry = self._hurry_due
        if hurry != NEVER:
            minute_due = now + (hurry - self.clock)
            if minute_due < due:
                due = minute_due
        return due if due > now else now + 1

    def _pass(self) -> None:
        """One main-loop pass in the arcade's order ($09E7)."""
        now = self.now
        moved = False
        for slot in self.slots:
            state = slot.state
            if state == MOVING:
                if slot.next_move == now:
                    self._enemy_move(slot)
                    moved = True
            elif state == STUN_MOVING:
                if slot.next_move == now:
                    self._stunned_step(slot)
                    moved = True
            elif slot.due == now:
                self._enemies.wake(slot)
                moved = True
        player = self.player
        if not self.hold_round:
            wake = player.next_move if player.state == P_WALK else player.due
            if wake == now:
                self._player_pass()
                moved = True
            if player.shake_tests and player.shake_tests[0] == now:
                self._player_rules.shake_test()
        board = self.board
        if board.sliding_blocks:
            board.step_slides(self._obstacle, self._enemies.catch)
            if self.carried:
                self._enemies.carry()
        if board.breaking_blocks:
            for block in board.step_breaks():
                self._broken(block)
        if self.shells:
            self._enemies.shells_due()
        if moved:
            self._contacts()
        if (not self.last_enemy_told and self.remaining_count == 1) or self.clock >= self._hurry_due:
            self._clock_events()
        if self.status is _PLAYING and (
            player.dead or self.remaining_count <= 0 or self._goal_rounds
        ):
            self._round_flow()

    # ---- the actors' steps -----------------------------------------------------------------------

    def _stunned_step(self, e: Enemy) -> None:
        """$3AAD: a stunned Sno-Bee steps on at its period until it is centred, then stands."""
        if e.px % CELL_PX == 0 and e.py % CELL_PX == 0:
            e.state = STUNNED
            e.due = self._enemies.stunned_due()
        else:
            self._step_enemy(e)
            schedule_move(e, self.now)

    def _enemy_move(self, e: Enemy) -> None:
        if e.px % CELL_PX == 0 and e.py % CELL_PX == 0:
            host = self._enemies
            host.pause_requested = False
            steps = BRAINS[e.brain](host, e)
            if e.state != MOVING:
                if steps:  # $34F3 returns into the step: a Sno-Bee that starts to vanish steps once more
                    self._step_enemy(e)
                return
            if steps:
                self._step_enemy(e)
            schedule_move(e, self.now)
            if host.pause_requested:
                e.state = PAUSE
                e.due = host.short_pause_due()
            return
        self._step_enemy(e)
        schedule_move(e, self.now)

    def _step_enemy(self, e: Enemy) -> None:
        step = STEP[e.dir]
        px = e.px + step.x
        py = e.py + step.y
        if 0 <= px <= self._right_px and 0 <= py <= self._bottom_px:  # $3922: the clamp
            e.px, e.py = px, py

    def _player_pass(self) -> None:
        player = self.player
        state = player.state
        if state == P_WALK:
            self._player_walk()
        elif state in (P_READY, P_PUSH, P_BREAK, P_SHAKE):
            player.state = P_WALK
            player.due = NEVER
            schedule_move(player, self.now)

    def _player_walk(self) -> None:
        player = self.player
        px, py = player.px, player.py
        if px % CELL_PX == 0 and py % CELL_PX == 0:
            held = self.held
            if held is not None:
                player.facing = held  # $3EF4: even when that way is blocked
            pressed = self.now <= self.button_until
            if pressed and player.button_seen_released:
                player.button_seen_released = False
                if self._player_rules.resolve_kick():
                    player.moving = False
                    return
            elif not pressed:
                player.button_seen_released = True
            if held is None:
                player.moving = False
            else:
                step = STEP[player.facing]
                nx, ny = px // CELL_PX + step.x, py // CELL_PX + step.y
                if self.board.tile_free(nx, ny):  # $3E36: both tiles of the next cell passable
                    player.px += step.x
                    player.py += step.y
                    player.moving = True
                else:
                    player.moving = False
            schedule_move(player, self.now)
            return
        direction = player.facing
        held = self.held
        if held is not None and held != direction:
            axis_offset = (py if direction in ("up", "down") else px) % CELL_PX
            if STEER_BACK_PX[0] <= axis_offset <= STEER_BACK_PX[1]:  # $3EA6
                direction = "up" if direction in ("up", "down") else "left"
            elif axis_offset >= STEER_ON_PX:
                direction = "down" if direction in ("up", "down") else "right"
            player.facing = direction
        step = STEP[direction]
        player.px += step.x
        player.py += step.y
        player.moving = True
        schedule_move(player, self.now)

    def _contacts(self) -> None:
        """$4BE6 and $4C55: same 8-pixel tile kills, unless the Sno-Bee is stunned (then it is eaten)."""
        player = self.player
        if player.dead or player.state > P_SHAKE or player.state < P_READY or self.hold_round:
            return
        ppx, ppy = player.px, player.py
        arcade = self.arcade
        shift = CONTACT_TILE_SHIFT
        tx, ty = ppx >> shift, ppy >> shift
        reach = self._reach
        for e in self.slots:
            state = e.state
            if state < PAUSE or state > BLINKING:
                continue
            if arcade:
                if (e.px >> shift) != tx or (e.py >> shift) != ty:
                    continue
            elif abs(e.px - ppx) >= reach or abs(e.py - ppy) >= reach:
                continue
            if state >= STUNNED:
                self._enemies.eaten(e)
            elif not self.config.invulnerable:
                player.kill("enemy")
                return

    # ---- blocks ----------------------------------------------------------------------------------

    def _obstacle(self, x: int, y: int, block: Block) -> bool:
        """Does the player or a standing enemy keep a non-crushing block out of (x, y)?"""
        player = self.player
        if player.px // CELL_PX == x and player.py // CELL_PX == y:
            return True
        return any(
            e.state in (PAUSE, MOVING, STUN_MOVING, STUNNED, BLINKING)
            and e.px // CELL_PX == x
            and e.py // CELL_PX == y
            for e in self.slots
        )

    def _on_stop(self, block: Block, motion: Motion) -> None:
        """Block state 4 ($4529): settle crushes, then test the line."""
        self._enemies.squash(block)
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
                self._begin_status(KickStatus.BONUS, duration)

    def _end_line(self) -> None:
        """After the payout every moving Sno-Bee is stunned ($4728)."""
        self.status = KickStatus.PLAYING
        self.status_due = NEVER
        self.line_show = None
        if self.config.line is not None and self.config.line.stun:
            self._enemies.stun_moving()

    def _broken(self, block: Block) -> None:
        breaking = block.breaking
        if breaking is None:
            return
        if breaking.by == "player":
            material = self.materials[block.material]
            if material.break_score and block.egg is None:
                at = Cell(block.cx, block.cy)
                self._add_score(material.break_score, at, "break")  # $49D7: only Pengo's breaks pay

    # ---- scores and round flow -------------------------------------------------------------------

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
        if self.clock >= self._hurry_due:
            self.hurry_told += 1
            self._schedule_hurry()
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
            self._enemies.hold_still()
            if self._settled():
                self._events.append(
                    Death(
                        Cell(player.px // CELL_PX, player.py // CELL_PX),
                        "block" if player.death_cause == "block" else "enemy",
                    )
                )
                player.state = P_DYING
                self._begin_status(
                    KickStatus.DYING,
                    DEATH_VBLANKS * VBLANK_PASSES
                    if self.arcade
                    else passes_for_seconds(self.config.death_seconds),
                )
            return
        if self._objective_met():
            self.hold_round = True
            self._enemies.hold_still()
            if self._settled():
                self._clear_round()

    def round_time_passes(self) -> int:
        """Round time so far (all lives), in passes of the clock."""
        if self.status is _PLAYING:
            return self.round_banked + self.clock - self.life_start
        return self.round_banked

    def _clear_round(self) -> None:
        round_passes = self.round_time_passes()
        self.round_banked = round_passes
        bonus = 0
        if self.arcade:
            seconds_game = round_passes // GAME_SECOND_PASSES
            if seconds_game < GAME_MINUTE_SECONDS:  # $0A2B: a round over a minute pays nothing
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
            KickStatus.CLEAR,
            CLEAR_VBLANKS * VBLANK_PASSES if self.arcade else passes_for_seconds(self.config.clear_seconds),
        )

    def _next_level(self) -> None:
        if not self.config.loop and self.level >= len(self.config.levels):
            self.status = KickStatus.COMPLETE
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
            self.status = KickStatus.LOST
            self.status_start = self.clock
            self.status_due = NEVER
            self._events.append(GameOver())
            return
        self._enemies.regroup(self._player_rules.respawn())
        self._begin_status(KickStatus.READY, self._ready_passes())

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
        self._freeze_view()
        return self.board.add(KickBlockSpec(cell.x, cell.y, material))

    def hide_egg(self, block_id: int, kind: str | None = None) -> None:
        """Hide an egg in a resting block; it joins the hatch order last, and counts as remaining."""
        self._freeze_view()
        self._enemies.hide_egg(block_id, kind)

    def hatch_egg_at_once(self, block_id: int, waiting: int, max_slots: int) -> bool:
        """Lay an egg in resting block `block_id` that hatches on the next pass (first in the hatch
        order, a slot free for it: `waiting` eggs laid so just before hold one each, and a slot is
        opened while the board has fewer than `max_slots`); False, and nothing changed, if none can."""
        self._freeze_view()
        return self._enemies.hatch_egg_at_once(block_id, waiting, max_slots)

    def hurry(self, minutes: int) -> None:
        """Every Sno-Bee not in flight that is slower than the hurry of a life `minutes` old ($344B)
        takes that period (called on each frame of an outside hurry, so a hatchling hurries too)."""
        self._freeze_view()
        self._enemies.hurry(minutes)

    def calm(self, minutes: int) -> None:
        """The outside hurry is over: the Sno-Bees at its period take their kind's base period again."""
        self._freeze_view()
        self._enemies.calm(minutes)

    def transmute(self, block_id: int, material: str) -> None:
        """Change a resting block's material (a counter gem thawing into ice); ValueError if it cannot."""
        self._freeze_view()
        self.board.set_material(block_id, material)


def create_kick_game(config: KickConfig) -> KickGame:
    """Create a kick-block session."""
    return KickGame(config)
