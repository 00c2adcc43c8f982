"""A real Redis Cluster for the tests (bench/redis_cluster.py starts it: three masters on free loopback
ports, `cluster_state:ok` polled, stopped by their own PIDs whatever happens). Skipped when
redis-server is not installed, except under CI=true, where that fails."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from bench.redis_cluster import RunningCluster, installed
from bench.redis_cluster import redis_alone as start_alone
from bench.redis_cluster import redis_cluster as start_cluster

__all__ = ["RunningCluster", "redis_alone", "redis_cluster"]


def _needed() -> None:
    if not installed():
        if os.environ.get("CI") == "true":
            raise AssertionError("CI=true and redis-server/redis-cli are not installed")
        pytest.skip("redis-server and redis-cli are needed for these tests")


@contextlib.contextmanager
def redis_alone(*options: str) -> Iterator[int]:
    """A private Redis for a test (its port; see bench/redis_cluster.py `redis_alone`)."""
    _needed()
    with start_alone(*options) as port:
        yield port


@contextlib.contextmanager
def redis_cluster(masters: int = 3) -> Iterator[RunningCluster]:
    """A running cluster for a test (see the module docstring)."""
    _needed()
    with start_cluster(masters) as running:
        yield running
