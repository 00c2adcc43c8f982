"""The definition of a kick-block game: materials, enemies, levels, difficulty and the whole config.

Every type here is a frozen dataclass of plain values. `normalize_config` checks a `KickConfig`
field by field and raises `ConfigError` (a ValueError) naming the first bad field.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

from .geometry import Cell

KickBrain = Literal["sno-bee", "patrol", "chase", "pusher"]
#: The brains a config may name (`brain.BRAINS` holds each one's decision).
BRAIN_NAMES: tuple[KickBrain, ...] = ("sno-bee", "patrol", "chase", "pusher")
KickDifficultyName = Literal["easy", "normal", "arcade"]
Timing = Literal["arcade", "seconds"]
Deal = Literal["stream", "per-level"]
#: How the Sno-Bee decides: "first-port" keeps the first port's readings (pengo-versus 1 replays),
#: "arcade" follows the listing ($33D8-$3949) where SNOBEE-FACTS.md found them apart.
Fidelity = Literal["first-port", "arcade"]
SlotTimers = Literal["first-port", "arcade"]


class ConfigError(ValueError):
    """A configuration value is out of range or inconsistent; the message names the field."""


def _fail(name: str, why: str) -> ConfigError:
    return ConfigError(f"{name}: {why}")


def check_number(name: str, value: object, low: float, high: float) -> float:
    """A number in [low, high], or ConfigError naming the field."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(name, f"must be a number, got {value!r}")
    if not low <= value <= high:
        raise _fail(name, f"must be between {low} and {high}, got {value!r}")
    return float(value)


def check_integer(name: str, value: object, low: int, high: int) -> int:
    """An integer in [low, high] (not a bool), or ConfigError naming the field."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(name, f"must be an integer, got {value!r}")
    if not low <= value <= high:
        raise _fail(name, f"must be between {low} and {high}, got {value!r}")
    return value


@dataclass(frozen=True)
class KickMaterial:
    """A kind of block; the defaults are Pengo's ice block."""

    id: str
    slides: bool = True
    max_slide: int | None = None
    breaks_when_blocked: bool = True
    hits: int = 1
    enemy_breakable: bool | None = None
    crushes: bool = True
    break_score: int = 0
    group: str | None = None
    holds_eggs: bool | None = None

    @property
    def chewable(self) -> bool:
        """May block-breaking enemies break it (defaults to breaks_when_blocked)."""
        return self.breaks_when_blocked if self.enemy_breakable is None else self.enemy_breakable

    @property
    def egg_holder(self) -> bool:
        """May it hide an egg (defaults to breaks_when_blocked)."""
        return self.breaks_when_blocked if self.holds_eggs is None else self.holds_eggs


@dataclass(frozen=True)
class KickEnemyKind:
    """An enemy kind and how it chooses its way."""

    id: str
    brain: KickBrain = "sno-bee"
    breaks_blocks: bool | None = None
    avoids_blocks: bool | None = None
    stunnable: bool = True
    crushable: bool = True
    speed_scale: float = 1.0

    @property
    def chews(self) -> bool:
        """Breaks blocks in its way (Sno-Bees do)."""
        return self.brain == "sno-bee" if self.breaks_blocks is None else self.breaks_blocks

    @property
    def dodges(self) -> bool:
        """Dodges a block sliding toward it along its row or column."""
        return self.brain == "sno-bee" if self.avoids_blocks is None else self.avoids_blocks


@dataclass(frozen=True)
class KickLegendEntry:
    """What a map character places."""

    material: str | None = None
    egg: str | None = None
    goal: str | None = None
    player: bool = False
    enemy: str | None = None


@dataclass(frozen=True)
class KickLevel:
    """A per-level patch; level N uses entry min(N, len(levels))."""

    enemy_speed: float | None = None
    angry_speed: float | None = None
    angry_below: int | None = None
    hurry_speeds: tuple[float, ...] | None = None
    eggs: int | None = None
    active: int | None = None
    map: tuple[str, ...] | None = None
    palette: int | None = None
    #: Arcade periods (passes per pixel) when the level comes from Pengo's table: they make the
    #: speeds exact instead of converted back from cells per second.
    period: int | None = None


@dataclass(frozen=True)
class KickPlayerConfig:
    """The player."""

    speed: float = 4.875
    start: Cell | None = None
    respawn: tuple[Cell, ...] | None = None
    push_seconds: float = 0.25
    break_seconds: float = 0.3
    kick_buffer: float = 0.0


@dataclass(frozen=True)
class KickGenerator:
    """A generated board, Pengo style."""

    material: str
    egg: str
    kind: Literal["ice-maze"] = "ice-maze"
    specials: tuple[tuple[str, int], ...] = ()
    arcade_bug: bool = True
    complete: bool = False


@dataclass(frozen=True)
class KickDifficulty:
    """Difficulty scaling over a level table; arcade is all ones and zeros."""

    speed: float = 1.0
    population: float = 1.0
    active: int = 0
    patience: float = 1.0


@dataclass(frozen=True)
class KickTimeBonus:
    """Bonus for clearing a round quickly: the first entry whose `under` exceeds the round time pays."""

    under: float
    score: int


@dataclass(frozen=True)
class KickLineRule:
    """A line of `length` blocks of `group` pays `score` (or `wall_score` along the border)."""

    group: str
    length: int
    score: int
    wall_score: int
    pause_seconds: float
    stun: bool
    repeat: bool = False


@dataclass(frozen=True)
class KickStunRule:
    """Stun length: still, then blinking."""

    seconds: float
    blink_seconds: float


@dataclass(frozen=True)
class KickObjective:
    """What clears a round."""

    enemies: bool = True
    goals: bool = False


@dataclass(frozen=True)
class KickGoal:
    """A goal floor cell for a block group."""

    x: int
    y: int
    group: str


@dataclass(frozen=True)
class KickConfig:
    """The whole definition of a kick-block game (`kick_preset` supplies Pengo and Ice Slide)."""

    materials: tuple[KickMaterial, ...]
    enemies: tuple[KickEnemyKind, ...]
    player: KickPlayerConfig = field(default_factory=KickPlayerConfig)
    cols: int | None = None
    rows: int | None = None
    map: tuple[str, ...] | None = None
    legend: tuple[tuple[str, KickLegendEntry], ...] = ()
    generator: KickGenerator | None = None
    slide_speed: float = 16.25
    shatter_seconds: float = 0.35
    chew_seconds: float = 0.72
    one_slide: bool = True
    hatch_seconds: float = 1.9
    hatch_pause_seconds: float = 0.33
    egg_flash_seconds: float = 2.3
    wall_shake_seconds: float | None = 0.3
    stun: KickStunRule = field(default_factory=lambda: KickStunRule(1.6, 2.6))
    line: KickLineRule | None = None
    crush_scores: tuple[int, ...] = (400, 1600, 3200, 6400)
    stunned_score: int = 100
    egg_score: int = 500
    time_bonus: tuple[KickTimeBonus, ...] = ()
    flee_all_seconds: float | None = 120.0
    last_flee_seconds: float | None = 15.0
    flee_speed: float = 48.75 / 7
    dodge_speed: float = 48.75 / 5
    objective: KickObjective = field(default_factory=KickObjective)
    crush_player: bool = True
    contact: float = 0.5
    lives: int = 3
    extra_lives: tuple[int, ...] = (30_000,)
    extra_life_every: int = 0
    levels: tuple[KickLevel, ...] = (KickLevel(),)
    level: int = 1
    loop: bool = True
    draw_seconds: float = 0.0
    ready_seconds: float = 2.0
    death_seconds: float = 2.1
    clear_seconds: float = 2.7
    difficulty: KickDifficulty = field(default_factory=KickDifficulty)
    #: The seed: its low 16 bits start the arcade's stream; a per-level deal mixes all 32 bits.
    seed: int = 1
    invulnerable: bool = False
    #: "arcade": durations run on the global pass counter's ticks as the listing times them (Pengo);
    #: "seconds": the seconds fields above are used (Ice Slide, custom games).
    timing: Timing = "seconds"
    #: "stream": every level draws on from the one stream, as the arcade does; "per-level": each level
    #: restarts the stream from a seed derived from `seed` and the level (versus: a shared deal).
    deal: Deal = "stream"
    #: "first-port": the Sno-Bee decides as the first port did (pengo-versus 1 stays verifiable);
    #: "arcade": as the listing's decision routine ($33D8) does (rules/kick/README.md lists both).
    fidelity: Fidelity = "first-port"
    #: "first-port": a Sno-Bee slot's pause, vanish and step counters start afresh after a stun's blink
    #: or a death (pengo-versus 1 and 2 stay verifiable); "arcade": the bytes the listing leaves stale
    #: there are kept ($3A0F/$3A05, $3377, +7), with arcade timing only (rules/kick/README.md).
    slot_timers: SlotTimers = "first-port"
    #: Ruleset name, for replays and the compendium.
    name: str = "custom"

    def replace(self, **changes: object) -> KickConfig:
        """A copy with some fields changed (validated by normalize_config when a game is made)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def material_by_id(self) -> dict[str, KickMaterial]:
        """Materials keyed by id."""
        return {m.id: m for m in self.materials}

    def enemy_by_id(self) -> dict[str, KickEnemyKind]:
        """Enemy kinds keyed by id."""
        return {e.id: e for e in self.enemies}


def _check_map(name: str, rows: tuple[str, ...], legend: dict[str, KickLegendEntry]) -> None:
    if not rows:
        raise _fail(name, "must have at least one row")
    width = len(rows[0])
    if width == 0:
        raise _fail(name, "rows must not be empty")
    if width > 1000 or len(rows) > 1000:
        raise _fail(name, "at most 1000 × 1000 cells")
    for index, row in enumerate(rows):
        if not isinstance(row, str):
            raise _fail(f"{name}[{index}]", f"must be a string, got {row!r}")
        if len(row) != width:
            raise _fail(f"{name}[{index}]", f"ragged row: width {len(row)}, expected {width}")
    players = sum(1 for row in rows for ch in row if ch in legend and legend[ch].player)
    if players > 1:
        raise _fail(name, f"has {players} player start cells, at most one allowed")


def normalize_config(config: KickConfig) -> KickConfig:
    """Validate every field; return the config unchanged or raise ConfigError naming the field."""
    if not isinstance(config, KickConfig):
        raise ConfigError(f"config: expected KickConfig, got {type(config).__name__}")
    materials = {}
    if not config.materials:
        raise _fail("materials", "at least one material is required")
    for index, material in enumerate(config.materials):
        if not material.id:
            raise _fail(f"materials[{index}].id", "must be a non-empty string")
        if material.id in materials:
            raise _fail(f"materials[{index}].id", f"duplicate material {material.id!r}")
        check_integer(f"materials[{index}].hits", material.hits, 1, 1000)
        if material.max_slide is not None:
            check_integer(f"materials[{index}].max_slide", material.max_slide, 1, 1000)
        check_integer(f"materials[{index}].break_score", material.break_score, 0, 10**9)
        materials[material.id] = material
    enemies = {}
    for index, enemy in enumerate(config.enemies):
        if not enemy.id or enemy.id in enemies:
            raise _fail(f"enemies[{index}].id", f"must be a unique non-empty string, got {enemy.id!r}")
        if enemy.brain not in BRAIN_NAMES:
            raise _fail(f"enemies[{index}].brain", f"unknown brain {enemy.brain!r}; one of {BRAIN_NAMES}")
        check_number(f"enemies[{index}].speed_scale", enemy.speed_scale, 0.01, 100)
        enemies[enemy.id] = enemy
    legend = dict(config.legend)
    for ch, entry in legend.items():
        if len(ch) != 1:
            raise _fail("legend", f"keys must be single characters, got {ch!r}")
        if entry.material is not None and entry.material not in materials:
            raise _fail(f"legend[{ch!r}].material", f"unknown material {entry.material!r}")
        for kind in (entry.egg, entry.enemy):
            if kind is not None and kind not in enemies:
                raise _fail(f"legend[{ch!r}]", f"unknown enemy kind {kind!r}")
    if config.map is not None:
        _check_map("map", config.map, legend)
    for index, level in enumerate(config.levels):
        where = f"levels[{index}]"
        if level.map is not None:
            _check_map(f"{where}.map", level.map, legend)
        for attr in ("enemy_speed", "angry_speed"):
            value = getattr(level, attr)
            if value is not None:
                check_number(f"{where}.{attr}", value, 0.01, 1000)
        for attr in ("angry_below", "eggs", "active"):
            value = getattr(level, attr)
            if value is not None:
                check_integer(f"{where}.{attr}", value, 0, 1000)
        if level.period is not None:
            check_integer(f"{where}.period", level.period, 1, 255)
    if not config.levels:
        raise _fail("levels", "at least one level is required")
    if config.map is None and config.generator is None and all(lv.map is None for lv in config.levels):
        raise _fail("map", "a map, a generator or per-level maps are required")
    if config.generator is not None:
        gen = config.generator
        if gen.material not in materials:
            raise _fail("generator.material", f"unknown material {gen.material!r}")
        if gen.egg not in enemies:
            raise _fail("generator.egg", f"unknown enemy kind {gen.egg!r}")
        for material_id, count in gen.specials:
            if material_id not in materials:
                raise _fail("generator.specials", f"unknown material {material_id!r}")
            check_integer("generator.specials.count", count, 0, 100)
        cols = check_integer("cols", config.cols, 3, 999)
        rows = check_integer("rows", config.rows, 3, 999)
        if cols % 2 == 0:
            raise _fail("cols", f"a generated board needs an odd width, got {cols}")
        if rows % 2 == 0:
            raise _fail("rows", f"a generated board needs an odd height, got {rows}")
    else:
        if config.cols is not None:
            check_integer("cols", config.cols, 1, 1000)
        if config.rows is not None:
            check_integer("rows", config.rows, 1, 1000)
    check_number("player.speed", config.player.speed, 0.1, 1000)
    check_number("slide_speed", config.slide_speed, 0.1, 1000)
    check_number("shatter_seconds", config.shatter_seconds, 0, 30)
    check_number("chew_seconds", config.chew_seconds, 0, 30)
    check_number("hatch_seconds", config.hatch_seconds, 0, 60)
    check_number("hatch_pause_seconds", config.hatch_pause_seconds, 0, 60)
    check_number("stun.seconds", config.stun.seconds, 0, 60)
    check_number("stun.blink_seconds", config.stun.blink_seconds, 0, 60)
    check_number("flee_speed", config.flee_speed, 0.1, 1000)
    check_number("dodge_speed", config.dodge_speed, 0.1, 1000)
    check_number("contact", config.contact, 0, 2)
    check_integer("lives", config.lives, 1, 99)
    check_integer("level", config.level, 1, 10_000)
    check_integer("seed", config.seed, 0, 0xFFFFFFFF)
    if not config.crush_scores:
        raise _fail("crush_scores", "at least one score is required")
    for value in config.crush_scores:
        check_integer("crush_scores", value, 0, 10**9)
    for seconds_field in ("draw_seconds", "ready_seconds", "death_seconds", "clear_seconds"):
        check_number(seconds_field, getattr(config, seconds_field), 0, 600)
    for attr in ("flee_all_seconds", "last_flee_seconds", "wall_shake_seconds"):
        value = getattr(config, attr)
        if value is not None:
            check_number(attr, value, 0, 10_000)
    difficulty = config.difficulty
    check_number("difficulty.speed", difficulty.speed, 0.05, 20)
    check_number("difficulty.population", difficulty.population, 0, 20)
    check_integer("difficulty.active", difficulty.active, -100, 100)
    check_number("difficulty.patience", difficulty.patience, 0.05, 20)
    if config.line is not None:
        if config.line.group not in {m.group for m in config.materials if m.group}:
            raise _fail("line.group", f"no material has group {config.line.group!r}")
        check_integer("line.length", config.line.length, 2, 1000)
    if config.deal not in ("stream", "per-level"):
        raise _fail("deal", f"must be 'stream' or 'per-level', got {config.deal!r}")
    if config.fidelity not in ("first-port", "arcade"):
        raise _fail("fidelity", f"must be 'first-port' or 'arcade', got {config.fidelity!r}")
    if config.timing not in ("arcade", "seconds"):
        raise _fail("timing", f"must be 'arcade' or 'seconds', got {config.timing!r}")
    if config.slot_timers not in ("first-port", "arcade"):
        raise _fail("slot_timers", f"must be 'first-port' or 'arcade', got {config.slot_timers!r}")
    if config.slot_timers == "arcade" and config.timing != "arcade":
        raise _fail("slot_timers", "'arcade' counts the listing's ticks: it needs timing='arcade'")
    return config
