"""The state a session hands out: built when first read, yet always what it was when it was taken."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections import deque
from collections.abc import Callable

import pytest

from floe_cli.players import ScriptedPlayer
from rules.kick import KickBlockState, KickConfig, KickGame, KickState
from rules.kick.presets import IceSlideOptions, PengoOptions, ice_slide_preset, pengo_preset
from rules.kick.rng import KickRandom
from rules.kick.view import FIELDS, LazyKickState, build_state

#: Frames a state is kept before it is read, while the session plays on.
READ_LATE = 45


def blocks_from_scratch(game: KickGame) -> tuple[KickBlockState, ...]:
    """The blocks' states built anew by a board restored from the live one (no state kept)."""
    board = game.levels.board(game.frame)
    board.restore(game.board.snapshot())
    return tuple(board.state)


def check_states_read_late(config: KickConfig, frames: int, seed: int) -> int:
    """Play `frames` frames through tick(); every state, read READ_LATE frames (and a rollback) later,
    must equal the state built at once when it was taken, whose blocks equal blocks built from scratch.
    Returns how many states were compared."""
    game = KickGame(config)
    twin = KickGame(config)
    player = ScriptedPlayer(seed)
    draw = KickRandom(seed | 1)
    kept: deque[tuple[KickState, KickState]] = deque()
    snapshots: list[dict[str, object]] = []
    compared = 0
    dts = (1 / 60, 1 / 60, 1 / 60, 0.0, 0.004, 0.25, 1 / 30)
    for frame in range(frames):
        player.act(game)
        lazy = game.tick(dts[draw.below(len(dts))])
        assert game.state is lazy, "no change since: the same state"
        if draw.chance(4):  # read one part now, the rest later
            getattr(lazy, FIELDS[draw.below(len(FIELDS))])
        kept.append((lazy, build_state(game)))
        if frame % 7 == 0:
            assert kept[-1][1].blocks == blocks_from_scratch(game)
        game.drain()
        if frame % 150 == 0:
            snapshots.append(game.snapshot())
        if frame % 420 == 419:
            snap = snapshots[draw.below(len(snapshots))]
            game.restore(snap)  # a rollback: the states handed out before keep their moment
            twin.restore(snap)
            assert game.state == build_state(twin) == build_state(game)
        if frame % 97 == 96 and game.status == "playing":
            cells = game.landing_cells(2)
            if cells:
                block = game.drop_block(cells[draw.below(len(cells))], config.materials[0].id)
                if game.materials[config.materials[0].id].egg_holder and draw.chance(2):
                    game.hide_egg(block)
        if game.status in ("lost", "complete"):
            game.reset()
        while len(kept) > READ_LATE:
            late, fresh = kept.popleft()
            assert late == fresh and fresh == late
            if compared % 50 == 0:
                assert repr(late) == repr(fresh)
            compared += 1
    return compared


def test_pengo_states_read_late_equal_states_built_at_once() -> None:
    """Five game-minutes of Pengo through tick(dt) with rollbacks, attacks and game overs: every lazy
    state equals the eagerly built one of its moment, however late it is read."""
    compared = check_states_read_late(pengo_preset(PengoOptions(seed=0x365A)), 18_000, 0x365A)
    assert compared > 17_000


@pytest.mark.parametrize("room", [1, 7])
def test_ice_slide_states_read_late_equal_states_built_at_once(room: int) -> None:
    """The same on Ice Slide rooms (goals, authored enemies, seconds timing)."""
    config = ice_slide_preset(IceSlideOptions(level=room, seed=room))
    assert check_states_read_late(config, 6_000, room) > 5_000


def test_state_is_immutable_and_copies_are_plain() -> None:
    """A state cannot be changed; its copies and pickles are plain KickStates equal to it."""
    game = KickGame(pengo_preset())
    state = game.tick(4.0)
    assert isinstance(state, LazyKickState)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.score = 1  # type: ignore[misc]
    for twin in (copy.copy(state), copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert type(twin) is KickState and twin == state and state == twin
    assert dataclasses.replace(state, score=5).score == 5
    assert dataclasses.astuple(state) == dataclasses.astuple(build_state(game))
    assert not hasattr(state, "no_such_field")


def test_a_state_shows_its_moment_after_every_kind_of_change() -> None:
    """advance, go_to_level, reset, transmute and restore each leave a state handed out before unchanged."""
    game = KickGame(pengo_preset(PengoOptions(seed=0x1234)))
    snap = game.snapshot()
    game.tick(6.0)
    changes: tuple[Callable[[], object], ...] = (
        lambda: game.advance(400),
        lambda: game.transmute(next(iter(game.board.blocks)), "diamond"),
        lambda: game.go_to_level(3),
        lambda: game.restore(snap),
        lambda: game.reset(),
    )
    for change in changes:
        before = game.state
        expected = build_state(game)
        change()
        assert before == expected
        assert game.state == build_state(game)


def test_the_session_builds_only_what_is_read() -> None:
    """A fresh state holds no part until one is read; reading a block builds the blocks alone."""
    game = KickGame(pengo_preset())
    game.tick(3.0)
    state = game.state
    assert not set(FIELDS) & set(vars(state))
    assert state.blocks
    assert set(FIELDS) & set(vars(state)) == {"blocks"}
