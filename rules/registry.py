"""Every ruleset this build can play and verify, by (name, version).

    ruleset = lookup("pengo-versus", 2)     # UnknownRulesetError (a ValueError) if there is none

A newer version of a ruleset ships next to the older one instead of replacing it, so every replay
recorded under an older version stays verifiable (pengo-versus 1, 2 and 3 are all served: new matches
are played under the newest, `newest(name)`, which is `rules.versus.tables.RULESET_VERSION`; each
replay verifies under its own). Pengo's `pengo-versus` and `pengo-solo`, and Payload's `payload` and
`payload-versus` are registered. The
built-in rulesets are registered when this module is imported; `register` adds another (the tests'
toy ruleset, a plug-in) and `unregister` takes it away again.
"""

from __future__ import annotations

from typing import Any

from .payload.ruleset import PAYLOAD, PAYLOAD_VERSUS
from .ruleset import Ruleset
from .solo.ruleset import PENGO_SOLO
from .versus.ruleset import PENGO_VERSUS_BY_VERSION

__all__ = ["UnknownRulesetError", "known", "lookup", "newest", "register", "unregister"]

_RULESETS: dict[tuple[str, int], Ruleset[Any, Any]] = {}


class UnknownRulesetError(ValueError):
    """No ruleset of that name and version in this build."""


def register(ruleset: Ruleset[Any, Any]) -> None:
    """Make `ruleset` findable by its name and version; ValueError if another one holds that key."""
    key = (ruleset.name, ruleset.version)
    held = _RULESETS.get(key)
    if held is not None and held is not ruleset:
        raise ValueError(f"ruleset {key[0]} v{key[1]} is already registered")
    _RULESETS[key] = ruleset


def unregister(ruleset: Ruleset[Any, Any]) -> None:
    """Forget `ruleset` (a no-op if it was not registered)."""
    key = (ruleset.name, ruleset.version)
    if _RULESETS.get(key) is ruleset:
        del _RULESETS[key]


def lookup(name: str, version: int) -> Ruleset[Any, Any]:
    """The ruleset of that name and version."""
    ruleset = _RULESETS.get((name, version))
    if ruleset is None:
        versions = sorted(v for n, v in _RULESETS if n == name)
        if versions:
            raise UnknownRulesetError(
                f"ruleset {name} version {version!r} is not in this build (it has versions {versions})"
            )
        names = sorted({n for n, _ in _RULESETS})
        raise UnknownRulesetError(f"unknown ruleset {name!r} (this build plays {', '.join(names)})")
    return ruleset


def newest(name: str) -> Ruleset[Any, Any]:
    """The newest version of the ruleset of that name: the one a new match is played under."""
    versions = [v for n, v in _RULESETS if n == name]
    if not versions:
        names = sorted({n for n, _ in _RULESETS})
        raise UnknownRulesetError(f"unknown ruleset {name!r} (this build plays {', '.join(names)})")
    return _RULESETS[(name, max(versions))]


def known() -> list[tuple[str, int]]:
    """Every registered (name, version), sorted."""
    return sorted(_RULESETS)


for _versus in PENGO_VERSUS_BY_VERSION.values():
    register(_versus)
register(PENGO_SOLO)
register(PAYLOAD)
register(PAYLOAD_VERSUS)
