"""One conformance suite over every ruleset, as OpenSpiel's api_test runs over every game.

The rulesets come from the registry (rules/registry.py); a new ruleset is tested here the moment it
is registered, and fails until it conforms. Each test plays one scripted bot match (`rulesets.play`)
or reads the ruleset's golden set (tests/conformance/golden.py) and checks one property of the seam
(rules/ruleset.py):

- the ruleset's declared surface is coherent (seats, bots, end reasons, the input byte, the config's
  plain form read back strictly);
- determinism across processes: a fresh interpreter (another hash seed) plays the same match to the
  same log hash, end frame and result;
- snapshot/restore: at random frames a snapshot, restored into the same match after it has moved on
  and into a fresh one, continues to the same log hash, result and state checksum;
- SyncTest (rules/synctest.py): rolled back and re-simulated every few frames, every frame's state
  and records equal straight play;
- replays (rules/replay.py): the scripted match's replay verifies, survives its plain form and the
  wire codec, and a tampered one is refused;
- golden replays: every ruleset has a set, each replay verifies (same end frame, result and log
  hash) and matches its MANIFEST.txt line;
- a match over real websockets: the newest version of each ruleset of two seats or more plays a bot
  match through a real server (the node's default is pengo-versus; the match names its ruleset), the
  client's bot over the websocket against the server's, and the stored replay verifies.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import random
import subprocess
import sys
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from protocol.delta import apply as apply_changes
from protocol.replay_codec import decode_replay, encode_replay
from rules.registry import newest
from rules.replay import Replay, record, verify
from rules.ruleset import Ruleset
from rules.synctest import canonical_encoding, run_synctest, state_checksum
from server import botclient
from tests.server.conftest import StartServer, fast_config
from tests.server.helpers import UNIT
from tests.server.test_match_network import fetch_replay
from tests.test_purity import ROOT

from .golden import golden_dir, manifest_line
from .rulesets import Played, bot_order, conforming, fingerprint, play, ruleset_id

RULESETS = conforming()
IDS = [ruleset_id(r) for r in RULESETS]
#: Golden replays verified per ruleset, shortest first, until this many frames have been verified (at
#: least one): pengo-versus's sets are verified in full, with traces, by tests/versus/test_golden_replays.py.
GOLDEN_FRAME_BUDGET = 5000
#: SyncTest: roll back this many frames, after every this many frames, over the first SYNC_FRAMES.
ROLLBACK = 8
EVERY = 5
SYNC_FRAMES = 400

_PLAYED: dict[str, Played] = {}


def played(ruleset: Ruleset[Any, Any]) -> Played:
    """The scripted match of a ruleset (played once per test session, shared by the tests)."""
    key = ruleset_id(ruleset)
    if key not in _PLAYED:
        _PLAYED[key] = play(ruleset)
    return _PLAYED[key]


def test_every_registered_ruleset_is_tested() -> None:
    """The suite's list is the registry's, and it holds every game."""
    names = {r.name for r in RULESETS}
    assert {"pengo-versus", "pengo-solo", "payload", "payload-versus"} <= names, names
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_the_declared_surface_is_coherent(ruleset: Ruleset[Any, Any]) -> None:
    """Seats, bots, end reasons and the input byte agree; the config's plain form reads back strictly;
    a bad seat count and an unknown bot are refused; the scripted match ends for a declared reason."""
    assert ruleset.name and ruleset.version >= 1
    assert 1 <= ruleset.min_seats <= ruleset.max_seats
    assert ruleset.bot_names and ruleset.end_reasons
    assert ruleset.frame_hz > 0
    assert ruleset.rule_tables and all(title for title, _ in ruleset.rule_tables)
    inputs = ruleset.inputs
    for byte in (inputs.neutral, inputs.forfeit):
        assert inputs.is_valid(byte), byte
    assert inputs.held(inputs.neutral) == inputs.neutral
    assert not inputs.is_valid(256) and not inputs.is_valid(-1) and not inputs.is_valid("0")
    config = ruleset.default_config()
    plain = ruleset.config_plain(config)
    canonical_encoding(plain)  # plain data, or TypeError
    assert ruleset.config_from_plain(plain) == config
    with pytest.raises(ValueError):
        ruleset.config_from_plain({**plain, "no-such-field": 1})
    with pytest.raises(ValueError):
        ruleset.new_match(config, 1, [f"s{i}" for i in range(ruleset.max_seats + 1)])
    with pytest.raises(ValueError):
        ruleset.make_bot("no-such-bot", 1)
    canonical_encoding(ruleset.stream_tables)
    match = played(ruleset).match
    assert match.result is not None and match.result.reason in ruleset.end_reasons
    assert match.result.frame == match.frame


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_what_viewers_see_is_plain_and_the_changes_rebuild_it(ruleset: Ruleset[Any, Any]) -> None:
    """Every frame's records, actors and keyframe are plain data, and applying each frame's
    `changes()` to the previous frame's `actors()` gives this frame's (what the stream relies on;
    compared by `keyed`)."""
    scripted = played(ruleset)
    match = ruleset.new_match(scripted.config, scripted.match.seed, scripted.seats)
    shown = match.actors()
    canonical_encoding(match.keyframe_view())
    for row in scripted.rows[:SYNC_FRAMES]:
        records = match.step(row)
        canonical_encoding(match.records_plain(records))
        canonical_encoding(match.records_wire(records))
        now = match.actors()
        rebuilt = apply_changes(shown, match.changes())
        assert keyed(rebuilt) == keyed(now), f"frame {match.frame - 1}"
        shown = now
    canonical_encoding(match.keyframe_view())


def keyed(actors: list[Any]) -> bytes:
    """Each seat's `[summary, records, notes]` with its records in key order (records are keyed, their
    order is not part of the stream), as a canonical encoding (a tuple and a list alike, as on the wire)."""
    return canonical_encoding([[seat[0], sorted(seat[1], key=lambda record: record[0]), seat[2]]
                               for seat in actors])


@pytest.fixture(scope="module")
def fresh_process() -> dict[str, Any]:
    """Every ruleset's scripted match played in a fresh interpreter with another hash seed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "4242"}
    done = subprocess.run([sys.executable, "-m", "tests.conformance.rulesets"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_a_fresh_process_plays_the_same_match(ruleset: Ruleset[Any, Any],
                                              fresh_process: dict[str, Any]) -> None:
    """Same seed, config and inputs in another interpreter: the same log hash, end frame and result."""
    assert fresh_process[ruleset_id(ruleset)] == json.loads(json.dumps(fingerprint(played(ruleset))))


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_a_snapshot_restored_at_random_frames_continues_identically(ruleset: Ruleset[Any, Any]) -> None:
    """At three frames drawn from the ruleset's id, a snapshot (plain data) is taken; restored into the
    same match after it has played on to the end, and (one of them) into a fresh match, the inputs
    from there on give the same log hash, result, frame and state checksum as straight play."""
    scripted = played(ruleset)
    rows, straight = scripted.rows, scripted.match
    end = (straight.log_hash, straight.result, straight.frame, straight.checksum(straight.snapshot()))
    draw = random.Random(zlib.crc32(ruleset_id(ruleset).encode()))
    points = sorted(draw.sample(range(len(rows)), min(3, len(rows))))
    match = ruleset.new_match(scripted.config, straight.seed, scripted.seats)
    snapshots: dict[int, tuple[dict[str, Any], str]] = {}
    for frame, row in enumerate(rows):
        if frame in points:
            snapshot = match.snapshot()
            snapshots[frame] = (snapshot, state_checksum(snapshot))
        match.step(row)
    assert (match.log_hash, match.result, match.frame, match.checksum(match.snapshot())) == end
    for frame, (snapshot, checksum) in snapshots.items():
        match.restore(snapshot)
        assert match.frame == frame and match.result is None
        assert state_checksum(match.snapshot()) == checksum, f"restore at frame {frame} is not the snapshot"
        for row in rows[frame:]:
            match.step(row)
        assert (match.log_hash, match.result, match.frame, match.checksum(match.snapshot())) == end, frame
        assert state_checksum(snapshot) == checksum, f"playing on changed the snapshot of frame {frame}"
    first, (snapshot, _) = next(iter(snapshots.items()))
    fresh = ruleset.new_match(scripted.config, straight.seed, scripted.seats)
    fresh.restore(copy.deepcopy(snapshot))
    for row in rows[first:]:
        fresh.step(row)
    assert (fresh.log_hash, fresh.result, fresh.frame, fresh.checksum(fresh.snapshot())) == end


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_synctest_rollback_equals_straight_play(ruleset: Ruleset[Any, Any]) -> None:
    """Rolled back ROLLBACK frames every EVERY frames and re-simulated, every frame's state checksum and
    records (as plain data) equal the straight run's (rules/synctest.py names the first difference)."""
    scripted = played(ruleset)

    def make() -> Any:
        return ruleset.new_match(scripted.config, scripted.match.seed, scripted.seats)

    def step(match: Any, row: list[int]) -> Any:
        return match.records_plain(match.step(row))

    rows = scripted.rows[:SYNC_FRAMES]
    report = run_synctest(make, step, rows, rollback=ROLLBACK, every=EVERY, check_outputs=True)
    assert report.frames == len(rows)


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_the_replay_verifies_and_a_tampered_one_does_not(ruleset: Ruleset[Any, Any]) -> None:
    """The scripted match's replay verifies; its plain form and its wire bytes give it back; a replay
    claiming another log hash, or with a seat's inputs changed, is refused."""
    scripted = played(ruleset)
    replay = record(scripted.match, ruleset)
    assert (replay.ruleset, replay.ruleset_version) == (ruleset.name, ruleset.version)
    verdict = verify(replay)
    assert verdict.ok, verdict.reason
    assert verdict.log_hash == scripted.match.log_hash
    assert Replay.from_plain(replay.to_plain()) == replay
    assert decode_replay(encode_replay(replay)) == replay
    forged = replace(replay, log_hash="0" * 64)
    assert not verify(forged).ok
    # Seat 0 forfeits halfway: the match must end otherwise (a replay's inputs are what it verifies).
    halfway = replay.final_frame // 2
    forfeit = (*[move for move in replay.moves[0] if move[0] < halfway], (halfway, ruleset.inputs.forfeit))
    tampered = replace(replay, moves=(forfeit, *replay.moves[1:]))
    assert not verify(tampered).ok, "a replay whose seat forfeits halfway verified: do the inputs matter?"


def golden_replays(ruleset: Ruleset[Any, Any]) -> list[Path]:
    """A ruleset's golden replays, shortest (in frames) first."""
    paths = sorted(golden_dir(ruleset).glob("*.replay"))
    return sorted(paths, key=lambda path: (decode_replay(path.read_bytes()).final_frame, path.name))


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_the_golden_replays_verify(ruleset: Ruleset[Any, Any]) -> None:
    """The ruleset has a golden set (make it with `python -m tests.conformance.golden --ruleset ID`);
    each replay is listed in MANIFEST.txt as it is, and verifies: same end frame, result and log hash
    (up to GOLDEN_FRAME_BUDGET frames of them, shortest first)."""
    key = ruleset_id(ruleset)
    paths = golden_replays(ruleset)
    assert paths, (f"{key} has no golden replays in {golden_dir(ruleset)}: add its plays to GOLDEN_PLAYS "
                   f"(tests/conformance/golden.py), run `python -m tests.conformance.golden --ruleset {key}`")
    manifest = (golden_dir(ruleset) / "MANIFEST.txt").read_text(encoding="ascii").splitlines()
    assert manifest[0].startswith(f"# {ruleset.name} v{ruleset.version}:")
    spent = 0
    for path in paths:
        replay = decode_replay(path.read_bytes())
        assert (replay.ruleset, replay.ruleset_version) == (ruleset.name, ruleset.version), path.name
        assert manifest_line(path.stem, replay) in manifest, f"{path.name} is not as MANIFEST.txt lists it"
        if spent and spent + replay.final_frame > GOLDEN_FRAME_BUDGET:
            continue
        verdict = verify(replay)
        assert verdict.ok, f"{path.name}: {verdict.reason}"
        assert (verdict.log_hash, verdict.result) == (replay.log_hash, replay.result)
        spent += replay.final_frame
    assert spent > 0


#: The rulesets a server plays: the newest version of each name, of two seats or more (a bot match).
SERVED = [r for r in RULESETS if newest(r.name) is r and r.max_seats >= 2]


@pytest.mark.asyncio
@pytest.mark.parametrize("ruleset", SERVED, ids=[ruleset_id(r) for r in SERVED])
async def test_a_match_over_real_websockets(ruleset: Ruleset[Any, Any], start_server: StartServer) -> None:
    """A bot match of the ruleset (named in `POST /api/bot-matches`) against a client bot that plays over
    a real websocket to the end: the client's mirror of the stream never disagrees, and the stored
    replay names the ruleset and verifies, on its end frame, result and log hash."""
    server = await start_server(fast_config())
    _, token = await botclient.new_guest(server.http_url, "conformance")
    bots = bot_order(ruleset)
    created = await botclient.http_json(f"{server.http_url}/api/bot-matches", "POST",
                                        {"bot": bots[0], "ruleset": ruleset.name}, token)
    assert created["ruleset"] == ruleset.name
    run = await asyncio.wait_for(botclient.play(server.ws_url, token, created["match"], bots[-1], seed=7),
                                 90 * UNIT)
    assert run.mirror is not None and run.mirror.mismatches == 0 and run.mirror.match.frame > 0
    assert run.session.over is not None
    replay = await fetch_replay(server, created["match"])
    assert (replay.ruleset, replay.ruleset_version) == (ruleset.name, ruleset.version)
    verdict = verify(replay)
    assert verdict.ok, verdict.reason
    assert (verdict.log_hash, verdict.result, verdict.frames) == (replay.log_hash, replay.result,
                                                                  replay.final_frame)
