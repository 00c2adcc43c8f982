"""Every closed vocabulary (each Enum in rules/, protocol/ and server/) documents each member.

The enums are found by importing every module of the three packages, so a new vocabulary is held to
this without a list to keep up to date.
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
import pkgutil
import textwrap

import pytest

PACKAGES = ("rules", "protocol", "server")


def member_docstrings(vocabulary: type[enum.Enum]) -> dict[str, str]:
    """Each member's docstring: the string literal right below its assignment in the class's source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(vocabulary)))
    body = tree.body[0]
    assert isinstance(body, ast.ClassDef)
    docs = {}
    for statement, following in zip(body.body, body.body[1:], strict=False):
        if (isinstance(statement, ast.Assign) and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant) and isinstance(following.value.value, str)):
            target = statement.targets[0]
            assert isinstance(target, ast.Name), ast.dump(target)
            docs[target.id] = following.value.value
    return docs


def vocabularies() -> list[type[enum.Enum]]:
    """Every Enum class defined in the packages (imported module by module)."""
    found: dict[str, type[enum.Enum]] = {}
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.walk_packages(package.__path__, f"{package_name}."):
            module = importlib.import_module(info.name)
            for _, value in inspect.getmembers(module, inspect.isclass):
                if issubclass(value, enum.Enum) and value.__module__ == module.__name__:
                    found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[name] for name in sorted(found)]


def test_the_vocabularies_are_found() -> None:
    """The walk finds the known vocabularies (an empty walk would make the other test vacuous)."""
    names = {cls.__name__ for cls in vocabularies()}
    assert {"ErrorCode", "CloseCode", "MatchState", "Outcome", "EndReason", "KickStatus"} <= names


@pytest.mark.parametrize("vocabulary", vocabularies(), ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_every_member_has_a_docstring(vocabulary: type[enum.Enum]) -> None:
    """Every member of a vocabulary is documented by a docstring of its own."""
    docs = member_docstrings(vocabulary)
    assert sorted(docs) == sorted(vocabulary.__members__)
    assert all(doc.strip() for doc in docs.values()) and len(set(docs.values())) == len(docs)
