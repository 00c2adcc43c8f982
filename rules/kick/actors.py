"""The actors' records: the player and the enemy slots, as slot classes with plain-data snapshots.

Enemy states keep the arcade's numbers ($332D, PENGO-RULES §4) so the state machine reads like the
listing; `PHASE_OF_STATE` maps them to the seed API's phases. `schedule_move` times an actor's next
pixel from its period.
"""

from __future__ import annotations

from typing import Any

from .config import KickBrain
from .geometry import Direction

# Sno-Bee slot states ($332D)
GONE = 0
PAUSE = 1
MOVING = 2
STUN_MOVING = 3
STUNNED = 4
BLINKING = 5
EATEN = 6
EATEN_HIDE = 7
CARRY_SNAP = 9
CARRIED = 10
SQUASHED = 11
SQUASH_SCORE = 12
SQUASH_HIDE = 13
HATCH_NEXT = 14
HATCHING = 15
VANISHING = 17
VANISHED = 18

PHASE_OF_STATE: dict[int, str] = {
    GONE: "gone",
    PAUSE: "pause",
    MOVING: "moving",
    STUN_MOVING: "stunned",
    STUNNED: "stunned",
    BLINKING: "stunned",
    EATEN: "eaten",
    EATEN_HIDE: "eaten",
    CARRY_SNAP: "carried",
    CARRIED: "carried",
    SQUASHED: "squashed",
    SQUASH_SCORE: "squashed",
    SQUASH_HIDE: "squashed",
    HATCH_NEXT: "gone",
    HATCHING: "hatching",
    VANISHING: "vanishing",
    VANISHED: "vanishing",
}

#: Modes ($3461): 0 dodge, 1/6/7 roam, 2 eat, 3 hunt-x, 4 hunt-y, 5/8 hunt, 9–16 flee.
MODE_ROAM = 1
MODE_EAT = 2
#: The first flight mode: from it on a Sno-Bee runs for a corner at the flight's own period.
MODE_FLEE = 9
MODE_NAME: dict[int, str] = {
    0: "dodge",
    1: "roam",
    2: "eat",
    3: "hunt-x",
    4: "hunt-y",
    5: "hunt",
    6: "roam",
    7: "roam",
    8: "hunt",
    9: "flee",
    10: "flee",
    11: "flee",
    12: "flee",
    13: "flee",
    14: "flee",
    15: "flee",
    16: "flee",
}

# Pengo's states (+1F)
P_FROZEN = 0
P_READY = 1
P_WALK = 2
P_PUSH = 3
P_BREAK = 4
P_SHAKE = 5
P_DYING = 6

PLAYER_ACTION: dict[int, str] = {
    P_FROZEN: "walk",
    P_READY: "walk",
    P_WALK: "walk",
    P_PUSH: "push",
    P_BREAK: "break",
    P_SHAKE: "shake",
    P_DYING: "dying",
}

#: The timer value that never runs out.
NEVER = 1 << 62


def schedule_move(actor: Enemy | Player, now: int) -> None:
    """Set the pass of the actor's next pixel from its period (whole, or a fraction carried exactly)."""
    num, den = actor.period_num, actor.period_den
    if den == 1:
        actor.next_move = now + num
        actor.counter = 0
        return
    steps = -(-(num - actor.counter) // den)
    actor.next_move = now + steps
    actor.counter += steps * den - num


#: An enemy slot's fields in its plain form (`Enemy.plain`), in order.
ENEMY_PLAIN_FIELDS: tuple[str, ...] = (
    "slot",
    "id",
    "kind",
    "brain",
    "px",
    "py",
    "dir",
    "state",
    "due",
    "next_move",
    "mode",
    "saved_mode",
    "base_period",
    "period_num",
    "period_den",
    "counter",
    "chews",
    "dead_end_count",
    "dead_end_a",
    "dead_end_b",
    "crush_count",
    "carried_by",
    "jump",
    "chewing",
    "score",
    "from_map",
    "dodge_dir",
    "base_den",
)
#: The stale slot bytes kept under `KickConfig.slot_timers == "arcade"`: outside the plain form, so a
#: snapshot without them is the one it always was (rules/kick/snapshot.py carries them apart).
ENEMY_TIMER_FIELDS: tuple[str, ...] = ("blink_stale", "held_wraps", "held_steps")


class Enemy:
    """One enemy slot. The slot's mind (mode, periods, chews, dead-end data, facing) outlives the
    enemy in it, as the arcade's slot bytes do (PENGO-RULES §6)."""

    __slots__ = (*ENEMY_PLAIN_FIELDS, *ENEMY_TIMER_FIELDS)

    def __init__(self, slot: int, kind: str, brain: KickBrain, facing: Direction) -> None:
        self.slot = slot
        self.id = ""
        self.kind = kind
        self.brain: KickBrain = brain
        self.px = 0
        self.py = 0
        self.dir: Direction = facing
        self.state = GONE
        self.due = NEVER
        self.next_move = NEVER
        self.mode = 1
        self.saved_mode = 1
        self.base_period = 12
        self.period_num = 12  # +6: the period in force (a fraction num/den for non-arcade speeds)
        self.period_den = 1
        self.counter = 0
        self.chews = 0
        self.dead_end_count = 0xFF
        self.dead_end_a = -1
        self.dead_end_b = -1
        self.crush_count = 0
        self.carried_by: int | None = None
        self.jump = 0
        self.chewing = False
        self.score = 0
        self.from_map = False
        self.dodge_dir: Direction = facing
        self.base_den = 1  # base period = base_period / base_den passes per pixel
        self.clear_timers()

    def clear_timers(self) -> None:
        """Forget the stale bytes (none kept, or `slot_timers="first-port"`)."""
        #: +09 = $0F and +0A = 1 left by the blink's end ($3A05/$3A0F), until a pause ends ($339D).
        self.blink_stale = False
        #: +0A of a pause held through a death (0: $3377 re-arms 4 wraps at the next life).
        self.held_wraps = 0
        #: Passes to the next step when a death held the slot mid-period (+7 kept; 0: a fresh period).
        self.held_steps = 0

    def set_base(self, num: int, den: int) -> None:
        """Rewrite the base period (+1C) and the period in force (+6)."""
        self.base_period, self.base_den = num, den
        self.period_num, self.period_den = num, den

    def set_period(self, num: int, den: int) -> None:
        """Rewrite the period in force (+6)."""
        self.period_num, self.period_den = num, den

    def plain(self) -> list[Any]:
        return [getattr(self, name) for name in ENEMY_PLAIN_FIELDS]

    def timers_plain(self) -> list[int]:
        """The stale bytes as plain data (see ENEMY_TIMER_FIELDS)."""
        return [int(self.blink_stale), self.held_wraps, self.held_steps]

    def put_timers(self, data: list[int]) -> None:
        """Put back `timers_plain()`."""
        stale, self.held_wraps, self.held_steps = data
        self.blink_stale = bool(stale)

    @classmethod
    def from_plain(cls, data: list[Any]) -> Enemy:
        enemy = cls.__new__(cls)
        for name, value in zip(ENEMY_PLAIN_FIELDS, data, strict=True):
            setattr(enemy, name, value)
        enemy.clear_timers()
        return enemy


class Player:
    """The player (Pengo)."""

    __slots__ = (
        "px",
        "py",
        "facing",
        "moving",
        "state",
        "due",
        "next_move",
        "jump",
        "button_seen_released",
        "shake_side",
        "shake_tests",
        "dead",
        "death_cause",
        "period_num",
        "period_den",
        "counter",
    )

    def __init__(self) -> None:
        self.px = 0
        self.py = 0
        self.facing: Direction = "down"
        self.moving = False
        self.state = P_READY
        self.due = NEVER
        self.next_move = NEVER
        self.jump = 0
        self.button_seen_released = True
        self.shake_side: Direction | None = None
        self.shake_tests: list[int] = []
        self.dead = False
        self.death_cause = "enemy"
        self.period_num = 10
        self.period_den = 1
        self.counter = 0

    def kill(self, cause: str) -> None:
        """Dead and frozen where he stands; the death waits for the board to settle ($0A18)."""
        self.dead = True
        self.death_cause = cause
        self.state = P_FROZEN
        self.due = NEVER
        self.moving = False

    def plain(self) -> list[Any]:
        return [list(v) if isinstance(v, list) else v for v in (getattr(self, n) for n in Player.__slots__)]

    @classmethod
    def from_plain(cls, data: list[Any]) -> Player:
        player = cls.__new__(cls)
        for name, value in zip(Player.__slots__, data, strict=True):
            setattr(player, name, list(value) if isinstance(value, list) else value)
        return player
