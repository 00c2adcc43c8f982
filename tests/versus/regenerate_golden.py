"""Regenerate the golden replays of a pengo-versus version (NOT run by the tests).

    python -m tests.versus.regenerate_golden              # the current version's set (3)
    python -m tests.versus.regenerate_golden --version 2  # version 2's set (it never changes now)
    python -m tests.versus.regenerate_golden --version 1  # version 1's set (it never changes)

Each version has its own set: version 1's in tests/versus/golden/ (recorded before the bump, kept
byte for byte: the archive's replays must go on verifying), version 2's in tests/versus/golden-v2/,
version 3's in tests/versus/golden-v3/.
A set is regenerated only after a deliberate rule change of that version that alters outcomes,
which is what a new version is for: change a version's rules by adding a version next to it. Each
golden match writes three files:

- `NAME.replay`: the replay (msgpack, protocol/replay_codec.py), pinning the result and log hash;
- `NAME.trace`: its log re-simulated from the move lists, one record per line, so the test can
  name the first line that differs;
- and one line in `MANIFEST.txt` (ruleset, frames, result, hash) for review in a diff.

The matches are played by the version's bots (rules/versus/bots/ `BOTS_BY_VERSION`), seeded as
everything seeds them (`seat_seed`). The inputs are stored in the replays, so a later change to a bot
changes nothing here until this script is run again. Together the set covers every versus record:
attacks (chained, in margin time), offsets, every landing kind, gem counts and thaws, both ways of
going out, and the three endings.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from floe_cli.versus_cmds import play_match
from protocol.replay_codec import decode_replay, encode_replay
from rules.registry import lookup
from rules.replay import record, verify
from rules.versus.bots import Bot, seat_seed
from rules.versus.inputs import FORFEIT
from rules.versus.match import VersusConfig, VersusMatch, versus_config
from rules.versus.tables import RULESET_NAME, RULESET_VERSION, VERSUS_RULES_V2, AttackTable, VersusRules
from rules.versus.view import SeatView

from .helpers import replay_trace

#: Each version's golden directory.
GOLDEN_DIRS: dict[int, Path] = {
    1: Path(__file__).resolve().parent / "golden",
    2: Path(__file__).resolve().parent / "golden-v2",
    3: Path(__file__).resolve().parent / "golden-v3",
}
GOLDEN = GOLDEN_DIRS[1]

#: Attack-heavy numbers, so that random play lands every kind of attack.
BUSY_ATTACK = AttackTable(egg=6, crush=(4, 6, 8, 8), eat=2, fuse_frames=40)


@dataclass(frozen=True)
class GoldenMatch:
    """One golden match: its bots (one per seat), seed, config and scripted forfeits."""

    name: str
    bots: tuple[str, ...]
    seed: int
    config: VersusConfig = field(default_factory=VersusConfig)
    #: (frame, seat): the seat sends a forfeit on that frame instead of its bot's input.
    forfeits: tuple[tuple[int, int], ...] = ()


#: Version 1's set (recorded before the bump; the dataclasses' defaults are version 1's rules).
GOLDEN_MATCHES: tuple[GoldenMatch, ...] = (
    GoldenMatch("duel-competent-lazy", ("competent", "lazy"), seed=7),
    GoldenMatch("duel-competent-mirror", ("competent", "competent"), seed=8, config=VersusConfig(VersusRules(
        attack=AttackTable(margin_from_frame=2400), time_limit_frames=4500))),
    GoldenMatch("duel-random-busy", ("random", "random"), seed=6,
                config=VersusConfig(VersusRules(attack=BUSY_ATTACK, lives=5))),
    GoldenMatch("duel-forfeit", ("lazy", "competent"), seed=5, forfeits=((1500, 0),)),
    GoldenMatch("trio-time", ("competent", "lazy", "competent"), seed=11,
                config=VersusConfig(VersusRules(time_limit_frames=3600), difficulty="normal")),
    GoldenMatch("quad-forfeit", ("lazy", "competent", "lazy", "competent"), seed=12, forfeits=((600, 2),),
                config=VersusConfig(VersusRules(attack=BUSY_ATTACK, time_limit_frames=5400))),
)

_V2 = versus_config(2)
_V2_ATTACK = VERSUS_RULES_V2.attack
#: Version 2's busy numbers: version 1's busy units on version 2's landings.
BUSY_ATTACK_V2 = replace(_V2_ATTACK, egg=6, crush=(4, 6, 8, 8), eat=2, fuse_frames=40)


def _v2(**changes: object) -> VersusConfig:
    """Version 2's default config with some VersusRules fields changed."""
    return replace(_V2, rules=replace(VERSUS_RULES_V2, **changes))  # type: ignore[arg-type]


#: Version 2's set: the same scenes on version 2's rules, bots and Sno-Bees.
GOLDEN_MATCHES_V2: tuple[GoldenMatch, ...] = (
    GoldenMatch("duel-competent-lazy", ("competent", "lazy"), seed=7, config=_V2),
    GoldenMatch("duel-competent-mirror", ("competent", "competent"), seed=8,
                config=_v2(attack=replace(_V2_ATTACK, margin_from_frame=2400), time_limit_frames=4500)),
    GoldenMatch("duel-random-busy", ("random", "random"), seed=6, config=_v2(attack=BUSY_ATTACK_V2, lives=5)),
    GoldenMatch("duel-forfeit", ("lazy", "competent"), seed=5, forfeits=((1500, 0),), config=_V2),
    GoldenMatch("trio-time", ("competent", "lazy", "competent"), seed=11,
                config=replace(_v2(time_limit_frames=3600), difficulty="normal")),
    GoldenMatch("quad-forfeit", ("lazy", "competent", "lazy", "competent"), seed=12, forfeits=((600, 2),),
                config=_v2(attack=BUSY_ATTACK_V2, time_limit_frames=5400)),
)
#: Version 3's set: version 2's scenes on version 3's Sno-Bee slot timers (its rules are version 2's).
GOLDEN_MATCHES_V3: tuple[GoldenMatch, ...] = tuple(
    replace(golden, config=replace(golden.config, slot_timers=versus_config(3).slot_timers))
    for golden in GOLDEN_MATCHES_V2
)
#: Each version's golden matches.
GOLDEN_SETS: dict[int, tuple[GoldenMatch, ...]] = {
    1: GOLDEN_MATCHES,
    2: GOLDEN_MATCHES_V2,
    3: GOLDEN_MATCHES_V3,
}


class _Scripted:
    """A bot that forfeits on the scripted frames and otherwise plays its inner bot."""

    def __init__(self, inner: Bot[SeatView], frames: set[int]) -> None:
        self.inner = inner
        self.frames = frames

    def decide(self, view: SeatView, frame: int) -> int:
        if frame in self.frames:
            return FORFEIT
        return self.inner.decide(view, frame)


def play(golden: GoldenMatch, version: int = 1) -> VersusMatch:
    """Play one golden match of a version to its end, with that version's bots."""
    ruleset = lookup(RULESET_NAME, version)
    bots: list[Bot[SeatView]] = []
    for seat, name in enumerate(golden.bots):
        bot = ruleset.make_bot(name, seat_seed(golden.seed, seat))
        frames = {frame for frame, who in golden.forfeits if who == seat}
        bots.append(_Scripted(bot, frames) if frames else bot)
    match, _ = play_match(bots, golden.seed, list(golden.bots), golden.config)
    return match


def regenerate(version: int, out: Path | None = None, say: Callable[[str], None] = print) -> None:
    """Write every golden replay, trace and the manifest of a version (into its directory by default)."""
    out = GOLDEN_DIRS[version] if out is None else out
    ruleset = lookup(RULESET_NAME, version)
    out.mkdir(parents=True, exist_ok=True)
    for stale in [*out.glob("*.replay"), *out.glob("*.trace")]:
        stale.unlink()
    manifest = [f"# {RULESET_NAME} v{version}: name final_frame reason winner scores log_hash"]
    for golden in GOLDEN_SETS[version]:
        match = play(golden, version)
        replay = record(match, ruleset)
        data = encode_replay(replay)
        assert decode_replay(data) == replay
        verdict = verify(replay)
        if not verdict.ok:
            raise RuntimeError(f"{golden.name}: the fresh replay does not verify: {verdict.reason}")
        (out / f"{golden.name}.replay").write_bytes(data)
        trace = "\n".join(replay_trace(replay)) + "\n"
        (out / f"{golden.name}.trace").write_text(trace, encoding="ascii")
        result = replay.result
        manifest.append(f"{golden.name} {replay.final_frame} {result.reason} {result.winner} "
                        f"{','.join(map(str, result.scores))} {replay.log_hash}")
        say(f"{golden.name}: {replay.final_frame} frames, {result.reason}, winner {result.winner}, "
            f"{len(data)} bytes, {trace.count(chr(10))} trace lines")
    (out / "MANIFEST.txt").write_text("\n".join(manifest) + "\n", encoding="ascii")


def main(argv: list[str] | None = None) -> int:
    """Regenerate one version's set (the current version's by default)."""
    parser = argparse.ArgumentParser(prog="python -m tests.versus.regenerate_golden")
    parser.add_argument("--version", type=int, choices=sorted(GOLDEN_SETS), default=RULESET_VERSION)
    regenerate(parser.parse_args(argv).version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
