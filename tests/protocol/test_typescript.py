"""The browser client's constants come from the server: the generated TypeScript module is current and
the client's sources hold no hand copy of what it exports."""

from __future__ import annotations

import re
from pathlib import Path

from protocol.typescript import ROOT, TARGET, main, render
from protocol.version import PROTOCOL_VERSION
from rules.changes import MAX_STEP
from rules.versus.inputs import KICK_BIT

SOURCES = ROOT / "clients" / "web" / "src"


def test_the_committed_module_is_what_the_generator_writes() -> None:
    """clients/web/src/generated/protocol.ts is exactly `python -m protocol.typescript`'s output (run it
    after changing a constant it exports), and `--check` agrees."""
    committed = (ROOT / TARGET).read_text(encoding="utf-8")
    assert committed == render(), "run: python -m protocol.typescript"
    assert main(["--check"]) == 0


def test_the_module_holds_the_servers_values() -> None:
    """The module's constants are the server's (a sample read back from the text)."""
    text = render()
    assert f"export const PROTOCOL_VERSION = {PROTOCOL_VERSION};" in text
    assert f"export const KICK_BIT = {KICK_BIT};" in text and f"export const MAX_STEP = {MAX_STEP};" in text
    assert '"rematch"' in text and '"wrong-match"' in text


def test_check_fails_on_a_stale_module(tmp_path: Path) -> None:
    """`--check` exits 1 for a module that is not current, and writing makes it current."""
    stale = tmp_path / "protocol.ts"
    stale.write_text(render().replace(f"= {PROTOCOL_VERSION};", "= 0;"), encoding="utf-8")
    assert main(["--check", "--out", str(stale)]) == 1
    assert main(["--out", str(stale)]) == 0 and main(["--check", "--out", str(stale)]) == 0


def test_the_client_keeps_no_hand_copy() -> None:
    """No source of clients/web (but the generated module) defines a constant the module exports."""
    exported = set(re.findall(r"^export const (\w+)", render(), flags=re.MULTILINE))
    generated = (ROOT / TARGET).resolve()
    copies = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted(SOURCES.rglob("*.ts")) if path.resolve() != generated
        for name in re.findall(r"^\s*(?:export\s+)?const\s+(\w+)\s*=", path.read_text(encoding="utf-8"),
                               flags=re.MULTILINE)
        if name in exported
    ]
    assert not copies, f"hand copies of generated constants: {copies}"
