"""The grid-kick pack, ported: Pengo's rules as a pure, deterministic engine.

Every export of the seed API (`../shared/seeds/002_…txt`) is here under its Python name.
"""

from .board import (
    Block,
    KickBlockSpec,
    KickBlockState,
    KickBoard,
    KickBoardConfig,
    KickPushResult,
)
from .config import (
    ConfigError,
    KickBrain,
    KickConfig,
    KickDifficulty,
    KickDifficultyName,
    KickEnemyKind,
    KickGenerator,
    KickGoal,
    KickLegendEntry,
    KickLevel,
    KickLineRule,
    KickMaterial,
    KickObjective,
    KickPlayerConfig,
    KickStunRule,
    KickTimeBonus,
)
from .events import EVENT_TYPES, KickBoardEvent, KickEvent, from_plain, to_plain
from .game import PASSES_PER_FRAME, IllegalInputError, KickGame, create_kick_game
from .geometry import DIRECTIONS, OPPOSITE, STEP, Cell, Direction
from .ice_slide_rooms import ICE_SLIDE_ROOMS, IceSlideRoom
from .maze import ActDeal, IceMaze, deal_act, generate_ice_maze, pick_odd_cells
from .presets import (
    PENGO_MATERIALS,
    IceSlideOptions,
    PengoOptions,
    ice_slide_preset,
    kick_difficulty,
    kick_preset,
    pengo_level,
    pengo_preset,
    pengo_speed,
)
from .presets import PENGO_TIME_BONUS_TABLE as PENGO_TIME_BONUS
from .rng import KickRandom
from .tables import PENGO_EGGS_EXPORT, PENGO_EGGS_JAPAN, PENGO_LOOP_HZ
from .view import KickEnemyState, KickPlayerState, KickState

__all__ = [
    "Block",
    "Cell",
    "ConfigError",
    "DIRECTIONS",
    "Direction",
    "EVENT_TYPES",
    "ICE_SLIDE_ROOMS",
    "ActDeal",
    "IceMaze",
    "IceSlideOptions",
    "IceSlideRoom",
    "IllegalInputError",
    "KickBlockSpec",
    "KickBlockState",
    "KickBoard",
    "KickBoardConfig",
    "KickBoardEvent",
    "KickBrain",
    "KickConfig",
    "KickDifficulty",
    "KickDifficultyName",
    "KickEnemyKind",
    "KickEnemyState",
    "KickEvent",
    "KickGame",
    "KickGenerator",
    "KickGoal",
    "KickLegendEntry",
    "KickLevel",
    "KickLineRule",
    "KickMaterial",
    "KickObjective",
    "KickPlayerConfig",
    "KickPlayerState",
    "KickPushResult",
    "KickRandom",
    "KickState",
    "KickStunRule",
    "KickTimeBonus",
    "OPPOSITE",
    "PASSES_PER_FRAME",
    "PENGO_EGGS_EXPORT",
    "PENGO_EGGS_JAPAN",
    "PENGO_LOOP_HZ",
    "PENGO_MATERIALS",
    "PENGO_TIME_BONUS",
    "PengoOptions",
    "STEP",
    "create_kick_game",
    "deal_act",
    "from_plain",
    "generate_ice_maze",
    "ice_slide_preset",
    "kick_difficulty",
    "kick_preset",
    "pengo_level",
    "pengo_preset",
    "pengo_speed",
    "pick_odd_cells",
    "to_plain",
]
