"""The server's settings: one section per layer, every setting named once, and `floe serve` reading each
one from its flag or its FLOE_* variable (the flag wins), `--help` listing each with its default."""

from __future__ import annotations

import dataclasses

import pytest

from server.cli import config_from, options, register, serve_config
from server.config import GROUPS, ConfigError, ServerConfig
from server.match.settings import LimitSettings


def test_every_setting_has_one_name_across_the_sections() -> None:
    """No two sections (nor a section and a group) hold a setting of the same name, so a name says where
    a setting lives, and `override` reaches any one of them by it."""
    names: list[str] = []
    for _, section in ServerConfig().sections():
        names += [f.name for f in dataclasses.fields(section)]
    assert len(names) == len(set(names))
    config = ServerConfig().override(reconnect_grace=5.0, ws_idle_timeout=7.0, verify_timeout=3.0)
    assert (config.match.reconnect_grace, config.transport.ws_idle_timeout, config.verify.verify_timeout) == (
        5.0, 7.0, 3.0)
    assert config.lobby == ServerConfig().lobby  # the other sections untouched
    with pytest.raises(TypeError, match="no setting"):
        ServerConfig().override(no_such_setting=1)


def test_no_layer_reads_the_composition() -> None:
    """Only the composition root (server/ top) imports server/config.py; the layers get their sections."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "server"
    for layer in ("netcode", "match", "transport", "http", "store"):
        for path in (root / layer).glob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "..config import" not in text and "server.config" not in text, path


def test_a_setting_comes_from_the_environment_and_its_flag_wins() -> None:
    """FLOE_RECONNECT_GRACE sets reconnect_grace, and --reconnect-grace wins over it; so for a group's
    setting, the host, the port and the web root; an unset one keeps its default."""
    environ = {"FLOE_RECONNECT_GRACE": "12.5", "FLOE_LIMITS_OPEN_ROOMS_PER_GUEST": "7",
               "FLOE_HOST": "0.0.0.0", "FLOE_PORT": "8100", "FLOE_WEB_ROOT": "/srv/floe",
               "FLOE_WS_PING_INTERVAL": "none"}
    from_env = serve_config([], environ)
    assert from_env.match.reconnect_grace == 12.5
    assert from_env.lobby.limits == dataclasses.replace(LimitSettings(), open_rooms_per_guest=7)
    assert (from_env.transport.host, from_env.transport.port, from_env.http.web_root) == (
        "0.0.0.0", 8100, "/srv/floe")
    assert from_env.transport.ws_ping_interval is None
    assert from_env.match.linger == ServerConfig().match.linger
    flags = ["--reconnect-grace", "3", "--limits-open-rooms-per-guest", "2", "--port", "8200",
             "--web-root", "w"]
    both = serve_config(flags, environ)
    assert (both.match.reconnect_grace, both.lobby.limits.open_rooms_per_guest) == (3.0, 2)
    assert (both.transport.port, both.http.web_root, both.transport.host) == (8200, "w", "0.0.0.0")


def test_the_older_names_and_the_origins() -> None:
    """--redis, --trusted-proxy, --capacity and FLOE_ORIGINS keep their meaning: the origins given are
    added to the defaults and this host and port's."""
    environ = {"FLOE_REDIS_URL": "redis://127.0.0.1:6379/3", "FLOE_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.2",
               "FLOE_ORIGINS": "https://play.example.org/", "FLOE_CAPACITY": "2400"}
    config = serve_config(["--port", "9000"], environ)
    assert config.store.redis_url == "redis://127.0.0.1:6379/3"
    assert config.transport.trusted_proxies == ("10.0.0.1", "10.0.0.2")
    assert config.match.capacity_board_frames == 2400
    origins = config.transport.allowed_origins
    assert origins[0] == "http://localhost:8000" and "http://127.0.0.1:9000" in origins
    assert origins[-1] == "https://play.example.org"
    flagged = serve_config(["--redis", "redis://other", "--trusted-proxy", "10.9.9.9", "--capacity", "600"],
                           environ)
    assert (flagged.store.redis_url, flagged.transport.trusted_proxies) == ("redis://other", ("10.9.9.9",))
    assert flagged.match.capacity_board_frames == 600


def test_a_bad_value_names_where_it_came_from() -> None:
    """A value that cannot be read is refused naming its variable or flag; the secret is checked too."""
    with pytest.raises(ConfigError, match="FLOE_HISTORY"):
        serve_config([], {"FLOE_HISTORY": "lots"})
    with pytest.raises(ConfigError, match="--tune-gc"):
        serve_config(["--tune-gc", "maybe"], {})
    with pytest.raises(ConfigError, match="FLOE_SECRET"):
        serve_config([], {"FLOE_SECRET": "short"})
    assert serve_config([], {"FLOE_SECRET": "a secret of sixteen or more"}).tokens.secret == (
        b"a secret of sixteen or more")
    assert config_from(None, {}).tokens.secret is None


def test_the_ruleset_is_read_before_its_config() -> None:
    """--ruleset names a ruleset by NAME@VERSION, and the match config is read as that ruleset's."""
    config = serve_config(["--ruleset", "pengo-versus@2"], {})
    assert (config.match.ruleset.name, config.match.ruleset.version) == ("pengo-versus", 2)
    assert config.match.match_config == config.match.ruleset.default_config()
    with pytest.raises(ConfigError, match="--ruleset"):
        serve_config(["--ruleset", "no-such-game"], {})


def test_help_lists_every_setting_with_its_default() -> None:
    """`floe serve --help` names every setting's flag (or, for the secret, its variable), its FLOE_*
    variable and its default; FLOE_ORIGINS is there."""
    import argparse

    text = register(argparse.ArgumentParser(prog="floe").add_subparsers()).format_help()
    flat = " ".join(text.split())
    for option in options():
        assert option.envs[-1] in flat, option.name
        if option.flags:
            assert option.flags[0] in text, option.name
    assert "FLOE_ORIGINS" in flat and "FLOE_HOST" in flat and "FLOE_WEB_ROOT" in flat
    assert "(default 8000; $FLOE_PORT)" in flat and "(default 127.0.0.1; $FLOE_HOST)" in flat
    assert flat.count("(default ") >= len(options())
    assert set(GROUPS) == {"limits", "queue", "runner", "cluster"}


def test_the_cluster_settings_are_read_as_a_group() -> None:
    """The node's section: its name, and the cluster's numbers (`--cluster-…`, FLOE_CLUSTER_…) checked
    together, so a shorter lease with a faster renewal is accepted whatever order they are read in;
    a lease its renewal cannot keep is refused with a clear error."""
    config = serve_config(["--cluster-lease-ttl", "0.6", "--node-name", "node-a"],
                          {"FLOE_CLUSTER_LEASE_RENEW_EVERY": "0.1", "FLOE_CLUSTER_LEASE_MARGIN": "0.2"})
    cluster = config.node.cluster
    assert (cluster.lease_ttl, cluster.lease_renew_every, cluster.lease_margin) == (0.6, 0.1, 0.2)
    assert config.node.node_name == "node-a"
    assert serve_config([], {}).node.node_name is None
    with pytest.raises(ConfigError, match="lease_renew_every"):
        serve_config(["--cluster-lease-ttl", "0.6"], {})
