"""What a caller sees of a session: the seed API's state types, built from the session when first read.

`KickState` is the plain, immutable copy the seed API describes. A session hands out a `LazyKickState`
instead: the same type, whose parts (the round's figures, the player, the enemies, the blocks, the
goals) are each built on first read. Before the session changes anything a state shows, it freezes
the state it handed out (`LazyKickState.freeze` builds the parts still unread), so a part read late
shows the moment the state was taken, exactly as an eager copy would. The session holds that state
only weakly: once the caller has let go of it there is nothing to freeze, which is what lets
`tick(dt)` return a state every frame for almost nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .actors import (
    BLINKING,
    GONE,
    HATCH_NEXT,
    MODE_NAME,
    MOVING,
    NEVER,
    P_DYING,
    P_SHAKE,
    P_WALK,
    PHASE_OF_STATE,
    PLAYER_ACTION,
    STUN_MOVING,
    Player,
)
from .board import KickBlockState
from .geometry import CELL_PX, Cell, Direction
from .tables import HURRY_AFTER_MINUTES, PENGO_LOOP_HZ

if TYPE_CHECKING:
    from .game import KickGame


@dataclass(frozen=True)
class KickPlayerState:
    """The player's visible state (cells and seconds)."""

    x: float
    y: float
    facing: Direction
    moving: bool
    action: str
    action_time: float
    jump: int


@dataclass(frozen=True)
class KickEnemyState:
    """An enemy's visible state."""

    id: str
    kind: str
    x: float
    y: float
    dir: Direction
    phase: str
    phase_time: float
    mode: str
    chewing: bool
    blinking: bool
    score: int
    carried_by: int | None
    jump: int


@dataclass(frozen=True)
class KickState:
    """A copy of the session state."""

    status: str
    status_time: float
    status_remaining: float
    level: int
    act: int
    score: int
    lives: int
    player: KickPlayerState
    enemies: tuple[KickEnemyState, ...]
    blocks: tuple[KickBlockState, ...]
    goals: tuple[dict[str, Any], ...]
    eggs: int
    remaining: int
    egg_flash: bool
    shake: dict[str, Any] | None
    line: dict[str, Any] | None
    round_time: float
    life_time: float
    hurry: bool
    carve_order: tuple[Cell, ...]
    bonus: dict[str, Any] | None
    cols: int
    rows: int


FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(KickState))


def _values(state: KickState) -> tuple[Any, ...]:
    return tuple(getattr(state, name) for name in FIELDS)


# ---- the parts of a state, each built from the session in one go -------------------------------------


def _action_time(player: Player, now: int) -> float:
    if player.state == P_WALK or player.due == NEVER:
        return 0.0
    return max(0, player.due - now) / PENGO_LOOP_HZ


def _round(game: KickGame) -> dict[str, Any]:
    """The round's figures: status and its times, level, score, lives, eggs, shake, line, bonus, size."""
    hz = PENGO_LOOP_HZ
    clock = game.clock
    status = game.status
    playing = status == "playing"
    player = game.player
    shake = None
    if player.state == P_SHAKE and player.shake_side is not None:
        shake = {"side": player.shake_side, "remaining": _action_time(player, game.now)}
    line_show = game.line_show
    line = None if line_show is None else {"cells": [Cell(*c) for c in line_show[0]], "score": line_show[1]}
    bonus = game.bonus
    pace = game.pace
    return {
        "status": status,
        "status_time": (clock - game.status_start) / hz,
        "status_remaining": 0.0 if game.status_due == NEVER else max(0, game.status_due - clock) / hz,
        "level": game.level,
        "act": game.act_of(game.level),
        "score": game.score,
        "lives": game.lives,
        "eggs": game.eggs_left,
        "remaining": game.remaining_count,
        "egg_flash": clock < game.flash_until,
        "shake": shake,
        "line": line,
        "round_time": game.round_time_passes() / hz,
        "life_time": (clock - game.life_start) / hz if playing else 0.0,
        "hurry": playing
        and pace.hurry_enabled
        and pace.life_minutes(clock - game.life_start) >= HURRY_AFTER_MINUTES,
        "carve_order": game.carve,
        "bonus": None if bonus is None else {"time": bonus[0], "score": bonus[1]},
        "cols": game.cols,
        "rows": game.rows,
    }


def _player(game: KickGame) -> dict[str, Any]:
    player = game.player
    action = "dying" if player.dead or player.state == P_DYING else PLAYER_ACTION[player.state]
    return {
        "player": KickPlayerState(
            player.px / CELL_PX,
            player.py / CELL_PX,
            player.facing,
            player.moving,
            action,
            _action_time(player, game.now),
            player.jump,
        )
    }


def _enemies(game: KickGame) -> dict[str, Any]:
    now = game.now
    enemies = []
    for e in game.slots:
        state = e.state
        if state in (GONE, HATCH_NEXT):
            continue
        still = e.due == NEVER or state in (MOVING, STUN_MOVING)
        if e.brain == "sno-bee":
            mode = MODE_NAME.get(e.mode, "roam")
        else:
            mode = "roam" if e.brain == "patrol" else "hunt"
        enemies.append(
            KickEnemyState(
                e.id,
                e.kind,
                e.px / CELL_PX,
                e.py / CELL_PX,
                e.dir,
                PHASE_OF_STATE[state],
                0.0 if still else max(0, e.due - now) / PENGO_LOOP_HZ,
                mode,
                e.chewing,
                state == BLINKING,
                e.score,
                e.carried_by,
                e.jump,
            )
        )
    return {"enemies": tuple(enemies)}


def _blocks(game: KickGame) -> dict[str, Any]:
    return {"blocks": game.board.block_states()}


def _goals(game: KickGame) -> dict[str, Any]:
    return {"goals": tuple(game.board.goals())}


#: The parts built alone; every other field belongs to the round's part.
_SINGLE_PARTS: dict[str, Callable[[KickGame], dict[str, Any]]] = {
    "player": _player,
    "enemies": _enemies,
    "blocks": _blocks,
    "goals": _goals,
}
#: Each part, named by one of its fields (a part is built when that field is missing).
_PARTS: tuple[tuple[str, Callable[[KickGame], dict[str, Any]]], ...] = (
    ("status", _round),
    *_SINGLE_PARTS.items(),
)
#: The part of every field.
_PART_OF: dict[str, Callable[[KickGame], dict[str, Any]]] = {
    name: _SINGLE_PARTS.get(name, _round) for name in FIELDS
}


class LazyKickState(KickState):
    """A KickState whose parts are built on first read, showing the session as it was when taken.

    The session calls `freeze` before it changes anything a state shows. Copies and pickles are plain
    KickStates.
    """

    @classmethod
    def of(cls, game: KickGame) -> LazyKickState:
        """The state of `game` now, nothing built yet."""
        state = object.__new__(cls)
        state.__dict__["_game"] = game
        return state

    def __getattr__(self, name: str) -> Any:
        # Only reached for a field whose part is not built yet (built fields are in __dict__).
        build = _PART_OF.get(name)
        game = self.__dict__.get("_game")
        if build is None or game is None:
            raise AttributeError(f"'KickState' object has no attribute {name!r}")
        self.__dict__.update(build(game))
        return self.__dict__[name]

    def freeze(self) -> None:
        """Build the parts not read yet; from now on the state no longer reads the session."""
        game = self.__dict__.pop("_game", None)
        if game is None:
            return
        built = self.__dict__
        for first, build in _PARTS:
            if first not in built:
                built.update(build(game))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KickState):
            return NotImplemented
        return _values(self) == _values(other)

    __hash__ = KickState.__hash__

    def frozen_copy(self) -> KickState:
        """The same state as a plain KickState."""
        return KickState(*_values(self))

    def __repr__(self) -> str:
        return repr(self.frozen_copy())

    def __reduce__(self) -> tuple[type[KickState], tuple[Any, ...]]:
        return KickState, _values(self)


def build_state(game: KickGame) -> KickState:
    """The state of `game` built at once (what a LazyKickState shows whenever it is read)."""
    built: dict[str, Any] = {}
    for _first, build in _PARTS:
        built.update(build(game))
    return KickState(**built)
