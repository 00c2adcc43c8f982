"""Small authored boards on the arcade's timing, for rule tests that need a controlled scene."""

from __future__ import annotations

from dataclasses import replace

from rules.kick import KickConfig, KickGame, KickLegendEntry, KickObjective, pengo_level, pengo_preset
from rules.kick.actors import MOVING

LEGEND = (
    ("#", KickLegendEntry(material="ice")),
    ("D", KickLegendEntry(material="diamond")),
    ("E", KickLegendEntry(material="ice", egg="sno-bee")),
    ("P", KickLegendEntry(player=True)),
    ("b", KickLegendEntry(enemy="sno-bee")),
)


def lab_config(rows: list[str], act: int = 1, **changes: object) -> KickConfig:
    """Pengo's rules and numbers on an authored map (no generator, no eggs unless the map has E).

    The round never clears unless the test asks for `objective=KickObjective()` (a scene with no
    enemies would otherwise clear at once).
    """
    base = pengo_preset()
    level = replace(pengo_level(act), eggs=0, active=0)
    config = replace(base, generator=None, cols=None, rows=None, map=tuple(rows), legend=LEGEND,
                     levels=(level,), seed=0x365A,
                     objective=KickObjective(enemies=False, goals=True))
    return replace(config, **changes)  # type: ignore[arg-type]


def lab_game(rows: list[str], act: int = 1, **changes: object) -> KickGame:
    """A lab game advanced to the first pass of play."""
    game = KickGame(lab_config(rows, act, **changes))
    while game.status != "playing":
        game.advance(1)
    return game


def play_until(game: KickGame, predicate: object, limit: int = 20_000) -> int:
    """Advance pass by pass until predicate(game) holds; returns the passes taken."""
    assert callable(predicate)
    for taken in range(1, limit + 1):
        game.advance(1)
        if predicate(game):
            return taken
    raise AssertionError("the predicate never held")


def moving_enemies(game: KickGame) -> list[object]:
    """Enemy slots that are moving."""
    return [e for e in game.slots if e.state == MOVING]
