"""What may import what: an allow-list naming, for every package of the tree, the packages it may import.

Like tests/test_purity.py for rules/, every module is parsed (nothing is imported) and each of its
imports, absolute or relative, is resolved to a dotted name. The name belongs to the *unit* whose
dotted name is its longest prefix among `LAYERS` (`rules.versus.bots.competent` is `rules.versus`'s,
`rules.plain` is the rules core's, `server.config` is its own). A module may import its own unit, the
standard library, and what its unit's `Layer` names: first-party units (`may_import`) and third-party
distributions by import name (`third_party`). Anything else is refused, so a new package is refused
until it is named here: `test_every_package_is_named` fails for a folder of rules/ or server/ (or a
top-level one) that has no `Layer`, and a module that falls to an enclosing unit gets only that
unit's (narrow) allowance.

What the list says (ARCHITECTURE.md):

- the rules core (`rules`: the seam `rules.ruleset`, and `result`, `errors`, `plain`, `changes`,
  `synctest`) imports no other package; `rules.registry` is where the games are named (it imports
  each game); `rules.replay` finds a ruleset through the registry;
- a game imports the core and the games it is built on: `rules.kick` (the Pengo engine) nothing but
  the core; `rules.versus` kick; `rules.solo` kick and versus (it plays versus's byte and bots);
  `rules.payload` versus's event-log chain (`rules.versus.log.chain_plain`) and nothing else of
  another game. No game imports the registry, replay, protocol or server;
- `protocol` and `server.netcode` are sans-I/O: besides their allow-list, no asyncio, web framework
  or websocket library, clock, randomness, secrets, OS or sockets (`IO_AND_TIME`);
- `server.netcode` and `server.match` serve any ruleset: the rules core and replay (and the match layer
  the registry, where a match's ruleset is found by name), never one game;
- the layers of server/ import downward only: http → match → netcode; transport → match; none of
  them imports http; match and netcode import no transport; store imports no other layer; cluster
  (leases, journals, the bus) imports the netcode's data and the store, nothing above them. The
  top-level modules of server/ are named one by one (config, logs, errors, ... and the composition
  roots app, cli, embed);
- `tests` may import anything.

The composition root `server.config` names the node's default rulesets by their registry names
(pengo-versus, the daily's pengo-solo): no module of server/ imports a game. Today's truth the list
records rather than endorses (a line to delete when it is fixed): `protocol` reads `rules.kick` and
`rules.versus` (the TypeScript tables, the client's input prediction).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.test_purity import ROOT, module_name, resolve

#: Sans-I/O: what netcode and protocol may not import (a dotted name is refused with its submodules).
IO_AND_TIME = frozenset({
    "asyncio", "fastapi", "starlette", "uvicorn", "websockets", "httpx", "time", "random", "secrets",
    "os", "socket", "selectors", "threading", "multiprocessing", "concurrent", "datetime", "signal",
    "subprocess", "uvloop", "redis", "hiredis",
})
#: The top-level packages of this repository (every other import is the standard library or third party).
FIRST_PARTY = frozenset({"rules", "protocol", "server", "floe_cli", "bench", "tests"})
#: A `third_party` that allows every distribution (the tests alone).
ANY = frozenset({"*"})


@dataclass(frozen=True)
class Layer:
    """A unit of the tree (a package, or a module named on its own) and what it may import."""

    unit: str
    may_import: frozenset[str] = frozenset()
    third_party: frozenset[str] = frozenset()
    sans_io: bool = False


def _units(*names: str) -> frozenset[str]:
    return frozenset(names)


_RULES_CORE = _units("rules")
_SERVER_SHARED = _units("server.config", "server.errors", "server.logs", "server.tokens", "server.origins")

LAYERS: tuple[Layer, ...] = (
    # ---- rules/: pure, standard library only (tests/test_purity.py) ----
    Layer("rules"),
    Layer("rules.registry", _units("rules", "rules.versus", "rules.solo", "rules.payload")),
    Layer("rules.replay", _units("rules", "rules.registry")),
    Layer("rules.kick", _RULES_CORE),
    Layer("rules.versus", _units("rules", "rules.kick")),
    Layer("rules.solo", _units("rules", "rules.kick", "rules.versus")),
    Layer("rules.payload", _units("rules", "rules.versus")),
    # ---- protocol/: the wire, sans-I/O (rules.payload: its input bytes for the generated client module) ----
    Layer("protocol", _units("rules", "rules.replay", "rules.kick", "rules.versus", "rules.payload"),
          _units("msgpack", "pydantic"), sans_io=True),
    # ---- server/: its layers ----
    Layer("server.netcode", _RULES_CORE, sans_io=True),
    Layer("server.match", _units("rules", "rules.registry", "rules.replay", "protocol", "server.netcode",
                                 "server.store", "server.cluster",
                                 *_SERVER_SHARED), _units("glicko2")),
    Layer("server.transport", _units("protocol", "server.match", "server.config", "server.errors",
                                     "server.logs", "server.origins"), _units("websockets", "h11")),
    Layer("server.http", _units("rules", "rules.registry", "rules.replay", "protocol", "server.netcode",
                                "server.match", "server.store", "server.compendium", *_SERVER_SHARED),
          _units("fastapi", "starlette", "pydantic")),
    Layer("server.store", _units("protocol"), _units("redis")),
    # Leases, journals and the bus between nodes: the netcode's plain data, the store's error.
    Layer("server.cluster", _units("server.netcode", "server.store"), _units("redis", "hiredis", "msgpack")),
    # ---- server/'s top-level modules, one by one ----
    Layer("server"),
    Layer("server.errors", _units("protocol")),
    Layer("server.logs"),
    Layer("server.tokens", _units("server.errors")),
    Layer("server.origins"),
    # The composition of every layer's settings section.
    Layer("server.config", _units("rules", "rules.registry", "protocol", "server.netcode",
                                  "server.match", "server.http", "server.store", "server.transport",
                                  "server.tokens", "server.errors", "server.cluster")),
    # The composition root: builds the stores, the ownership of shared matches, the signer, the clock, the
    # hub and its peers, and wires them.
    Layer("server.node", _units("protocol", "server.match", "server.store", "server.cluster",
                                *_SERVER_SHARED)),
    Layer("server.compendium", _RULES_CORE),
    Layer("server.botclient", _units("rules", "rules.registry", "protocol"), _units("websockets")),
    Layer("server.app", _units("protocol", "server.http", "server.match", "server.store", "server.node",
                               *_SERVER_SHARED),
          _units("fastapi", "starlette")),
    Layer("server.embed", _units("server.transport"), _units("fastapi", "uvicorn", "uvloop")),
    Layer("server.cli", _units("rules", "rules.registry", "server.app", "server.embed", "server.transport",
                               *_SERVER_SHARED), _units("fastapi")),
    # ---- the command line, the benchmarks, the tests ----
    Layer("floe_cli", _units("rules", "rules.registry", "rules.replay", "rules.kick", "rules.solo",
                             "rules.versus", "protocol", "server.cli", "server.compendium"), _units("rich")),
    Layer("bench", _units("rules", "rules.registry", "rules.replay", "rules.kick", "rules.versus",
                          "rules.payload", "protocol", "server.netcode", "server.match", "server.store",
                          "server.app", "server.botclient", "server.config", "server.embed", "server.node",
                          "server.cluster", "floe_cli"),
          _units("httpx", "playwright", "redis", "rich", "uvloop", "websockets")),
    Layer("tests", ANY, ANY),
)
BY_UNIT = {layer.unit: layer for layer in LAYERS}


def unit_of(name: str) -> str | None:
    """The unit a dotted first-party name belongs to: its longest prefix among LAYERS (None: none)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in BY_UNIT:
            return prefix
    return None


def imports_of(path: Path, module: str | None = None) -> list[tuple[int, str]]:
    """Every module a file imports, resolved to dotted names (`from a import b` is `a.b`), with its line.

    `module` is the file's dotted name (default: from its place under ROOT)."""
    if module is None:
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
            found += [(node.lineno, base if alias.name == "*" else f"{base}.{alias.name}")
                      for alias in node.names]
    return found


def refusal(unit: str, name: str) -> str | None:
    """Why `unit` may not import the dotted module `name` (None: it may)."""
    layer = BY_UNIT[unit]
    head = name.split(".")[0]
    if head in FIRST_PARTY:
        target = unit_of(name)
        if target is None:
            return f"{name} belongs to no unit named in LAYERS (tests/test_layers.py)"
        if target == unit or target in layer.may_import or layer.may_import is ANY:
            return None
        allowed = ", ".join(sorted(layer.may_import)) or "no other unit"
        return f"{unit} may not import {target} (allowed: {allowed})"
    if head in sys.stdlib_module_names or head == "__future__":
        if layer.sans_io and any(name == bad or name.startswith(bad + ".") for bad in IO_AND_TIME):
            return f"{unit} is sans-I/O and may not import {name}"
        return None
    if layer.third_party is ANY or head in layer.third_party:
        return None
    if layer.sans_io and head in IO_AND_TIME:
        return f"{unit} is sans-I/O and may not import {name}"
    return (f"{unit} may not import the third-party {head} "
            f"(allowed: {', '.join(sorted(layer.third_party)) or 'none'})")


def violations(path: Path, module: str | None = None) -> list[str]:
    """Every refused import of one file, as `line N: name (why)`."""
    if module is None:
        module = module_name(path)
    unit = unit_of(module)
    if unit is None:
        return [f"line 1: the module {module} belongs to no unit named in LAYERS (tests/test_layers.py)"]
    out = []
    for line, name in imports_of(path, module):
        why = refusal(unit, name)
        if why is not None:
            out.append(f"line {line}: {name} ({why})")
    return out


def source_files() -> list[Path]:
    """Every Python file of the first-party packages."""
    return [path for top in sorted(FIRST_PARTY) for path in sorted((ROOT / top).rglob("*.py"))]


def packages() -> list[str]:
    """Every package that must be named: each top-level folder holding Python, and each folder of rules/
    and server/ holding Python."""
    out = []
    for top in sorted(p for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if top.name in ("clients", "node_modules") or not any(top.glob("*.py")):
            continue
        out.append(top.name)
        if top.name in ("rules", "server"):
            out += [f"{top.name}.{sub.name}" for sub in sorted(top.iterdir())
                    if sub.is_dir() and any(sub.rglob("*.py"))]
    return out


def test_every_package_is_named() -> None:
    """Each top-level package and each package of rules/ and server/ has its own Layer: a new one is
    refused until this file says what it may import."""
    _assert_named(packages())
    assert {"rules.kick", "rules.versus", "rules.solo", "rules.payload", "server.netcode"} <= set(packages())


def test_every_layer_is_found() -> None:
    """Each Layer names a unit that exists (a stale entry would allow a package that is gone)."""
    modules = {module_name(path) for path in source_files()}
    missing = [layer.unit for layer in LAYERS
               if not any(m == layer.unit or m.startswith(layer.unit + ".") for m in modules)]
    assert not missing, f"LAYERS names units with no module: {missing}"


@pytest.mark.parametrize("path", source_files(),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_module_imports_only_what_its_layer_allows(path: Path) -> None:
    """A module imports only its own unit, the standard library and what its Layer names."""
    bad = violations(path)
    assert not bad, f"{path.relative_to(ROOT)}:\n" + "\n".join(bad)


BAD_GAME = '''\
"""A game module that reaches past the seam."""
from __future__ import annotations

import time
from rules.ruleset import Bot
from rules.kick.geometry import CELL_PX
from server.match import hub
from ..registry import lookup
import numpy
'''


def test_the_checker_refuses_a_bad_import(tmp_path: Path) -> None:
    """A module written to a temporary file, checked as if it were rules/kick/bad.py, rules/solo/bad.py
    or server/netcode/bad.py: each refused import is named with its line and the reason."""
    path = tmp_path / "bad.py"
    path.write_text(BAD_GAME, encoding="utf-8")
    kick = violations(path, "rules.kick.bad")
    assert kick == [
        "line 7: server.match.hub (rules.kick may not import server.match (allowed: rules))",
        "line 8: rules.registry.lookup (rules.kick may not import rules.registry (allowed: rules))",
        "line 9: numpy (rules.kick may not import the third-party numpy (allowed: none))",
    ]
    solo = violations(path, "rules.solo.bad")
    assert [line.split(":")[0] for line in solo] == ["line 7", "line 8", "line 9"]  # kick is solo's
    netcode = violations(path, "server.netcode.bad")
    assert netcode[0] == "line 4: time (server.netcode is sans-I/O and may not import time)"
    assert "line 6: rules.kick.geometry.CELL_PX (server.netcode may not import rules.kick " in netcode[1]
    assert len(netcode) == 5
    # A package nobody named falls to its enclosing unit, with that unit's allowance: the core's.
    tetris = violations(path, "rules.tetris.bad")
    assert tetris[0].startswith("line 6: rules.kick.geometry.CELL_PX (rules may not import rules.kick")
    with pytest.raises(AssertionError, match=r"rules\.tetris"):
        _assert_named(["rules.tetris"])


def _assert_named(names: list[str]) -> None:
    unnamed = [name for name in names if name not in BY_UNIT]
    assert not unnamed, f"name these packages in tests/test_layers.py LAYERS: {unnamed}"


def test_the_checker_resolves_names() -> None:
    """Relative imports resolve, a from-import names the module it takes, and units nest."""
    assert unit_of("rules.versus.bots.competent") == "rules.versus"
    assert unit_of("rules.plain") == "rules"
    assert unit_of("server.config") == "server.config"
    assert unit_of("server.match.hub") == "server.match"
    names = {name for _, name in imports_of(ROOT / "server/http/context.py")}
    assert any(name.startswith("server.match.hub.") for name in names), names  # `from ..match.hub import X`
    assert refusal("rules.versus", "rules.kick.geometry") is None
    assert refusal("rules.kick", "rules.versus.inputs") is not None
    assert refusal("protocol", "asyncio") is not None
    assert refusal("server.match", "asyncio") is None
