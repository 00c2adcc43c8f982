"""Golden replays pin the versus rules: each must still verify, with the same result, hash and log.

Every version has its set: pengo-versus 1's in tests/versus/golden/ (recorded before the bump, kept
byte for byte) and 2's in tests/versus/golden-v2/. Each replay verifies under the version its header
names, and only under it. A rule change that alters outcomes fails here. That is the point: make the
change deliberately, as a new version next to the old, and regenerate that version's set with
`python -m tests.versus.regenerate_golden --version N`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from protocol.replay_codec import decode_replay, encode_replay
from rules.replay import Replay, verify
from rules.versus.tables import RULESET_NAME, RULESET_VERSIONS

from .helpers import replay_trace
from .regenerate_golden import GOLDEN_DIRS

REGENERATE = ("if the change is deliberate, make it a new ruleset version (rules/versus/tables.py) and run "
              "`python -m tests.versus.regenerate_golden --version N` for that version's set")


def golden_names(version: int) -> list[str]:
    """A version's golden replays on disk, by name."""
    return sorted(path.stem for path in GOLDEN_DIRS[version].glob("*.replay"))


#: Every golden replay as (version, name).
GOLDEN_REPLAYS = [(version, name) for version in RULESET_VERSIONS for name in golden_names(version)]


def load(version: int, name: str) -> Replay:
    """Decode one golden replay."""
    return decode_replay((GOLDEN_DIRS[version] / f"{name}.replay").read_bytes())


def first_difference(version: int, name: str, replay: Replay) -> str:
    """The first line where the re-simulated log differs from the golden trace."""
    expected = (GOLDEN_DIRS[version] / f"{name}.trace").read_text(encoding="ascii").splitlines()
    actual = replay_trace(replay)
    for number, want in enumerate(expected, start=1):
        got = next(actual, None)
        if got != want:
            return f"{name}.trace line {number}:\n  expected: {want}\n  actual:   {got}"
    extra = next(actual, None)
    if extra is not None:
        return f"{name}.trace: the log goes on after line {len(expected)}: {extra}"
    return f"{name}.trace: the log is unchanged"


@pytest.mark.parametrize("version", RULESET_VERSIONS)
def test_the_golden_set_is_present(version: int) -> None:
    """Every version has a handful of golden replays, each with a trace, listed in its manifest."""
    names = golden_names(version)
    assert len(names) >= 4, names
    golden = GOLDEN_DIRS[version]
    manifest = (golden / "MANIFEST.txt").read_text(encoding="ascii")
    assert manifest.startswith(f"# {RULESET_NAME} v{version}:")
    for name in names:
        assert (golden / f"{name}.trace").is_file()
        assert f"\n{name} " in manifest


def coverage_key(record: dict[str, Any]) -> tuple[str, ...] | None:
    """What a versus record contributes to the golden set's coverage (None for board events)."""
    kind = record["kind"]
    if kind == "landing":
        return kind, record["landing"]
    if kind == "attack":
        return kind, "chain" if record["chain"] else "", "margin" if record["margin"] else ""
    if kind in ("seat-out", "match-end"):
        return kind, record["reason"]
    if kind in ("offset", "queued", "gem-count", "gem-thaw"):
        return (kind,)
    return None


@pytest.mark.parametrize("version", RULESET_VERSIONS)
def test_the_golden_set_covers_every_versus_record(version: int) -> None:
    """Together a version's golden traces hold every versus record kind, landing kind, ending and way out."""
    seen = set()
    for name in golden_names(version):
        for line in (GOLDEN_DIRS[version] / f"{name}.trace").read_text(encoding="ascii").splitlines()[:-1]:
            key = coverage_key(json.loads(line.split(" ", 1)[1]))
            if key is not None:
                seen.add(key)
    assert seen >= {
        ("attack", "", ""), ("attack", "chain", ""), ("attack", "", "margin"), ("offset",), ("queued",),
        ("landing", "garbage"), ("landing", "nuisance"), ("landing", "gems"), ("gem-count",), ("gem-thaw",),
        ("seat-out", "lives"), ("seat-out", "forfeit"),
        ("match-end", "elimination"), ("match-end", "time"), ("match-end", "forfeit"),
    }


@pytest.mark.parametrize(("version", "name"), GOLDEN_REPLAYS)
def test_golden_replay_verifies(version: int, name: str) -> None:
    """The golden replay names its set's version and re-simulates under it to its pinned result and log
    hash (else: the first differing line)."""
    replay = load(version, name)
    assert (replay.ruleset, replay.ruleset_version) == (RULESET_NAME, version), (
        f"{name} was recorded with {replay.ruleset} v{replay.ruleset_version}, its set is {RULESET_NAME} "
        f"v{version}: {REGENERATE}")
    verdict = verify(replay)
    if not verdict.ok:
        pytest.fail(f"{name}: {verdict.reason}\n{first_difference(version, name, replay)}\n{REGENERATE}")
    trace_end = (GOLDEN_DIRS[version] / f"{name}.trace").read_text(encoding="ascii").splitlines()[-1]
    assert trace_end.endswith(replay.log_hash)


@pytest.mark.parametrize(("version", "name"), GOLDEN_REPLAYS)
def test_golden_replay_fails_under_the_other_version(version: int, name: str) -> None:
    """A golden replay relabelled with the other version does not verify: version 1's config lacks
    version 2's fields, and version 2's rules (landings, bots' inputs aside) change the log."""
    import dataclasses

    replay = load(version, name)
    other = 2 if version == 1 else 1
    relabelled = dataclasses.replace(replay, ruleset_version=other)
    verdict = verify(relabelled)
    assert not verdict.ok, f"{name} (v{version}) also verified as v{other}"


@pytest.mark.parametrize(("version", "name"), GOLDEN_REPLAYS)
def test_golden_replay_bytes_are_canonical(version: int, name: str) -> None:
    """Decoding and re-encoding a golden replay gives its exact bytes (the format is pinned too)."""
    data = (GOLDEN_DIRS[version] / f"{name}.replay").read_bytes()
    assert encode_replay(decode_replay(data)) == data


def test_first_difference_names_the_line() -> None:
    """A tampered golden replay (seat 0 forfeits on frame 100) is reported by its first differing line."""
    import dataclasses

    from rules.versus.inputs import FORFEIT

    name = golden_names(1)[0]
    replay = load(1, name)
    moves = (*(m for m in replay.moves[0] if m[0] < 100), (100, FORFEIT))
    tampered = dataclasses.replace(replay, moves=(moves, *replay.moves[1:]))
    report = first_difference(1, name, tampered)
    assert report.startswith(f"{name}.trace line ") and "expected:" in report and "actual:" in report
    assert '"seat-out"' in report.split("actual:")[1]
    assert first_difference(1, name, replay) == f"{name}.trace: the log is unchanged"


@pytest.mark.parametrize("version", RULESET_VERSIONS)
def test_regeneration_reproduces_the_committed_files(version: int, tmp_path: Path) -> None:
    """Regenerating a version's golden set (its bots, seeds, script) writes the committed files, byte for
    byte."""
    from .regenerate_golden import regenerate

    regenerate(version, tmp_path, say=lambda _line: None)
    golden = GOLDEN_DIRS[version]
    committed = sorted(path.name for path in golden.iterdir())
    assert sorted(path.name for path in tmp_path.iterdir()) == committed
    for name in committed:
        assert (tmp_path / name).read_bytes() == (golden / name).read_bytes(), f"{name} differs; {REGENERATE}"
