"""Counting counter gems down (rules/versus/gems.py), called directly."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rules.versus.gems import NO_GEM_DUE, Gem, GemCounting, count_gems, new_gem, next_gem_due
from rules.versus.tables import VERSUS_RULES

ATTACK = VERSUS_RULES.attack
STEP = ATTACK.gem_step_frames


def always(_block: int) -> bool:
    """Every gem block is still standing."""
    return True


def test_a_new_gem_shows_the_full_count_and_steps_one_step_later() -> None:
    """A gem landed on frame f shows gem_count (5) and is first due on f + gem_step_frames (120)."""
    assert (ATTACK.gem_count, STEP) == (5, 120)
    assert new_gem(42, 1000, ATTACK) == Gem(42, 5, 1120)


def test_gems_count_down_every_step_and_thaw_at_zero() -> None:
    """A gem counts 4, 3, 2, 1 on its due frames and thaws (count 0, gone from the gems) on the fifth."""
    gems: tuple[Gem, ...] = (new_gem(7, 0, ATTACK),)
    shown: list[tuple[int, int]] = []
    for frame in range(5 * STEP + 1):
        counting = count_gems(gems, frame, always, ATTACK)
        shown.extend((frame, step.countdown) for step in counting.steps)
        gems = counting.gems
    assert shown == [(STEP, 4), (2 * STEP, 3), (3 * STEP, 2), (4 * STEP, 1), (5 * STEP, 0)]
    assert gems == ()


def test_a_gem_whose_block_is_gone_is_dropped_when_due() -> None:
    """A due gem whose block is no longer a counter gem leaves without a step; the others count in order."""
    gems = (Gem(1, 3, 100), Gem(2, 3, 100), Gem(3, 3, 200))
    counting = count_gems(gems, 100, lambda block: block != 1, ATTACK)
    assert counting == GemCounting((Gem(2, 2, 100 + STEP), Gem(3, 3, 200)), (Gem(2, 2, 100 + STEP),))


def test_no_gem_due_changes_nothing() -> None:
    """On a frame with no gem due the gems are returned as they are and no step is taken."""
    gems = (Gem(1, 3, 100), Gem(2, 1, 150))
    assert count_gems(gems, 99, always, ATTACK) == GemCounting(gems, ())


@given(
    gems=st.lists(st.tuples(st.integers(1, 5), st.integers(0, 40)), max_size=8),
    frame=st.integers(0, 40),
    gone=st.sets(st.integers(0, 7)),
)
def test_only_due_standing_gems_step_and_each_by_one(
    gems: list[tuple[int, int]], frame: int, gone: set[int]
) -> None:
    """Due gems on standing blocks step by one to frame + step; the others stay as they were, in order."""
    before = tuple(Gem(block, count, due) for block, (count, due) in enumerate(gems))
    counting = count_gems(before, frame, lambda block: block not in gone, ATTACK)
    stepping = [gem for gem in before if gem.due <= frame and gem.block not in gone]
    assert counting.steps == tuple(Gem(g.block, g.countdown - 1, frame + STEP) for g in stepping)
    expected = [
        gem if gem.due > frame else Gem(gem.block, gem.countdown - 1, frame + STEP)
        for gem in before
        if gem.due > frame or (gem.block not in gone and gem.countdown > 1)
    ]
    assert counting.gems == tuple(expected)


def test_the_next_due_frame_is_the_earliest_gem_s() -> None:
    """next_gem_due is the smallest due frame of the gems, or NO_GEM_DUE when there is none."""
    assert next_gem_due((Gem(1, 3, 240), Gem(2, 4, 170), Gem(3, 4, 170))) == 170
    assert next_gem_due(()) == NO_GEM_DUE > 10**12
