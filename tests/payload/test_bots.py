"""The bots: pure, they finish every run, the competent bot beats the lazy one on the same seeds.
(The balance figures come from bench/payload_balance.py, not from here.)"""

from __future__ import annotations

from rules.payload.bots import BOT_NAMES, POLICIES, make_bot
from rules.payload.match import PayloadConfig, PayloadMatch
from rules.payload.moves import apply_move
from rules.payload.rng import Mulberry32
from rules.payload.run import start_run
from rules.payload.types import DifficultyKey


def play(bot: str, difficulty: DifficultyKey, seed: int) -> tuple[bool, int]:
    """A run of a policy: (won, rounds cleared)."""
    state, _ = start_run(difficulty, seed)
    rng = Mulberry32(seed)
    for _ in range(500):
        if state.over:
            return state.won, state.rounds_cleared
        state, _ = apply_move(state, POLICIES[bot](state, rng))
    raise AssertionError("the run did not end in 500 moves")


def test_competent_clears_more_than_lazy() -> None:
    """Over the same 6 Easy seeds the competent bot clears more rounds and wins more runs."""
    lazy = [play("lazy", "easy", seed) for seed in range(6)]
    competent = [play("competent", "easy", seed) for seed in range(6)]
    assert sum(r for _, r in competent) > sum(r for _, r in lazy)
    assert sum(w for w, _ in competent) > sum(w for w, _ in lazy)


def test_bots_are_named_and_seeded() -> None:
    """make_bot knows the two bots; the same seed and view give the same byte."""
    assert set(BOT_NAMES) == {"lazy", "competent"}
    match = PayloadMatch(PayloadConfig(), 3, ["a"])
    view = match.seat_view(0)
    assert make_bot("competent", 5).decide(view, 0) == make_bot("competent", 5).decide(view, 0) != 0
