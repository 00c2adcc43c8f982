"""`fidelity="arcade"`: the Sno-Bee decision as the listing reads it ($33D8–$3949, SNOBEE-FACTS.md).

Each test builds the smallest scene that shows one reading, runs it under both fidelities and asserts
the listing's behaviour under "arcade" and the first port's under "first-port" (pengo-versus 1 keeps
it). The item numbers are those of SNOBEE-FACTS.md; rules/kick/README.md lists them all.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from rules.kick import (
    PASSES_PER_FRAME,
    KickBlockSpec,
    KickBoard,
    KickBoardConfig,
    KickGame,
    PengoOptions,
    pengo_preset,
)
from rules.kick.actors import MOVING, NEVER, PAUSE, VANISHING, Enemy
from rules.kick.board import Block
from rules.kick.brain import BRAINS
from rules.kick.geometry import CELL_PX, Direction
from rules.kick.presets import PENGO_MATERIALS
from rules.kick.snobee import _dead_end, _dodge
from rules.kick.tables import CHEW_EXTRA_PERIOD, GAME_MINUTE_PASSES
from rules.synctest import run_synctest

from .lab import lab_game, play_until
from .test_brain import Spot, StubHost, enemy_at
from .test_synctest import kick_step, maker, play, random_inputs

FIDELITIES = (True, False)


class Script:
    """A random stream that hands out the bytes a test chose, in order (and fails when they run out)."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def byte(self) -> int:
        return self.values.pop(0)

    def below(self, n: int) -> int:
        return self.values.pop(0) % n


@dataclass
class Host(StubHost):
    """The stub host with the session's chew rule (diamonds are not chewed) and a chosen minute."""

    minutes: int = 0

    def can_chew(self, e: Enemy, block: Block) -> bool:
        return block.material != "diamond"

    def life_minutes(self) -> int:
        return self.minutes


def board_of(rows: list[str]) -> KickBoard:
    """A Pengo board drawn as text: '#' ice, 'D' diamond, 'E' ice with an egg."""
    specs = []
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch == "#":
                specs.append(KickBlockSpec(x, y, "ice"))
            elif ch == "D":
                specs.append(KickBlockSpec(x, y, "diamond"))
            elif ch == "E":
                specs.append(KickBlockSpec(x, y, "ice", egg="sno-bee"))
    return KickBoard(KickBoardConfig(cols=len(rows[0]), rows=len(rows), materials=PENGO_MATERIALS,
                                     blocks=tuple(specs)))


def host_on(rows: list[str], arcade: bool, player: tuple[int, int] = (0, 0), *bytes_: int) -> Host:
    """A host on a drawn board, Pengo at pixel `player`, the stream scripted when bytes are given."""
    host = Host(board_of(rows), Spot(*player), arcade_fidelity=arcade)
    if bytes_:
        host.rng = Script(*bytes_)  # type: ignore[assignment]
    return host


def decide(host: Host, e: Enemy) -> bool:
    return BRAINS["sno-bee"](host, e)


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_item1_after_turning_away_the_period_is_the_base_again_38CE(arcade: bool) -> None:
    """$38CE draws a facing and falls into $38D6, which resets +6 to the base before the new test."""
    host = host_on([".#.", "...", ".E.", "..."], arcade, (CELL_PX, 3 * CELL_PX), 0)  # the redraw: up
    e = enemy_at(1, 1, "left")
    e.mode = 3  # hunt-x: Pengo is in its column, so down, into the egg block: the ahead check turns away
    assert decide(host, e) is True
    assert e.dir == "up" and host.done == ["chew 1"]
    assert e.period_num == e.base_period + CHEW_EXTRA_PERIOD  # ice the new way too: both creep in
    host = host_on(["...", "...", ".E.", "..."], arcade, (CELL_PX, 3 * CELL_PX), 0)  # up is free
    e = enemy_at(1, 1, "left")
    e.mode = 3
    assert decide(host, e) is True and e.dir == "up" and host.done == []
    if arcade:
        assert e.period_num == e.base_period  # crosses the free cell at the base period
    else:
        assert e.period_num == e.base_period + CHEW_EXTRA_PERIOD  # still at the chew creep


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_item2_the_eat_target_wraps_only_from_F0_plus_10_3876(arcade: bool) -> None:
    """$3876–$387F: `add a,d` on Pengo's y wraps only when his y is $F0 and the draw is $10."""
    rows = ["..."] * 15
    between = 13 * CELL_PX + 8  # Pengo walking between the last two rows (arcade y $E8)
    # draws: byte&1 = 0 (aim), x equal so no give-up draw, dy = $10, dx = 0
    host = host_on(rows, arcade, (CELL_PX, between), 0, 0x10, 0)
    e = enemy_at(1, 10, "left")
    e.mode = 2
    assert decide(host, e) is True
    assert e.dir == ("down" if arcade else "up")  # the first port aimed at the top row
    host = host_on(rows, arcade, (CELL_PX, 14 * CELL_PX), 0, 0x10, 0)  # y $F0: both wrap
    e = enemy_at(1, 10, "left")
    e.mode = 2
    assert decide(host, e) is True and e.dir == "up"


def test_item3_a_mismatched_third_visit_keeps_cell_A_36AA() -> None:
    """$36AA–$36BD: +15 = $FF with A kept, so A, B, C, B, C, B turns eater one dead end later."""
    order = [(0, 0), (2, 0), (4, 0), (2, 0), (4, 0), (2, 0), (4, 0)]
    eater_at: dict[bool, int] = {}
    for arcade in FIDELITIES:
        host = host_on(["....."], arcade)
        e = enemy_at(0, 0, "down")
        e.mode = 1
        for visit, (x, y) in enumerate(order, start=1):
            e.px, e.py = x * CELL_PX, y * CELL_PX
            _dead_end(host, e)
            if visit == 3:
                if arcade:
                    assert e.dead_end_count == 0xFF and e.dead_end_a == 0  # A stays cell (0, 0)
                else:
                    assert e.dead_end_count == 0 and e.dead_end_a == 4  # A became the third dead end
            if e.mode == 2:
                eater_at[arcade] = visit
                break
    assert eater_at == {True: 7, False: 6}


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_item4_chewing_a_breaking_cell_starts_no_second_break_38F0(arcade: bool) -> None:
    """$38F0–$390C take a second breaking slot for a breaking cell; the port does not (announced)."""
    host = host_on(["...", ".#.", "..."], arcade, (CELL_PX, 2 * CELL_PX))
    block = host.board.block_at(1, 1)
    assert block is not None
    host.board.start_break(block, "player")
    e = enemy_at(1, 0, "down")
    e.mode = 3  # hunt-x: straight down into the breaking ice
    assert decide(host, e) is True
    assert host.done == [] and e.chewing and e.period_num == e.base_period + CHEW_EXTRA_PERIOD
    assert host.board.breaking_blocks == [block]  # one break, under either fidelity


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_item5_fleeing_along_a_border_keeps_its_facing_34D7(arcade: bool) -> None:
    """$34D7–$34EF read +4, the facing, for the diamond test and the ahead check."""
    host = host_on(["...", "...", "...", "..."], arcade)
    e = enemy_at(0, 3, "right")  # on the left column, turned right by an earlier redraw
    e.mode = 13  # flee up along the border
    assert decide(host, e) is True
    assert e.dir == ("right" if arcade else "up")  # the arcade leaves its border line


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_item6_reaching_a_border_line_sets_the_facing_34B0(arcade: bool) -> None:
    """$34B0–$34CF set the facing together with modes 13–16."""
    host = host_on(["...", "...", "..."], arcade, (0, 0), 1)  # byte&1 = 1: down the column
    e = enemy_at(0, 1, "right")
    e.mode = 9
    assert decide(host, e) is False
    assert e.mode == 14
    assert e.dir == ("down" if arcade else "right")
    host = host_on(["...", "...", "..."], arcade, (0, 0), 0)  # on the top row: byte&1 = 0, left
    e = enemy_at(1, 0, "down")
    e.mode = 9
    assert decide(host, e) is False and e.mode == 15
    assert e.dir == ("left" if arcade else "down")


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_item7_the_flight_start_writes_only_the_base_period_340A(arcade: bool) -> None:
    """$340A writes +1C; on a border line nothing rewrites +6 in that decision."""
    host = host_on(["...", "...", "..."], arcade, (0, 0), 0, 1)  # mode 9, then byte&1 = 1
    host.minutes = host.pace.flee_minutes
    e = enemy_at(0, 1, "right")
    e.mode = 1
    old = e.period_num
    assert decide(host, e) is False and host.done == ["flee"] and e.mode == 14
    assert e.base_period == host.pace.flee_period[0]
    assert e.period_num == (old if arcade else host.pace.flee_period[0])
    assert old != host.pace.flee_period[0]


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_item8_a_vanishing_snobee_still_steps_34F3(arcade: bool) -> None:
    """$34F3 ends in `ret` without `pop hl`: $33B9 moves it one clamped pixel in its facing."""
    game = lab_game(["b.D", "...", "..P"], fidelity="arcade" if arcade else "first-port")
    game.remaining_count = 6  # not angry: the mode stays as set
    e = next(s for s in game.slots if s.state == MOVING)
    e.mode, e.dir = 16, "right"  # fleeing right along the top row, a diamond two cells on
    play_until(game, lambda g: e.state == VANISHING, limit=5000)
    assert (e.px, e.py) == ((CELL_PX + 1, 0) if arcade else (CELL_PX, 0))


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_item9_a_stopping_blocks_reservation_makes_a_border_runner_vanish_34E3(arcade: bool) -> None:
    """$34E3–$34ED vanish on tiles $1C–$1E, which a stopping block's reservation writes ($4422)."""
    host = host_on(["...", "...", ".#."], arcade, (0, 0), 2, 2)  # first-port redraws: left, left
    board = host.board
    board.push(1, 2, "up", "player")
    while not board.sliding_blocks[0].motion.stopping:  # type: ignore[union-attr]
        board.advance(1)
    assert not board.tile_free(1, 0) and board.block_at(1, 0) is None  # (1, 0) is reserved
    e = enemy_at(0, 0, "right")
    e.mode = 16  # flee right along the top row
    steps = decide(host, e)
    if arcade:
        assert host.done == ["vanish"] and steps is True
    else:
        assert host.done == [] and e.dir == "left" and steps is False  # turned away; the clamp holds it


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_item10_the_dodge_reads_the_moving_blocks_facing_3524(arcade: bool) -> None:
    """$3524–$352E read the moving block's facing at every mode-0 decision; a new kick rewrites it."""
    game = lab_game(["P#..", "....", "...b"], fidelity="arcade" if arcade else "first-port")
    e = next(s for s in game.slots if s.brain == "sno-bee")
    e.state, e.due = PAUSE, NEVER  # held still: only its record matters here
    e.mode, e.saved_mode, e.dodge_dir = 0, 1, "up"  # dodging a block that came up at it
    game.control("right")
    play_until(game, lambda g: g.player.facing == "right", limit=2000)
    game.kick()
    play_until(game, lambda g: bool(g.board.sliding_blocks), limit=2000)
    assert e.dodge_dir == ("right" if arcade else "up")
    host = game._enemies
    e.px, e.py = CELL_PX, CELL_PX  # in the open: every way is free
    assert _dodge(host, e) is True
    assert e.dir == ("down" if arcade else "right")  # first choice for a block moving right: down


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_item11_the_dodges_last_choice_is_taken_untested_354B(arcade: bool) -> None:
    """$354B, $356F, $3585, $359B load the last direction and jump to $354D without testing it."""
    host = host_on(["###", "#.#", "###"], arcade)
    e = enemy_at(1, 1, "left")
    e.mode, e.saved_mode, e.dodge_dir = 0, 1, "up"  # right, left, up (ahead) are all ice, down too
    steps = decide(host, e)
    assert e.mode == 1  # the saved mode is back either way
    if arcade:
        assert steps is True and e.dir == "down"  # steps into the ice below
    else:
        assert steps is False and e.dir == "left"


@pytest.mark.parametrize("arcade", FIDELITIES)
@pytest.mark.parametrize("direction", ["down", "right"])
def test_item12_the_threat_is_strict_for_down_and_right_35E5_3605(arcade: bool, direction: Direction) -> None:
    """$35E5 and $3605 are `ret nc`: a block moving down (right) on the Sno-Bee's own pixel is no threat."""
    rows = [".#...", ".....", ".....", ".....", "....."] if direction == "down" else \
        ["#....", ".....", ".....", ".....", "....."]
    host = host_on(rows, arcade, (0, 0), 0, 0, 0, 0)
    board = host.board
    start = (1, 0) if direction == "down" else (0, 0)
    board.push(*start, direction, "player")
    block = board.sliding_blocks[0]
    while (block.px, block.py) != ((CELL_PX, CELL_PX) if direction == "down" else (CELL_PX, 0)):
        board.advance(1)
    e = enemy_at(block.px // CELL_PX, block.py // CELL_PX, "down")
    e.mode = 1
    decide(host, e)
    assert e.mode == (1 if arcade else 0)  # the first port starts a dodge


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_item13_four_exits_and_pengo_on_its_pixel_goes_up_3772(arcade: bool) -> None:
    """$3772–$3785: down only when its y is below Pengo's; on his very pixel it goes up."""
    host = host_on(["...", "...", "..."], arcade, (CELL_PX, CELL_PX), 1)  # byte&1 = 1: toward Pengo
    e = enemy_at(1, 1, "left")
    e.mode = 1
    assert decide(host, e) is True
    assert e.dir == ("up" if arcade else "down")


@pytest.mark.parametrize("arcade", FIDELITIES)
def test_the_last_enemy_clock_is_one_byte_8823(arcade: bool) -> None:
    """$8823 is a byte: its count of 256 vblanks wraps at 256, which the first port's does not."""
    game = lab_game(["P.b"], fidelity="arcade" if arcade else "first-port")
    game.last_base, game.last_t0 = 0, 0
    game.clock = (256 + 3) * 256 * 13  # 259 × 256 vblanks
    assert game._enemies.last_enemy_clock_high() == (3 if arcade else 259)


def test_arcade_fidelity_survives_rollbacks_and_changes_play() -> None:
    """An invulnerable arcade-fidelity Pengo (hurry, flight and vanishing come up) never desyncs under
    rollbacks, and its log is not the first port's on the same inputs."""
    frames = 5 * GAME_MINUTE_PASSES // PASSES_PER_FRAME // 2  # two and a half game-minutes
    inputs = random_inputs(3, frames, kick_rate=0.1)
    configs = {fidelity: pengo_preset(PengoOptions(seed=0x365A, lives=99)).replace(
        invulnerable=True, fidelity=fidelity) for fidelity in ("arcade", "first-port")}
    seen: set[str] = set()

    def step(game: KickGame, frame_input: tuple[Direction | None, bool]) -> list[dict[str, object]]:
        events = kick_step(game, frame_input)
        seen.update(str(event["kind"]) for event in events)
        return events

    run_synctest(maker(configs["arcade"]), step, inputs, rollback=6, every=3, check_outputs=True)
    assert {"flee", "vanish", "break-start"} <= seen, sorted(seen)
    assert play(configs["arcade"], inputs)[0] != play(configs["first-port"], inputs)[0]
