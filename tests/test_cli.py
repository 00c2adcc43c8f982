"""The `floe` command line: `floe sim`, `floe play --text --script`, and the shared board renderer."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from floe_cli.controls import CellKeys, KeyHold, parse_script
from floe_cli.games import GameChoice, make_game
from floe_cli.play import wait_for_play
from floe_cli.players import ScriptedPlayer
from floe_cli.render import ASCII, KIND_LETTER, render, render_state
from rules.kick.events import EVENT_TYPES
from rules.kick.game import KickGame, KickState
from rules.kick.geometry import Direction
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


@pytest.mark.parametrize(("args", "message"), [
    (("sim", "--seed", "-5"), "argument --seed: board seeds are 16-bit: 0 to 65535 (0xffff), got -5"),
    (("play", "--text", "--seed", "65536"), "board seeds are 16-bit"),
    (("sim", "--seed", "x"), "argument --seed: expected an integer, decimal or 0x hex, got 'x'"),
    (("sim", "--level", "99"), "--level: pengo's levels are its acts, 1 to 16; got 99"),
    (("sim", "--skill", "9"), "--skill: must be an integer from 0 to 3"),
])
def test_bad_options_are_refused_in_the_commands_words(args: tuple[str, ...], message: str) -> None:
    """Out-of-range seeds, levels and skills exit 2 saying which option is wrong, not which function."""
    result = floe(*args)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert "parse_seed" not in result.stderr and "act:" not in result.stderr


def test_verify_calls_a_text_file_not_a_replay(tmp_path: Path) -> None:
    """A text file given to `floe verify` is reported as not a floe replay."""
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    result = floe("verify", str(text))
    assert result.returncode == 1 and "not a floe replay" in result.stdout


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


def _walkable(game: KickGame) -> Direction:
    """A direction in which the cell next to Pengo is free."""
    player = game.player
    cx, cy = player.px // 16, player.py // 16
    steps: dict[Direction, tuple[int, int]] = {
        "left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
    return next(d for d, (dx, dy) in steps.items() if game.board.tile_free(cx + dx, cy + dy))


def test_a_tap_walks_one_cell_and_a_held_key_walks_on() -> None:
    """In the terminal game a tap takes Pengo exactly one cell; repeats (a held key) keep him walking."""
    for repeat, least, most in ((False, 16, 16), (True, 33, 16 * 15)):
        game = make_game(GameChoice("pengo", 3))  # free cells below the start
        frames = wait_for_play(game)
        keys = CellKeys(0.25)
        start = (game.player.px, game.player.py)
        keys.press("down", frames / 60, start)
        for frame in range(frames, frames + 45):
            if repeat and frame % 2 == 0:  # a terminal's repeats while the key is down
                keys.press("down", frame / 60, (game.player.px, game.player.py))
            keys.apply(game, frame / 60)
            game.step_frame()
        walked = game.player.py - start[1]
        assert game.player.px == start[0] and least <= walked <= most, (repeat, walked)


def test_keys_pressed_during_ready_wait_for_play() -> None:
    """A direction and a kick pressed during READY are kept and act once play begins."""
    game = make_game(GameChoice("pengo", 0x365A))
    assert game.status != "playing"
    keys = CellKeys(0.25)
    start = (game.player.px, game.player.py)
    direction = _walkable(game)
    keys.press(direction, 0.0, start)
    keys.kick()
    kinds: list[str] = []
    for frame in range(600):
        keys.apply(game, frame / 60)
        game.step_frame()
        kinds += [event.kind for event in game.drain()]
    assert keys.kick_pending is False and "kick" in kinds
    assert abs(game.player.px - start[0]) + abs(game.player.py - start[1]) == 16
    assert game.player.facing == direction
