"""The composition of the server's settings: one section per layer, each owned by its layer.

    config = ServerConfig()                                   # every default
    config = ServerConfig().override(reconnect_grace=5.0)     # one setting, by its name

Each layer owns a small frozen dataclass in its own folder (server/transport/settings.py,
server/http/settings.py, server/match/settings.py, server/netcode/runner.py's `RunnerSettings`,
server/store/settings.py, server/tokens.py's `TokenSettings`, server/cluster/settings.py's
`NodeSettings`) and is given only its own; nothing below this module imports it. A setting's name
is unique across the sections (a group's fields are named `limits.…`, `queue.…`, `runner.…`,
`cluster.…`), which is how `floe serve` (server/cli.py) names its flags and FLOE_* variables and
protocol/README.md's limits table names the bounds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from rules.registry import newest

from .cluster.settings import ClusterSettings, NodeSettings
from .errors import ConfigError
from .http.settings import DailySettings, HttpSettings, VerifySettings
from .match.matchmaker import QueueSettings
from .match.settings import LimitSettings, LobbySettings, MatchSettings, RankedSettings, SessionSettings
from .netcode.runner import RunnerSettings
from .store.settings import StoreSettings
from .tokens import TokenSettings
from .transport.settings import TransportSettings

__all__ = ["ConfigError", "DAILY_RULESET", "DEFAULT_RULESET", "GROUPS", "ServerConfig"]

#: The node's default ruleset (rules/registry.py's name, its newest version): what a match that names
#: none plays, and the ranked queue.
DEFAULT_RULESET = "pengo-versus"
#: The daily challenge's ruleset.
DAILY_RULESET = "pengo-solo"

#: The settings groups inside a section, by the prefix of their fields' names.
GROUPS: dict[str, type[Any]] = {"limits": LimitSettings, "queue": QueueSettings, "runner": RunnerSettings,
                                "cluster": ClusterSettings}


@dataclass(frozen=True)
class ServerConfig:
    """Every section of the server's settings; tests shorten the times and raise the frame rate."""

    transport: TransportSettings = field(default_factory=TransportSettings)
    http: HttpSettings = field(default_factory=HttpSettings)
    verify: VerifySettings = field(default_factory=VerifySettings)
    #: The node's defaults name the games, by name: DEFAULT_RULESET is played unless a match names
    #: another ruleset (rules/registry.py has every one), and the daily is a DAILY_RULESET run.
    daily: DailySettings = field(default_factory=lambda: DailySettings(newest(DAILY_RULESET)))
    match: MatchSettings = field(default_factory=lambda: MatchSettings(newest(DEFAULT_RULESET)))
    session: SessionSettings = field(default_factory=SessionSettings)
    lobby: LobbySettings = field(default_factory=LobbySettings)
    ranked: RankedSettings = field(default_factory=RankedSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    tokens: TokenSettings = field(default_factory=TokenSettings)
    node: NodeSettings = field(default_factory=NodeSettings)
    #: Tune the garbage collector for the match loop at startup (see server/app.py); tests leave it.
    tune_gc: bool = True

    def sections(self) -> Iterator[tuple[str, Any]]:
        """(name, settings) of each section."""
        for section in dataclasses.fields(self):
            value = getattr(self, section.name)
            if dataclasses.is_dataclass(value):
                yield section.name, value

    def section_of(self, name: str) -> str:
        """The section that holds the setting `name` (KeyError when none does)."""
        for section, settings in self.sections():
            if name in {f.name for f in dataclasses.fields(settings)}:
                return section
        raise KeyError(name)

    def override(self, **settings: Any) -> ServerConfig:
        """The same config with these settings (by their names, whatever section holds them) changed;
        a group (`limits`, `queue`, `runner`, `cluster`) is replaced whole. TypeError for a name no
        section has."""
        changed: dict[str, dict[str, Any]] = {}
        top = {f.name for f in dataclasses.fields(self)}
        config = self
        for name, value in settings.items():
            if name in top:
                config = replace(config, **{name: value})
                continue
            try:
                changed.setdefault(self.section_of(name), {})[name] = value
            except KeyError:
                raise TypeError(f"no setting is named {name!r}") from None
        for section, values in changed.items():
            config = replace(config, **{section: replace(getattr(config, section), **values)})
        return config

    def with_time_limit(self, seconds: float) -> ServerConfig:
        """The same config, every other rule kept, with the default ruleset's matches limited to `seconds`
        of the game's frames (its `frame_hz` a second, whatever the loop's pace)."""
        return replace(self, match=self.match.with_time_limit(seconds))

    @property
    def ranked_min_play_frames(self) -> int:
        """`ranked_min_play_seconds` in the ranked matches' frames (their ruleset's, the node's default:
        its `frame_hz` a second, whatever the loop's pace): the frame a ranked match must reach for its
        result to be rated."""
        return round(self.ranked.ranked_min_play_seconds * self.match.ruleset.frame_hz)
