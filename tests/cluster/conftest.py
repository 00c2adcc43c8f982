"""The cluster suite runs on every backend: embedded (one process), the machine's Redis (an isolated
prefix; under CI=true never skipped) and a real three-master Redis Cluster started for the session."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field

import pytest
import pytest_asyncio

from server.cluster.bus import Bus
from server.cluster.journal import Ownership
from server.cluster.memory import MemoryBus, MemoryOwnership
from server.cluster.redis import Client, RedisBus, RedisOwnership, connect
from server.cluster.settings import ClusterSettings
from tests.cluster_helpers import RunningCluster, redis_cluster
from tests.redis_helpers import REDIS_URL, drop_prefix, redis_or_skip, unique_prefix

BACKENDS = ("memory", "redis", "cluster")


@pytest.fixture(scope="session")
def cluster() -> Iterator[RunningCluster]:
    """One Redis Cluster for the whole session (each test keeps to its own key prefix)."""
    with redis_cluster() as running:
        yield running


class FakeClock:
    """A monotonic clock a test moves (the embedded backend's leases read it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Backend:
    """Several nodes' views of one backend: `ownership()`/`bus()` make one more node's."""

    kind: str
    settings: ClusterSettings
    prefix: str
    url: str = ""
    clock: FakeClock = field(default_factory=FakeClock)
    _memory: MemoryOwnership | None = None
    _memory_bus: MemoryBus | None = None
    _clients: list[Client] = field(default_factory=list)
    _closers: list[Callable[[], object]] = field(default_factory=list)

    def _client(self) -> Client:
        client = connect(self.url, cluster=self.kind == "cluster")
        self._clients.append(client)
        return client

    def ownership(self, settings: ClusterSettings | None = None) -> Ownership:
        """A node's ownership view, with these settings (else the backend's); the embedded nodes of one
        process share its leases and journals."""
        if self.kind == "memory":
            if self._memory is None:
                self._memory = MemoryOwnership(self.settings, self.clock)
            return self._memory.view(settings or self.settings)
        return RedisOwnership(self._client(), self.prefix, settings or self.settings)

    def bus(self) -> Bus:
        """A node's bus."""
        if self.kind == "memory":
            if self._memory_bus is None:
                self._memory_bus = MemoryBus(self.settings)
            return self._memory_bus
        bus = RedisBus(self._client(), self.prefix, self.settings)
        self._closers.append(bus.close)
        return bus

    def lapse(self) -> None:
        """Move the embedded clock past every lease (the Redis backends wait for Redis' own expiry)."""
        self.clock.now += max(self.settings.lease_ttl, SHORT.lease_ttl) + 1


#: Short leases, for the tests about expiry; the others have generous ones and never see one lapse.
SHORT = ClusterSettings(lease_ttl=0.3, lease_renew_every=0.1, lease_margin=0.1)
GENEROUS = ClusterSettings(lease_ttl=60.0, lease_renew_every=10.0, lease_margin=10.0)


@pytest_asyncio.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    """A fresh backend of each kind (generous leases unless a test asks for SHORT ones)."""
    kind = str(request.param)
    prefix = unique_prefix()
    if kind == "memory":
        yield Backend(kind, GENEROUS, prefix)
        return
    if kind == "redis":
        probe = await redis_or_skip()
        await probe.aclose()
        url = REDIS_URL
    else:
        url = request.getfixturevalue("cluster").url
    made = Backend(kind, GENEROUS, prefix, url)
    try:
        yield made
    finally:
        for close in made._closers:
            await close()  # type: ignore[misc]
        if kind == "redis":
            cleaner = connect(REDIS_URL)
            await drop_prefix(cleaner, prefix)  # type: ignore[arg-type]
            await cleaner.aclose()
        for client in made._clients:
            await client.aclose()


def node_name() -> str:
    """A node's name, unique in the run."""
    return f"node-{uuid.uuid4().hex[:8]}"
