"""The token secret: configured for a shared store (≥ 16 bytes), a warned per-process one otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace

import pytest

from server.config import ConfigError, GeneratedSecret, ServerConfig
from tests.server.conftest import fast_config


def test_a_shared_store_refuses_a_made_up_secret() -> None:
    """With Redis and no FLOE_SECRET the config refuses to start; a configured one of 16 bytes is fine."""
    made_up = replace(fast_config(), secret=GeneratedSecret(bytes(32)), redis_url="redis://127.0.0.1:6379/0")
    with pytest.raises(ConfigError, match="FLOE_SECRET"):
        made_up.check_secret()
    replace(made_up, secret=b"0123456789abcdef").check_secret()
    replace(made_up, redis_url=None).check_secret()  # the embedded store takes it (with a warning)
    with pytest.raises(ConfigError, match="16 bytes"):
        replace(fast_config(), secret=b"short").check_secret()


def test_floe_serve_on_redis_without_a_secret_exits_with_a_clear_error() -> None:
    """`floe serve --redis URL` with FLOE_SECRET unset (or empty) exits 2 and says how to set it."""
    env = {**os.environ, "FLOE_SECRET": ""}
    script = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--redis", "redis://127.0.0.1:1/0"]
    done = subprocess.run(script, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "set FLOE_SECRET" in done.stderr, done.stderr


def test_an_unset_secret_is_made_up_per_process() -> None:
    """Without FLOE_SECRET (or with an empty one) the secret is 32 random bytes, marked as made up."""
    saved = os.environ.pop("FLOE_SECRET", None)
    try:
        first, second = ServerConfig(), ServerConfig()
        assert first.secret_generated and len(first.secret) == 32 and first.secret != second.secret
        os.environ["FLOE_SECRET"] = "an operator's secret, long enough"
        assert not ServerConfig().secret_generated
    finally:
        os.environ.pop("FLOE_SECRET", None)
        if saved is not None:
            os.environ["FLOE_SECRET"] = saved
