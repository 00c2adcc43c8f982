"""The session API of the seed (KickGame and friends), the presets, and config validation."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.kick import (
    DIRECTIONS,
    ICE_SLIDE_ROOMS,
    PENGO_EGGS_EXPORT,
    PENGO_EGGS_JAPAN,
    PENGO_LOOP_HZ,
    PENGO_MATERIALS,
    PENGO_TIME_BONUS,
    ConfigError,
    IceSlideOptions,
    IllegalInputError,
    KickGame,
    KickLegendEntry,
    KickMaterial,
    KickRandom,
    PengoOptions,
    create_kick_game,
    ice_slide_preset,
    kick_difficulty,
    kick_preset,
    pengo_level,
    pengo_preset,
    pengo_speed,
)
from rules.kick.actors import MOVING
from rules.kick.events import ExtraLife, Flee, Hurry
from rules.kick.tables import GAME_MINUTE_PASSES

from .lab import lab_config, lab_game, play_until


def test_pengo_constants_match_the_listing() -> None:
    """The loop rate, egg tables, materials and time bonus are the seed's and the listing's numbers."""
    assert PENGO_LOOP_HZ == 780
    assert pengo_speed(10) == 4.875 and pengo_speed(3) == 16.25
    assert PENGO_EGGS_JAPAN[:2] == (6, 6) and PENGO_EGGS_JAPAN[2:7] == (8,) * 5
    assert PENGO_EGGS_JAPAN[7:11] == (10,) * 4 and PENGO_EGGS_JAPAN[11:] == (12,) * 5
    assert PENGO_EGGS_EXPORT[:6] == (6, 8, 9, 10, 11, 12)
    assert [m.id for m in PENGO_MATERIALS] == ["ice", "diamond"]
    assert PENGO_MATERIALS[0].break_score == 30 and PENGO_MATERIALS[1].group == "diamond"
    assert [(b.under, b.score) for b in PENGO_TIME_BONUS] == [(20, 5000), (30, 2000), (40, 1000), (50, 500),
                                                              (60, 10)]


@pytest.mark.parametrize(("act", "skill", "period", "angry", "eggs", "active"), [
    (1, 1, 11, 3, 6, 3), (4, 1, 11, 3, 8, 3), (5, 1, 10, 4, 8, 4), (9, 0, 10, 5, 10, 4), (16, 3, 6, 6, 12, 4),
])
def test_pengo_level_table(act: int, skill: int, period: int, angry: int, eggs: int, active: int) -> None:
    """pengo_level: period 12 − ⌊(act−1)/4⌋ − skill, angry below ⌊(act−1)/4⌋+3, eggs and slots per act."""
    level = pengo_level(act, skill)
    assert level.period == period and level.enemy_speed == pengo_speed(period)
    assert level.angry_below == angry and level.eggs == eggs and level.active == active
    assert level.angry_speed == pengo_speed(period - 1)


def test_pengo_level_rejects_out_of_range() -> None:
    """Act 0, act 17 and skill 4 are refused with the field named."""
    with pytest.raises(ConfigError, match="act"):
        pengo_level(0)
    with pytest.raises(ConfigError, match="act"):
        pengo_level(17)
    with pytest.raises(ConfigError, match="skill"):
        pengo_level(1, 4)


def test_difficulties_by_name() -> None:
    """Arcade applies no scaling; normal hides fewer eggs and waits longer; easy also slows enemies."""
    arcade, normal, easy = kick_difficulty("arcade"), kick_difficulty("normal"), kick_difficulty("easy")
    assert (arcade.speed, arcade.population, arcade.active, arcade.patience) == (1, 1, 0, 1)
    assert normal.speed == 1 and normal.population < 1 and normal.patience > 1
    assert easy.speed < 1 and easy.active == -1
    with pytest.raises(ConfigError, match="difficulty"):
        kick_difficulty("insane")  # type: ignore[arg-type]


def test_kick_preset_names() -> None:
    """kick_preset builds pengo and ice-slide and refuses anything else."""
    assert kick_preset("pengo").name == "pengo"
    assert kick_preset("ice-slide").name == "ice-slide"
    with pytest.raises(ConfigError, match="preset"):
        kick_preset("tetris")


@pytest.mark.parametrize(("changes", "field"), [
    ({"cols": 0, "rows": 0}, "cols"),
    ({"slide_speed": -1.0}, "slide_speed"),
    ({"lives": 0}, "lives"),
    ({"seed": -1}, "seed"),
    ({"seed": 2**32}, "seed"),
])
def test_config_validation_names_the_field(changes: dict[str, object], field: str) -> None:
    """Out-of-range config values raise ValueError naming the field, and no game is made."""
    with pytest.raises(ValueError, match=field):
        KickGame(replace(pengo_preset(), **changes))  # type: ignore[arg-type]


def test_config_validation_of_maps() -> None:
    """Ragged rows and unknown legend materials are refused with the field named."""
    with pytest.raises(ValueError, match=r"map\[1\]"):
        KickGame(lab_config(["P...", "..."]))
    bad_legend = (("X", KickLegendEntry(material="lava")),)
    with pytest.raises(ValueError, match="material"):
        KickGame(lab_config(["PX.."], legend=bad_legend))
    with pytest.raises(ValueError, match="materials"):
        KickGame(lab_config(["P..."], materials=(KickMaterial("ice"), KickMaterial("ice"))))


def test_bad_inputs_raise_and_change_nothing() -> None:
    """An unknown direction, a negative dt or an oversize tick raise IllegalInputError."""
    game = create_kick_game(pengo_preset())
    before = game.snapshot()
    with pytest.raises(IllegalInputError):
        game.control("north")  # type: ignore[arg-type]
    with pytest.raises(IllegalInputError):
        game.tick(-1)
    with pytest.raises(IllegalInputError):
        game.tick(11)
    assert game.snapshot() == before


def test_act_start_draws_four_facings_before_the_maze() -> None:
    """The four Sno-Bee facings are the first four bytes of the stream ($323A), before the maze."""
    game = KickGame(pengo_preset(PengoOptions(seed=0x365A)))
    rng = KickRandom(0x365A)
    facings = [DIRECTIONS[rng.byte() & 3] for _ in range(4)]
    assert [slot.dir for slot in game.slots] == facings[: len(game.slots)]


def test_tick_converts_seconds_to_passes_exactly() -> None:
    """tick(dt) accumulates fractions of a pass; ten ticks of 0.1 s make 780 passes."""
    game = KickGame(pengo_preset())
    for _ in range(10):
        game.tick(0.1)
    assert game.clock == 780


def test_state_copy_has_every_field() -> None:
    """state carries the seed's KickState fields with the board's size and the carve order."""
    game = KickGame(pengo_preset())
    state = game.tick(3.0)
    assert state.cols == 13 and state.rows == 15 and state.level == 1 and state.act == 1
    assert len(state.carve_order) > 0 and state.lives == 3
    assert state.remaining == game.remaining() == 6
    assert {b.material for b in state.blocks} == {"ice", "diamond"}
    assert sum(1 for b in state.blocks if b.material == "diamond") == 3


def test_go_to_level_loops_after_act_sixteen() -> None:
    """Act 17 is act 1 again ($0930), while the level number keeps counting."""
    game = KickGame(pengo_preset())
    game.go_to_level(17)
    assert game.level == 17 and game.state.act == 1
    assert game.row(17) == game.row(1)


def test_hurry_after_a_minute_and_flight_after_two() -> None:
    """A minute into a life: Hurry and period P−2 ($344B); two minutes: every Sno-Bee flees ($33E6)."""
    game = lab_game(["P#..........", "############", "b.........b."], invulnerable=True)
    play_until(game, lambda g: any(isinstance(e, Hurry) for e in g._events), limit=GAME_MINUTE_PASSES + 100)
    bee = next(e for e in game.slots if e.brain == "sno-bee")
    play_until(game, lambda g: bee.base_period == 9, limit=2000)
    play_until(game, lambda g: any(isinstance(e, Flee) for e in g._events), limit=GAME_MINUTE_PASSES + 2000)
    assert bee.base_period == 7 and bee.mode >= 9


def test_angry_below_the_threshold() -> None:
    """With fewer than ⌊(act−1)/4⌋+3 remaining, Sno-Bees eat at period P−1 ($342E)."""
    game = lab_game(["P#..........", "############", "b.........b."])
    bee = next(e for e in game.slots if e.brain == "sno-bee")
    play_until(game, lambda g: bee.state == MOVING and bee.base_period == 10, limit=3000)
    assert bee.mode in (0, 2)


def test_extra_life_once_at_30000() -> None:
    """An extra life at 30,000, once ($2BDE)."""
    game = KickGame(pengo_preset())
    game._add_score(29_990, None, "test")
    assert game.lives == 3
    game._add_score(20, None, "test")
    assert game.lives == 4 and isinstance(game.drain()[-1], ExtraLife)
    game._add_score(100_000, None, "test")
    assert game.lives == 4


def test_ice_slide_preset_and_rooms() -> None:
    """Ice Slide plays its rooms in order, goals first, and ends after the last room."""
    config = ice_slide_preset()
    assert len(config.levels) == len(ICE_SLIDE_ROOMS) >= 12
    assert not config.loop and config.objective.goals and not config.objective.enemies
    game = KickGame(ice_slide_preset(IceSlideOptions(level=2)))
    assert game.level == 2 and game.board.goals()
    with pytest.raises(ConfigError, match="level"):
        ice_slide_preset(IceSlideOptions(level=999))


def test_reset_drain_and_go_to_level_keep_what_the_seed_says() -> None:
    """reset() starts over at the configured level; drain() empties; go_to_level keeps score and lives."""
    game = KickGame(pengo_preset())
    first = [e.kind for e in game.drain()]
    assert first == ["level-start"] and game.drain() == []
    game.tick(5.0)
    game._add_score(1234, None, "test")
    game.go_to_level(3)
    assert (game.level, game.score, game.lives) == (3, 1234, 3)
    assert game.drain()[-1].kind == "level-start"
    game.reset()
    assert (game.level, game.score, game.lives, game.clock) == (1, 0, 3, 0)
    fresh = KickGame(pengo_preset())
    assert game.snapshot()["board"] == fresh.snapshot()["board"]
    with pytest.raises(IllegalInputError):
        game.go_to_level(0)


def test_kick_board_is_the_live_board() -> None:
    """kick_board is the session's own board, and state.blocks copies it."""
    game = KickGame(pengo_preset())
    assert game.kick_board is game.board
    assert len(game.state.blocks) == len(game.kick_board.state)
