"""Pengo and Ice Slide as configurations, the act table, and difficulty by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .config import (
    ConfigError,
    KickConfig,
    KickDifficulty,
    KickDifficultyName,
    KickEnemyKind,
    KickGenerator,
    KickLegendEntry,
    KickLevel,
    KickLineRule,
    KickMaterial,
    KickObjective,
    KickPlayerConfig,
    KickStunRule,
    KickTimeBonus,
)
from .ice_slide_rooms import ICE_SLIDE_ROOMS, IceSlideRoom
from .tables import (
    ANGRY_BASE,
    CLEAR_VBLANKS,
    DEATH_VBLANKS,
    EGG_SCORE,
    EXTRA_LIFE_SCORE,
    GAME_SECOND_PASSES,
    ICE_SCORE,
    LINE_SCORE,
    LINE_VBLANKS,
    LINE_WALL_SCORE,
    LIVES_MAX,
    LIVES_MIN,
    PENGO_ACTS,
    PENGO_COLS,
    PENGO_CRUSH_SCORES,
    PENGO_DIAMONDS,
    PENGO_EGGS_EXPORT,
    PENGO_EGGS_JAPAN,
    PENGO_LINE_LENGTH,
    PENGO_LIVES,
    PENGO_LOOP_HZ,
    PENGO_ROWS,
    PENGO_TIME_BONUS,
    PLAYER_PERIOD,
    READY_VBLANKS,
    SKILL_FACTORY,
    SKILL_MAX,
    SKILL_MIN,
    SLIDE_PERIOD,
    SLOTS_EARLY,
    SLOTS_LATE,
    SLOTS_LATE_FROM_ACT,
    SNOBEE_BASE_PERIOD,
    STUNNED_SCORE,
    VBLANK_PASSES,
)

EggTable = Literal["japan", "export"]


def pengo_speed(period: int) -> float:
    """Cells per second for an arcade move period (passes per pixel): 48.75 / period."""
    if isinstance(period, bool) or not isinstance(period, int | float) or period <= 0:
        raise ConfigError(f"period: must be a positive number, got {period!r}")
    return PENGO_LOOP_HZ / 16 / period


#: Pengo's two block kinds: ice (breaks when kicked against something, 30 points, may hide an egg)
#: and diamond (slides, never breaks, never chewed, group 'diamond').
PENGO_MATERIALS: tuple[KickMaterial, ...] = (
    KickMaterial("ice", break_score=ICE_SCORE),
    KickMaterial(
        "diamond", breaks_when_blocked=False, enemy_breakable=False, group="diamond", holds_eggs=False
    ),
)
SNO_BEE = KickEnemyKind("sno-bee", brain="sno-bee")
#: Pengo's time bonus in game-seconds ($0A2B).
PENGO_TIME_BONUS_TABLE: tuple[KickTimeBonus, ...] = tuple(KickTimeBonus(u, s) for u, s in PENGO_TIME_BONUS)
#: PENGO_TIME_BONUS as the seed API names it.
PENGO_TIME_BONUS_ROWS = PENGO_TIME_BONUS_TABLE


def _check_act(act: int) -> int:
    if isinstance(act, bool) or not isinstance(act, int) or not 1 <= act <= PENGO_ACTS:
        raise ConfigError(f"act: must be an integer from 1 to {PENGO_ACTS}, got {act!r}")
    return act


def _check_skill(skill: int) -> int:
    if isinstance(skill, bool) or not isinstance(skill, int) or not SKILL_MIN <= skill <= SKILL_MAX:
        raise ConfigError(f"skill: must be an integer from {SKILL_MIN} to {SKILL_MAX}, got {skill!r}")
    return skill


def pengo_level(act: int, skill: int = SKILL_FACTORY, eggs: EggTable = "japan") -> KickLevel:
    """One act of Pengo's table (1–16) at a skill setting (the DIP, 0 easy … 3 hardest)."""
    _check_act(act)
    _check_skill(skill)
    if eggs not in ("japan", "export"):
        raise ConfigError(f"eggs: must be 'japan' or 'export', got {eggs!r}")
    tier = (act - 1) // 4
    period = SNOBEE_BASE_PERIOD - tier - skill  # $324E
    table = PENGO_EGGS_JAPAN if eggs == "japan" else PENGO_EGGS_EXPORT
    return KickLevel(
        enemy_speed=pengo_speed(period),
        angry_speed=pengo_speed(period - 1),  # $342E
        angry_below=tier + ANGRY_BASE,
        hurry_speeds=(pengo_speed(max(1, period - 2)),),  # $344B: base − 1 − minutes
        eggs=table[act - 1],
        active=SLOTS_EARLY if act < SLOTS_LATE_FROM_ACT else SLOTS_LATE,  # $326E
        palette=act,
        period=period,
    )


_DIFFICULTIES: dict[str, KickDifficulty] = {
    "arcade": KickDifficulty(),
    "normal": KickDifficulty(speed=1.0, population=0.75, active=0, patience=1.5),
    "easy": KickDifficulty(speed=0.85, population=0.6, active=-1, patience=1.5),
}


def kick_difficulty(name: KickDifficultyName) -> KickDifficulty:
    """Difficulty scaling by name: arcade (the original), normal, easy."""
    try:
        return _DIFFICULTIES[name]
    except (KeyError, TypeError):
        raise ConfigError(
            f"difficulty: unknown difficulty {name!r}; one of {sorted(_DIFFICULTIES)}"
        ) from None


def _difficulty(
    value: KickDifficultyName | KickDifficulty | None, default: KickDifficultyName
) -> KickDifficulty:
    if value is None:
        return kick_difficulty(default)
    if isinstance(value, KickDifficulty):
        return value
    return kick_difficulty(value)


@dataclass(frozen=True)
class PengoOptions:
    """Options for the Pengo preset."""

    level: int = 1
    lives: int = PENGO_LIVES
    seed: int = 0x365A
    difficulty: KickDifficultyName | KickDifficulty | None = None
    skill: int | None = None
    eggs: EggTable = "japan"
    extra_lives: tuple[int, ...] = (EXTRA_LIFE_SCORE,)
    cols: int = PENGO_COLS
    rows: int = PENGO_ROWS
    diamonds: int = PENGO_DIAMONDS
    line_length: int = PENGO_LINE_LENGTH
    arcade_bug: bool = True
    draw_seconds: float = 0.0


def pengo_preset(options: PengoOptions | None = None) -> KickConfig:
    """Pengo (Sega/Coreland, 1982): every rule and number from the disassembly unless documented."""
    o = options or PengoOptions()
    difficulty = _difficulty(o.difficulty, "arcade")
    default_skill = 0 if isinstance(o.difficulty, str) and o.difficulty != "arcade" else SKILL_FACTORY
    skill = _check_skill(default_skill if o.skill is None else o.skill)
    if isinstance(o.lives, bool) or not isinstance(o.lives, int) or not LIVES_MIN - 1 <= o.lives <= 99:
        raise ConfigError(
            f"lives: must be an integer from 1 to 99 (the DIP offers {LIVES_MIN}–{LIVES_MAX}), "
            f"got {o.lives!r}"
        )
    _check_act(o.level)
    return KickConfig(
        name="pengo",
        timing="arcade",
        cols=o.cols,
        rows=o.rows,
        generator=KickGenerator(
            material="ice", egg="sno-bee", specials=(("diamond", o.diamonds),), arcade_bug=o.arcade_bug
        ),
        materials=PENGO_MATERIALS,
        enemies=(SNO_BEE,),
        player=KickPlayerConfig(speed=pengo_speed(PLAYER_PERIOD)),
        slide_speed=pengo_speed(SLIDE_PERIOD),
        shatter_seconds=560 / PENGO_LOOP_HZ,
        line=KickLineRule(
            "diamond", o.line_length, LINE_SCORE, LINE_WALL_SCORE, LINE_VBLANKS / 60, stun=True
        ),
        crush_scores=PENGO_CRUSH_SCORES,
        stunned_score=STUNNED_SCORE,
        egg_score=EGG_SCORE,
        time_bonus=PENGO_TIME_BONUS_TABLE,
        flee_all_seconds=120 * GAME_SECOND_PASSES / PENGO_LOOP_HZ,
        last_flee_seconds=15.0,
        crush_player=False,  # $4431: the block's catch test looks only at Sno-Bees
        stun=KickStunRule(seconds=4.5 * 256 / PENGO_LOOP_HZ, blink_seconds=7.5 * 256 / PENGO_LOOP_HZ),
        lives=o.lives,
        extra_lives=o.extra_lives,
        levels=tuple(pengo_level(act, skill, o.eggs) for act in range(1, PENGO_ACTS + 1)),
        level=o.level,
        loop=True,
        draw_seconds=o.draw_seconds,
        ready_seconds=READY_VBLANKS * VBLANK_PASSES / PENGO_LOOP_HZ,
        death_seconds=DEATH_VBLANKS * VBLANK_PASSES / PENGO_LOOP_HZ,
        clear_seconds=CLEAR_VBLANKS * VBLANK_PASSES / PENGO_LOOP_HZ,
        difficulty=difficulty,
        seed=o.seed & 0xFFFF,
    )


# ---- Ice Slide ----------------------------------------------------------------------------------

ICE_SLIDE_MATERIALS: tuple[KickMaterial, ...] = (
    KickMaterial("steel", slides=False, breaks_when_blocked=False, enemy_breakable=False, holds_eggs=False),
    KickMaterial("ice", break_score=30),
    KickMaterial("thick-ice", hits=2, enemy_breakable=False, break_score=60),
    KickMaterial(
        "crate",
        max_slide=1,
        breaks_when_blocked=False,
        enemy_breakable=False,
        crushes=False,
        holds_eggs=False,
    ),
    KickMaterial("gem", breaks_when_blocked=False, enemy_breakable=False, group="gem", holds_eggs=False),
)
ICE_SLIDE_ENEMIES: tuple[KickEnemyKind, ...] = (
    SNO_BEE,
    KickEnemyKind("walrus", brain="patrol", speed_scale=0.8),
    KickEnemyKind("seal", brain="pusher", speed_scale=0.9),
)
ICE_SLIDE_LEGEND: tuple[tuple[str, KickLegendEntry], ...] = (
    ("#", KickLegendEntry(material="steel")),
    ("I", KickLegendEntry(material="ice")),
    ("R", KickLegendEntry(material="thick-ice")),
    ("C", KickLegendEntry(material="crate")),
    ("G", KickLegendEntry(material="gem")),
    ("*", KickLegendEntry(goal="gem")),
    ("E", KickLegendEntry(material="ice", egg="sno-bee")),
    ("P", KickLegendEntry(player=True)),
    ("w", KickLegendEntry(enemy="walrus")),
    ("s", KickLegendEntry(enemy="seal")),
)
ICE_SLIDE_CRUSH_SCORES = (200, 800, 1600, 3200)
ICE_SLIDE_TIME_BONUS = tuple(KickTimeBonus(u, s) for u, s in ((30, 3000), (60, 1500), (90, 800), (120, 300)))
ICE_SLIDE_EXTRA_LIFE = 20_000


@dataclass(frozen=True)
class IceSlideOptions:
    """Options for the Ice Slide preset."""

    level: int = 1
    lives: int = 3
    seed: int = 1
    difficulty: KickDifficultyName | KickDifficulty | None = None
    rooms: tuple[IceSlideRoom, ...] | None = None
    enemy_speed: float = 2.6


def ice_slide_preset(options: IceSlideOptions | None = None) -> KickConfig:
    """Ice Slide: kick gem blocks onto the goal tiles, room after room, on Pengo's kick rules."""
    o = options or IceSlideOptions()
    rooms = o.rooms if o.rooms is not None else ICE_SLIDE_ROOMS
    if not rooms:
        raise ConfigError("rooms: at least one room is required")
    if isinstance(o.level, bool) or not isinstance(o.level, int) or not 1 <= o.level <= len(rooms):
        raise ConfigError(f"level: must be a room number from 1 to {len(rooms)}, got {o.level!r}")
    levels = tuple(
        KickLevel(map=tuple(room.map), enemy_speed=o.enemy_speed, active=2, palette=index + 1)
        for index, room in enumerate(rooms)
    )
    return KickConfig(
        name="ice-slide",
        timing="seconds",
        materials=ICE_SLIDE_MATERIALS,
        enemies=ICE_SLIDE_ENEMIES,
        legend=ICE_SLIDE_LEGEND,
        player=KickPlayerConfig(speed=4.875, kick_buffer=0.15),
        levels=levels,
        level=o.level,
        loop=False,
        wall_shake_seconds=None,
        line=None,
        crush_scores=ICE_SLIDE_CRUSH_SCORES,
        time_bonus=ICE_SLIDE_TIME_BONUS,
        objective=KickObjective(enemies=False, goals=True),
        crush_player=True,
        lives=o.lives,
        extra_lives=(ICE_SLIDE_EXTRA_LIFE,),
        extra_life_every=ICE_SLIDE_EXTRA_LIFE,
        flee_all_seconds=None,
        last_flee_seconds=None,
        difficulty=_difficulty(o.difficulty, "normal"),
        seed=o.seed & 0xFFFF,
    )


def kick_preset(name: str, options: PengoOptions | IceSlideOptions | None = None) -> KickConfig:
    """A named preset: 'pengo' or 'ice-slide'; raises ConfigError for any other name."""
    if name == "pengo":
        if options is not None and not isinstance(options, PengoOptions):
            raise ConfigError("options: pengo takes PengoOptions")
        return pengo_preset(options)
    if name == "ice-slide":
        if options is not None and not isinstance(options, IceSlideOptions):
            raise ConfigError("options: ice-slide takes IceSlideOptions")
        return ice_slide_preset(options)
    raise ConfigError(f"name: unknown preset {name!r}; one of 'pengo', 'ice-slide'")
