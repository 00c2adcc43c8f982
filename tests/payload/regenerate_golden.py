"""Rewrite tests/payload/golden.txt: `python -m tests.payload.regenerate_golden`. Run it only for a
deliberate change of the rules (then the ruleset's version goes up); test_golden.py diffs against it."""

from __future__ import annotations

from pathlib import Path

from tests.payload.play import RULESETS, bot_rows, summary

GOLDEN = Path(__file__).with_name("golden.txt")
#: The pinned matches: ruleset, difficulty, seed, bots.
CASES: tuple[tuple[str, str, int, tuple[str, ...]], ...] = (
    ("payload", "easy", 1, ("competent",)),
    ("payload", "easy", 20261203, ("competent",)),
    ("payload", "easy", 7, ("lazy",)),
    ("payload", "hard", 42, ("competent",)),
    ("payload", "hard", 0xDEADBEEF, ("competent",)),
    ("payload-versus", "easy", 5, ("competent", "lazy")),
    ("payload-versus", "easy", 77, ("competent", "competent")),
    ("payload-versus", "hard", 3, ("competent", "competent")),
)


def lines() -> list[str]:
    """One line per case: the case, then `hash reason:outcomes:scores frames`."""
    out = []
    for ruleset, difficulty, seed, bots in CASES:
        match, _ = bot_rows(RULESETS[ruleset], difficulty, seed, bots)  # type: ignore[arg-type]
        out.append(f"{ruleset} {difficulty} {seed} {'+'.join(bots)} {summary(match)}")
    return out


if __name__ == "__main__":
    GOLDEN.write_text("# ruleset difficulty seed bots log-hash reason:outcomes:scores frames\n"
                      + "\n".join(lines()) + "\n", encoding="utf-8")
