"""The versus bots: seeded, valid bytes only, blind to hidden state, able to crush, better than lazy."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from rules.kick.actors import MOVING
from rules.kick.events import Crush
from rules.kick.game import KickGame
from rules.kick.geometry import CELL_PX
from rules.versus.bots import BOT_NAMES, Bot, CompetentBot, make_bot, seat_seed
from rules.versus.inputs import FORFEIT, decode_input, is_valid_input
from rules.versus.match import VersusConfig, VersusMatch
from rules.versus.tables import VERSUS_RULES
from rules.versus.twister import Twister
from rules.versus.view import SeatView

from ..kick.lab import lab_game


def apply(game: KickGame, value: int) -> None:
    """Apply one input byte to a lone board, as VersusMatch.step does."""
    seat_input = decode_input(value)
    game.control(seat_input.direction)
    if seat_input.kick:
        game.kick()


def play(names: tuple[str, str], seed: int, frames: int, config: VersusConfig | None = None) -> VersusMatch:
    """A match of two bots (seeded per seat) played for up to `frames` frames or to its end."""
    match = VersusMatch(config or VersusConfig(), seed, 2)
    bots = [make_bot(name, seat_seed(seed, seat)) for seat, name in enumerate(names)]
    while not match.finished and match.frame < frames:
        match.step([bot.decide(match.seat_view(seat), match.frame) for seat, bot in enumerate(bots)])
    return match


def test_make_bot_knows_the_names_and_refuses_others() -> None:
    """make_bot builds every name in BOT_NAMES and raises ValueError naming an unknown one."""
    assert BOT_NAMES == ("competent", "lazy", "random")
    for name in BOT_NAMES:
        assert callable(make_bot(name, 1).decide)
    with pytest.raises(ValueError, match="'clever'"):
        make_bot("clever", 1)


@pytest.mark.parametrize("name", BOT_NAMES)
def test_bots_are_deterministic_per_seed_and_return_valid_bytes(name: str) -> None:
    """The same seed gives the same input bytes frame for frame, every byte is a valid non-forfeit input."""
    runs = []
    for _ in range(2):
        match = VersusMatch(VersusConfig(), 21, 2)
        bots: list[Bot[SeatView]] = [make_bot(name, 5), make_bot(name, 6)]
        seen: list[tuple[int, ...]] = []
        for _frame in range(1500):
            if match.finished:
                break
            row = tuple(bot.decide(match.seat_view(seat), match.frame) for seat, bot in enumerate(bots))
            seen.append(row)
            match.step(list(row))
        runs.append(seen)
    assert runs[0] == runs[1]
    values = {value for row in runs[0] for value in row}
    assert all(is_valid_input(value) and value != FORFEIT for value in values)
    assert any(value & 0x08 for value in values), "the bot never kicked"
    if name != "competent":  # two competent bots on identical boards may well agree on every choice
        assert [row[0] for row in runs[0]] != [row[1] for row in runs[0]], "two seeds played the same"


def test_competent_bot_crushes_a_snobee_lined_up_behind_a_block() -> None:
    """Pengo behind an ice block, a Sno-Bee down the corridor beyond: the bot kicks and crushes it."""
    game = lab_game(["#############", "P#.......b...", "#############"])
    bot = make_bot("competent", 3)
    crushed = False
    for frame in range(240):
        apply(game, bot.decide(SeatView(game), frame))
        game.step_frame()
        if any(isinstance(event, Crush) for event in game.drain()):
            crushed = True
            break
    assert crushed
    assert not any(e.state == MOVING for e in game.slots)


def test_competent_bot_ignores_what_a_player_cannot_see() -> None:
    """Changing the random stream, the Sno-Bees' modes and the unflashed eggs never changes a decision."""
    match = play(("competent", "competent"), 9, 900)
    game = match.games[0]
    bot = CompetentBot(77)
    changed = 0
    checked = 0
    for frame in range(900, 1400):
        if match.finished:
            break
        player = game.player
        if (player.px % CELL_PX) % 13 > 3 or (player.py % CELL_PX) % 13 > 3:
            match.step([bot.decide(match.seat_view(0), frame), 0])  # far from a centre: the bot only holds
            continue
        checked += 1
        twin_game = KickGame(game.config)
        twin_game.restore(game.snapshot())
        twin_game.rng.state = (game.rng.state * 5 + 7) & 0xFFFF or 1
        for slot in twin_game.slots:
            slot.mode = (slot.mode % 8) + 1
        if twin_game.clock >= twin_game.flash_until:
            for block in twin_game.board.blocks.values():
                if block.material == "ice" and block.motion is None:
                    block.egg = None if block.egg is not None else "sno-bee"
                    changed += 1
        twin_bot = copy.deepcopy(bot)
        value = bot.decide(match.seat_view(0), frame)
        assert twin_bot.decide(SeatView(twin_game), frame) == value, f"frame {frame}"
        match.step([value, 0])
    assert changed and checked > 50


def test_competent_beats_lazy_in_most_short_matches() -> None:
    """Over ten seeded 90-second matches (seats alternating) the competent bot wins at least eight."""
    config = VersusConfig(replace(VERSUS_RULES, time_limit_frames=90 * 60))
    wins = 0
    for index in range(10):
        names = ("competent", "lazy") if index % 2 == 0 else ("lazy", "competent")
        match = play(names, 100 + index, 90 * 60, config)
        result = match.result
        assert result is not None
        if result.winner is not None and names[result.winner] == "competent":
            wins += 1
    assert wins >= 8, wins


@pytest.mark.parametrize("seed", [0, 1, 7, 0x7F4A7C15, 2**32 - 1, 2**40 + 5])
def test_twister_draws_as_cpython_random(seed: int) -> None:
    """The random bot's generator gives CPython's random.Random(seed) draws for randrange and choice."""
    import random

    reference, twister = random.Random(seed), Twister(seed)
    sizes = [1, 2, 5, 12, 40, 1000, 2**31 + 3]
    for size in sizes * 300:
        assert twister.below(size) == reference.randrange(size)
    items = (None, "up", "down", "left", "right")
    assert [twister.choice(items) for _ in range(200)] == [reference.choice(items) for _ in range(200)]


def test_seat_view_follows_the_board_of_each_new_level() -> None:
    """A seat view made at the start reads the live board of whatever level is in play (a new level
    brings a new board), and shows the egg blocks exactly while the eggs flash."""
    match = VersusMatch(VersusConfig(), 3, 2)
    view = match.seat_view(0)
    game = match.games[0]
    game.go_to_level(2)
    assert view.level == 2
    flashing = hidden = 0
    for _frame in range(1200):
        assert view.board.occupancy() == tuple(game.board.grid)
        assert [b.id for b in view.board.blocks()] == list(game.board.blocks)
        eggs = tuple(b.id for b in game.board.blocks.values() if b.egg is not None)
        if game.clock < game.flash_until:
            flashing += 1
            assert view.egg_blocks() == eggs and eggs
        else:
            hidden += 1
            assert view.egg_blocks() == ()
        match.step([0, 0])
    assert flashing and hidden
