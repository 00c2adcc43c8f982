"""pengo-versus 2's competent bot (WholeGameBot): it lines up diamonds, counters what is pending against
it, keeps away from Sno-Bees, and widens its margins while a landing's hurry lasts."""

from __future__ import annotations

from rules.kick.events import Death, Line
from rules.kick.game import KickGame
from rules.kick.geometry import CELL_PX
from rules.versus.attack import Packet
from rules.versus.bots import (
    BOTS_BY_VERSION,
    KICK_SLACK,
    SLACK,
    CompetentBot,
    LazyBot,
    WholeGameBot,
    line_distance,
    make_bot,
)
from rules.versus.view import SeatView

from ..kick.lab import lab_game
from .test_bots import apply


class Telegraph:
    """What a SeatView reads of a seat in a match: its pending packets and the hurry's end (-1: none)."""

    def __init__(self, pending: tuple[Packet, ...] = (), hurry_until: int = -1) -> None:
        self.pending = pending
        self.hurry_until = hurry_until


def first_decision(game: KickGame, bot: WholeGameBot, view: SeatView, limit: int = 120) -> int:
    """Step the lone board until the bot makes its first search; the byte it decided."""
    for frame in range(limit):
        value = bot.decide(view, frame)
        if bot.searches:
            return value
        apply(game, value)
        game.step_frame()
    raise AssertionError("the bot never decided")


def test_version_two_plays_the_whole_game_bot_and_version_one_keeps_its_bots() -> None:
    """make_bot gives version 2's competent bot as WholeGameBot, version 1's as the bot that played its
    golden replays; the lazy bot is the same lazy bot in both."""
    assert type(make_bot("competent", 1, 2)) is WholeGameBot
    assert type(make_bot("competent", 1, 1)) is CompetentBot
    assert type(make_bot("lazy", 1, 2)) is LazyBot and type(make_bot("lazy", 1, 1)) is LazyBot
    assert set(BOTS_BY_VERSION[1]) == set(BOTS_BY_VERSION[2])


def test_line_distance_counts_the_steps_to_a_line() -> None:
    """0 for a line; a diamond one cell off a row pair is 1 away; far-apart diamonds are further."""
    assert line_distance([(1, 1), (2, 1), (3, 1)], 13, 15) == 0
    assert line_distance([(4, 2), (4, 3), (4, 4)], 13, 15) == 0
    assert line_distance([(1, 1), (2, 1), (4, 1)], 13, 15) == 1
    assert line_distance([(1, 1), (2, 1), (3, 2)], 13, 15) == 1
    assert line_distance([(1, 1), (3, 1), (9, 1)], 13, 15) == 6
    assert line_distance([(0, 0), (12, 14), (6, 7)], 13, 15) > 6


def test_it_makes_a_diamond_line_where_one_push_makes_it() -> None:
    """Two diamonds side by side and a third down the row: the bot walks behind the third, kicks it
    into the pair, and the board pays the line."""
    game = lab_game([
        "..........",
        ".DD....D..",
        "..........",
        "......P...",
    ])
    bot = WholeGameBot(5, opening=False)
    view = SeatView(game)
    lined = False
    for frame in range(600):
        apply(game, bot.decide(view, frame))
        game.step_frame()
        if any(isinstance(event, Line) for event in game.drain()):
            lined = True
            break
    assert lined, f"no line after {frame + 1} frames (last intent {bot.intent!r})"
    diamonds = sorted((b.cx, b.cy) for b in game.board.blocks.values() if b.material == "diamond")
    assert diamonds == [(1, 1), (2, 1), (3, 1)]


def test_competent_bot_of_version_one_does_not_gather_diamonds() -> None:
    """The same board under version 1's bot: it has no gathering goal, so no push toward the line is
    planned from afar (the whole-game bot's line goals are version 2's)."""
    game = lab_game(["..........", ".D.D...D..", "..........", "......P..."])
    old, new = CompetentBot(5), WholeGameBot(5, opening=False)
    view = SeatView(game)
    old_goals = old._line_goals(view, lambda _cell: True, game.board.cols)
    new_goals = new._line_goals(view, lambda _cell: True, game.board.cols)
    assert old_goals == []
    assert {goal.why for goal in new_goals} == {"line-setup"}


#: Pengo at (3, 3); a diamond push from (2, 4) gathers the diamonds (4 steps nearer a line); an egg
#: block at (6, 2) against the ice at (7, 2) breaks (3 units) with a kick from (5, 2).
COUNTER_SCENE = [
    "............",
    "............",
    "......E#....",
    "...P........",
    "...D....D.D.",
    "............",
]


def test_it_gathers_diamonds_when_nothing_is_pending() -> None:
    """Nothing pending: pushing the diamond toward the others is worth more than breaking the egg."""
    game = lab_game(COUNTER_SCENE)
    bot = WholeGameBot(3, opening=False)
    first_decision(game, bot, SeatView(game, Telegraph()))  # type: ignore[arg-type]
    assert bot.intent == "line-setup"


def test_it_prioritizes_units_that_offset_when_attacks_are_pending() -> None:
    """The same scene with 6 units pending against the seat: the bot goes for the egg, which pays units
    at once (they cancel the pending ones), rather than the diamonds, which pay later."""
    game = lab_game(COUNTER_SCENE)
    bot = WholeGameBot(3, opening=False)
    view = SeatView(game, Telegraph((Packet(1, 1, 6, 500),)))  # type: ignore[arg-type]
    assert view.incoming == ((6, 500),)
    first_decision(game, bot, view)
    assert bot.intent == "egg"
    # It walks toward the egg block's kicking cell (5, 2): up or right from (3, 3).
    held = bot.held
    assert held in ("up", "right")


def test_it_steps_away_from_an_adjacent_snobee_and_survives() -> None:
    """A Sno-Bee right beside Pengo on open floor (put there once Pengo can walk): the bot's first move
    is away from it, never toward it, and Pengo is still alive three seconds later."""
    game = lab_game([
        ".............",
        ".............",
        ".............",
        "......P......",
        ".............",
        ".............",
        "............b",
    ])
    view = SeatView(game)
    while not view.player.walking:
        game.step_frame()
    snobee = next(e for e in game.slots if e.brain == "sno-bee")
    snobee.px, snobee.py, snobee.dir = game.player.px + CELL_PX, game.player.py, "left"
    bot = WholeGameBot(11, opening=False)
    first_decision(game, bot, view)
    assert bot.intent == "flee"
    assert bot.held in ("left", "up", "down")
    died = False
    for frame in range(180):
        apply(game, bot.decide(view, frame + 1))
        game.step_frame()
        if any(isinstance(event, Death) for event in game.drain()):
            died = True
            break
    assert not died and not game.player.dead
    apart = abs(snobee.px - game.player.px) + abs(snobee.py - game.player.py)
    assert apart > CELL_PX


def test_each_life_opens_with_a_wait_and_a_step_drawn_from_the_seed() -> None:
    """At a life's start the bot waits 0–29 frames, then steps to a free neighbour in a drawn direction
    (so that two seats on one deal part ways); seeds differ in what they draw."""
    openings = set()
    for seed in range(12):
        game = lab_game(COUNTER_SCENE)
        bot = WholeGameBot(seed)
        view = SeatView(game)
        waited = 0
        for frame in range(120):
            value = bot.decide(view, frame)
            if bot.searches:
                break
            waited += value == 0
            game.step_frame()
        assert bot.intent == "opening" and bot.held is not None
        openings.add((waited, bot.held))
    assert len({held for _waited, held in openings}) >= 3 and len({w for w, _held in openings}) >= 4


def test_a_landings_hurry_widens_its_margins() -> None:
    """While a landing's hurry lasts (SeatView.hurried) both safety margins are one step wider."""
    game = lab_game(COUNTER_SCENE)
    calm_bot, hurried_bot = WholeGameBot(3, opening=False), WholeGameBot(3, opening=False)
    calm_view = SeatView(game, Telegraph())  # type: ignore[arg-type]
    hurried_view = SeatView(game, Telegraph(hurry_until=900))  # type: ignore[arg-type]
    assert not calm_view.hurried and hurried_view.hurried
    calm_bot._margins(calm_view)
    hurried_bot._margins(hurried_view)
    assert (calm_bot._slack, calm_bot._kick_slack) == (SLACK, KICK_SLACK)
    assert (hurried_bot._slack, hurried_bot._kick_slack) == (SLACK + 1, KICK_SLACK + 1)
