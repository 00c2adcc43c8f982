"""The `floe` command line: `floe sim`, `floe play --text --script`, and the shared board renderer."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from floe_cli.controls import KeyHold, parse_script
from floe_cli.games import GameChoice, make_game
from floe_cli.players import ScriptedPlayer
from floe_cli.render import ASCII, KIND_LETTER, render, render_state
from rules.kick.events import EVENT_TYPES
from rules.kick.game import KickGame, KickState
from rules.kick.ice_slide_rooms import IceSlideRoom
from rules.kick.presets import IceSlideOptions, ice_slide_preset

EVENT_LINE = re.compile(r"^ *(\d+) ([a-z-]+)( [a-z_]+=\S*)*$")


def floe(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed `floe` console script (or the module when the script is missing)."""
    script = Path(sys.executable).with_name("floe")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "floe_cli.main"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=120, check=False)


def event_lines(stdout: str) -> list[str]:
    """The event-log part of a text run (everything before the summary)."""
    return stdout.split("--- summary")[0].splitlines()


@pytest.mark.parametrize("preset", ["pengo", "ice-slide"])
def test_sim_prints_events_and_summary(preset: str) -> None:
    """`floe sim` exits 0 and prints frame-numbered events followed by a summary with the final board."""
    result = floe("sim", "--preset", preset, "--seconds", "30", "--board")
    assert result.returncode == 0, result.stderr
    lines = event_lines(result.stdout)
    assert lines, result.stdout
    for line in lines:
        match = EVENT_LINE.match(line)
        assert match is not None, line
        assert match.group(2) in EVENT_TYPES, line
    assert "level-start" in lines[0]
    summary = result.stdout.split("--- summary")[1]
    for key in ("status", "level", "score", "lives", "frames", "events"):
        assert re.search(rf"^{key} ", summary, re.MULTILINE), summary
    assert "+--" in summary and "P" in summary


def test_sim_jsonl_parses() -> None:
    """Every line of `--format jsonl` is a JSON object: events with a frame number, then the summary."""
    result = floe("sim", "--seed", "7", "--seconds", "40", "--format", "jsonl")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    *events, summary = records
    assert events
    frames = [e["frame"] for e in events]
    assert frames == sorted(frames) and frames[0] == 0
    assert all(e["kind"] in EVENT_TYPES for e in events)
    assert summary["kind"] == "summary"
    assert sum(summary["events"].values()) == len(events)
    assert {"status", "level", "score", "lives", "frames"} <= summary.keys()


def test_sim_same_seed_same_log_and_seeds_differ() -> None:
    """Two runs with one seed print identical output, and another seed prints a different log."""
    first = floe("sim", "--seed", "0x365A", "--seconds", "60")
    again = floe("sim", "--seed", "0x365A", "--seconds", "60")
    other = floe("sim", "--seed", "0x1234", "--seconds", "60")
    assert first.returncode == again.returncode == other.returncode == 0
    assert first.stdout == again.stdout
    assert event_lines(first.stdout) != event_lines(other.stdout)


def test_sim_random_player_is_seeded() -> None:
    """The random player is deterministic from the seed too."""
    first = floe("sim", "--player", "random", "--seed", "3", "--seconds", "20")
    again = floe("sim", "--player", "random", "--seed", "3", "--seconds", "20")
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout


def test_play_script_prints_board_with_player() -> None:
    """`floe play --text --script` needs no terminal and prints a status line and a board with the player."""
    result = floe("play", "--text", "--ascii", "--frames-per-key", "6", "--script", "llll kk dd rrrr")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("PLAYING")
    board = [line for line in lines if line.startswith("|")]
    assert len(board) == 15
    assert sum(len(re.findall(r"P[<>^v*]", line)) for line in board) == 1


def test_play_without_text_or_terminal_fails_cleanly() -> None:
    """`floe play` needs --text, and the interactive mode refuses to start without a terminal."""
    assert floe("play").returncode == 2
    result = floe("play", "--text")
    assert result.returncode == 2 and "--script" in result.stderr


def _glyph_at(rows: list[str], x: float, y: float) -> str:
    """The two characters drawn for the cell nearest (x, y) on a framed board."""
    cx, cy = int(x + 0.5), int(y + 0.5)
    return rows[1 + cy][1 + 2 * cx: 3 + 2 * cx]


def _check_actors(state: KickState, rows: list[str]) -> int:
    """Assert the player and every enemy (not sharing a cell with another actor) are drawn; count enemies."""
    cells = [(int(e.x + 0.5), int(e.y + 0.5)) for e in state.enemies]
    player_cell = (int(state.player.x + 0.5), int(state.player.y + 0.5))
    assert _glyph_at(rows, state.player.x, state.player.y)[0] == "P"
    checked = 0
    for enemy, cell in zip(state.enemies, cells, strict=True):
        if cells.count(cell) > 1 or cell == player_cell:
            continue
        glyph = _glyph_at(rows, enemy.x, enemy.y)
        assert glyph[0].lower() == KIND_LETTER.get(enemy.kind, enemy.kind[0]), (enemy, glyph)
        checked += 1
    return checked


def test_render_draws_every_actor_pengo() -> None:
    """The renderer draws the player and every Sno-Bee of a Pengo game at its cell, over the blocks."""
    game = make_game(GameChoice("pengo", 0x365A))
    player = ScriptedPlayer(0x365A)
    seen = 0
    for _ in range(60 * 20):
        player.act(game)
        game.step_frame()
        game.drain()
        state = game.state
        if state.status == "playing":
            seen = max(seen, _check_actors(state, render_state(state)))
    assert seen >= 3
    rows = render(game)
    assert len(rows) == game.rows + 2 and all(len(row) == 2 * game.cols + 2 for row in rows)


#: An Ice Slide room with every material, a goal, a walrus, a seal and a Sno-Bee egg.
ALL_KINDS_ROOM = IceSlideRoom("every kind", (
    "#########",
    "#P.I.R.C#",
    "#.......#",
    "#.G..*..#",
    "#.w...s.#",
    "#...E...#",
    "#########",
))


def test_render_draws_ice_slide_materials_goals_and_enemies() -> None:
    """The renderer draws Ice Slide's materials, goal, player, walrus, seal and hatching Sno-Bee."""
    game = KickGame(ice_slide_preset(IceSlideOptions(rooms=(ALL_KINDS_ROOM,))))
    for _ in range(60 * 5):
        game.step_frame()
        game.drain()
        if game.status == "playing" and len(game.state.enemies) == 3:
            break
    state = game.state
    rows = render(game, ASCII)
    text = "\n".join(rows)
    actors = {(int(e.x + 0.5), int(e.y + 0.5)) for e in state.enemies}
    actors.add((int(state.player.x + 0.5), int(state.player.y + 0.5)))
    for block in state.blocks:
        if (block.cell.x, block.cell.y) not in actors:
            assert _glyph_at(rows, block.x, block.y) == ASCII.materials[block.material], block
    assert all(glyph in text for glyph in ("XX", "##", "%%", "[]", "GG", "()"))
    assert sorted(e.kind for e in state.enemies) == ["seal", "sno-bee", "walrus"]
    assert _check_actors(state, rows) == 3


def test_key_hold_and_script_parsing() -> None:
    """A direction stays held for the hold time after its last press; scripts parse to actions."""
    keys = KeyHold(0.25)
    keys.press("left", 1.0)
    assert keys.current(1.2) == "left"
    assert keys.current(1.3) is None
    assert parse_script("ll k. d") == ["left", "left", "kick", None, "down"]
    with pytest.raises(ValueError):
        parse_script("x")


def test_scripted_player_kicks_and_scores() -> None:
    """The scripted player kicks blocks and scores on the arcade's first board."""
    game: KickGame = make_game(GameChoice("pengo", 0x365A))
    player = ScriptedPlayer(0x365A)
    kinds: set[str] = set()
    for _ in range(60 * 60):
        player.act(game)
        game.step_frame()
        kinds.update(e.kind for e in game.drain())
    assert {"kick", "slide-start"} <= kinds
    assert game.score > 0
