"""Every bound the server can be told is in protocol/README.md's limits table, with its setting's name."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from server.cluster.settings import ClusterSettings
from server.config import ServerConfig
from server.match.matchmaker import QueueSettings
from server.match.settings import LimitSettings
from server.netcode.runner import RunnerSettings

README = Path(__file__).resolve().parents[2] / "protocol" / "README.md"

#: Settings that are not bounds: what is played, how the loop is paced, where things are kept, and the
#: groups whose own fields are listed (`limits.`, `runner.`, `queue.`, `cluster.`).
NOT_BOUNDS = frozenset({
    "frame_rate", "input_delay", "tick_slices", "journal_slices", "input_batch", "send_every", "ruleset",
    "match_config",
    "max_catch_up", "verify_pool", "daily_ruleset", "secret", "redis_url", "redis_prefix", "tune_gc",
    "runner", "limits", "queue", "ranked_recovery_every", "ranked_stale_after", "web_root", "host", "port",
    "node_name", "cluster",
})
#: Runner settings that are netcode tuning rather than bounds on a client.
RUNNER_TUNING = frozenset({"keyframe_every", "synctest_every", "snapshot_every"})


def settings() -> set[str]:
    """The name of every setting in the config's sections (a group's own fields are listed apart)."""
    config = ServerConfig()
    names = {f.name for f in dataclasses.fields(config) if f.name == "tune_gc"}
    for _, section in config.sections():
        names |= {f.name for f in dataclasses.fields(section)}
    return names


def limits_table() -> str:
    """The README's limits section."""
    text = README.read_text(encoding="utf-8")
    return text[text.index("## Limits"):text.index("## Client → server")]


def test_every_bound_is_in_the_limits_table() -> None:
    """Each bound of the config's sections and their settings groups is named (in backticks) in the limits
    table."""
    table = limits_table()
    named = set(re.findall(r"`([a-z_.]+)`", table))
    wanted = settings() - NOT_BOUNDS
    wanted |= {f"limits.{f.name}" for f in dataclasses.fields(LimitSettings)}
    wanted |= {f"queue.{f.name}" for f in dataclasses.fields(QueueSettings)}
    wanted |= {f"cluster.{f.name}" for f in dataclasses.fields(ClusterSettings)}
    wanted |= {f"runner.{f.name}" for f in dataclasses.fields(RunnerSettings)} - {
        f"runner.{name}" for name in RUNNER_TUNING}
    missing = sorted(wanted - named)
    assert not missing, f"bounds missing from protocol/README.md's limits table: {missing}"


def test_the_exclusions_are_settings() -> None:
    """Every name the test excuses is a real setting (a renamed one must not hide in the list)."""
    assert settings() >= NOT_BOUNDS
    assert {f.name for f in dataclasses.fields(RunnerSettings)} >= RUNNER_TUNING
