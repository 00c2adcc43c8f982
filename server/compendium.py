"""The rule compendium: every number of the attack table, the versus settings and Pengo's, with its comment.

`floe rules` prints it and `GET /api/rules` serves it as JSON (the browser's rules page), from this
one table: each section a title and rows of (name, value, the comment that documents it in
rules/versus/tables.py or rules/kick/tables.py).
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, fields, is_dataclass
from types import ModuleType
from typing import Any

from rules.versus.tables import FRAME_HZ

Row = tuple[str, str, str]


@dataclass(frozen=True)
class Section:
    """One table of the compendium."""

    title: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Compendium:
    """The heading and the sections, in print order."""

    heading: str
    sections: tuple[Section, ...]

    def plain(self) -> dict[str, Any]:
        """As JSON: {"heading", "sections": [{"title", "rows": [[name, value, comment], …]}]}."""
        return {
            "heading": self.heading,
            "sections": [{"title": s.title, "rows": [list(row) for row in s.rows]} for s in self.sections],
        }


def _comments(module: ModuleType) -> dict[str, str]:
    """The documentation comment of each assignment in a module's source, by name ("Class.field" in classes).

    A `#:` comment block right above an assignment documents it; otherwise a trailing `# …` on its line;
    otherwise it is "" (a name that shares the comment of the block above it). In source order.
    """
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return {}
    lines = source.splitlines()
    found: dict[str, str] = {}

    def note(name: str, line: int) -> None:
        above: list[str] = []
        index = line - 2
        while index >= 0 and lines[index].strip().startswith("#:"):
            above.insert(0, lines[index].strip()[2:].strip())
            index -= 1
        if above:
            found[name] = " ".join(above)
            return
        text = lines[line - 1]
        found[name] = text.split("#", 1)[1].strip() if "#" in text else ""

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{node.name}.")
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                note(prefix + node.target.id, node.lineno)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        note(prefix + target.id, node.lineno)

    visit(list(ast.parse(source).body), "")
    return found


def _value_text(name: str, value: Any) -> str:
    if isinstance(value, tuple):
        text = ", ".join(_value_text("", v) if isinstance(v, tuple) else str(v) for v in value)
        return f"({text})"
    text = str(value)
    if isinstance(value, int) and not isinstance(value, bool) and name.endswith(("_frames", "_frame")):
        text += f" ({value / FRAME_HZ:g} s)"
    return text


def _dataclass_rows(instance: Any, comments: dict[str, str]) -> list[tuple[str, str, str]]:
    rows = []
    owner = type(instance).__name__
    for f in fields(instance):
        value = getattr(instance, f.name)
        if is_dataclass(value):
            continue
        rows.append((f.name, _value_text(f.name, value), comments.get(f"{owner}.{f.name}", "")))
    return rows


def _constant_rows(module: ModuleType) -> list[tuple[str, str, str]]:
    """A tables module's UPPER number and tuple constants with their comments, in source order."""
    notes = _comments(module)
    rows = []
    for name in dir(module):
        value = getattr(module, name)
        if name.isupper() and isinstance(value, int | tuple) and not isinstance(value, bool):
            rows.append((name, _value_text(name, value), notes.get(name, "")))
    order = {name: index for index, name in enumerate(notes)}
    rows.sort(key=lambda row: order.get(row[0], len(order)))
    return rows


def compendium() -> Compendium:
    """The compendium of the ruleset this build plays."""
    from rules.kick import tables as kick_tables
    from rules.versus import tables as versus_tables

    versus_notes = _comments(versus_tables)
    rules = versus_tables.VERSUS_RULES
    heading = (f"{versus_tables.RULESET_NAME} ruleset version {versus_tables.RULESET_VERSION} "
               f"(rules/versus/tables.py); frames are 1/{FRAME_HZ} s")
    return Compendium(heading, (
        Section("Versus settings (VersusRules)", tuple(_dataclass_rows(rules, versus_notes))),
        Section("Attack table (AttackTable)", tuple(_dataclass_rows(rules.attack, versus_notes))),
        Section("Fixed for the ruleset version (not in a replay's config)",
                tuple(_constant_rows(versus_tables))),
        Section("Pengo (rules/kick/tables.py)", tuple(_constant_rows(kick_tables))),
    ))
