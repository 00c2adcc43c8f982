"""pengo-versus as a `Ruleset` (rules/ruleset.py): its config as plain data, its matches, inputs and bots.

`PENGO_VERSUS` is the ruleset the server plays and rules/registry.py registers under
("pengo-versus", 1). Its config (`VersusConfig`) is written to plain data field by field and read
back strictly: every field present and no other, integers bounded, the difficulty, lives and skill
must make a board, and the landing kinds ordered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rules.plain import check_int, check_list, check_map, check_str, exact_keys, is_int, show

from .bots import BOT_NAMES, Bot, make_bot
from .ending import EndReason
from .inputs import INPUTS, PengoInputs
from .match import MAX_SEATS, MIN_SEATS, VersusConfig, VersusMatch
from .tables import RULESET_NAME, RULESET_VERSION
from .view import SeatView

__all__ = ["PENGO_VERSUS", "VersusRuleset", "config_from_plain", "config_plain"]

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
}


def _plain_value(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain_value(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_plain_value(v) for v in value]
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(
            f"config_plain: a config holds only ints, strings, tuples and dataclasses, got {show(value)}"
        )
    return value


def config_plain(config: VersusConfig) -> dict[str, Any]:
    """The config as plain data: the difficulty and every VersusRules and AttackTable number."""
    plain = _plain_value(config)
    assert isinstance(plain, dict)
    return plain


def _rebuild(name: str, data: object, template: Any) -> Any:
    """Rebuild a value shaped like `template` (a default instance) from plain data, strictly."""
    if dataclasses.is_dataclass(template) and not isinstance(template, type):
        mapping = check_map(name, data)
        fields = dataclasses.fields(template)
        exact_keys(name, mapping, [f.name for f in fields])
        values = {
            f.name: _rebuild(f"{name}.{f.name}", mapping[f.name], getattr(template, f.name)) for f in fields
        }
        return type(template)(**values)
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
        return check_str(name, data)
    if is_int(template):
        low, high = _CONFIG_BOUNDS.get(name.removeprefix("config."), (0, MAX_CONFIG_INT))
        return check_int(name, data, low, high)
    raise TypeError(f"{name}: cannot rebuild a {type(template).__name__}")  # pragma: no cover


def config_from_plain(data: object) -> VersusConfig:
    """Rebuild a VersusConfig from `config_plain()` data; raises ValueError naming the bad field.

    Every field must be present and no other; integers are bounded; the difficulty, lives and skill
    must make a board (the preset's own checks), and the landing kinds must be ordered
    (garbage_max ≤ nuisance_max).
    """
    config = _rebuild("config", data, VersusConfig())
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
    """pengo-versus: 2–4 Pengo boards on one deal, the attack exchange (rules/versus/match.py)."""

    name = RULESET_NAME
    version = RULESET_VERSION
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    inputs: PengoInputs = INPUTS
    bot_names = BOT_NAMES
    end_reasons: tuple[str, ...] = tuple(reason.value for reason in EndReason)

    def default_config(self) -> VersusConfig:
        """The default rules (rules/versus/tables.py) on the arcade difficulty."""
        return VersusConfig()

    def config_plain(self, config: VersusConfig) -> dict[str, Any]:
        """See `config_plain`."""
        return config_plain(config)

    def config_from_plain(self, data: object) -> VersusConfig:
        """See `config_from_plain`."""
        return config_from_plain(data)

    def with_time_limit(self, config: VersusConfig, frames: int) -> VersusConfig:
        """The same config, every other rule kept, with matches limited to `frames` frames."""
        return replace(config, rules=replace(config.rules, time_limit_frames=frames))

    def new_match(self, config: VersusConfig, seed: int, seats: Sequence[str]) -> VersusMatch:
        """A fresh match."""
        return VersusMatch(config, seed, seats)

    def make_bot(self, name: str, seed: int) -> Bot[SeatView]:
        """See rules/versus/bots.py."""
        return make_bot(name, seed)

    def __repr__(self) -> str:
        return f"<Ruleset {self.name} v{self.version}>"


#: The ruleset floe serves.
PENGO_VERSUS = VersusRuleset()
