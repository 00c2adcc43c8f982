"""`floe match`, `floe verify` and `floe rules` (floe_cli/versus_cmds.py), run in-process."""

from __future__ import annotations

import argparse
import dataclasses
import io
import re
from pathlib import Path

import pytest

from floe_cli import versus_cmds
from protocol.replay_codec import decode_replay, encode_replay
from rules.kick import tables as kick_tables
from rules.replay import verify
from rules.versus import tables as versus_tables
from rules.versus.tables import RULESET_NAME, RULESET_VERSION, VERSUS_RULES, AttackTable


def floe(*args: str) -> tuple[int, str]:
    """Run a versus subcommand in-process: (exit status, stdout)."""
    out = io.StringIO()
    status = versus_cmds.main(list(args), stdout=out)
    return status, out.getvalue()


def test_match_prints_the_result_and_attack_flow_and_writes_a_replay(tmp_path: Path) -> None:
    """`floe match` plays bots headless, prints the result and each seat's attack flow, writes a replay."""
    path = tmp_path / "m.replay"
    status, out = floe("match", "--bots", "competent,lazy", "--seed", "7", "--out", str(path))
    assert status == 0, out
    assert re.search(r"^result: (elimination|time|forfeit); winner ", out, re.MULTILINE)
    assert "attack flow:" in out
    for seat in (0, 1):
        assert re.search(rf"^  seat {seat}: attacks \d+ .*; offset \d+; sent \d+ packets / \d+ units; "
                         rf"received \d+ / \d+; landed \d+ units", out, re.MULTILINE), out
    replay = decode_replay(path.read_bytes())
    assert replay.seats == ("competent", "lazy") and replay.seed == 7
    assert verify(replay).ok
    assert f"log hash: {replay.log_hash}" in out


def test_match_is_deterministic_and_logs_records(tmp_path: Path) -> None:
    """The same command twice writes the same replay bytes; --log prints frame-numbered records."""
    args = ("match", "--bots", "random,random,lazy", "--seed", "0x2a", "--seats", "ann,bob,cy",
            "--time-limit", "15", "--lives", "9")
    first, second = tmp_path / "a.replay", tmp_path / "b.replay"
    status, out = floe(*args, "--out", str(first), "--log")
    assert status == 0
    assert floe(*args, "--out", str(second))[0] == 0
    assert first.read_bytes() == second.read_bytes()
    lines = out.split("match: seed")[0].splitlines()
    assert lines and all(re.match(r"^ *\d+( s\d)? [a-z-]+", line) for line in lines)
    assert any(" level-start " in line for line in lines)
    replay = decode_replay(first.read_bytes())
    assert replay.seats == ("ann", "bob", "cy") and replay.result.reason == "time"
    assert replay.final_frame == 15 * 60


@pytest.mark.parametrize(("args", "message"), [
    (("--bots", "competent,nobody"), "nobody"),
    (("--bots", "random"), "seats"),
    (("--bots", "random,random", "--seats", "a"), "--seats"),
    (("--bots", "random,random", "--lives", "0"), "lives"),
])
def test_match_usage_errors_exit_2(args: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]) \
        -> None:
    """Unknown bots, a wrong seat count or bad settings exit 2 with a message on stderr."""
    status, _ = floe("match", *args)
    assert status == 2
    assert message in capsys.readouterr().err


def test_verify_passes_good_replays_and_fails_bad_ones(tmp_path: Path) -> None:
    """`floe verify` exits 0 when every replay verifies and 1 when any fails, naming each file."""
    good = tmp_path / "good.replay"
    assert floe("match", "--bots", "lazy,competent", "--seed", "3", "--out", str(good))[0] == 0
    status, out = floe("verify", "--no-progress", str(good))
    assert status == 0 and f"{good}: ok: " in out and "verified 1 of 1 replays" in out
    replay = decode_replay(good.read_bytes())
    forged = dataclasses.replace(replay, result=dataclasses.replace(replay.result, scores=(1, 2)))
    bad = tmp_path / "bad.replay"
    bad.write_bytes(encode_replay(forged))
    junk = tmp_path / "junk.replay"
    junk.write_bytes(b"\xc1not msgpack")
    missing = tmp_path / "missing.replay"
    status, out = floe("verify", str(good), str(bad), str(junk), str(missing))
    assert status == 1
    assert f"{bad}: FAILED result differs" in out
    assert f"{junk}: FAILED rejected: replay: malformed msgpack" in out
    assert f"{missing}: FAILED cannot read" in out
    assert "verified 1 of 4 replays; 3 failed" in out


def test_verify_bounds_size_and_length(tmp_path: Path) -> None:
    """`floe verify` refuses files over --max-bytes and replays over --max-frames."""
    path = tmp_path / "m.replay"
    assert floe("match", "--bots", "lazy,lazy", "--seed", "4", "--out", str(path))[0] == 0
    status, out = floe("verify", "--max-bytes", "10", str(path))
    assert status == 1 and "over the limit of 10 bytes" in out
    status, out = floe("verify", "--max-frames", "100", str(path))
    assert status == 1 and "over the limit of 100" in out


def test_rules_prints_the_compendium_from_the_tables() -> None:
    """`floe rules` prints every versus setting, attack-table number, fixed number and Pengo number."""
    status, out = floe("rules")
    assert status == 0
    assert f"{RULESET_NAME} ruleset version {RULESET_VERSION}" in out
    attack = VERSUS_RULES.attack
    for f in dataclasses.fields(attack):
        assert re.search(rf"^  {f.name} +", out, re.MULTILINE), f.name
    assert re.search(rf"^  fuse_frames +{attack.fuse_frames} \(2.5 s\)", out, re.MULTILINE)
    crush = re.escape(repr(AttackTable().crush))
    assert re.search(rf"^  crush +{crush} +Units for crushing", out, re.MULTILINE)
    assert re.search(rf"^  time_limit_frames +{VERSUS_RULES.time_limit_frames} ", out, re.MULTILINE)
    for name in ("MIN_SEATS", "MAX_SEATS", "GARBAGE_SALT", "NUISANCE_EGGS_PER_UNIT", "RULESET_VERSION"):
        assert re.search(rf"^  {name} +{getattr(versus_tables, name)}\b", out, re.MULTILINE), name
    assert re.search(r"^  NUISANCE_EGGS_PER_UNIT +1 +Eggs a nuisance landing hides", out, re.MULTILINE)
    assert re.search(rf"^  PENGO_LOOP_HZ +{kick_tables.PENGO_LOOP_HZ} +Main-loop passes", out, re.MULTILINE)
    assert re.search(r"^  PLAYER_PERIOD +10 +\$31DA", out, re.MULTILINE)


def test_register_adds_the_subcommands_to_another_parser() -> None:
    """register() adds match, verify and rules to any parser's subcommands, and run() dispatches them."""
    parser = argparse.ArgumentParser(prog="floe")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("sim")
    versus_cmds.register(commands)
    for name in versus_cmds.COMMANDS:
        args = parser.parse_args([name, "x.replay"] if name == "verify" else [name])
        assert args.command == name and callable(args.versus_run)
    out = io.StringIO()
    assert versus_cmds.run(parser.parse_args(["rules"]), stdout=out) == 0
    assert "Attack table" in out.getvalue()
