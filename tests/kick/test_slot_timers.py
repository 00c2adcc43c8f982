"""`slot_timers="arcade"`: the slot bytes the listing leaves stale after a stun's blink or a death.

SNOBEE-FACTS.md ("Slot timers after a stun or a death") found three cases where the listing's slot
handlers and the first port part: the blink's end leaves +0A = 1 and +09 = $0F ($3A0F, $3A05), a death
keeps a paused slot's +0A ($3377 re-arms only when +09 is clear) and every slot's period count (+7).
Each test builds the scene on a small authored board, runs it under both readings and asserts the
listing's timing under "arcade" and the first port's under "first-port" (pengo-versus 1 and 2).
"""

from __future__ import annotations

import pytest

from rules.kick import KickGame
from rules.kick.actors import BLINKING, MOVING, PAUSE, VANISHED, VANISHING, Enemy
from rules.kick.config import ConfigError
from rules.kick.tables import BLINK_LEFT_COUNT, PAUSE_WRAPS, T64, VANISH_STAGE_T64, VANISH_T64, WRAP
from rules.kick.timers import ticks_due, wraps_due

from .lab import lab_config, lab_game, play_until

READINGS = ("arcade", "first-port")
#: Pengo far from the Sno-Bee, so nothing but the test kills him.
FAR = ["P....", ".....", "....b"]


def slot_of(game: KickGame) -> Enemy:
    return next(e for e in game.slots if e.state == MOVING)


def recover(game: KickGame, e: Enemy) -> None:
    """Let the slot's blink end on the next pass ($3A0F reaches the end of the stun)."""
    e.state, e.due = BLINKING, game.now + 1
    play_until(game, lambda g: e.state == MOVING, limit=2)


def die(game: KickGame) -> None:
    """Pengo dies on this pass: the end of the pass holds the slots ($0BF9) as contact would."""
    game.player.kill("enemy")
    game._round_flow()
    assert game.status != "playing"  # nothing to settle: the death sequence begins at once


def die_and_resume(game: KickGame, e: Enemy) -> int:
    """Pengo dies now; returns the pass on which the next life's play starts."""
    die(game)
    play_until(game, lambda g: g.status == "playing", limit=20_000)
    assert e.state == PAUSE
    return game.now


@pytest.mark.parametrize("timers", READINGS)
def test_a_vanish_soon_after_a_blink_is_192_passes_shorter_3A0F_3D2C(timers: str) -> None:
    """$3D2C finds +09 still set by the blink ($3A05) and skips its first re-arm: the first stage runs
    out on the next t64 tick (+0A = 1, $3A0F), so the vanish lasts 21 t64 ticks instead of 24."""
    game = lab_game(["b.D", "...", "..P"], slot_timers=timers)
    game.remaining_count = 6  # not angry: the mode stays as set
    e = slot_of(game)
    recover(game, e)
    e.mode, e.dir = 16, "right"  # fleeing right along the top row, a diamond two cells on
    play_until(game, lambda g: e.state == VANISHING, limit=5000)
    start = game.now
    ticks = VANISH_T64 - (VANISH_STAGE_T64 - BLINK_LEFT_COUNT) if timers == "arcade" else VANISH_T64
    end = ticks_due(start, T64, ticks)
    assert e.due == end
    assert ticks_due(start, T64, VANISH_T64) - ticks_due(start, T64, 21) == 192
    play_until(game, lambda g: e.state == VANISHED, limit=2000)
    assert game.now == end


@pytest.mark.parametrize("timers", READINGS)
def test_a_junction_pause_held_by_a_death_resumes_at_the_next_wrap_3745_3377(timers: str) -> None:
    """A slot paused at a junction ($3745: +0A = 1, +09 = $0F) when Pengo dies keeps both bytes, so
    $3377 re-arms nothing and the pause ends on the first wrap of the next life, not after 4."""
    game = lab_game(FAR, slot_timers=timers)
    e = slot_of(game)
    play_until(game, lambda g: g.now % WRAP == 8, limit=WRAP)
    e.state, e.due = PAUSE, game._enemies.short_pause_due()  # the pause after a junction turn
    play_start = die_and_resume(game, e)
    wraps = 1 if timers == "arcade" else PAUSE_WRAPS
    assert e.due == wraps_due(play_start, wraps)
    assert wraps_due(play_start, PAUSE_WRAPS) - wraps_due(play_start, 1) == 768
    play_until(game, lambda g: e.state == MOVING, limit=4 * WRAP)
    assert game.now == wraps_due(play_start, wraps)


@pytest.mark.parametrize("timers", READINGS)
def test_a_slot_recovered_from_a_stun_resumes_at_the_next_wrap_after_a_death_3A0F_3377(timers: str) -> None:
    """After a blink +09 stays $0F and +0A = 1 until a pause ends ($339D): a death in that window makes
    $3377 skip its re-arm, so the slot resumes on the first wrap of the next life (1 wrap, not 4)."""
    game = lab_game(FAR, slot_timers=timers)
    e = slot_of(game)
    recover(game, e)
    play_start = die_and_resume(game, e)
    wraps = BLINK_LEFT_COUNT if timers == "arcade" else PAUSE_WRAPS
    assert e.due == wraps_due(play_start, wraps)
    play_until(game, lambda g: e.state == MOVING, limit=4 * WRAP)
    assert game.now == wraps_due(play_start, wraps)
    assert not e.blink_stale  # $339D cleared +09: the next death re-arms 4 wraps


@pytest.mark.parametrize("timers", READINGS)
def test_after_a_death_the_kept_period_count_fills_first_33A8(timers: str) -> None:
    """A death keeps a moving slot's period counter (+7, counted at $33A8): after the pause its first
    step comes when the old count fills, not a whole period after the wake."""
    game = lab_game(FAR, slot_timers=timers)
    e = slot_of(game)
    period = e.period_num
    assert e.period_den == 1 and period > 3
    play_until(game, lambda g: e.next_move - g.now == period - 2, limit=4 * period)  # stepped 2 passes ago
    die(game)
    assert e.state == PAUSE
    left = period - 2
    play_until(game, lambda g: g.status == "playing", limit=20_000)
    play_until(game, lambda g: e.state == MOVING, limit=4 * WRAP)
    wake = game.now
    assert e.next_move - wake == (left if timers == "arcade" else period)
    first = e.next_move
    taken = play_until(game, lambda g: e.next_move != first, limit=2 * period)
    assert taken == (left if timers == "arcade" else period)


def test_the_stale_bytes_survive_a_snapshot_and_only_arcade_snapshots_carry_them() -> None:
    """A game restored from a snapshot taken while a recovered slot was held by a death plays on exactly
    as the original; a "first-port" snapshot is the one it always was (no `slot_timers` key)."""
    game = lab_game(FAR, slot_timers="arcade")
    e = slot_of(game)
    recover(game, e)
    die(game)
    snap = game.snapshot()
    assert snap["slot_timers"][e.slot] == [1, BLINK_LEFT_COUNT, e.held_steps] and e.held_steps > 0
    twin = KickGame(lab_config(FAR, slot_timers="arcade"))
    twin.restore(snap)
    for _ in range(3000):
        game.advance(1)
        twin.advance(1)
    assert twin.snapshot() == game.snapshot()
    assert "slot_timers" not in lab_game(FAR).snapshot()


def test_slot_timers_need_arcade_timing() -> None:
    """The stale bytes count the listing's ticks: a seconds-timed config refuses them by name."""
    with pytest.raises(ConfigError, match="slot_timers"):
        KickGame(lab_config(FAR, slot_timers="arcade", timing="seconds"))
    with pytest.raises(ConfigError, match="slot_timers"):
        KickGame(lab_config(FAR, slot_timers="sometimes"))
