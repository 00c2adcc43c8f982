"""Regenerate the golden replays under tests/versus/golden/ (NOT run by the tests).

    python -m tests.versus.regenerate_golden          # from the project root

Run it only after a deliberate rule change that alters outcomes, and bump RULESET_VERSION in
rules/versus/tables.py in the same change: the golden test refuses replays of another version, so
a stale set fails loudly instead of passing silently. Each golden match writes three files:

- `NAME.replay`: the replay (msgpack, protocol/replay_codec.py), pinning the result and log hash;
- `NAME.trace`: its log re-simulated from the move lists, one record per line, so the test can
  name the first line that differs;
- and one line in `MANIFEST.txt` (ruleset, frames, result, hash) for review in a diff.

The matches are played by the bots of rules/versus/bots.py, seeded as everything seeds them
(`seat_seed`). The inputs are stored in the replays, so a later change to a bot
changes nothing here until this script is run again. Together the set covers every versus record:
attacks (chained, in margin time), offsets, every landing kind, gem counts and thaws, both ways of
going out, and the three endings.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from floe_cli.versus_cmds import play_match
from protocol.replay_codec import decode_replay, encode_replay
from rules.replay import record, verify
from rules.versus.bots import Bot, make_bot, seat_seed
from rules.versus.inputs import FORFEIT
from rules.versus.match import VersusConfig, VersusMatch
from rules.versus.ruleset import PENGO_VERSUS
from rules.versus.tables import RULESET_NAME, RULESET_VERSION, AttackTable, VersusRules
from rules.versus.view import SeatView

from .helpers import replay_trace

GOLDEN = Path(__file__).resolve().parent / "golden"

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


class _Scripted:
    """A bot that forfeits on the scripted frames and otherwise plays its inner bot."""

    def __init__(self, inner: Bot[SeatView], frames: set[int]) -> None:
        self.inner = inner
        self.frames = frames

    def decide(self, view: SeatView, frame: int) -> int:
        if frame in self.frames:
            return FORFEIT
        return self.inner.decide(view, frame)


def play(golden: GoldenMatch) -> VersusMatch:
    """Play one golden match to its end."""
    bots: list[Bot[SeatView]] = []
    for seat, name in enumerate(golden.bots):
        bot = make_bot(name, seat_seed(golden.seed, seat))
        frames = {frame for frame, who in golden.forfeits if who == seat}
        bots.append(_Scripted(bot, frames) if frames else bot)
    match, _ = play_match(bots, golden.seed, list(golden.bots), golden.config)
    return match


def regenerate(out: Path = GOLDEN, say: Callable[[str], None] = print) -> None:
    """Write every golden replay, trace and the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in [*out.glob("*.replay"), *out.glob("*.trace")]:
        stale.unlink()
    manifest = [f"# {RULESET_NAME} v{RULESET_VERSION}: name final_frame reason winner scores log_hash"]
    for golden in GOLDEN_MATCHES:
        match = play(golden)
        replay = record(match, PENGO_VERSUS)
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


if __name__ == "__main__":
    regenerate()
    sys.exit(0)
