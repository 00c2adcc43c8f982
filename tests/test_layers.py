"""Imports go one way: each layer of server/ and protocol/ imports only what ARCHITECTURE.md allows it.

Like tests/test_purity.py for rules/, every module is parsed (nothing is imported) and each of its
imports, absolute or relative, is resolved to a dotted name and checked against its layer's rule:

- `server.netcode` (the runner, the input timelines) and `protocol` are sans-I/O: no asyncio, no web
  framework or websocket library, no clock, randomness, secrets, OS or sockets;
- `server.netcode` and `server.match` serve any ruleset: they import the rules' seam (rules.ruleset,
  rules.registry, rules.replay, rules.result, rules.synctest), never one game (rules.versus, rules.kick);
- the layers of server/ import downward only: http → match → netcode; transport → match; none of
  them imports http; match and netcode import no transport; store imports no other layer.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.test_purity import ROOT, module_name, resolve

#: Sans-I/O: what netcode and protocol may not import (a dotted name is refused with its submodules).
IO_AND_TIME = frozenset({
    "asyncio", "fastapi", "starlette", "uvicorn", "websockets", "httpx", "time", "random", "secrets",
    "os", "socket", "selectors", "threading", "multiprocessing", "concurrent", "datetime", "signal",
    "subprocess", "uvloop", "redis",
})
#: One game's rules, which the ruleset-generic layers may not import.
ONE_GAME = frozenset({"rules.versus", "rules.kick", "rules.solo", "rules.payload", "tests"})


@dataclass(frozen=True)
class Layer:
    """A package and the imports it may not make."""

    package: str
    forbidden: frozenset[str]


LAYERS: tuple[Layer, ...] = (
    Layer("protocol", IO_AND_TIME | {"server", "floe_cli", "tests"}),
    Layer("server.netcode", IO_AND_TIME | ONE_GAME | {"server.match", "server.transport", "server.http",
                                                       "server.store", "server.app", "server.embed"}),
    Layer("server.match", ONE_GAME | {"server.transport", "server.http", "server.app", "server.embed",
                                      "fastapi", "starlette", "uvicorn", "websockets"}),
    Layer("server.transport", frozenset({"server.http", "server.app", "server.store", "tests"})),
    Layer("server.http", frozenset({"server.transport", "server.app", "server.embed", "tests"})),
    Layer("server.store", frozenset({"server.match", "server.netcode", "server.transport", "server.http",
                                     "server.app", "tests"})),
)


def _refused(name: str, forbidden: frozenset[str]) -> str | None:
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        prefix = ".".join(parts[:i])
        if prefix in forbidden:
            return prefix
    return None


def imports_of(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, resolved to dotted names, with its line."""
    module = module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                assert node.module is not None
                base = node.module
            else:
                resolved = resolve(module, path.name == "__init__.py", node.level, node.module)
                assert resolved is not None, f"{path}: a relative import climbs out of the tree"
                base = resolved
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names if alias.name != "*"]
    return found


def layer_files() -> list[tuple[Layer, Path]]:
    """Every Python file of every layer."""
    out = []
    for layer in LAYERS:
        folder = ROOT / layer.package.replace(".", "/")
        out += [(layer, path) for path in sorted(folder.rglob("*.py"))]
    return out


def test_every_layer_is_found() -> None:
    """Each layer's folder holds modules (an empty glob would make the other tests vacuous)."""
    packages = {layer.package for layer, _ in layer_files()}
    assert packages == {layer.package for layer in LAYERS}


@pytest.mark.parametrize(("layer", "path"), layer_files(), ids=lambda v: str(v.relative_to(ROOT))
                         if isinstance(v, Path) else v.package)
def test_the_layer_imports_only_what_it_may(layer: Layer, path: Path) -> None:
    """A module of a layer imports nothing its layer forbids (see the module docstring)."""
    bad = []
    for line, name in imports_of(path):
        prefix = _refused(name, layer.forbidden)
        if prefix is not None and not name.startswith(layer.package):
            bad.append(f"line {line}: {name} ({layer.package} may not import {prefix})")
    assert not bad, f"{path.relative_to(ROOT)}:\n" + "\n".join(bad)


def test_the_checker_catches_a_bad_import() -> None:
    """The checker resolves relative imports and refuses a netcode module that reads the clock or one game."""
    assert _refused("rules.versus.match", ONE_GAME) == "rules.versus"
    assert _refused("rules.ruleset", ONE_GAME) is None
    assert _refused("time", IO_AND_TIME) == "time"
    assert _refused("timeline", IO_AND_TIME) is None
    assert ("server.match.hub" in {name for _, name in imports_of(ROOT / "server/http/context.py")})
