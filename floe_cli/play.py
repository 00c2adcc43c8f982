"""`floe play --text`: the game in a terminal (curses, 60 frames/s on a monotonic clock), or scripted.

Interactive keys: arrows or WASD move (a tap walks one cell, a held key walks on; controls.CellKeys),
space kicks, p pauses, q quits; keys pressed during READY wait for play to begin. The scripted mode
(`--script`) needs no terminal: it waits for the READY to end, applies one script key every `frames-per-key`
frames through the same key-hold logic, and prints the final screen.
"""

from __future__ import annotations

import contextlib
import locale
import os
import time
from typing import TYPE_CHECKING

from rules.kick.actors import P_WALK
from rules.kick.events import KickEvent, Score
from rules.kick.game import KickGame

from .controls import DIRECTION_NAMED, HOLD_SECONDS, CellKeys, KeyHold, parse_script
from .render import Glyphs, screen

if TYPE_CHECKING:
    import curses

FRAME_SECONDS = 1 / 60
#: At most this many frames are run to catch up after a stall; beyond it the game slows down instead.
MAX_CATCH_UP = 6
#: The scripted mode waits at most this many frames for the game to reach "playing".
MAX_READY_FRAMES = 60 * 30
HELP = "arrows/WASD move  space kick  p pause  q quit"


def describe(event: KickEvent) -> str | None:
    """A short note for the message line, for the events a player cares about."""
    if isinstance(event, Score):
        return f"+{event.points} {event.reason}"
    kind = event.kind
    if kind in ("death", "extra-life", "line", "level-start", "round-clear", "game-over", "complete", "hurry",
                "last-enemy"):
        return kind.replace("-", " ")
    return None


# ---- scripted mode ---------------------------------------------------------------------------------


def wait_for_play(game: KickGame, max_frames: int = MAX_READY_FRAMES) -> int:
    """Step frames until the player may move (the READY is over); returns the frames stepped."""
    frames = 0
    while (game.status != "playing" or game.player.state != P_WALK) and frames < max_frames \
            and game.status not in ("lost", "complete"):
        game.step_frame()
        game.drain()
        frames += 1
    return frames


def run_script(game: KickGame, script: str, frames_per_key: int, hold: float = HOLD_SECONDS) -> int:
    """Apply a key script (see controls.parse_script) after the READY; returns the frames played."""
    if frames_per_key < 1:
        raise ValueError("--frames-per-key must be at least 1")
    actions = parse_script(script)
    frames = wait_for_play(game)
    keys = KeyHold(hold)
    for action in actions:
        now = frames * FRAME_SECONDS
        if action == "kick":
            game.kick()
        elif action is not None:
            keys.press(DIRECTION_NAMED[action], now)
        for _ in range(frames_per_key):
            game.control(keys.current(frames * FRAME_SECONDS))
            game.step_frame()
            game.drain()
            frames += 1
    return frames


# ---- interactive mode ------------------------------------------------------------------------------


class TerminalGame:
    """The curses loop: read keys, run the frames that are due, draw."""

    def __init__(self, game: KickGame, glyphs: Glyphs, hold: float) -> None:
        self.game = game
        self.glyphs = glyphs
        self.keys = CellKeys(hold)
        self.paused = False
        self.note = ""
        self.played = 0
        self.start = time.monotonic()

    def run(self, stdscr: curses.window) -> None:
        """The main loop (until q)."""
        import curses

        with contextlib.suppress(curses.error):
            curses.curs_set(0)
        stdscr.nodelay(True)
        stdscr.keypad(True)
        directions = {
            curses.KEY_LEFT: "left", curses.KEY_RIGHT: "right", curses.KEY_UP: "up", curses.KEY_DOWN: "down",
            ord("a"): "left", ord("d"): "right", ord("w"): "up", ord("s"): "down",
            ord("A"): "left", ord("D"): "right", ord("W"): "up", ord("S"): "down",
        }
        self.start = time.monotonic()
        while True:
            now = time.monotonic()
            key = stdscr.getch()
            while key != -1:
                if key in (ord("q"), ord("Q")):
                    return
                if key in (ord("p"), ord("P")):
                    self.toggle_pause(now)
                elif key == ord(" ") and not self.paused:
                    self.keys.kick()
                elif key in directions and not self.paused:
                    player = self.game.player
                    self.keys.press(DIRECTION_NAMED[directions[key]], now, (player.px, player.py))
                elif key == curses.KEY_RESIZE:
                    stdscr.clear()
                key = stdscr.getch()
            if not self.paused:
                self.run_due_frames(now)
            self.draw(stdscr)
            wake = self.start + (self.played + 1) * FRAME_SECONDS
            time.sleep(min(FRAME_SECONDS, max(0.0, wake - time.monotonic())))

    def toggle_pause(self, now: float) -> None:
        """Pause, or resume with the frame clock re-based so no frames are owed."""
        self.paused = not self.paused
        if not self.paused:
            self.start = now - self.played * FRAME_SECONDS

    def run_due_frames(self, now: float) -> None:
        """Step every frame due by the monotonic clock (at most MAX_CATCH_UP; the rest are dropped)."""
        behind = int((now - self.start) / FRAME_SECONDS) - self.played
        if behind > MAX_CATCH_UP:
            self.start += (behind - MAX_CATCH_UP) * FRAME_SECONDS
            behind = MAX_CATCH_UP
        game = self.game
        for _ in range(behind):
            self.keys.apply(game, now)
            game.step_frame()
            self.played += 1
            for event in game.drain():
                note = describe(event)
                if note is not None:
                    self.note = note

    def lines(self) -> list[str]:
        """The screen as text: status, board, help and message lines."""
        game = self.game
        out = screen(game, self.glyphs)
        if self.paused:
            message = "PAUSED - p resumes"
        elif game.status == "lost":
            message = "GAME OVER - q quits"
        elif game.status == "complete":
            message = "ALL ROOMS CLEAR - q quits"
        elif game.status != "playing" and self.keys.waiting:
            message = f"{game.status.upper()}: your keys wait for play to begin"
        else:
            message = self.note
        return [*out, HELP, message]

    def draw(self, stdscr: curses.window) -> None:
        """Draw the screen (clipped to the terminal)."""
        import curses

        stdscr.erase()
        height, width = stdscr.getmaxyx()
        for y, line in enumerate(self.lines()[:height]):
            with contextlib.suppress(curses.error):
                stdscr.addstr(y, 0, line[: max(0, width - 1)])
        stdscr.noutrefresh()
        curses.doupdate()


def play_terminal(game: KickGame, glyphs: Glyphs, hold: float = HOLD_SECONDS) -> None:
    """Run the interactive game in the terminal (needs a tty)."""
    import curses

    locale.setlocale(locale.LC_ALL, "")
    os.environ.setdefault("ESCDELAY", "25")
    terminal = TerminalGame(game, glyphs, hold)
    curses.wrapper(terminal.run)
