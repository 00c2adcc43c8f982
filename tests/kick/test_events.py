"""The event vocabularies are closed: every event class of a module is in its union and its registry."""

from __future__ import annotations

import dataclasses
import inspect
from types import ModuleType
from typing import Any

import pytest

from rules.kick import events as kick_events
from rules.kick.events import EVENT_TYPES
from rules.versus import events as versus_events


def event_classes(module: ModuleType) -> set[type[Any]]:
    """The dataclasses of a module that carry a `kind` (its events)."""
    return {
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__ == module.__name__ and dataclasses.is_dataclass(cls) and isinstance(
            getattr(cls, "kind", None), str)
    }


@pytest.mark.parametrize(("module", "registry"), [
    (kick_events, kick_events.EVENT_TYPES),
    (versus_events, versus_events.VERSUS_EVENT_TYPES),
])
def test_every_event_class_is_registered(module: ModuleType, registry: dict[str, type[Any]]) -> None:
    """An event class defined but left out of its union would be missing here: the registry is the union."""
    assert set(registry.values()) == event_classes(module)
    assert all(kind == cls.kind for kind, cls in registry.items())


def test_kinds_are_unique() -> None:
    """No two kick events share a kind (the registry would silently keep only one)."""
    kinds = [cls.kind for cls in event_classes(kick_events)]
    assert len(kinds) == len(set(kinds)) == len(EVENT_TYPES)
