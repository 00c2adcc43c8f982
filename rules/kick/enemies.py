"""The enemies between their steps: slots, hatching, the timed states, stuns, crushes, eggs, regrouping.

`EnemyRules` keeps the enemy slots' lives on the session's record (`KickGame`): everything that happens
to a slot when its timer runs out rather than when it steps, and what a kicked block, a shake, the line
bonus or a death does to the slots. It is also the `BrainHost` the brains decide through. The pixel
steps and the call to the brain stay with the pass scheduler in `game.py`, which runs them every few
passes; what is here runs a few times a second at most.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING

from .actors import (
    BLINKING,
    CARRIED,
    EATEN,
    EATEN_HIDE,
    GONE,
    HATCH_NEXT,
    HATCHING,
    MODE_EAT,
    MODE_FLEE,
    MODE_ROAM,
    MOVING,
    NEVER,
    PAUSE,
    SQUASH_HIDE,
    SQUASH_SCORE,
    SQUASHED,
    STUN_MOVING,
    STUNNED,
    VANISHED,
    VANISHING,
    Enemy,
    Player,
    schedule_move,
)
from .events import Crush, Eat, EggBroken, Flee, Hatch, KickEvent, Stun, Vanish
from .geometry import CELL_PX, STEP, Cell, Direction
from .snobee import stun_recovery_facing
from .tables import (
    BLINK_LEFT_COUNT,
    CATCH_WINDOW,
    EATEN_SECONDS,
    EATEN_WRAPS,
    EGG_SHELL_SECONDS,
    EGG_SHELL_T32,
    EGG_SHELL_T64,
    HATCH_BREAK_T32,
    HATCH_CHEWS,
    HATCH_FLASH_T16,
    HATCH_T64,
    PAUSE_SHORT_WRAPS,
    PAUSE_WRAPS,
    RESPAWN_CORNERS,
    SQUASHED_POSE_SECONDS,
    SQUASHED_POSE_WRAPS,
    SQUASHED_SCORE_SECONDS,
    SQUASHED_SCORE_WRAPS,
    STUN_BLINK_WRAPS,
    STUN_STILL_WRAPS,
    T16,
    T32,
    T64,
    VANISH_SECONDS,
    VANISH_STAGE_T64,
    VANISH_T64,
    VBLANK_PASSES,
    WRAP,
)
from .timers import due_after, next_tick, passes_for_seconds, ticks_due, wraps_due

if TYPE_CHECKING:
    from .board import Block, KickBoard
    from .config import KickEnemyKind
    from .game import KickGame
    from .level import LevelPace, Period
    from .rng import KickRandom

#: Where the session's points go: (points, at, reason).
ScoreSink = Callable[[int, Cell | None, str], None]


def crush_points(table: tuple[int, ...], count: int) -> int:
    """Points for crushing `count` enemies with one slide (the last entry doubles beyond the table)."""
    if count <= len(table):
        return table[count - 1]
    return int(table[-1] << (count - len(table)))


def scaled_period(period: Period, speed_scale: float) -> Period:
    """A base period for an enemy kind that moves `speed_scale` times as fast."""
    if speed_scale == 1:
        return period
    scaled = Fraction(*period) / Fraction(speed_scale).limit_denominator(1000)
    return scaled.numerator, scaled.denominator


class EnemyRules:
    """The enemy slots' lives off the hot path, and the `BrainHost` of their brains."""

    def __init__(self, game: KickGame, events: list[KickEvent], score: ScoreSink) -> None:
        self._game = game
        self._events = events
        self._score = score
        self._config = game.config
        self._kinds = game.kinds
        self._materials = game.materials
        self._arcade = game.arcade
        self.arcade_fidelity = self._config.fidelity == "arcade"
        #: The slot bytes the listing leaves stale after a blink or a death are kept (arcade timing only).
        self.stale_timers = self._config.slot_timers == "arcade" and self._arcade
        #: Set by a brain's `pause_after_step`; the scheduler pauses the slot after its step.
        self.pause_requested = False

    def _due(self, arcade_due: int, seconds: float) -> int:
        return due_after(self._arcade, self._game.now, arcade_due, seconds)

    def _cell_of(self, e: Enemy) -> Cell:
        return Cell(e.px // CELL_PX, e.py // CELL_PX)

    # ---- BrainHost ------------------------------------------------------------------------------

    @property
    def rng(self) -> KickRandom:
        """The session's one stream."""
        return self._game.rng

    @property
    def board(self) -> KickBoard:
        """The board, to read."""
        return self._game.board

    @property
    def player(self) -> Player:
        """The player (a brain reads its position)."""
        return self._game.player

    @property
    def pace(self) -> LevelPace:
        """The level's periods and thresholds."""
        return self._game.pace

    @property
    def remaining(self) -> int:
        """Live enemies (not finishing) plus eggs."""
        return self._game.remaining_count

    def kind(self, e: Enemy) -> KickEnemyKind:
        """The enemy's kind."""
        return self._kinds[e.kind]

    def life_minutes(self) -> int:
        """Whole (game-)minutes into this life's play."""
        game = self._game
        return game.pace.life_minutes(game.clock - game.life_start)

    def zero_last_enemy_clock(self) -> None:
        """$33F9: the high byte of the vblank counter $8823 is zeroed."""
        game = self._game
        vblanks = game.clock // VBLANK_PASSES
        game.last_base = vblanks & 0xFF
        game.last_t0 = vblanks

    def last_enemy_clock_high(self) -> int:
        """The high byte of the vblank counter $8823 since it was last zeroed."""
        game = self._game
        vblanks = game.clock // VBLANK_PASSES
        high = (game.last_base + vblanks - game.last_t0) >> 8
        return high & 0xFF if self.arcade_fidelity else high  # $8823 is one byte: it wraps

    def can_chew(self, e: Enemy, block: Block) -> bool:
        """May this enemy break this block (egg blocks and specials are turned away from)."""
        return self._kinds[e.kind].chews and self._materials[block.material].chewable

    def chew(self, e: Enemy, block: Block) -> None:
        """Start a breaking slot on the block ahead ($3908)."""
        self._game.board.start_break(block, e.id)

    def kick(self, e: Enemy, x: int, y: int, direction: Direction) -> bool:
        """Kick the block at (x, y); True when it slides."""
        slides = self._game.board.push(x, y, direction, e.id).kind == "slide"
        if slides:
            self.slide_started(direction)
        return slides

    def slide_started(self, direction: Direction) -> None:
        """A block starts to slide: the arcade's one moving-block record takes its facing ($4235).

        A dodging Sno-Bee reads that record at every decision ($3524), not the direction of the
        block that threatened it; the first port keeps the latter.
        """
        if self.arcade_fidelity:
            for e in self._game.slots:
                if e.mode == 0:
                    e.dodge_dir = direction

    def flee(self, e: Enemy) -> None:
        """Flee start ($340A)."""
        self._events.append(Flee(e.id))

    def vanish(self, e: Enemy) -> None:
        """A fleeing enemy reached its corner ($34F3)."""
        e.state = VANISHING
        ticks = VANISH_T64
        if e.blink_stale:  # $3D2C finds +09 set: the first stage keeps the blink's +0A = 1 ($3A0F)
            ticks -= VANISH_STAGE_T64 - BLINK_LEFT_COUNT
            e.blink_stale = False  # $3D50 clears +09 at the first stage's end
        e.due = self._due(ticks_due(self._game.now, T64, ticks), VANISH_SECONDS)
        self._events.append(Vanish(e.id, self._cell_of(e)))

    def pause_after_step(self, e: Enemy) -> None:
        """$3745: take this step, then pause until the next wrap."""
        self.pause_requested = True

    # ---- a level's slots -------------------------------------------------------------------------

    def open_slots(self, facings: tuple[Direction, ...], count: int) -> list[Enemy]:
        """The level's slots: `count` egg slots with their first facings, then one per authored enemy."""
        game = self._game
        generator = self._config.generator
        if generator is not None:
            egg_kind: str | None = generator.egg
        else:
            egg_kind = game.board.blocks[game.egg_table[0]].egg if game.egg_table else None
        slots: list[Enemy] = []
        if egg_kind is not None:
            for index in range(count):
                facing = facings[index] if index < len(facings) else "down"
                slots.append(self._fresh(Enemy(index, egg_kind, self._kinds[egg_kind].brain, facing)))
        for kind, _home in game.frame.enemies:
            slot = self._fresh(Enemy(len(slots), kind, self._kinds[kind].brain, "left"))
            slot.from_map = True
            slots.append(slot)
        return slots

    def _fresh(self, slot: Enemy) -> Enemy:
        slot.set_base(*self._game.pace.enemy_period)
        slot.mode = MODE_ROAM
        return slot

    def wake_for_play(self) -> None:
        """A life starts: paused slots resume, empty egg slots hatch, authored enemies appear."""
        game = self._game
        for slot in game.slots:
            if slot.state == PAUSE and slot.due == NEVER:  # after a death: resume after 1–4 wraps ($0DD0)
                wraps = slot.held_wraps or PAUSE_WRAPS  # $3377: a +0A kept through the death, or 4
                slot.held_wraps = 0
                slot.due = self._due(wraps_due(game.now, wraps), self._config.hatch_pause_seconds)
            elif slot.state == GONE and slot.id == "" and not slot.from_map:
                slot.state = HATCH_NEXT  # $326E: every enabled slot starts by hatching
                slot.due = game.now + 1
            elif slot.state == GONE and slot.from_map and slot.id == "":
                self._spawn_authored(slot)

    def _home(self, slot: Enemy) -> tuple[str, Cell]:
        """An authored slot's kind and home cell."""
        game = self._game
        return game.frame.enemies[sum(1 for s in game.slots[: slot.slot] if s.from_map)]

    def _spawn_authored(self, slot: Enemy) -> None:
        game = self._game
        kind, cell = self._home(slot)
        slot.id = f"{kind}-{game.next_enemy}"
        game.next_enemy += 1
        slot.px, slot.py = cell.x * CELL_PX, cell.y * CELL_PX
        slot.state = MOVING
        slot.jump += 1
        schedule_move(slot, game.now)

    # ---- timed states ($332D) --------------------------------------------------------------------

    def wake(self, e: Enemy) -> None:
        """The slot's timer ran out (every state but moving and stunned-moving)."""
        game = self._game
        state = e.state
        if state == PAUSE:
            e.state = MOVING
            e.blink_stale = False  # $339D clears +09
            if e.held_steps:  # a death held it mid-period: the kept +7 fills first
                e.next_move = game.now + e.held_steps
                e.held_steps = 0
            else:
                schedule_move(e, game.now)
        elif state == STUNNED:
            e.state = BLINKING
            e.due = self._due(wraps_due(game.now, STUN_BLINK_WRAPS), self._config.stun.blink_seconds)
        elif state == BLINKING:
            e.dir = stun_recovery_facing(self, e)  # $3A2E
            e.mode = MODE_EAT
            e.state = MOVING
            e.blink_stale = self.stale_timers  # $3A0F leaves +0A = 1, $3A05 left +09 = $0F
            schedule_move(e, game.now)
        elif state == EATEN:
            e.state = EATEN_HIDE
            game.remaining_count -= 1  # $3AA8
            e.due = game.now + 1
        elif state in (EATEN_HIDE, SQUASH_HIDE, VANISHED):
            self._free(e)
        elif state == SQUASHED:
            e.state = SQUASH_SCORE
            self._pay_crush(e)
            e.due = self._due(wraps_due(game.now, SQUASHED_SCORE_WRAPS), SQUASHED_SCORE_SECONDS)
        elif state == SQUASH_SCORE:
            e.state = SQUASH_HIDE
            game.remaining_count -= 1  # $3C3E
            game.flash_until = game.clock + passes_for_seconds(self._config.egg_flash_seconds)  # $3C42
            e.due = game.now + 1
        elif state == HATCH_NEXT:
            self._hatch_next(e)
        elif state == HATCHING:
            e.state = PAUSE
            e.due = self.short_pause_due()
        elif state == VANISHING:
            e.state = VANISHED
            game.remaining_count -= 1  # $3D63
            e.due = game.now + 1
        elif state == CARRIED:
            e.due = NEVER

    def stunned_due(self) -> int:
        """When a stunned Sno-Bee that reached its centre starts blinking ($39C3)."""
        return self._due(wraps_due(self._game.now, STUN_STILL_WRAPS), self._config.stun.seconds)

    def short_pause_due(self) -> int:
        """When a pause after a hatch or a junction turn ends (+09, $3385)."""
        return self._due(wraps_due(self._game.now, PAUSE_SHORT_WRAPS), self._config.hatch_pause_seconds)

    def _free(self, e: Enemy) -> None:
        e.clear_timers()
        e.id = ""
        e.carried_by = None
        e.chewing = False
        if e.from_map:
            e.state = GONE
            e.due = NEVER
            return
        e.state = HATCH_NEXT
        e.due = self._game.now + 1

    def _hatch_next(self, e: Enemy) -> None:
        """$3C6C: hatch the first egg in draw order that is not sliding; none left: the slot is done."""
        game = self._game
        if not game.egg_table:
            e.state = GONE
            e.due = NEVER
            return
        block = None
        for block_id in game.egg_table:
            candidate = game.board.blocks.get(block_id)
            if candidate is not None and candidate.motion is None and candidate.breaking is None:
                block = candidate
                break
        if block is None:
            e.due = game.now + 1  # every remaining egg is sliding: defer (the arcade's scan never ends)
            return
        game.egg_table.remove(block.id)
        game.eggs_left -= 1
        now = game.now
        arcade_due = ticks_due(ticks_due(now, T32, HATCH_BREAK_T32), T16, HATCH_FLASH_T16)
        game.board.hatch(block.id, self._due(arcade_due, self._config.hatch_seconds))
        kind = block.egg or e.kind
        e.kind = kind
        e.brain = self._kinds[kind].brain
        e.id = f"{kind}-{game.next_enemy}"
        game.next_enemy += 1
        e.px, e.py = block.cx * CELL_PX, block.cy * CELL_PX
        e.jump += 1
        e.mode = (game.rng.byte() & 7) + 1  # $3CA8
        e.chews = HATCH_CHEWS
        e.chewing = False
        e.score = 0
        e.clear_timers()  # $3CA0 clears +09
        e.set_base(*scaled_period(game.pace.enemy_period, self._kinds[kind].speed_scale))
        e.state = HATCHING
        e.due = self._due(ticks_due(now, T64, HATCH_T64), self._config.hatch_seconds)
        self._events.append(Hatch(e.id, Cell(block.cx, block.cy)))
        slots = game.slots
        if not any(slot.mode == MODE_EAT for slot in slots if slot.brain == "sno-bee"):  # $3CBD
            for slot in slots:
                if slot.state == MOVING and slot.brain == "sno-bee":
                    slot.mode = MODE_EAT
                    break

    # ---- stuns and the player's touch ------------------------------------------------------------

    def stun(self, e: Enemy, cause: str) -> None:
        """A shake or the line bonus: the Sno-Bee steps on to its centre, then stands stunned."""
        e.state = STUN_MOVING
        e.blink_stale = False  # $3ACB clears +09 at the centre
        self._events.append(Stun(e.id, "shake" if cause == "shake" else "line"))

    def stun_moving(self) -> None:
        """After the line's payout every moving Sno-Bee is stunned ($4728)."""
        for e in self._game.slots:
            if e.state == MOVING and self._kinds[e.kind].stunnable:
                self.stun(e, "line")

    def shake_stun(self, side: Direction | None) -> None:
        """$4167: Sno-Bees moving exactly on the shaken border line are stunned."""
        game = self._game
        right = (game.cols - 1) * CELL_PX
        bottom = (game.rows - 1) * CELL_PX
        for e in game.slots:
            if e.state != MOVING or not self._kinds[e.kind].stunnable:
                continue
            on_line = (
                (side == "up" and e.py == 0)
                or (side == "down" and e.py == bottom)
                or (side == "left" and e.px == 0)
                or (side == "right" and e.px == right)
            )
            if on_line:
                self.stun(e, "shake")

    def eaten(self, e: Enemy) -> None:
        """$4C83: the player walked over a stunned Sno-Bee; it pays at once and hides after 8 wraps."""
        points = self._config.stunned_score
        e.state = EATEN
        e.score = points
        e.due = self._due(wraps_due(self._game.now, EATEN_WRAPS), EATEN_SECONDS)
        at = self._cell_of(e)
        self._events.append(Eat(e.id, at, points))
        self._score(points, at, "eat")

    # ---- crushes ---------------------------------------------------------------------------------

    def catch(self, block: Block) -> None:
        """$43E5 at a cell centre: catch enemies in the block's window ($4467–$44E8)."""
        game = self._game
        motion = block.motion
        assert motion is not None
        if not self._materials[block.material].crushes:
            return
        x_from, x_to, y_from, y_to = CATCH_WINDOW[motion.dir]
        x0, x1, y0, y1 = block.px + x_from, block.px + x_to, block.py + y_from, block.py + y_to
        for e in game.slots:
            if (
                PAUSE <= e.state <= BLINKING
                and x0 <= e.px <= x1
                and y0 <= e.py <= y1
                and self._kinds[e.kind].crushable
            ):
                e.state = CARRIED
                e.due = NEVER
                e.blink_stale = False  # $3B22 clears +09
                e.carried_by = block.id
                e.chewing = False
                game.carried.setdefault(block.id, []).append(e.slot)
                game.hits[block.id] = game.hits.get(block.id, 0) + 1
        player = game.player
        if (
            motion.by != "player"
            and self._config.crush_player
            and not self._config.invulnerable
            and not player.dead
            and x0 <= player.px <= x1
            and y0 <= player.py <= y1
        ):
            player.kill("block")

    def carry(self) -> None:
        """Carried enemies ride ahead of their block ($3AD7) and freeze when it runs out ($44EC)."""
        game = self._game
        for block_id, slots in game.carried.items():
            block = game.board.blocks.get(block_id)
            if block is None or block.motion is None or block.motion.stopping:
                continue
            step = STEP[block.motion.dir]
            for slot in slots:
                e = game.slots[slot]
                e.px = block.px + step.x * CELL_PX
                e.py = block.py + step.y * CELL_PX

    def squash(self, block: Block) -> None:
        """Block state 4 ($4529): the enemies it carried are squashed under it; the first holds the count."""
        game = self._game
        slots = game.carried.pop(block.id, [])
        count = game.hits.pop(block.id, 0)
        if not slots:
            return
        first = min(slots)
        ids = [game.slots[s].id for s in sorted(slots)]
        for slot in slots:
            e = game.slots[slot]
            e.px, e.py = block.cx * CELL_PX, block.cy * CELL_PX
            e.state = SQUASHED
            e.carried_by = None
            e.crush_count = count if slot == first else 0
            e.due = self._due(wraps_due(game.now, SQUASHED_POSE_WRAPS), SQUASHED_POSE_SECONDS)
        game.crush_ids[first] = ids

    def _pay_crush(self, e: Enemy) -> None:
        """$3BBF: the slot that holds the count pays the slide's total."""
        if e.crush_count <= 0:
            return
        ids = self._game.crush_ids.pop(e.slot, [e.id])
        points = crush_points(self._config.crush_scores, e.crush_count)
        e.score = points
        at = self._cell_of(e)
        self._events.append(Crush(tuple(ids), at, points))
        self._score(points, at, "crush")

    # ---- eggs ------------------------------------------------------------------------------------

    def egg_destroyed(self, block: Block) -> None:
        """$42BD: remaining and eggs drop at once; the 500 comes when the shell is gone ($4AFD)."""
        game = self._game
        if block.id in game.egg_table:
            game.egg_table.remove(block.id)
        game.eggs_left -= 1
        game.remaining_count -= 1
        broken = block.breaking.due if block.breaking else game.now
        shell_due = ticks_due(ticks_due(broken, T32, EGG_SHELL_T32), T64, EGG_SHELL_T64)
        due = self._due(shell_due, self._config.shatter_seconds + EGG_SHELL_SECONDS)
        game.shells.append([due, block.cx, block.cy])

    def shells_due(self) -> None:
        """The broken eggs whose shells are gone pay now."""
        game = self._game
        now = game.now
        for shell in [s for s in game.shells if s[0] <= now]:
            game.shells.remove(shell)
            at = Cell(shell[1], shell[2])
            self._events.append(EggBroken(at, self._config.egg_score))
            self._score(self._config.egg_score, at, "egg")

    def hide_egg(self, block_id: int, kind: str | None) -> None:
        """Hide an egg in a resting block; it joins the hatch order last, and counts as remaining."""
        game = self._game
        generator = self._config.generator
        egg_kind = kind or (generator.egg if generator is not None else None) or next(iter(self._kinds))
        game.board.set_egg(block_id, egg_kind)
        game.egg_table.append(block_id)
        game.eggs_left += 1
        game.remaining_count += 1
        for slot in game.slots:
            if slot.state == GONE and not slot.from_map:
                slot.state = HATCH_NEXT
                slot.due = game.now + 1
                break

    def hatch_egg_at_once(self, block_id: int, waiting: int, max_slots: int) -> bool:
        """Lay an egg in resting block `block_id` that hatches on the next pass: first in the hatch
        order, with a slot free to hatch it (`waiting` eggs laid the same way just before hold one each;
        a slot is opened while the board has fewer than `max_slots`). False, and nothing changed, if no
        slot can take it."""
        game = self._game
        slots = game.slots
        hatchers = sum(1 for slot in slots if slot.state == HATCH_NEXT)
        if any(slot.state == GONE and not slot.from_map for slot in slots):
            hatchers += 1  # hide_egg wakes one idle egg slot (its eggs all hatched) into a hatcher
        if hatchers <= waiting and len(slots) >= max_slots:
            return False
        self.hide_egg(block_id, None)
        game.egg_table.remove(block_id)
        game.egg_table.insert(0, block_id)
        if sum(1 for slot in slots if slot.state == HATCH_NEXT) <= waiting:
            kind = game.board.blocks[block_id].egg
            assert kind is not None  # hide_egg just set it
            slot = Enemy(len(slots), kind, self._kinds[kind].brain, "down")
            slot.set_base(*self.pace.enemy_period)
            slot.state = HATCH_NEXT
            slot.due = game.now + 1
            slots.append(slot)
        return True

    def _hurriable(self) -> list[Enemy]:
        """The Sno-Bees on the board that are not in flight (a fleeing one keeps its flight's period)."""
        return [
            e
            for e in self._game.slots
            if e.brain == "sno-bee" and e.state not in (GONE, HATCH_NEXT) and e.mode < MODE_FLEE
        ]

    @staticmethod
    def _set_base(e: Enemy, num: int, den: int) -> None:
        """Rewrite a base period, and the period in force unless a dodge or a chew holds another."""
        if (e.period_num, e.period_den) == (e.base_period, e.base_den):
            e.set_period(num, den)
        e.base_period, e.base_den = num, den

    def hurry(self, minutes: int) -> None:
        """Every Sno-Bee slower than the hurry of a life `minutes` old ($344B) takes that period."""
        num, den = self.pace.hurry_period(minutes)
        for e in self._hurriable():
            if e.base_period * den > num * e.base_den:
                self._set_base(e, num, den)

    def calm(self, minutes: int) -> None:
        """An outside hurry is over: every Sno-Bee at the hurry of a life `minutes` old takes its kind's
        base period again (anger and the arcade's own hurry set theirs at the next decision,
        $342E/$344B)."""
        hurried = self.pace.hurry_period(minutes)
        for e in self._hurriable():
            if (e.base_period, e.base_den) == hurried:
                self._set_base(e, *scaled_period(self.pace.enemy_period, self.kind(e).speed_scale))

    # ---- round flow ------------------------------------------------------------------------------

    def hold_still(self) -> None:
        """$0BF9: moving and paused slots are held in a pause while a death or a clear waits."""
        if self.stale_timers:
            self._hold_keeping_bytes()
            return
        for e in self._game.slots:
            if e.state in (MOVING, PAUSE):
                e.state = PAUSE
                e.due = NEVER

    def _hold_keeping_bytes(self) -> None:
        """$0BF9 with the bytes it leaves alone: a moving slot keeps its period count (+7) and, after a
        blink, the +0A = 1 that $3377 will not re-arm; a paused one keeps the wraps left on its +0A.

        The arcade's paused slots go on counting during the settle wait (read, not yet run against the
        listing); the port holds them as they stood when Pengo died.
        """
        now = self._game.now
        for e in self._game.slots:
            if e.state == MOVING:
                e.state = PAUSE
                e.due = NEVER
                e.held_steps = e.next_move - now
                e.held_wraps = BLINK_LEFT_COUNT if e.blink_stale else 0
            elif e.state == PAUSE and e.due != NEVER:
                e.held_wraps = (e.due - next_tick(now, WRAP)) // WRAP + 1
                e.due = NEVER

    def regroup(self, chosen: Cell) -> None:
        """After a death: authored enemies go home, the egg slots to their corner's border column."""
        game = self._game
        board = game.board
        cols, rows = game.cols, game.rows
        for e in game.slots:
            if e.state == GONE or e.state == HATCH_NEXT:
                continue
            if e.from_map:
                home = self._home(e)[1]
                if board.tile_free(home.x, home.y) and home != chosen:
                    e.px, e.py = home.x * CELL_PX, home.y * CELL_PX
            else:
                x, y, dy = RESPAWN_CORNERS[e.slot % len(RESPAWN_CORNERS)]
                x, y = x % cols, y % rows
                for _ in range(rows):  # $0DD0: the first free cell down (or up) a border column
                    if board.tile_free(x, y) and (x, y) != (chosen.x, chosen.y):
                        e.px, e.py = x * CELL_PX, y * CELL_PX
                        break
                    y += dy
            e.jump += 1
            e.state = PAUSE
            e.due = NEVER
