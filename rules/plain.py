"""Strict checks of plain data (what replays, configs and results are read from): each names the field.

    seed = check_int("seed", data["seed"], 0, 0xFFFFFFFF)   # ValueError "seed: …" otherwise

Every check raises ValueError with the dotted name of the field and a short rendering of what was
found, so a bad replay or config is refused with a message that says where it is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: Longest name (seat, ruleset, result reason) plain data may carry.
MAX_NAME = 64


def is_int(value: object) -> bool:
    """An int and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def show(value: object) -> str:
    """A short rendering of a value for an error message: its type and a clipped repr."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """An integer in [low, high] (no upper bound when high is None)."""
    if not is_int(value):
        raise ValueError(f"{name}: expected an integer, got {show(value)}")
    assert isinstance(value, int)
    if value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"≥ {low}"
        raise ValueError(f"{name}: must be an integer {span}, got {value}")
    return value


def check_str(name: str, value: object, longest: int = MAX_NAME) -> str:
    """A non-empty string of at most `longest` characters."""
    if not isinstance(value, str):
        raise ValueError(f"{name}: expected a string, got {show(value)}")
    if not value or len(value) > longest:
        raise ValueError(f"{name}: must be 1 to {longest} characters, got {len(value)}")
    return value


def check_list(name: str, value: object) -> list[Any] | tuple[Any, ...]:
    """A list (or tuple)."""
    if not isinstance(value, list | tuple):
        raise ValueError(f"{name}: expected a list, got {show(value)}")
    return value


def check_map(name: str, value: object) -> Mapping[str, Any]:
    """A dict with string keys."""
    if not isinstance(value, dict):
        raise ValueError(f"{name}: expected a map, got {show(value)}")
    for key in value:
        if not isinstance(key, str):
            raise ValueError(f"{name}: keys must be strings, got {show(key)}")
    return value


def exact_keys(name: str, data: Mapping[str, Any], expected: Sequence[str]) -> None:
    """The map has exactly these keys (the first missing or unknown one is named)."""
    missing = [key for key in expected if key not in data]
    if missing:
        raise ValueError(f"{name}.{missing[0]}: missing")
    extra = [key for key in data if key not in expected]
    if extra:
        raise ValueError(f"{name}.{extra[0]}: unknown field")


def copy_plain(value: Any) -> Any:
    """A deep copy of plain data, tuples as lists."""
    if isinstance(value, dict):
        return {key: copy_plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [copy_plain(item) for item in value]
    return value
