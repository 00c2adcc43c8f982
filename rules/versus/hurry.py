"""The hurry a landing brings: the receiver's Sno-Bees run faster for `landing_hurry_frames`.

While a seat's hurry lasts, `hurry` gives every Sno-Bee of its board that is slower the period of a
life `landing_hurry_minutes` old ($344B, the arcade's own hurry: P − 1 − minutes), called on every
frame of the window so that a Sno-Bee hatched meanwhile hurries too; when it ends, `calm` gives the
ones it hurried back their kind's base period (anger and the arcade's own hurry set theirs again at
their next decision, $342E/$344B). A fleeing Sno-Bee (mode 9 on) keeps its flight's period.
"""

from __future__ import annotations

from rules.kick.actors import GONE, HATCH_NEXT, Enemy
from rules.kick.enemies import scaled_period
from rules.kick.game import KickGame

#: Sno-Bee modes from this one on run for a corner at the flight's own period (rules/kick/snobee.py).
_FLEE_MODE = 9
#: Slot states with no Sno-Bee on the board.
_EMPTY = (GONE, HATCH_NEXT)


def _set_base(enemy: Enemy, num: int, den: int) -> None:
    """Rewrite a Sno-Bee's base period, and the period in force unless a dodge or a chew holds it."""
    if (enemy.period_num, enemy.period_den) == (enemy.base_period, enemy.base_den):
        enemy.set_period(num, den)
    enemy.base_period, enemy.base_den = num, den


def _hurried_snobees(game: KickGame) -> list[Enemy]:
    return [
        e for e in game.slots if e.brain == "sno-bee" and e.state not in _EMPTY and e.mode < _FLEE_MODE
    ]


def hurry(game: KickGame, minutes: int) -> None:
    """Every Sno-Bee on the board slower than the hurry of a life `minutes` old takes that period."""
    num, den = game.pace.hurry_period(minutes)
    for enemy in _hurried_snobees(game):
        if enemy.base_period * den > num * enemy.base_den:
            _set_base(enemy, num, den)


def calm(game: KickGame, minutes: int) -> None:
    """The hurry is over: every Sno-Bee at the hurry's period takes its kind's base period again."""
    hurried = game.pace.hurry_period(minutes)
    for enemy in _hurried_snobees(game):
        if (enemy.base_period, enemy.base_den) == hurried:
            _set_base(enemy, *scaled_period(game.pace.enemy_period, game.kinds[enemy.kind].speed_scale))
