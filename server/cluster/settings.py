"""The cluster's numbers: the lease, the journal's bounds and the bus's (protocol/README.md's limits
table lists each as `cluster.<name>`), and the node's section of the server's settings
(server/config.py's `node`) that holds them: `floe serve --cluster-lease-ttl 4`, FLOE_CLUSTER_LEASE_TTL."""

from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class ClusterSettings:
    """How matches are owned, journaled and relayed between nodes."""

    #: A match's lease lives this long unless its owner renews it (seconds): a dead owner's matches
    #: are taken over within about `lease_ttl + orphan_scan_every` (bench/takeover_time.py: 1.55 s
    #: from the kill to the client's first frame from the survivor, p50 of 12 kills; issue 20 asks ≤ 2 s).
    lease_ttl: float = 1.5
    #: The owner renews each lease this often (seconds); it stops serving a match whose lease it could
    #: not renew within `lease_ttl - lease_margin` of its last renewal (1 s: an event loop stalled that
    #: long on a loaded machine moves its matches to another node, which loses nothing).
    lease_renew_every: float = 0.25
    #: Safety margin against clock drift between a node and Redis (seconds).
    lease_margin: float = 0.5
    #: Nodes look for matches whose lease lapsed this often (seconds).
    orphan_scan_every: float = 0.2
    #: The owner writes a snapshot (a checkpoint) at most this often (seconds).
    snapshot_every: float = 3.0
    #: Batches logged after the last snapshot before an append is refused (the owner snapshots first).
    journal_max_batches: int = 2048
    #: One logged batch, encoded (bytes).
    journal_max_batch_bytes: int = 16 * 1024
    #: One snapshot, encoded (bytes).
    journal_max_snapshot_bytes: int = 1024 * 1024
    #: A match's journal and fence expire this long after its last write (seconds).
    journal_ttl: float = 2 * 3600.0
    #: A node stopping waits this long for its last journal writes and hand-offs (seconds).
    stop_timeout: float = 5.0
    #: Matches one orphan scan looks at.
    orphan_scan_limit: int = 100
    #: One message on the bus (bytes); a larger publish is refused.
    bus_max_message_bytes: int = 256 * 1024
    #: Channels one node subscribes to at once; a subscription past it is refused.
    bus_max_channels: int = 10_000
    #: Redis confirms a subscription within this many seconds, or the subscription fails.
    bus_subscribe_timeout: float = 10.0
    #: Messages an embedded bus holds for delivery before it refuses a publish.
    bus_queue: int = 10_000
    #: Matches of other nodes one node follows for its clients at once (`join`/`watch` past it: `busy`).
    follow_max_matches: int = 1000
    #: A following node says so to the owner this often (seconds); the owner publishes a match's
    #: records while it heard one within three of them (`follow_ttl`).
    follow_heartbeat: float = 1.0
    #: A `join`/`watch` of a match no node answers for within this (seconds) is `no-such-match`
    #: (unless its lease says a node holds it: then it waits for a takeover's bound).
    follow_answer_timeout: float = 2.0
    #: Connections of one followed match waiting for the owner's answer (more: `busy`).
    follow_max_waiting: int = 64
    #: A followed match with no client on this node is dropped after this (seconds).
    follow_idle: float = 30.0
    #: Messages a node's ordered publisher holds (the relay's records, the follower's inputs); past it
    #: a message is dropped (a follower then sees a gap and asks for a resync; an input is resent).
    relay_queue: int = 10_000

    @property
    def follow_ttl(self) -> float:
        """The owner publishes a match's records this long after a follower's last `Follow`."""
        return 3 * self.follow_heartbeat

    def __post_init__(self) -> None:
        for item in fields(self):
            if getattr(self, item.name) <= 0:
                value = getattr(self, item.name)
                raise ValueError(f"cluster setting {item.name} must be positive, not {value!r}")
        if self.lease_renew_every + self.lease_margin >= self.lease_ttl:
            raise ValueError("cluster.lease_renew_every + lease_margin must be below lease_ttl")


@dataclass(frozen=True)
class NodeSettings:
    """This node among others: its name and the cluster's numbers. A node's matches are shared (owned
    through leases, journaled, taken over) when its store is shared (`redis_url`); alone on the
    embedded store they are not."""

    #: This node's name in the leases it holds and in the logs (none: host-pid-random, unique per process).
    node_name: str | None = None
    #: The cluster's numbers (`cluster.…`).
    cluster: ClusterSettings = field(default_factory=ClusterSettings)
