"""A policy (RunState → Move) as a seat's Bot (rules/ruleset.py): one input byte per frame.

A move is its byte's edge (inputs.py), so a bot that would repeat the byte it holds says neutral
first. `pace` frames pass between two moves (1: a move every frame it can).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..inputs import NEUTRAL, encode_move
from ..match import PayloadView
from ..moves import Move
from ..rng import Mulberry32
from ..run import RunState

#: A policy: the next move for a run, ties broken by the bot's own generator.
Policy = Callable[[RunState, Mulberry32], Move]


@dataclass
class SeatBot:
    """Plays one seat with a policy."""

    name: str
    policy: Policy
    rng: Mulberry32
    pace: int = 1

    def decide(self, view: PayloadView, frame: int) -> int:
        """The byte for this frame."""
        if view.out or frame % self.pace:
            return NEUTRAL
        value = encode_move(self.policy(view.run, self.rng))
        return NEUTRAL if value == view.last_input else value
