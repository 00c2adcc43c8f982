"""pengo-versus as a `Ruleset` (rules/ruleset.py): its config as plain data, its matches, inputs and bots.

Two versions run on the one engine and differ by data (rules/versus/tables.py): `PENGO_VERSUS_V1`
("pengo-versus", 1), which every replay recorded before the bump verifies under, and `PENGO_VERSUS`
("pengo-versus", 2), the one new matches are played under. rules/registry.py registers both.

A config (`VersusConfig`) is written to plain data field by field and read back strictly: every
field of the version present and no other, integers bounded, the difficulty, lives and skill must
make a board, the landing kinds ordered. Version 1's plain form is the one it always had: the
fields version 2 added (`V2_FIELDS`) are left out of it and read back at their version-1 values, so
a version-1 replay's config bytes never change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rules.kick import tables as kick_tables
from rules.plain import check_int, check_list, check_map, check_str, exact_keys, is_int, show

from . import tables as versus_tables
from .bots import BOT_NAMES, Bot, make_bot
from .ending import EndReason
from .inputs import INPUTS, PengoInputs
from .match import MAX_SEATS, MIN_SEATS, VersusConfig, VersusMatch, versus_config
from .tables import FRAME_HZ, RULESET_NAME, RULESET_VERSION, RULESET_VERSIONS
from .view import TABLES, SeatView

__all__ = [
    "PENGO_VERSUS",
    "PENGO_VERSUS_BY_VERSION",
    "PENGO_VERSUS_V1",
    "V2_FIELDS",
    "V3_FIELDS",
    "VersusRuleset",
    "config_from_plain",
    "config_plain",
]

#: The config fields version 2 added, by dotted path: absent from version 1's plain form, where they
#: keep their version-1 values (the dataclasses' defaults: no effect).
V2_FIELDS: frozenset[str] = frozenset({
    "fidelity",
    "rules.attack.garbage_max_distance",
    "rules.attack.nuisance_eggs",
    "rules.attack.extra_slots",
    "rules.attack.landing_hurry_frames",
    "rules.attack.landing_hurry_minutes",
    "rules.attack.landing_hurry_unit_frames",
    "rules.attack.landing_hurry_max_frames",
    "rules.attack.exchange",
})
#: The config fields version 3 added: absent from versions 1 and 2's plain forms.
V3_FIELDS: frozenset[str] = frozenset({"slot_timers"})
#: Each version's fields left out of its plain form.
_OMITTED: dict[int, frozenset[str]] = {1: V2_FIELDS | V3_FIELDS, 2: V3_FIELDS, 3: frozenset()}
#: The values of string fields a config may hold, by dotted path.
_CHOICES: dict[str, tuple[str, ...]] = {
    "fidelity": ("first-port", "arcade"),
    "slot_timers": ("first-port", "arcade"),
    "rules.attack.nuisance_eggs": ("hidden", "hatching"),
    "rules.attack.exchange": ("in-seat-order", "simultaneous"),
}

#: Upper bound of every integer in a config (numbers beyond it are never meaningful rules).
MAX_CONFIG_INT = 1_000_000_000
#: Numbers that bound the work of one landing or of the table itself (see `_CONFIG_BOUNDS`).
MAX_LANDING_UNITS = 64

#: Bounds beyond "an integer from 0 to MAX_CONFIG_INT", by dotted path in the config's plain data.
_CONFIG_BOUNDS: dict[str, tuple[int, int]] = {
    "rules.time_limit_frames": (1, MAX_CONFIG_INT),
    "rules.attack.landing_cap": (1, MAX_LANDING_UNITS),
    "rules.attack.garbage_max": (0, MAX_LANDING_UNITS),
    "rules.attack.nuisance_max": (0, MAX_LANDING_UNITS),
    "rules.attack.gem_offset": (0, MAX_LANDING_UNITS),
    "rules.attack.gem_count": (1, 99),
    "rules.attack.gem_step_frames": (1, MAX_CONFIG_INT),
    "rules.attack.fuse_frames": (1, MAX_CONFIG_INT),
    "rules.attack.margin_num": (1, 1000),
    "rules.attack.margin_den": (1, 1000),
    "rules.attack.extra_slots": (0, 8),
    "rules.attack.landing_hurry_minutes": (0, 60),
}


def _plain_value(value: Any, path: str, omitted: frozenset[str], template: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        plain = {}
        for f in dataclasses.fields(value):
            at = f"{path}.{f.name}" if path else f.name
            field_value, field_template = getattr(value, f.name), getattr(template, f.name)
            if at in omitted:
                if field_value != field_template:
                    raise ValueError(
                        f"config.{at}: {show(field_value)} is not a rule of this version "
                        f"(it has only {show(field_template)})"
                    )
                continue
            plain[f.name] = _plain_value(field_value, at, omitted, field_template)
        return plain
    if isinstance(value, tuple | list):
        return [_plain_value(v, path, omitted, None) for v in value]
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(
            f"config_plain: a config holds only ints, strings, tuples and dataclasses, got {show(value)}"
        )
    return value


def config_plain(config: VersusConfig, version: int = RULESET_VERSION) -> dict[str, Any]:
    """The config as plain data, as version `version` writes it: the difficulty and every VersusRules
    and AttackTable number of that version (ValueError if the config uses a rule it does not have)."""
    plain = _plain_value(config, "", _OMITTED[version], VersusConfig())
    assert isinstance(plain, dict)
    return plain


def _rebuild(name: str, data: object, template: Any, omitted: frozenset[str] = frozenset()) -> Any:
    """Rebuild a value shaped like `template` (a default instance) from plain data, strictly; the
    `omitted` fields (dotted paths) must be absent and keep the template's values."""
    if dataclasses.is_dataclass(template) and not isinstance(template, type):
        mapping = check_map(name, data)
        fields = [f for f in dataclasses.fields(template) if _path(name, f.name) not in omitted]
        exact_keys(name, mapping, [f.name for f in fields])
        values = {
            f.name: _rebuild(f"{name}.{f.name}", mapping[f.name], getattr(template, f.name), omitted)
            for f in fields
        }
        return replace(template, **values)
    if isinstance(template, tuple):
        items = check_list(name, data)
        if template and isinstance(template[0], tuple):
            width = len(template[0])
            rows = []
            for index, row in enumerate(items):
                cells = check_list(f"{name}[{index}]", row)
                if len(cells) != width:
                    raise ValueError(f"{name}[{index}]: expected {width} numbers, got {len(cells)}")
                at = f"{name}[{index}]"
                rows.append(tuple(check_int(f"{at}[{k}]", c, 0, MAX_CONFIG_INT) for k, c in enumerate(cells)))
            return tuple(rows)
        if not items:
            raise ValueError(f"{name}: must not be empty")
        return tuple(check_int(f"{name}[{index}]", v, 0, MAX_CONFIG_INT) for index, v in enumerate(items))
    if isinstance(template, str):
        text = check_str(name, data)
        choices = _CHOICES.get(name.removeprefix("config."))
        if choices is not None and text not in choices:
            raise ValueError(f"{name}: must be one of {', '.join(choices)}, got {show(text)}")
        return text
    if is_int(template):
        low, high = _CONFIG_BOUNDS.get(name.removeprefix("config."), (0, MAX_CONFIG_INT))
        return check_int(name, data, low, high)
    raise TypeError(f"{name}: cannot rebuild a {type(template).__name__}")  # pragma: no cover


def _path(name: str, field_name: str) -> str:
    """The dotted path of a field of the value at `name` ("config.rules", "attack" → "rules.attack")."""
    return f"{name}.{field_name}".removeprefix("config.")


def config_from_plain(data: object, version: int = RULESET_VERSION) -> VersusConfig:
    """Rebuild a VersusConfig from version `version`'s `config_plain()` data; raises ValueError naming
    the bad field.

    Every field of the version must be present and no other; integers are bounded; the difficulty,
    lives and skill must make a board (the preset's own checks), and the landing kinds must be
    ordered (garbage_max ≤ nuisance_max).
    """
    config = _rebuild("config", data, VersusConfig(), _OMITTED[version])
    assert isinstance(config, VersusConfig)
    attack = config.rules.attack
    if attack.garbage_max > attack.nuisance_max:
        raise ValueError(
            f"config.rules.attack.garbage_max: {attack.garbage_max} exceeds nuisance_max "
            f"{attack.nuisance_max}"
        )
    try:
        config.board_config(0)
    except ValueError as error:
        raise ValueError(f"config: {error}") from None
    return config


class VersusRuleset:
    """pengo-versus of one version: 2–4 Pengo boards on one deal, the attack exchange
    (rules/versus/match.py), that version's config form and bots."""

    name = RULESET_NAME
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    inputs: PengoInputs = INPUTS
    bot_names = BOT_NAMES
    end_reasons: tuple[str, ...] = tuple(reason.value for reason in EndReason)
    frame_hz = FRAME_HZ

    def __init__(self, version: int) -> None:
        if version not in RULESET_VERSIONS:
            raise ValueError(f"pengo-versus has versions {RULESET_VERSIONS}, not {version!r}")
        self.version = version

    @property
    def rule_tables(self) -> tuple[tuple[str, Any], ...]:
        """The version's versus settings and attack table, the constants fixed for the ruleset version,
        and Pengo's (rules/versus/tables.py, rules/kick/tables.py)."""
        rules = self.default_config().rules
        return (
            ("Versus settings (VersusRules)", rules),
            ("Attack table (AttackTable)", rules.attack),
            ("Fixed for the ruleset version (not in a replay's config)", versus_tables),
            ("Pengo (rules/kick/tables.py)", kick_tables),
        )

    @property
    def stream_tables(self) -> dict[str, Any]:
        """The stream's words and layouts (rules/versus/view.py TABLES)."""
        return TABLES

    def default_config(self) -> VersusConfig:
        """The version's rules (rules/versus/tables.py) on the arcade difficulty."""
        return versus_config(self.version)

    def config_plain(self, config: VersusConfig) -> dict[str, Any]:
        """See `config_plain`."""
        return config_plain(config, self.version)

    def config_from_plain(self, data: object) -> VersusConfig:
        """See `config_from_plain`."""
        return config_from_plain(data, self.version)

    def with_time_limit(self, config: VersusConfig, frames: int) -> VersusConfig:
        """The same config, every other rule kept, with matches limited to `frames` frames."""
        return replace(config, rules=replace(config.rules, time_limit_frames=frames))

    def new_match(self, config: VersusConfig, seed: int, seats: Sequence[str]) -> VersusMatch:
        """A fresh match."""
        return VersusMatch(config, seed, seats)

    def make_bot(self, name: str, seed: int) -> Bot[SeatView]:
        """This version's bot of that name (rules/versus/bots/)."""
        return make_bot(name, seed, self.version)

    def __repr__(self) -> str:
        return f"<Ruleset {self.name} v{self.version}>"


#: Every version this build plays and verifies, one ruleset object each (rules/registry.py registers them).
PENGO_VERSUS_BY_VERSION: dict[int, VersusRuleset] = {
    version: VersusRuleset(version) for version in RULESET_VERSIONS
}
#: pengo-versus 1: the archive's replays verify and play back under it.
PENGO_VERSUS_V1 = PENGO_VERSUS_BY_VERSION[1]
#: The ruleset floe serves: the current version (RULESET_VERSION), which new matches use.
PENGO_VERSUS = PENGO_VERSUS_BY_VERSION[RULESET_VERSION]
