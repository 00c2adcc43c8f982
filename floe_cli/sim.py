"""`floe sim`: run a seeded game headless with a computer player and print its event log and a summary."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any, TextIO

from rules.kick.events import KickEvent, to_plain
from rules.kick.game import KickGame
from rules.kick.geometry import Cell

from .games import GameChoice, make_game
from .players import make_player
from .render import render

FRAMES_PER_SECOND = 60
#: Statuses after which nothing more can happen.
FINAL_STATUSES = ("lost", "complete")


@dataclass
class SimResult:
    """What a run did: final status numbers and a count of events by kind."""

    status: str
    level: int
    act: int
    score: int
    lives: int
    frames: int
    counts: Counter[str] = field(default_factory=Counter)

    def plain(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        seconds = round(self.frames / FRAMES_PER_SECOND, 3)
        return {"status": self.status, "level": self.level, "act": self.act, "score": self.score,
                "lives": self.lives, "frames": self.frames, "seconds": seconds,
                "events": dict(sorted(self.counts.items()))}


class Simulation:
    """A game and a player, stepped frame by frame; `frames` counts the frames played so far."""

    def __init__(self, game: KickGame, player_kind: str, seed: int) -> None:
        self.game = game
        self.player = make_player(player_kind, seed)
        self.frames = 0

    def events(self, seconds: float) -> Iterator[tuple[int, KickEvent]]:
        """Play up to `seconds` of frames; yield (frame, event) for every event, frame 0 being the start.

        Events drained after the n-th frame are numbered n. Stops early at game over or completion.
        """
        game = self.game
        for event in game.drain():
            yield self.frames, event
        limit = self.frames + round(seconds * FRAMES_PER_SECOND)
        while self.frames < limit and game.status not in FINAL_STATUSES:
            self.player.act(game)
            game.step_frame()
            self.frames += 1
            for event in game.drain():
                yield self.frames, event


def _value(value: Any) -> str:
    if isinstance(value, Cell):
        return f"({value.x},{value.y})"
    if isinstance(value, tuple):
        if value and all(isinstance(v, Cell) for v in value):
            return "[" + ",".join(_value(v) for v in value) + "]"
        return ",".join(_value(v) for v in value)
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def format_text(frame: int, event: KickEvent) -> str:
    """`  412 slide-start block=37 at=(5,6) dir=left by=player`."""
    parts = [f"{frame:5d}", event.kind]
    parts.extend(f"{f.name}={_value(getattr(event, f.name))}" for f in fields(event))
    return " ".join(parts)


def format_jsonl(frame: int, event: KickEvent) -> str:
    """One JSON object: {"frame": n, "kind": ..., fields...}."""
    return json.dumps({"frame": frame, **to_plain(event)}, separators=(",", ":"))


def simulate(choice: GameChoice, player_kind: str, seconds: float, out: TextIO, fmt: str = "text",
             board: bool = False, game: KickGame | None = None) -> SimResult:
    """Run one game (`game`, or a new one for `choice`) and write its log and summary to `out`."""
    if game is None:
        game = make_game(choice)
    sim = Simulation(game, player_kind, choice.resolved_seed())
    counts: Counter[str] = Counter()
    formatter = format_jsonl if fmt == "jsonl" else format_text
    for frame, event in sim.events(seconds):
        counts[event.kind] += 1
        out.write(formatter(frame, event) + "\n")
    state = game.state
    frames = sim.frames
    result = SimResult(state.status, state.level, state.act, state.score, state.lives, frames, counts)
    if fmt == "jsonl":
        summary: dict[str, Any] = {"kind": "summary", "frame": frames, **result.plain()}
        if board:
            summary["board"] = render(game)
        out.write(json.dumps(summary, separators=(",", ":")) + "\n")
        return result
    out.write(summary_text(result))
    if board:
        out.write("\n".join(render(game)) + "\n")
    return result


def summary_text(result: SimResult) -> str:
    """The text summary block."""
    kinds = " ".join(f"{kind}={count}" for kind, count in sorted(result.counts.items()))
    return (
        "--- summary\n"
        f"status  {result.status}\n"
        f"level   {result.level} (act {result.act})\n"
        f"score   {result.score}\n"
        f"lives   {result.lives}\n"
        f"frames  {result.frames} ({result.frames / FRAMES_PER_SECOND:.2f} s)\n"
        f"events  {sum(result.counts.values())}: {kinds}\n"
    )
