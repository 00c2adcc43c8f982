"""Golden Payload runs pinned by hash: bot matches whose event-log hash, result and length are
committed in golden.txt (the seed's parity discipline; regenerate_golden.py rewrites it for a
deliberate rules change). The first differing line is reported."""

from __future__ import annotations

from tests.payload.regenerate_golden import GOLDEN, lines


def test_golden_runs_match_their_pinned_hashes() -> None:
    """Each pinned match replays to the same log hash, result and frame count."""
    pinned = [line for line in GOLDEN.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    assert len(pinned) >= 8
    for number, (want, got) in enumerate(zip(pinned, lines(), strict=True), start=1):
        assert got == want, f"golden line {number} differs:\n  pinned {want}\n  now    {got}"
