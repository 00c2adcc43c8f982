"""The brain seam: every brain is registered, decides through a BrainHost, and needs no KickGame."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rules.kick import KickBlockSpec, KickBoard, KickBoardConfig, KickEnemyKind, KickGame, KickLegendEntry
from rules.kick.actors import MOVING, Enemy
from rules.kick.board import Block
from rules.kick.brain import BRAINS, BrainHost
from rules.kick.config import BRAIN_NAMES
from rules.kick.geometry import CELL_PX, Direction
from rules.kick.level import LevelPace
from rules.kick.presets import PENGO_MATERIALS, SNO_BEE
from rules.kick.rng import KickRandom

from .lab import LEGEND, lab_config, play_until

#: The hooks KickGame offered its brains before they had a host of their own.
FORMER_HOOKS = (
    "set_base", "set_period", "pause_after_step", "can_chew", "enemy_chews", "enemy_flees",
    "enemy_vanishes", "zero_last_enemy_clock", "last_enemy_clock_high", "life_minutes", "hurry_period",
    "crush_points",
)


@dataclass
class Spot:
    """A player position."""

    px: int
    py: int


@dataclass
class StubHost:
    """A BrainHost on a bare board, recording what the brain asked the session to do."""

    board: KickBoard
    player: Spot
    rng: KickRandom = field(default_factory=lambda: KickRandom(0x365A))
    pace: LevelPace = field(default_factory=lambda: KickGame(lab_config(["P."])).pace)
    remaining: int = 6
    done: list[str] = field(default_factory=list)
    arcade_fidelity: bool = False

    def kind(self, e: Enemy) -> KickEnemyKind:
        return SNO_BEE

    def life_minutes(self) -> int:
        return 0

    def zero_last_enemy_clock(self) -> None:
        self.done.append("zero")

    def last_enemy_clock_high(self) -> int:
        return 0

    def can_chew(self, e: Enemy, block: Block) -> bool:
        return block.egg is None

    def chew(self, e: Enemy, block: Block) -> None:
        self.done.append(f"chew {block.id}")

    def kick(self, e: Enemy, x: int, y: int, direction: Direction) -> bool:
        self.done.append(f"kick {x},{y} {direction}")
        return True

    def flee(self, e: Enemy) -> None:
        self.done.append("flee")

    def vanish(self, e: Enemy) -> None:
        self.done.append("vanish")

    def pause_after_step(self, e: Enemy) -> None:
        self.done.append("pause")


def board_of(rows: list[str]) -> KickBoard:
    """A Pengo board drawn as text: '#' ice."""
    blocks = tuple(KickBlockSpec(x, y, "ice") for y, row in enumerate(rows) for x, ch in enumerate(row)
                   if ch == "#")
    return KickBoard(KickBoardConfig(cols=len(rows[0]), rows=len(rows), materials=PENGO_MATERIALS,
                                     blocks=blocks))


def enemy_at(x: int, y: int, facing: Direction, brain: str = "sno-bee") -> Enemy:
    """A moving enemy on the centre of cell (x, y)."""
    e = Enemy(0, "sno-bee", brain, facing)  # type: ignore[arg-type]
    e.id, e.state, e.px, e.py = "sno-bee-1", MOVING, x * CELL_PX, y * CELL_PX
    return e


def test_every_brain_a_config_may_name_is_registered() -> None:
    """BRAINS holds exactly the brains a config may name."""
    assert sorted(BRAINS) == sorted(BRAIN_NAMES)


def test_the_brains_hooks_left_the_session() -> None:
    """KickGame no longer offers the hooks only brains called; the host is not public either."""
    game = KickGame(lab_config(["P."]))
    assert [name for name in FORMER_HOOKS if hasattr(game, name)] == []
    host: BrainHost = game._enemies
    assert host.pace is game.pace and host.board is game.board and host.remaining == game.remaining()


def test_a_snobee_in_a_corridor_takes_the_way_on_without_a_draw() -> None:
    """Roam with two exits takes the first that is not the reverse and draws nothing ($36E0)."""
    host = StubHost(board_of(["###", "...", "###"]), Spot(0, 0))
    e = enemy_at(1, 1, "right")
    e.mode = 1
    before = host.rng.state
    assert BRAINS["sno-bee"](host, e) is True
    assert e.dir == "right" and host.rng.state == before and host.done == []


def test_a_snobee_eats_toward_the_player_through_its_host() -> None:
    """An eater facing ice it may chew asks its host to chew it ($3908) and creeps in at base + 24."""
    host = StubHost(board_of(["...", ".#.", "..."]), Spot(CELL_PX, 2 * CELL_PX))
    e = enemy_at(1, 0, "down")
    e.mode = 2
    for _ in range(50):
        e.dir = "down"
        if BRAINS["sno-bee"](host, e) and host.done:
            break
    assert host.done and host.done[0].startswith("chew") and e.chewing
    assert e.period_num == e.base_period + 24 * e.base_den


def test_patrol_turns_right_then_left_then_back() -> None:
    """A patrol keeps on, else turns right, else left, else back."""
    host = StubHost(board_of(["#.#", "..#", "###"]), Spot(0, 0))
    e = enemy_at(1, 1, "down", "patrol")
    assert BRAINS["patrol"](host, e) and e.dir == "left"
    e = enemy_at(1, 1, "right", "patrol")
    assert BRAINS["patrol"](host, e) and e.dir == "up"


def test_a_pusher_kicks_the_block_between_it_and_the_player() -> None:
    """A pusher in line with the player with a block next to it kicks it and stands."""
    host = StubHost(board_of([".....", ".#...", "....."]), Spot(4 * CELL_PX, CELL_PX))
    e = enemy_at(0, 1, "up", "pusher")
    assert BRAINS["pusher"](host, e) is False
    assert host.done == ["kick 1,1 right"] and e.dir == "right"


def test_a_chaser_runs_the_shortest_open_path_to_the_player() -> None:
    """In play, a chase brain closes in on the player round the walls."""
    rows = ["P....", "####.", "h...."]
    config = lab_config(rows)
    config = replace(config, enemies=(*config.enemies, KickEnemyKind("hound", brain="chase")),
                     legend=(*LEGEND, ("h", KickLegendEntry(enemy="hound"))))
    game = KickGame(config)
    game.control(None)
    hound = next(e for e in game.slots if e.kind == "hound")
    play_until(game, lambda g: hound.state == MOVING and hound.px > 0, limit=5000)
    assert hound.py == 2 * CELL_PX  # right along the bottom row: the wall is open only at the far end
    play_until(game, lambda g: hound.px == 4 * CELL_PX and hound.py == 0, limit=20_000)
    play_until(game, lambda g: g.player.dead, limit=20_000)
