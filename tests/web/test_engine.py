"""The browser engine (clients/web/src/engine): floe's own `rules/` in Pyodide, in a Web Worker, in
Debian's Chromium, under the server's own Content-Security-Policy.

Every registered ruleset's golden replays (pengo-versus: each version's set in tests/versus/golden*;
the others' in tests/conformance/golden/<name>-v<version>/, Payload's included) are verified inside
the browser engine from the replay file's bytes: the browser reaches the server's log hash byte for
byte, and the verdict the server's verifier gives. The engine's size and its cold start are printed
(bench/engine_start.py measures the cold and cached start).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rules.registry import known
from rules.replay import verify
from rules.versus.tables import RULESET_NAME, RULESET_VERSIONS
from tests.conformance.golden import HERE as CONFORMANCE_GOLDEN
from tests.versus.regenerate_golden import GOLDEN_DIRS

from .conftest import serving, until

pytestmark = pytest.mark.asyncio

#: JS: the engine loaded (Pyodide and the rules), its answer.
LOAD = "() => window.__floeEngine.load()"
#: JS: a replay file's bytes verified in the engine.
VERIFY = "(bytes) => window.__floeEngine.verify(bytes)"


def replay_files() -> dict[tuple[str, int, str], bytes]:
    """Every registered ruleset's golden replays: (ruleset, version, name) → the file's bytes."""
    files: dict[tuple[str, int, str], bytes] = {}
    for version in RULESET_VERSIONS:
        for path in sorted(GOLDEN_DIRS[version].glob("*.replay")):
            files[(RULESET_NAME, version, path.stem)] = path.read_bytes()
    for name, version in known():
        if name == RULESET_NAME:
            continue
        for path in sorted((CONFORMANCE_GOLDEN / f"{name}-v{version}").glob("*.replay")):
            files[(name, version, path.stem)] = path.read_bytes()
    missing = set(known()) - {(name, version) for name, version, _ in files}
    assert not missing, f"registered rulesets with no replay here: {missing}"
    return files


async def test_the_browser_engine_reproduces_every_rulesets_log_hashes(web_root: Path) -> None:
    """Each replay verifies in the browser engine with the log hash CPython's verifier reaches."""
    from protocol.replay_codec import decode_replay

    engine = web_root / "engine"
    sizes = {path.name: path.stat().st_size for path in engine.iterdir() if not path.name.endswith(".map")}
    async with serving(web_root) as make:
        opened = await make()
        page = await opened.page("/")
        started = time.perf_counter()
        cold = await until(page, LOAD, 120, "the engine loaded (cold)")
        cold_s = time.perf_counter() - started
        assert cold["python"].startswith("3."), cold
        checked = 0
        for (ruleset, version, name), data in replay_files().items():
            replay = decode_replay(data)
            expected = verify(replay)
            assert expected.ok, (ruleset, version, name, expected.reason)
            got = await page.evaluate(VERIFY, list(data))
            assert got["ok"], (ruleset, version, name, got["reason"])
            assert got["log_hash"] == replay.log_hash == expected.log_hash, (ruleset, version, name)
            assert got["frames"] == expected.frames == replay.final_frame
            checked += 1
        assert checked >= 3 * 6 + 1
    listed = ", ".join(f"{name} {size / 1e6:.2f}" for name, size in sorted(sizes.items()))
    print(f"\nengine files: {sum(sizes.values()) / 1e6:.1f} MB ({listed})")
    print(f"engine start (cold): {cold_s:.2f} s (worker {cold['ms']:.0f} ms, "
          f"rules import {cold['importMs']:.0f} ms)")
