"""What a viewer is shown of a match: per-frame actor positions and the keyframe's view of the boards.

Positions are arcade pixels (16 to a cell). A frame record carries, per seat, only what moves:
`[player, enemies, sliding blocks]` with `player = [px, py, facing, action]`, each enemy
`[id, px, py, phase, facing]` (enemies not on the board are left out) and each sliding block
`[id, px, py]`. A keyframe carries the whole board (see `keyframe_view`). protocol/README.md
documents both layouts for clients.
"""

from __future__ import annotations

from typing import Any

from rules.kick.actors import GONE, HATCH_NEXT, P_DYING, PHASE_OF_STATE, PLAYER_ACTION
from rules.kick.game import KickGame
from rules.versus.match import VersusMatch

_HIDDEN = (GONE, HATCH_NEXT)


def _player(game: KickGame) -> list[Any]:
    player = game.player
    action = "dying" if player.dead or player.state == P_DYING else PLAYER_ACTION[player.state]
    return [player.px, player.py, player.facing, action]


def _enemies(game: KickGame) -> list[list[Any]]:
    return [
        [enemy.id, enemy.px, enemy.py, PHASE_OF_STATE[enemy.state], enemy.dir]
        for enemy in game.slots
        if enemy.state not in _HIDDEN
    ]


def seat_actors(game: KickGame) -> list[Any]:
    """One seat's moving things: the player, the enemies on the board, the sliding blocks."""
    sliding = [[block.id, block.px, block.py] for block in game.board.sliding_blocks]
    return [_player(game), _enemies(game), sliding]


def frame_actors(match: VersusMatch) -> list[Any]:
    """Every seat's actors, in seat order."""
    return [seat_actors(game) for game in match.games]


def keyframe_view(match: VersusMatch) -> dict[str, Any]:
    """The whole visible state: each board's blocks and actors, score, lives, pending attacks, gems."""
    seats = []
    for seat, game in enumerate(match.games):
        board = game.board
        seats.append(
            {
                "name": match.names[seat],
                "alive": match.alive[seat],
                "forfeited": match.forfeited[seat],
                "status": game.status,
                "level": game.level,
                "score": game.score,
                "lives": game.lives,
                "cols": board.cols,
                "rows": board.rows,
                "blocks": [[b.id, b.cx, b.cy, b.material, b.px, b.py] for b in board.blocks.values()],
                "player": _player(game),
                "enemies": _enemies(game),
                "pending": [list(packet) for packet in match.pending[seat]],
                "gems": [list(gem) for gem in match.gems[seat]],
            }
        )
    return {
        "frame": match.frame,
        "time_left": max(0, match.rules.time_limit_frames - match.frame),
        "seats": seats,
    }
