"""The composition root of one node: the settings' sections, the stores, and the peers wired together.

    node = Node(ServerConfig())                 # the stores the config names (embedded unless Redis)
    node = Node(config, MemoryStore(), clock, ids)

The hub only hosts matches (server/match/hub.py). The lobby, the ranked queue, rematch offers, the
token signer, the clock and the id source are its peers: each is given the settings section, the
stores and the peers it uses, nothing more, and the hub tells them what happened through its hooks.
The HTTP app (server/app.py) and the listener (server/transport/listener.py) are built from a node.

On a shared store (Redis: `redis_url`) the node's matches are shared with the other nodes on it
(issue 20, server/match/sharing.py): each is owned through a lease and journaled, a dead node's are
taken over, and `stop` (SIGTERM: uvicorn's shutdown runs the app's lifespan, server/app.py) hands
this node's matches off before the hub stops. Alone on the embedded store nothing of it runs.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
from typing import Any

from .cluster.bus import QUEUE, Bus, QueueNudge, Subscription, decode_all, encode_relayed
from .cluster.journal import Ownership
from .cluster.publisher import Publisher
from .cluster.settings import NodeSettings
from .config import ServerConfig
from .logs import log_event
from .match.background import Background
from .match.dispatch import Dispatcher
from .match.follow import Follower
from .match.hub import Hub
from .match.live import LiveMatch
from .match.lobby import Lobby
from .match.ranked import RankedLobby
from .match.relay import MatchRelay
from .match.rematch import Rematches
from .match.shared import SharedMatches
from .match.sharing import hand_off, share_matches
from .match.sources import Clock, IdSource, RandomIds, SystemClock
from .store.base import MatchRecord, Stores
from .store.memory import MemoryStore
from .store.settings import StoreSettings
from .tokens import TokenSigner, token_secret

log = logging.getLogger("floe.hub")


def make_stores(settings: StoreSettings) -> Stores:
    """The stores the settings name: Redis at `redis_url`, else the embedded ones."""
    if settings.redis_url is not None:
        from .store.redis import RedisStore

        return RedisStore.from_url(settings.redis_url, settings.redis_prefix)
    return MemoryStore(settings.store_capacity)


def make_ownership(store: StoreSettings, node: NodeSettings) -> Ownership | None:
    """The leases and journals of a shared store (Redis at `redis_url`, under its prefix), else None."""
    if store.redis_url is None:
        return None
    from .cluster.redis import RedisOwnership

    return RedisOwnership.from_url(store.redis_url, store.redis_prefix, settings=node.cluster)


def make_bus(store: StoreSettings, node: NodeSettings) -> Bus | None:
    """The bus between the nodes of a shared store (Redis pub/sub at `redis_url`, sharded pub/sub on
    a Redis Cluster named `redis+cluster://`), else None."""
    if store.redis_url is None:
        return None
    from .cluster.redis import RedisBus, connect
    from .store.redis import cluster_url

    plain, cluster = cluster_url(store.redis_url)
    return RedisBus(connect(plain, cluster), store.redis_prefix, node.cluster)


def node_name(settings: NodeSettings) -> str:
    """The configured name, else one unique to this process (host, pid and a random part)."""
    return settings.node_name or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


class Node:
    """One process's server: the hub and its peers on one set of stores."""

    def __init__(
        self,
        config: ServerConfig,
        stores: Stores | None = None,
        clock: Clock | None = None,
        ids: IdSource | None = None,
        ownership: Ownership | None = None,
        bus: Bus | None = None,
    ) -> None:
        """`ownership` shares the matches (default: the shared store's, server/cluster/redis.py, when
        `redis_url` is set; none on the embedded store); with `bus` (default: the shared store's pub/sub)
        this node serves the other nodes' matches to its clients and its own to theirs."""
        self.config = config
        self.stores = stores if stores is not None else make_stores(config.store)
        self.clock: Clock = clock or SystemClock()
        self.ids: IdSource = ids or RandomIds()
        self.background = Background()
        secret, self.secret_source = token_secret(config.tokens.secret, self.stores.shared)
        #: The secret in use (configured, or this process's own): tokens and the daily seeds derive from it.
        self.secret = secret
        self.signer = TokenSigner(secret, config.tokens.token_ttl)
        stores = self.stores
        self.hub = Hub(config.match, stores.replays, stores.matches, self.clock, self.ids, self.background,
                       config.ranked, config.ranked_min_play_frames)
        #: This node's name in leases, the ranked queue's entries, the lobby's shared parts and logs.
        self.name = node_name(config.node)
        self.lobby = Lobby(self.hub, stores.limits, config.lobby, config.match.room_timeout, self.clock,
                           self.ids, stores.lobby, self.name, self.background)
        self.ranked = RankedLobby(self.hub, self.lobby, config.ranked, stores.players, stores.ranked,
                                  stores.matches, stores.limits, self.clock, self.ids, self.background,
                                  stores.queue, self.name)
        matches = self.hub.matches
        self.rematches = Rematches(matches, self.lobby, config.lobby, config.match.linger, self.background)
        self.dispatcher = Dispatcher(matches, self.ranked, self.rematches, self.signer, stores.limits,
                                     self.clock, self.background, config.match, config.session, config.lobby)
        self._wire()
        self.ownership = ownership if ownership is not None else make_ownership(config.store, config.node)
        #: The matches' sharing with other nodes (None: a lone node on the embedded store).
        self.shared: SharedMatches | None = None
        if self.ownership is not None:
            self.shared = share_matches(self.hub, self.ownership, self.name, config.node.cluster)
        #: Any match from any node (server/match/relay.py and follow.py): None alone.
        self.bus = bus if bus is not None or self.ownership is None else make_bus(config.store, config.node)
        self.publisher: Publisher | None = None
        self.relay: MatchRelay | None = None
        self.follower: Follower | None = None
        self._queue_subscription: Subscription | None = None
        if self.bus is not None:
            self._wire_bus(self.bus)

    def _wire_bus(self, bus: Bus) -> None:
        """The relay serves this node's matches to the other nodes, the follower theirs to its clients."""
        cluster = self.config.node.cluster
        self.publisher = Publisher(bus, cluster.relay_queue, cluster.bus_max_message_bytes)
        self.relay = MatchRelay(bus, self.publisher, self.name, cluster, self.dispatcher, self.hub.now)
        self.follower = Follower(bus, self.publisher, self.ownership, self.name, cluster, self.config.match,
                                 self.hub.now)
        publisher = self.publisher

        def nudge(node: str) -> None:
            publisher.send(QUEUE, encode_relayed(QueueNudge(node)))

        self.ranked.nudge = nudge
        self.hub.on_host.append(self.relay.host)
        self.hub.on_host.append(self.follower.adopt)  # a match taken over: its clients here go local
        self.hub.on_forget.append(self.relay.forget)
        self.dispatcher.follower = self.follower

    def _wire(self) -> None:
        """The hub's hooks: what its peers are told."""
        hub, lobby, ranked, rematches = self.hub, self.lobby, self.ranked, self.rematches
        hub.on_tick += [ranked.tick, rematches.tick, lobby.tick]
        hub.on_forget += [lobby.forget, lambda live: rematches.forget(live.id)]
        hub.on_vacated.append(lobby.vacated)

        async def ending(record: MatchRecord, live: LiveMatch | None) -> None:
            addresses = live.addresses() if live is not None else ()
            await lobby.ended(record.id, record.guests, addresses)

        async def recorded(record: MatchRecord, live: LiveMatch | None) -> None:
            if record.ranked:
                await ranked.settle(record, live)

        hub.on_ending.append(ending)
        hub.on_recorded.append(recorded)

    async def start(self) -> None:
        """Start the hub's clock."""
        await self.hub.start()
        if self.shared is not None:
            self.shared.start()
            log_event(log, logging.INFO, "node.shared", node=self.name)
        if self.publisher is not None and self.follower is not None:
            self.publisher.start()
            self.follower.start()
        if self.bus is not None:
            self._queue_subscription = await self.bus.subscribe(QUEUE, self._queue_heard)
        source = self.secret_source
        log_event(log, logging.INFO, "hub.start", frame_rate=self.config.match.pace, secret=source)
        if source == "random":
            why = "FLOE_SECRET is not set: tokens are signed with this process's own secret, so every guest "
            why += "is signed out when it stops"
            log_event(log, logging.WARNING, "hub.random-secret", why=why)

    def _queue_heard(self, _: str, data: bytes) -> None:
        """A `QueueNudge` for this node: its guests' pairings are looked at now (server/match/ranked.py)."""
        try:
            messages = decode_all(data)
        except ValueError as error:
            log_event(log, logging.WARNING, "queue.malformed-nudge", why=str(error))
            return
        if any(isinstance(message, QueueNudge) and message.node == self.name for message in messages):
            self.ranked.nudged()

    async def stop(self) -> None:
        """Hand the shared matches off (their leases given up, within `cluster.stop_timeout`: another
        node takes them over), stop the hub (its matches' connections closed, pending store work
        finished), then the stores."""
        if self.shared is not None:
            await hand_off(self.shared)
            log_event(log, logging.INFO, "node.handed-off", node=self.name)
        if self.follower is not None:
            await self.follower.stop()
        await self.hub.stop()
        if self.relay is not None:
            await self.relay.stop()
        if self.publisher is not None:
            await self.publisher.stop(self.config.node.cluster.stop_timeout)
        if self.bus is not None:
            if self._queue_subscription is not None:
                await self.bus.unsubscribe(self._queue_subscription)
            await self.bus.close()
        if self.ownership is not None:
            await self.ownership.close()
        await self.stores.close()

    async def live_elsewhere(self, match_id: str) -> dict[str, Any] | None:
        """Another node's live match as `GET /api/matches/{id}` shows it: `node`, the node that owns it
        (the holder of its lease on a shared store, else the node that lists it), and its live-list
        entry as that node listed it (within `live_list_every`) when it is listed (a running public
        match); a room's match is not listed, so only its id and owner are told. None when no other
        node holds or lists it."""
        if match_id in self.hub.matches:
            return None
        owner: str | None = None
        if self.ownership is not None:
            try:
                holder = await self.ownership.holder(match_id)
            except (OSError, ConnectionError, TimeoutError) as error:
                log_event(log, logging.WARNING, "node.holder-unknown", match=match_id, why=repr(error))
                holder = None
            owner = holder.node if holder is not None and holder.node != self.name else None
        listed = await self.lobby.listed_elsewhere(match_id)
        if owner is None and listed is not None and self.ownership is None:
            owner = str(listed.get("node") or "") or None
        if owner is None:
            return None
        return {"live": True, **(listed or {"id": match_id}), "node": owner, "result": None}

    def stats(self) -> dict[str, Any]:
        """Numbers for /health and the benchmark."""
        stats = {**self.hub.stats(), "connections": self.dispatcher.connections,
                 "websockets_served": self.dispatcher.websockets_served}
        if self.shared is not None:  # its matches journaled: what the journal logged and made wait
            stats["journal"] = self.shared.owner.stats()
        return stats
