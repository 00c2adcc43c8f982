"""`rules/` is pure: it imports only `rules` and an allow-list of pure standard-library modules.

DESIGN.md makes this a test rather than a convention: the rules run inside the server, the replay
verifier, bots and third-party clients, so they may not read a clock, draw from `random`, touch files
or sockets, or import the wire (`protocol/`) or the server. Every `.py` under `rules/` is parsed with
`ast` (nothing is imported); absolute imports and relative imports resolved against the file's package
must be `rules.*` or allow-listed. Calls to the builtins `hash` (salted per process for str) and `id`
(an address) are refused too, as are dynamic imports, `eval`/`exec` and console or file I/O.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"

#: Pure standard-library modules `rules/` may import (a dotted name is allowed when it or a parent is).
ALLOWED: frozenset[str] = frozenset({
    "__future__", "typing", "dataclasses", "enum", "fractions", "collections", "collections.abc",
    "itertools", "functools", "math", "types", "hashlib", "json", "struct", "abc", "operator", "bisect",
    "heapq", "re", "string", "copy", "numbers", "textwrap",
    # Beyond the brief's list, both pure and in memory: typed arrays (rules/kick/rng.py's successor
    # table), and marshal's bytes of plain values (rules/synctest.py compares two snapshots by them).
    "array", "marshal",
    # A session holds the state it handed out weakly (rules/kick/view.py): whether the caller still
    # holds it decides only whether the session builds it, never what it shows or what happens.
    "weakref",
})

#: Modules refused by name, with or without a submodule (clock, randomness, I/O, the wire, the server).
FORBIDDEN: frozenset[str] = frozenset({
    "time", "random", "os", "sys", "asyncio", "socket", "threading", "io", "pathlib", "subprocess",
    "datetime", "msgpack", "protocol", "server", "secrets", "uuid", "multiprocessing", "concurrent",
    "selectors", "select", "signal", "shutil", "tempfile", "ssl", "http", "urllib", "logging", "pickle",
    "shelve", "sqlite3", "importlib", "builtins", "ctypes", "gc", "inspect", "zoneinfo", "calendar",
    "fastapi", "uvicorn", "redis", "rich", "floe_cli", "tests", "clients",
})

#: Builtins that may not be called in `rules/`: non-deterministic values, dynamic code, I/O.
FORBIDDEN_CALLS: dict[str, str] = {
    "hash": "hash() of a str is salted per process (PYTHONHASHSEED)",
    "id": "id() is a memory address",
    "__import__": "dynamic import",
    "eval": "dynamic code",
    "exec": "dynamic code",
    "compile": "dynamic code",
    "open": "file I/O",
    "input": "console I/O",
    "print": "console I/O",
    "breakpoint": "debugger hook",
}


@dataclass(frozen=True)
class Finding:
    """One impurity: where it is and what it is."""

    line: int
    what: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.what}"


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted module name of a file under root (`rules/kick/__init__.py` is `rules.kick`)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve(module: str, is_package: bool, level: int, name: str | None) -> str | None:
    """The absolute module of a relative import, or None when it climbs above the top package."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    if level - 1 > len(package) - 1:
        return None
    base = package[: len(package) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _allowed(name: str) -> bool:
    parts = name.split(".")
    return any(".".join(parts[:i]) in ALLOWED for i in range(1, len(parts) + 1))


def _check_module(name: str, line: int, via: str) -> list[Finding]:
    top = name.split(".")[0]
    if top == "rules":
        return []
    if top in FORBIDDEN:
        return [Finding(line, f"{via} imports forbidden module {name!r}")]
    if not _allowed(name):
        return [Finding(line, f"{via} imports {name!r}, which is neither rules.* nor allow-listed")]
    return []


def impurities(source: str, module: str, is_package: bool = False) -> list[Finding]:
    """Every impure import or call in one module's source text (module is its dotted name)."""
    tree = ast.parse(source)
    findings: list[Finding] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                findings += _check_module(alias.name, node.lineno, f"import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            via = f"from {'.' * node.level}{node.module or ''} import ..."
            if node.level == 0:
                assert node.module is not None
                findings += _check_module(node.module, node.lineno, via)
                continue
            resolved = resolve(module, is_package, node.level, node.module)
            if resolved is None or resolved.split(".")[0] != "rules":
                escape = f"{via} climbs out of rules/ (resolves to {resolved!r})"
                findings.append(Finding(node.lineno, escape))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            why = FORBIDDEN_CALLS.get(node.func.id)
            if why is not None:
                findings.append(Finding(node.lineno, f"calls {node.func.id}(): {why}"))
    return sorted(findings, key=lambda f: f.line)


def rules_files() -> list[Path]:
    """Every Python file under rules/."""
    return sorted(RULES.rglob("*.py"))


def test_rules_tree_is_found() -> None:
    """The checker sees the rules package (an empty glob would make every other test vacuous)."""
    names = {module_name(path) for path in rules_files()}
    assert {"rules", "rules.kick", "rules.kick.board", "rules.kick.game", "rules.synctest"} <= names


@pytest.mark.parametrize("path", rules_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_rules_module_is_pure(path: Path) -> None:
    """A rules module imports only rules.* and allow-listed pure stdlib modules, and calls no hash()/id()."""
    if not path.exists():
        pytest.skip(f"{path} was removed while the tests ran")
    found = impurities(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")
    assert not found, f"{path.relative_to(ROOT)} is not pure:\n" + "\n".join(map(str, found))


def test_allow_list_is_pure_standard_library() -> None:
    """Every allow-listed module is in the standard library and none is also forbidden."""
    stdlib = sys.stdlib_module_names
    assert all(name.split(".")[0] in stdlib for name in ALLOWED), sorted(
        n for n in ALLOWED if n.split(".")[0] not in stdlib)
    assert not {name.split(".")[0] for name in ALLOWED} & FORBIDDEN
    required = {"time", "random", "os", "sys", "asyncio", "socket", "threading", "io", "pathlib",
                "subprocess", "datetime", "msgpack", "protocol", "server"}
    assert required <= FORBIDDEN


BAD_MODULE = '''\
"""A rules module gone wrong."""
from __future__ import annotations

import os.path
import random as rnd
from time import perf_counter
from datetime import datetime
import msgpack
from protocol.codec import pack
from server import app
from . import sibling
from ..kick import board
from ... import escape
import numpy
import collections.abc
from typing import Any


def key(name: str) -> int:
    return hash(name) ^ id(name)


def load(name: str) -> Any:
    print(name)
    return __import__(name)
'''


def test_checker_flags_a_bad_module() -> None:
    """The checker flags forbidden, unknown and escaping imports and hash/id/I/O calls, line by line."""
    found = impurities(BAD_MODULE, "rules.kick.bad")
    by_line: dict[int, list[str]] = {}
    for finding in found:
        by_line.setdefault(finding.line, []).append(finding.what)
    assert set(by_line) == {4, 5, 6, 7, 8, 9, 10, 13, 14, 20, 24, 25}
    assert "forbidden module 'os.path'" in by_line[4][0]
    assert "forbidden module 'random'" in by_line[5][0]
    assert "forbidden module 'time'" in by_line[6][0]
    assert "forbidden module 'datetime'" in by_line[7][0]
    assert "forbidden module 'msgpack'" in by_line[8][0]
    assert "forbidden module 'protocol.codec'" in by_line[9][0]
    assert "forbidden module 'server'" in by_line[10][0]
    assert "climbs out of rules/" in by_line[13][0]
    assert "neither rules.* nor allow-listed" in by_line[14][0]
    assert sorted(by_line[20]) == ["calls hash(): hash() of a str is salted per process (PYTHONHASHSEED)",
                                   "calls id(): id() is a memory address"]
    assert by_line[24] == ["calls print(): console I/O"]
    assert by_line[25] == ["calls __import__(): dynamic import"]


def test_checker_passes_a_pure_module() -> None:
    """Relative imports inside rules/, rules.* and allow-listed stdlib imports raise no finding."""
    good = (
        "from __future__ import annotations\n"
        "import collections.abc\n"
        "from fractions import Fraction\n"
        "from . import board\n"
        "from .board import KickBoard\n"
        "from .. import synctest\n"
        "import rules.kick.board\n"
        "from rules.synctest import state_checksum\n"
        "def f(x: int) -> int:\n"
        "    return abs(x) + x.__index__()\n"
    )
    assert impurities(good, "rules.kick.good") == []
    assert impurities("from . import board\n", "rules.kick", is_package=True) == []
    assert impurities("from .. import x\n", "rules", is_package=True)[0].what.endswith("(resolves to None)")


def test_resolve_relative_imports() -> None:
    """Relative imports resolve against the module's package (a package's own __init__ is its package)."""
    assert resolve("rules.kick.board", False, 1, "geometry") == "rules.kick.geometry"
    assert resolve("rules.kick.board", False, 2, "synctest") == "rules.synctest"
    assert resolve("rules.kick.board", False, 2, None) == "rules"
    assert resolve("rules.kick", True, 1, "board") == "rules.kick.board"
    assert resolve("rules.kick.board", False, 3, "server") is None
    assert module_name(ROOT / "rules" / "kick" / "__init__.py") == "rules.kick"
    assert module_name(ROOT / "rules" / "synctest.py") == "rules.synctest"
