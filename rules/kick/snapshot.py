"""Snapshots: a session as plain data (msgpack can encode it), and back.

A snapshot holds what changes during play: the session's scalar fields, its lists and maps, the events
not drained yet, the slots, the player, the random stream and the board (and, under
`slot_timers="arcade"` only, the slots' stale bytes). What the config alone fixes
(the level's pace and frame, the kinds, the materials) is not in it: restore derives it again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .actors import Enemy, Player
from .events import from_plain, to_plain
from .geometry import Cell
from .level import plain_cells
from .status import KickStatus

if TYPE_CHECKING:
    from .events import KickEvent
    from .game import KickGame

#: Scalar session fields that a snapshot carries.
STATE_FIELDS = (
    "status",
    "status_due",
    "status_start",
    "level",
    "score",
    "lives",
    "extra_index",
    "now",
    "clock",
    "life_start",
    "round_banked",
    "remaining_count",
    "eggs_left",
    "line_paid",
    "flash_until",
    "last_base",
    "last_t0",
    "last_enemy_told",
    "hurry_told",
    "bonus",
    "next_enemy",
    "held",
    "button_until",
    "time_debt",
    "hold_round",
    "line_show",
)


def take(game: KickGame, events: list[KickEvent]) -> dict[str, Any]:
    """The session's snapshot; `events` are those not drained yet."""
    s = {name: getattr(game, name) for name in STATE_FIELDS}
    s["status"] = game.status.value
    s["bonus"] = None if game.bonus is None else list(game.bonus)
    s["line_show"] = None if game.line_show is None else [list(game.line_show[0]), game.line_show[1]]
    s["egg_table"] = list(game.egg_table)
    s["shells"] = [list(x) for x in game.shells]
    s["carried"] = [[k, list(v)] for k, v in game.carried.items()]
    s["hits"] = [[k, v] for k, v in game.hits.items()]
    s["crush_ids"] = [[k, list(v)] for k, v in game.crush_ids.items()]
    s["start_cell"] = list(game.start_cell)
    s["carve"] = game.carve_plain  # immutable for the level: shared, not copied
    s["events"] = [to_plain(e) for e in events]
    snap = {
        "s": s,
        "board": game.board.snapshot(),
        "rng": game.rng.state,
        "slots": [e.plain() for e in game.slots],
        "player": game.player.plain(),
    }
    if game.config.slot_timers == "arcade":  # only then: every other snapshot stays as it was
        snap["slot_timers"] = [e.timers_plain() for e in game.slots]
    return snap


def put(game: KickGame, snap: dict[str, Any], events: list[KickEvent]) -> dict[str, Any]:
    """Set the session's fields, records and stream from a snapshot and refill `events`; returns the
    board's own snapshot (the session builds the board for the restored level)."""
    s = snap["s"]
    for name in STATE_FIELDS:
        setattr(game, name, s[name])
    game.status = KickStatus(s["status"])
    game.bonus = None if s["bonus"] is None else list(s["bonus"])
    game.line_show = None if s["line_show"] is None else [list(s["line_show"][0]), s["line_show"][1]]
    game.egg_table = list(s["egg_table"])
    game.shells = [list(x) for x in s["shells"]]
    game.carried = {k: list(v) for k, v in s["carried"]}
    game.hits = {k: v for k, v in s["hits"]}
    game.crush_ids = {k: list(v) for k, v in s["crush_ids"]}
    game.start_cell = Cell(*s["start_cell"])
    if s["carve"] is not game.carve_plain:
        game.carve = tuple(Cell(*c) for c in s["carve"])
        game.carve_plain = plain_cells(game.carve)
    events.clear()
    events.extend(from_plain(e) for e in s["events"])
    game.rng.state = snap["rng"]
    game.slots = [Enemy.from_plain(list(e)) for e in snap["slots"]]
    if "slot_timers" in snap:
        for slot, timers in zip(game.slots, snap["slot_timers"], strict=True):
            slot.put_timers(list(timers))
    game.player = Player.from_plain(list(snap["player"]))
    board: dict[str, Any] = snap["board"]
    return board
