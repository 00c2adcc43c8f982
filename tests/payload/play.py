"""Play a Payload match between bots through the seam (the golden runs, the determinism tests and
their regeneration share it): `python -m tests.payload.play RULESET DIFFICULTY SEED BOT…` prints the
log hash, the result and the frame count."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rules.payload.match import PayloadMatch
from rules.payload.ruleset import PAYLOAD, PAYLOAD_VERSUS, PayloadRuleset
from rules.payload.types import DifficultyKey
from rules.ruleset import seat_seed

RULESETS: dict[str, PayloadRuleset] = {"payload": PAYLOAD, "payload-versus": PAYLOAD_VERSUS}


def bot_rows(ruleset: PayloadRuleset, difficulty: DifficultyKey, seed: int,
             bots: Sequence[str]) -> tuple[PayloadMatch, list[list[int]]]:
    """Play to the end; the finished match and every frame's input bytes."""
    config = ruleset.default_config()
    config = type(config)(difficulty=difficulty)
    match = ruleset.new_match(config, seed, [f"seat{i}" for i in range(len(bots))])
    players = [ruleset.make_bot(name, seat_seed(seed, seat)) for seat, name in enumerate(bots)]
    rows: list[list[int]] = []
    while match.result is None:
        row = [bot.decide(match.seat_view(seat), match.frame) for seat, bot in enumerate(players)]
        rows.append(row)
        match.step(row)
    return match, rows


def summary(match: PayloadMatch) -> str:
    """`hash result frames` of a finished match."""
    assert match.result is not None
    result = match.result
    outcomes = ",".join(outcome.value for outcome in result.outcomes)
    scores = ",".join(map(str, result.scores))
    return f"{match.log_hash} {result.reason}:{outcomes}:{scores} {result.frame}"


def main(argv: Sequence[str]) -> None:
    """Print the summary of one bot match."""
    ruleset, difficulty, seed, *bots = argv
    match, _ = bot_rows(RULESETS[ruleset], difficulty, int(seed), bots)  # type: ignore[arg-type]
    sys.stdout.write(summary(match) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
