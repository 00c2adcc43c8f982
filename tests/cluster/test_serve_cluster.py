"""`floe serve` on a real three-master Redis Cluster (tests/cluster_helpers.py): nodes built from the
config alone, as `floe serve --redis redis+cluster://host:port` builds them (the stores, the leases
and journals on redis-py's cluster client). Ranked play is recorded and rated once; a node that dies
mid-match has the match finished by the other node, recorded once, its replay verifying."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio.cluster import RedisCluster

from protocol.replay_codec import decode_replay
from rules.replay import verify
from server.app import create_app
from server.cluster.redis import RedisBus, RedisOwnership
from server.cluster.settings import ClusterSettings
from server.config import ServerConfig
from server.embed import running_server
from server.node import Node
from server.store.players import LEGACY_RULESET as PV
from server.store.redis import RedisStore, cluster_url
from tests.cluster_helpers import RunningCluster
from tests.redis_helpers import unique_prefix
from tests.server.helpers import UNIT, until
from tests.server.test_ranked import ranked_config, ranked_pair, two_guests

pytestmark = pytest.mark.asyncio

#: Short leases: the dead node's match is taken over once its lease lapses.
SETTINGS = ClusterSettings(lease_ttl=3.0, lease_renew_every=0.5, lease_margin=1.0, orphan_scan_every=0.1,
                           snapshot_every=0.5)
TIMEOUT = 30 * UNIT


def on_cluster(config: ServerConfig, cluster: RunningCluster, prefix: str) -> ServerConfig:
    """The config with the store on the cluster (`redis+cluster://` names one node) under `prefix`."""
    return config.override(redis_url=f"redis+cluster://127.0.0.1:{cluster.ports[0]}", redis_prefix=prefix)


@pytest_asyncio.fixture
async def prefix(cluster: RunningCluster) -> AsyncIterator[str]:
    """A key prefix of this test's own on the session's cluster (deleted afterwards, on every master)."""
    made = unique_prefix()
    yield made
    client = RedisCluster.from_url(cluster.url)
    try:
        keys = [key async for key in client.scan_iter(match=f"{made}*", count=500)]
        for key in keys:
            await client.delete(key)
    finally:
        await client.aclose()


async def test_a_cluster_url_is_told_from_a_single_redis() -> None:
    assert cluster_url("redis+cluster://10.0.0.1:7000/0") == ("redis://10.0.0.1:7000/0", True)
    assert cluster_url("rediss+cluster://h:7000") == ("rediss://h:7000", True)
    assert cluster_url("redis://127.0.0.1:6379/2") == ("redis://127.0.0.1:6379/2", False)


async def test_ranked_play_on_a_redis_cluster(cluster: RunningCluster, prefix: str) -> None:
    """One node on the cluster: two guests queue, are paired, play; the match is recorded ranked and each
    player is rated once."""
    app = create_app(on_cluster(ranked_config(), cluster, prefix))
    node: Node = app.state.node
    assert isinstance(node.stores, RedisStore) and isinstance(node.stores.redis, RedisCluster)
    assert isinstance(node.ownership, RedisOwnership) and isinstance(node.ownership.redis, RedisCluster)
    # the bus too: sharded pub/sub on the cluster's client, each match's channels on its keys' shard
    assert isinstance(node.bus, RedisBus) and node.bus.sharded and isinstance(node.bus.redis, RedisCluster)
    async with running_server(app) as server:
        (ann, ann_token), (bob, bob_token) = await two_guests(server)
        runs = await ranked_pair(server, ann_token, bob_token)
        matched = runs[0].session.matched
        assert matched is not None
        record = await node.stores.matches.get_match(matched.match)
        assert record is not None and record.ranked and record.replay == matched.match
        for guest, run in zip((ann, bob), runs, strict=True):
            player = await node.stores.players.get_player(guest)
            assert player is not None
            standing = player.standing(PV)
            assert standing.played == 1 and standing.games[0].match == matched.match
            assert [rated.match for rated in run.session.rated] == [matched.match]
        assert node.ranked.applied == 2


async def test_a_dead_nodes_match_finishes_on_the_other_on_a_redis_cluster(
    cluster: RunningCluster, prefix: str
) -> None:
    """Two nodes on the cluster; A dies mid-match (its clock and sharing stop, nothing released): B takes
    the match over once A's lease lapses, finishes it, records it once; the replay verifies."""
    config = on_cluster(ranked_config().with_time_limit(12), cluster, prefix).override(
        cluster=SETTINGS, node_name="")
    a, b = Node(config.override(node_name="node-a")), Node(config.override(node_name="node-b"))
    await a.start()
    await b.start()
    try:
        assert a.shared is not None and b.shared is not None
        owner_b = b.shared.owner
        live = a.hub.create_bot_duel("lazy", "lazy")
        await until(lambda: live.runner is not None and live.runner.confirmed > 60, TIMEOUT, "60 frames on A")
        assert a.hub._clock_task is not None
        a.hub._clock_task.cancel()
        for task in a.shared._tasks:
            task.cancel()
        await until(lambda: live.id in b.hub.matches, TIMEOUT, "B takes the match over")
        assert owner_b.taken_over == 1
        taken = b.hub.matches[live.id]
        await until(lambda: taken.ended_at is not None, TIMEOUT, "the match ends on B")
        await until(lambda: live.id not in owner_b.owned, TIMEOUT, "B drops the journal")
        record = await b.stores.matches.get_match(live.id)
        assert record is not None and record.result is not None and record.frames > 60
        replay = await b.stores.replays.get_replay(live.id)
        assert replay is not None and verify(decode_replay(replay)).ok
    finally:
        with contextlib.suppress(Exception):
            await b.stop()
        assert a.ownership is not None
        await asyncio.gather(a.stores.close(), a.ownership.close())
