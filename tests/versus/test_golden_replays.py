"""Golden replays pin the versus rules: each must still verify, with the same result, hash and log.

A rule change that alters outcomes fails here. That is the point: make the change deliberately, bump
RULESET_VERSION in rules/versus/tables.py, and regenerate with `python -m tests.versus.regenerate_golden`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from protocol.replay_codec import decode_replay, encode_replay
from rules.replay import Replay, verify
from rules.versus.tables import RULESET_NAME, RULESET_VERSION

from .helpers import replay_trace

GOLDEN = Path(__file__).resolve().parent / "golden"
REGENERATE = ("if the change is deliberate, bump RULESET_VERSION in rules/versus/tables.py and run "
              "`python -m tests.versus.regenerate_golden`")


def golden_names() -> list[str]:
    """The golden replays on disk, by name."""
    return sorted(path.stem for path in GOLDEN.glob("*.replay"))


def load(name: str) -> Replay:
    """Decode one golden replay."""
    return decode_replay((GOLDEN / f"{name}.replay").read_bytes())


def first_difference(name: str, replay: Replay) -> str:
    """The first line where the re-simulated log differs from the golden trace."""
    expected = (GOLDEN / f"{name}.trace").read_text(encoding="ascii").splitlines()
    actual = replay_trace(replay)
    for number, want in enumerate(expected, start=1):
        got = next(actual, None)
        if got != want:
            return f"{name}.trace line {number}:\n  expected: {want}\n  actual:   {got}"
    extra = next(actual, None)
    if extra is not None:
        return f"{name}.trace: the log goes on after line {len(expected)}: {extra}"
    return f"{name}.trace: the log is unchanged"


def test_the_golden_set_is_present() -> None:
    """There is a handful of golden replays, each with a trace, listed in the manifest."""
    names = golden_names()
    assert len(names) >= 4, names
    manifest = (GOLDEN / "MANIFEST.txt").read_text(encoding="ascii")
    for name in names:
        assert (GOLDEN / f"{name}.trace").is_file()
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


def test_the_golden_set_covers_every_versus_record() -> None:
    """Together the golden traces hold every versus record kind, landing kind, ending and way out."""
    seen = set()
    for name in golden_names():
        for line in (GOLDEN / f"{name}.trace").read_text(encoding="ascii").splitlines()[:-1]:
            key = coverage_key(json.loads(line.split(" ", 1)[1]))
            if key is not None:
                seen.add(key)
    assert seen >= {
        ("attack", "", ""), ("attack", "chain", ""), ("attack", "", "margin"), ("offset",), ("queued",),
        ("landing", "garbage"), ("landing", "nuisance"), ("landing", "gems"), ("gem-count",), ("gem-thaw",),
        ("seat-out", "lives"), ("seat-out", "forfeit"),
        ("match-end", "elimination"), ("match-end", "time"), ("match-end", "forfeit"),
    }


@pytest.mark.parametrize("name", golden_names())
def test_golden_replay_verifies(name: str) -> None:
    """The golden replay re-simulates to its pinned result and log hash (else: the first differing line)."""
    replay = load(name)
    assert (replay.ruleset, replay.ruleset_version) == (RULESET_NAME, RULESET_VERSION), (
        f"{name} was recorded with {replay.ruleset} v{replay.ruleset_version}, this build is {RULESET_NAME} "
        f"v{RULESET_VERSION}: {REGENERATE}")
    verdict = verify(replay)
    if not verdict.ok:
        pytest.fail(f"{name}: {verdict.reason}\n{first_difference(name, replay)}\n{REGENERATE}")
    trace_end = (GOLDEN / f"{name}.trace").read_text(encoding="ascii").splitlines()[-1]
    assert trace_end.endswith(replay.log_hash)


@pytest.mark.parametrize("name", golden_names())
def test_golden_replay_bytes_are_canonical(name: str) -> None:
    """Decoding and re-encoding a golden replay gives its exact bytes (the format is pinned too)."""
    data = (GOLDEN / f"{name}.replay").read_bytes()
    assert encode_replay(decode_replay(data)) == data


def test_first_difference_names_the_line() -> None:
    """A tampered golden replay (seat 0 forfeits on frame 100) is reported by its first differing line."""
    import dataclasses

    from rules.versus.inputs import FORFEIT

    name = golden_names()[0]
    replay = load(name)
    moves = (*(m for m in replay.moves[0] if m[0] < 100), (100, FORFEIT))
    tampered = dataclasses.replace(replay, moves=(moves, *replay.moves[1:]))
    report = first_difference(name, tampered)
    assert report.startswith(f"{name}.trace line ") and "expected:" in report and "actual:" in report
    assert '"seat-out"' in report.split("actual:")[1]
    assert first_difference(name, replay) == f"{name}.trace: the log is unchanged"


def test_regeneration_reproduces_the_committed_files(tmp_path: Path) -> None:
    """Regenerating the golden set (the same bots, seeds, script) writes the committed files byte for byte."""
    from .regenerate_golden import regenerate

    regenerate(tmp_path, say=lambda _line: None)
    committed = sorted(path.name for path in GOLDEN.iterdir())
    assert sorted(path.name for path in tmp_path.iterdir()) == committed
    for name in committed:
        assert (tmp_path / name).read_bytes() == (GOLDEN / name).read_bytes(), f"{name} differs; {REGENERATE}"
