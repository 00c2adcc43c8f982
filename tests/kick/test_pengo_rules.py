"""Pengo's rules on controlled scenes: movement periods, kicks, crushes, scores, stuns, deaths."""

from __future__ import annotations

from collections.abc import Sequence

from rules.kick import KickGame, KickObjective, pengo_preset
from rules.kick.actors import BLINKING, CARRIED, GONE, MOVING, P_WALK, PAUSE, STUN_MOVING, STUNNED, Enemy
from rules.kick.enemies import crush_points
from rules.kick.events import (
    Crush,
    Eat,
    EggBroken,
    Kick,
    KickEvent,
    Line,
    RoundClear,
    Score,
    Shake,
    SlideStop,
    Stun,
)
from rules.kick.geometry import CELL_PX

from .lab import lab_game, play_until


def _kinds(events: Sequence[KickEvent]) -> list[str]:
    return [e.kind for e in events]


def _hold_still(game: KickGame) -> Enemy:
    """Pause the scene's Sno-Bee where it stands (a paused Sno-Bee can still be crushed)."""
    bee = next(e for e in game.slots if e.brain == "sno-bee")
    bee.state = PAUSE
    bee.due = game.now + 100_000
    return bee


def _walk_to_centre(game: KickGame) -> None:
    play_until(game, lambda g: g.player.state == P_WALK)


def test_player_moves_one_pixel_every_ten_passes() -> None:
    """Pengo's period is 10 ($31DA): a held direction moves him a cell in 160 passes."""
    game = lab_game([".....", "..P..", "....."])
    _walk_to_centre(game)
    game.control("right")
    start = game.player.px
    taken = play_until(game, lambda g: g.player.px == start + CELL_PX)
    assert 150 <= taken <= 160
    game.control(None)
    game.advance(400)
    assert game.player.px % CELL_PX == 0  # he stops only at a centre


def test_player_does_not_walk_into_ice() -> None:
    """At a centre Pengo faces a blocked way but does not step into it ($3E36)."""
    game = lab_game(["P#..."])
    _walk_to_centre(game)
    game.control("right")
    game.advance(300)
    assert (game.player.px, game.player.facing) == (0, "right")


def test_snobee_period_follows_the_act_and_skill() -> None:
    """A Sno-Bee's period is 12 − ⌊(act−1)/4⌋ − skill ($324E): 11 passes per pixel in act 1."""
    game = lab_game(["P.........b"])
    bee = next(e for e in game.slots if e.state == MOVING)
    assert bee.base_period == 11
    game9 = lab_game(["P.........b"], act=9)
    assert next(e for e in game9.slots if e.state == MOVING).base_period == 9


def test_kick_slides_ice_to_the_first_obstacle_at_period_three() -> None:
    """A kicked block slides one pixel every 3 passes and stops in front of the first obstacle."""
    game = lab_game(["P#....#"])
    _walk_to_centre(game)
    game.control("right")
    game.kick()
    taken = play_until(game, lambda g: not g.board.sliding_blocks and g.board.block_at(5, 0) is not None)
    events = game.drain()
    stop = next(e for e in events if isinstance(e, SlideStop))
    assert stop.at == (5, 0) and stop.travelled == 4
    assert 4 * 16 * 3 <= taken <= 4 * 16 * 3 + 40
    assert any(isinstance(e, Kick) and e.result == "slide" for e in events)


def test_kick_against_an_obstacle_breaks_ice_and_pays_thirty() -> None:
    """Blocked ice breaks ($42A3) and pays 30 when the break ends, ≈545–576 passes later ($4972)."""
    game = lab_game(["P##.."])
    _walk_to_centre(game)
    game.control("right")
    game.kick()
    game.advance(20)
    block = game.board.block_at(1, 0)
    assert block is not None and block.breaking is not None
    taken = play_until(game, lambda g: g.board.block_at(1, 0) is None)
    assert 520 <= taken <= 580
    scores = [e for e in game.drain() if isinstance(e, Score)]
    assert [s.points for s in scores] == [30]
    assert game.score == 30


def test_blocked_diamond_does_not_break() -> None:
    """A blocked diamond stays whole ($4298)."""
    game = lab_game(["PD#.."])
    _walk_to_centre(game)
    game.control("right")
    game.kick()
    game.advance(2000)
    block = game.board.block_at(1, 0)
    assert block is not None and block.material == "diamond" and block.breaking is None


def test_kicking_the_border_shakes_it_and_stuns_snobees_on_that_line() -> None:
    """A border kick shakes that side; Sno-Bees moving on that border line are stunned ($4167)."""
    game = lab_game(["........", "P.......", "........", "........", "........", ".....b.."])
    _walk_to_centre(game)
    game.control("left")
    game.kick()
    game.advance(300)
    events = game.drain()
    assert any(isinstance(e, Shake) and e.side == "left" for e in events)
    game2 = lab_game(["P.......", "........", "........", ".......b"])
    _walk_to_centre(game2)
    bee = next(e for e in game2.slots if e.brain == "sno-bee")
    bee.mode = 16  # keep it on the right border line while the shake runs
    game2.player.facing = "right"
    game2.player.px = 7 * CELL_PX - CELL_PX
    game2.control(None)
    bee.px, bee.py = 7 * CELL_PX, 2 * CELL_PX
    game2._enemies.stun(bee, "shake")
    assert bee.state == STUN_MOVING


def test_crushing_one_snobee_pays_400_and_two_pay_1600() -> None:
    """One slide pays once for all it carried: 400, 1600, 3200, 6400 ($4587)."""
    game = lab_game(["P#..b..#"])
    bee = _hold_still(game)
    _walk_to_centre(game)
    game.control("right")
    game.kick()
    play_until(game, lambda g: bee.state == CARRIED, limit=400)
    play_until(game, lambda g: any(isinstance(e, Crush) for e in g._events), limit=2000)
    crush = next(e for e in game.drain() if isinstance(e, Crush))
    assert crush.score == 400 and crush.ids == (bee.id,)
    scores = game.config.crush_scores
    assert [crush_points(scores, n) for n in (2, 4, 5)] == [1600, 6400, 12800]


def test_walking_over_a_stunned_snobee_pays_100() -> None:
    """Pengo on the same tile as a stunned Sno-Bee eats it for 100 ($4C83)."""
    game = lab_game(["P.b......"])
    bee = next(e for e in game.slots if e.brain == "sno-bee")
    bee.state = STUNNED
    bee.due = game.now + 5000
    _walk_to_centre(game)
    game.control("right")
    play_until(game, lambda g: any(isinstance(e, Eat) for e in g._events), limit=600)
    events = game.drain()
    eat = next(e for e in events if isinstance(e, Eat))
    assert eat.score == 100 and game.score == 100


def test_contact_with_a_moving_snobee_kills_pengo() -> None:
    """Same 8-pixel tile as a moving Sno-Bee is death ($4BE6); a life is lost and Pengo respawns."""
    game = lab_game(["P.......b"])
    lives = game.lives
    play_until(game, lambda g: g.status == "dying", limit=20_000)
    assert "death" in _kinds(game.drain())
    play_until(game, lambda g: g.status == "playing", limit=20_000)
    assert game.lives == lives - 1


def test_breaking_an_egg_block_removes_the_egg_and_pays_500_later() -> None:
    """Remaining drops at once ($42BD); the 500 comes when the shell is gone ($4AFD)."""
    game = lab_game(["PE#......"])
    _walk_to_centre(game)
    remaining = game.remaining_count
    game.control("right")
    game.kick()
    game.advance(30)
    assert game.remaining_count == remaining - 1
    taken = play_until(game, lambda g: any(isinstance(e, EggBroken) for e in g._events), limit=4000)
    assert taken > 1000
    assert game.score == 500


def test_diamond_line_pays_10000_once_and_stuns() -> None:
    """Three diamonds in a row pay 10,000 (5,000 along the wall), once per round ($4658)."""
    game = lab_game([".........", ".DD..D.P.", ".........", "......b.."])
    _walk_to_centre(game)
    game.control("left")
    game.advance(170)
    game.control(None)
    game.advance(200)
    game.control("left")
    game.kick()
    play_until(game, lambda g: any(isinstance(e, Line) for e in g._events), limit=3000)
    line = next(e for e in game.drain() if isinstance(e, Line))
    assert line.score == 10_000 and not line.along_wall
    assert game.status == "bonus"
    play_until(game, lambda g: g.status == "playing", limit=20_000)
    assert any(isinstance(e, Stun) and e.cause == "line" for e in game.drain()) or all(
        e.state != MOVING for e in game.slots
    )


def test_diamond_line_along_the_wall_pays_5000() -> None:
    """A line on the outer row pays half ($4658)."""
    game = lab_game(["DD..D.P", "......."])
    _walk_to_centre(game)
    game.control("left")
    game.advance(170)
    game.control(None)
    game.advance(200)
    game.control("left")
    game.kick()
    play_until(game, lambda g: any(isinstance(e, Line) for e in g._events), limit=3000)
    line = next(e for e in game.drain() if isinstance(e, Line))
    assert line.score == 5_000 and line.along_wall


def test_stun_runs_still_then_blinking_then_recovers_eating() -> None:
    """A stun: still for 5 wraps, blinking for 8, then mode 2 ($39C3, $3A0A, $3A63)."""
    game = lab_game(["P.........", "..........", ".....b...."])
    bee = next(e for e in game.slots if e.brain == "sno-bee")
    play_until(game, lambda g: bee.px % CELL_PX == 0 and bee.py % CELL_PX == 0 and g.now % 11 == 0, limit=500)
    game._enemies.stun(bee, "shake")
    play_until(game, lambda g: bee.state == STUNNED, limit=1000)
    still = play_until(game, lambda g: bee.state == BLINKING, limit=3000)
    assert 4 * 256 < still <= 5 * 256
    blink = play_until(game, lambda g: bee.state == MOVING, limit=3000)
    assert 7 * 256 < blink <= 8 * 256
    assert bee.mode == 2


def test_generated_act_has_three_slots_early_and_four_from_act_five() -> None:
    """Three Sno-Bees hatch at once in acts 1–4, four from act 5 ($326E)."""
    for act, expected in ((1, 3), (4, 3), (5, 4), (16, 4)):
        game = KickGame(pengo_preset())
        game.go_to_level(act)
        play_until(game, lambda g: g.status == "playing", limit=10_000)
        game.advance(2)
        hatches = [e for e in game.drain() if e.kind == "hatch"]
        assert len(hatches) == expected, act


def test_round_clear_pays_the_time_bonus_and_starts_the_next_act() -> None:
    """With nothing left the round clears, the time bonus pays by the table, and act 2 starts."""
    game = lab_game(["P#b......"], objective=KickObjective())
    _hold_still(game)
    _walk_to_centre(game)
    game.control("right")
    game.kick()
    play_until(game, lambda g: g.status == "clear", limit=20_000)
    events = game.drain()
    clear = next(e for e in events if isinstance(e, RoundClear))
    assert clear.bonus == 5000
    assert game.score == 400 + 5000
    play_until(game, lambda g: g.status in ("ready", "playing"), limit=20_000)
    assert game.level == 2


def test_slots_that_have_no_eggs_left_stay_gone() -> None:
    """A crushed map enemy does not come back."""
    game = lab_game(["P#b......", "........."], objective=KickObjective())
    _hold_still(game)
    _walk_to_centre(game)
    game.control("right")
    game.kick()
    play_until(game, lambda g: g.status == "clear", limit=20_000)
    assert all(e.state == GONE for e in game.slots)
