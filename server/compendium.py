"""A ruleset's rule compendium: every number of its tables, with the comment that documents it.

`floe rules` prints it and `GET /api/rules` serves it as JSON (the browser's rules page), from the
ruleset's `rule_tables` (rules/ruleset.py): each section a title and rows of (name, value, comment),
the comments read from the tables' source (`#:` blocks; here, since reading source is I/O).
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, fields, is_dataclass
from types import ModuleType
from typing import Any

from rules.ruleset import Ruleset

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


def _value_text(name: str, value: Any, frame_hz: int) -> str:
    if isinstance(value, tuple):
        text = ", ".join(_value_text("", v, frame_hz) if isinstance(v, tuple) else str(v) for v in value)
        return f"({text})"
    text = str(value)
    if isinstance(value, int) and not isinstance(value, bool) and name.endswith(("_frames", "_frame")):
        text += f" ({value / frame_hz:g} s)"
    return text


def _dataclass_rows(instance: Any, frame_hz: int) -> list[Row]:
    """A dataclass instance's fields (nested dataclasses left to their own table) with their comments
    from the module that defines its class."""
    module = inspect.getmodule(type(instance))
    comments = _comments(module) if module is not None else {}
    rows = []
    owner = type(instance).__name__
    for f in fields(instance):
        value = getattr(instance, f.name)
        if is_dataclass(value):
            continue
        rows.append((f.name, _value_text(f.name, value, frame_hz), comments.get(f"{owner}.{f.name}", "")))
    return rows


def _constant_rows(module: ModuleType, frame_hz: int) -> list[Row]:
    """A tables module's UPPER number and tuple constants with their comments, in source order."""
    notes = _comments(module)
    rows = []
    for name in dir(module):
        value = getattr(module, name)
        if name.isupper() and isinstance(value, int | tuple) and not isinstance(value, bool):
            rows.append((name, _value_text(name, value, frame_hz), notes.get(name, "")))
    order = {name: index for index, name in enumerate(notes)}
    rows.sort(key=lambda row: order.get(row[0], len(order)))
    return rows


def _rows(table: Any, frame_hz: int) -> tuple[Row, ...]:
    """One of a ruleset's `rule_tables` as rows (see rules/ruleset.py `Ruleset.rule_tables`)."""
    if isinstance(table, ModuleType):
        return tuple(_constant_rows(table, frame_hz))
    if is_dataclass(table) and not isinstance(table, type):
        return tuple(_dataclass_rows(table, frame_hz))
    rows: list[Row] = []
    for row in table:
        name, value, comment = row  # a written table's rows are (name, value, comment)
        rows.append((str(name), str(value), str(comment)))
    return tuple(rows)


def compendium(ruleset: Ruleset[Any, Any]) -> Compendium:
    """The compendium of `ruleset`, from its `rule_tables`."""
    heading = f"{ruleset.name} ruleset version {ruleset.version}; frames are 1/{ruleset.frame_hz} s"
    return Compendium(heading, tuple(Section(title, _rows(table, ruleset.frame_hz))
                                     for title, table in ruleset.rule_tables))
