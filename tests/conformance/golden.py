"""Golden replays for every conforming ruleset: where each ruleset's set lives, and how to make one.

pengo-versus keeps its sets where they were recorded (tests/versus/golden*, with traces; made by
tests/versus/regenerate_golden.py). Every other ruleset's set is made here from `GOLDEN_PLAYS`
(bot matches, `rulesets.play`) into tests/conformance/golden/<name>-v<version>/: one `<label>.replay`
(protocol/replay_codec.py's bytes) per play and a MANIFEST.txt line `label final_frame reason winner
scores log_hash` for each, the same layout as pengo-versus's. A replay stores its inputs, so a later
change to a bot changes nothing here until the set is made again.

    python -m tests.conformance.golden --ruleset pengo-solo-v1     # make (or, with --force, remake) one set

A new ruleset fails the golden test until it has a set: add its plays to `GOLDEN_PLAYS` and run this.
A rules change that alters outcomes ships as a new ruleset version with a new set; the old set stays.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol.replay_codec import encode_replay
from rules.replay import Replay, record
from rules.ruleset import Ruleset
from tests.versus.regenerate_golden import GOLDEN_DIRS as VERSUS_GOLDEN_DIRS

from .rulesets import conforming, play, ruleset_id

HERE = Path(__file__).resolve().parent / "golden"


@dataclass(frozen=True)
class GoldenPlay:
    """One golden match: its label, seed, frame cut and the bot of each seat (None: `rulesets.bot_order`)."""

    label: str
    seed: int
    frames: int
    bots: tuple[str, ...] | None = None


#: The plays of each ruleset whose set is made here, by ruleset id.
GOLDEN_PLAYS: dict[str, tuple[GoldenPlay, ...]] = {
    "pengo-solo-v1": (
        GoldenPlay("run-competent", 11, 2400),
        GoldenPlay("run-lazy", 12, 2400, ("lazy",)),
    ),
    "payload-v1": (
        GoldenPlay("run-competent", 1, 20_000),
        GoldenPlay("run-competent-seed42", 42, 20_000),
        GoldenPlay("run-lazy", 7, 20_000, ("lazy",)),
    ),
    "payload-versus-v1": (
        GoldenPlay("duel-competent-lazy", 3, 20_000),
        GoldenPlay("duel-competent-mirror", 5, 20_000, ("competent", "competent")),
    ),
}


def golden_dir(ruleset: Ruleset[Any, Any]) -> Path:
    """Where a ruleset's golden set lives."""
    if ruleset.name == "pengo-versus":
        return VERSUS_GOLDEN_DIRS[ruleset.version]
    return HERE / ruleset_id(ruleset)


def manifest_line(label: str, replay: Replay) -> str:
    """A set's MANIFEST.txt line for one replay."""
    result = replay.result
    return (f"{label} {replay.final_frame} {result.reason} {result.winner} "
            f"{','.join(map(str, result.scores))} {replay.log_hash}")


def make_set(ruleset: Ruleset[Any, Any], force: bool = False) -> Path:
    """Play and write one ruleset's golden set; FileExistsError if it exists and not `force`."""
    key = ruleset_id(ruleset)
    plays = GOLDEN_PLAYS.get(key)
    if plays is None:
        raise KeyError(f"{key}: no plays in GOLDEN_PLAYS (tests/conformance/golden.py)")
    out = golden_dir(ruleset)
    if out.exists() and not force:
        raise FileExistsError(f"{out} exists: a golden set is remade only deliberately (--force)")
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.replay"):
        old.unlink()
    manifest = [f"# {ruleset.name} v{ruleset.version}: name final_frame reason winner scores log_hash"]
    for golden in plays:
        replay = record(play(ruleset, golden.seed, golden.frames, golden.bots).match, ruleset)
        (out / f"{golden.label}.replay").write_bytes(encode_replay(replay))
        manifest.append(manifest_line(golden.label, replay))
        print(manifest[-1])
    (out / "MANIFEST.txt").write_text("\n".join(manifest) + "\n", encoding="ascii")
    return out


def main() -> None:
    """Make the golden set of one ruleset (or of every ruleset that has plays here and no set yet)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", help="a ruleset id (name-vVERSION); default: every missing set")
    parser.add_argument("--force", action="store_true", help="remake an existing set")
    args = parser.parse_args()
    for ruleset in conforming():
        key = ruleset_id(ruleset)
        if key not in GOLDEN_PLAYS or (args.ruleset is not None and key != args.ruleset):
            continue
        if args.ruleset is None and golden_dir(ruleset).exists():
            continue
        print(f"{key}: {make_set(ruleset, args.force)}")


if __name__ == "__main__":
    main()
