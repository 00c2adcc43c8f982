"""The pub/sub seam between nodes (boardgame.io's generic pub/sub: `publish(channel, bytes)`,
`subscribe(channel, handler)`), with an embedded implementation (server/cluster/memory.py) and Redis
(server/cluster/redis.py), and the messages a match's nodes exchange on it.

What travels (nothing else: the live list and rooms' places are state kept in the store, see
server/match/lobby.py, not events on the bus):

- `match_in(id)`: a non-owning node forwards what its clients of the match say to the owner (a
  seat's inputs, a player's arrival and departure, its pings, its rematch offers and answers once
  the match is over): `SeatInputs`, `SeatEvent`, `SeatPing`, `SeatRematch`, and says it follows the
  match (`Follow`, a heartbeat that also asks for a catch-up);
- `match_out(id)`: the owner fans out every record of its two streams, already encoded and numbered
  (`StreamRecord`: which stream, its number, its bytes), to the nodes with clients of the match,
  which keep the same numbered history (server/match/stream.py) and serve reconnects from it; its
  answers to `Follow` (`Base`: the match's info and a catch-up), each `status` (`Notice`), and what
  one remote player is told alone (`Direct`: `input-late`, errors, `pong`, `rated`, the rematch
  offer's news, a close). server/match/relay.py is the owner's side, server/match/follow.py the
  follower's; a node that takes over a match it followed serves its clients locally from then on;
- `QUEUE`: `QueueNudge(node)`, sent by the node that made (or was refused) a ranked pair's match for
  a guest waiting on `node`, which looks at the queue at once (server/match/ranked.py). The news is
  the store's pairing note (the pairing itself is one store write, so exactly one match per pair
  whichever nodes the two players reached); a lost nudge costs time only, the node's poll finding the
  note within `ranked_pair_every`.

Why Redis pub/sub (sharded `SPUBLISH`/`SSUBSCRIBE` on a Redis Cluster, plain `PUBLISH`/`SUBSCRIBE`
on one Redis) and not Redis Streams: what must survive is already durable elsewhere (the owner's
journal holds every acknowledged input; each node's stream history serves its clients' reconnects),
so the relay only has to be fast and forgetful, as lila-ws's is with lila: a message is delivered
once to whoever listens now and nothing is kept in Redis per match. A node that missed messages (a
reconnect of its subscription, a slow reader cut off by Redis' `client-output-buffer-limit pubsub`)
sees a gap in the stream numbers and asks for a resync, exactly as a client does. Streams would cost
a write, memory and a trim per record per match, and a blocking reader per match or a poll. Sharded
pub/sub keeps a match's channel on the shard of its keys (the same `{m:<id>}` hash tag), so the
cluster does not broadcast every record to every shard as plain pub/sub on a cluster would.

Bounds (ClusterSettings): a message's size (`bus_max_message_bytes`: a larger publish is refused),
the channels one node follows (`bus_max_channels`), and the embedded bus's queue (`bus_queue`). A
handler is called on the event loop and must not wait (it appends to bounded queues).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgpack  # type: ignore[import-untyped]

#: A subscriber's callback: (channel, message bytes), called on the event loop; it must not wait.
Handler = Callable[[str, bytes], None]

#: The ranked queue's channel (its nudges).
QUEUE = "floe:{queue}"

#: Channel names are this long at most (a match id is short; this bounds what a key may cost).
MAX_CHANNEL_CHARS = 200


def match_tag(match_id: str) -> str:
    """The hash tag every key and channel of one match shares (one Redis Cluster slot)."""
    return f"{{m:{match_id}}}"


def match_in(match_id: str) -> str:
    """The channel a match's owner listens on (inputs and seat events from the other nodes)."""
    return f"floe:{match_tag(match_id)}:in"


def match_out(match_id: str) -> str:
    """The channel a match's owner publishes its streams' records on."""
    return f"floe:{match_tag(match_id)}:out"


def check_channel(channel: str) -> None:
    """ValueError for a channel name that is empty or too long."""
    if not channel or len(channel) > MAX_CHANNEL_CHARS:
        raise ValueError(f"a channel name has 1 to {MAX_CHANNEL_CHARS} characters, not {len(channel)}")


def check_message(data: bytes, limit: int) -> None:
    """ValueError for a message over `limit` bytes."""
    if len(data) > limit:
        raise ValueError(f"a bus message of {len(data)} bytes is over the {limit} bytes allowed")


@dataclass(frozen=True, slots=True)
class Subscription:
    """A handler subscribed to a channel (what `unsubscribe` takes)."""

    channel: str
    handler: Handler


class Bus(Protocol):
    """Publish bytes on a channel; subscribe a handler to one."""

    async def publish(self, channel: str, data: bytes) -> None:
        """Send `data` to every node subscribed to `channel` now (this one included); ValueError when
        it is over `bus_max_message_bytes`."""
        ...

    async def publish_all(self, items: Sequence[tuple[str, bytes]]) -> list[Exception | None]:
        """`publish` of many (channel, data) in one round trip, in order (a pipeline; on a cluster,
        one per shard): each item's error (ValueError over the size, or the store's), or None."""
        ...

    async def subscribe(self, channel: str, handler: Handler) -> Subscription:
        """Call `handler` with each message published on `channel` from now on; OverflowError past
        `bus_max_channels` channels."""
        ...

    async def unsubscribe(self, subscription: Subscription) -> None:
        """Stop calling that handler (the channel is left when none is left)."""
        ...

    async def close(self) -> None:
        """Unsubscribe from everything and release connections."""
        ...


# ---- the messages (msgpack arrays, the kind first) ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatInputs:
    """A seat's run of inputs from `frame` on, as its client sent them, forwarded to the owner."""

    node: str
    guest: str
    seat: int
    frame: int
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeatEvent:
    """A player's connection on a non-owning node: `joined`, `dropped` or `left` (forfeit)."""

    node: str
    guest: str
    seat: int
    event: str


@dataclass(frozen=True, slots=True)
class SeatRematch:
    """A remote player's `rematch` (`accept` None) or `rematch-answer` (True/False) of the ended match,
    forwarded to its owner, where the match's rematch offers are (server/match/rematch.py)."""

    node: str
    guest: str
    seat: int
    accept: bool | None


@dataclass(frozen=True, slots=True)
class QueueNudge:
    """On `QUEUE`: the ranked queue's store holds news for a guest waiting on `node` (a pair another
    node made or refused): that node looks now instead of at its next poll."""

    node: str


@dataclass(frozen=True, slots=True)
class StreamRecord:
    """One record of a match's stream (`players` or `spectators`), numbered `n`, as its bytes."""

    stream: str
    n: int
    data: bytes


@dataclass(frozen=True, slots=True)
class Follow:
    """A node follows the match for its clients (on `match_in`, every `follow_heartbeat` seconds and
    whenever it needs a catch-up): the owner publishes on `match_out` while it hears one within
    `follow_ttl`, and answers each with a `Base` for `node`. `players`/`spectators`: the last number
    the node holds of each stream, -1 when it wants a resync instead of the records after it;
    `watching`: its spectators of the match; `lags`: its players' round trips (ms) by guest (the
    owner's `status` tells both)."""

    node: str
    players: int
    spectators: int
    watching: int = 0
    lags: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SeatPing:
    """A remote player's `ping`, answered by the owner's `pong` (its frame) through `Direct`."""

    node: str
    guest: str
    id: int
    t: int


@dataclass(frozen=True, slots=True)
class BaseStream:
    """One stream in a `Base`: `messages` bring a follower from number `after` to `head` (the records
    after it), or, when `reset`, replace its history (a resync and, once over, the `over`)."""

    after: int
    head: int
    reset: bool
    messages: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class Base:
    """The owner's answer to `node`'s `Follow`: who owns the match, what a newcomer is told of it
    (`info`: the `joined` map, the seats' guests and its frame), and a catch-up of both streams."""

    node: str
    owner: str
    info: dict[str, Any]
    players: BaseStream
    spectators: BaseStream


@dataclass(frozen=True, slots=True)
class Direct:
    """A message for one remote player (`node`, `guest`): an answer to its input or ping, `input-late`,
    `rated`…; `close` > 0 closes its connection with that code after `data` (if any)."""

    node: str
    guest: str
    data: bytes
    close: int


@dataclass(frozen=True, slots=True)
class Notice:
    """A message for every client following the match on every node (a `status`)."""

    data: bytes


Relayed = (SeatInputs | SeatEvent | SeatRematch | StreamRecord | Follow | SeatPing | Base | Direct | Notice
           | QueueNudge)

SEAT_EVENTS = frozenset({"joined", "dropped", "left"})
STREAMS = frozenset({"players", "spectators"})


def encode_relayed(message: Relayed) -> bytes:
    """A relayed message's bytes."""
    if isinstance(message, SeatInputs):
        values = list(message.values)
        body: Sequence[object] = ("i", message.node, message.guest, message.seat, message.frame, values)
    elif isinstance(message, SeatEvent):
        body = ("e", message.node, message.guest, message.seat, message.event)
    elif isinstance(message, SeatRematch):
        body = ("x", message.node, message.guest, message.seat, message.accept)
    elif isinstance(message, QueueNudge):
        body = ("q", message.node)
    elif isinstance(message, StreamRecord):
        body = ("r", message.stream, message.n, message.data)
    elif isinstance(message, Follow):
        body = ("f", message.node, message.players, message.spectators, message.watching, message.lags)
    elif isinstance(message, SeatPing):
        body = ("p", message.node, message.guest, message.id, message.t)
    elif isinstance(message, Base):
        streams = [(part.after, part.head, part.reset, list(part.messages))
                   for part in (message.players, message.spectators)]
        body = ("b", message.node, message.owner, message.info, *streams)
    elif isinstance(message, Direct):
        body = ("d", message.node, message.guest, message.data, message.close)
    else:
        body = ("n", message.data)
    data: bytes = msgpack.packb(body, use_bin_type=True)
    return data


def decode_relayed(data: bytes) -> Relayed:
    """A relayed message from its bytes; ValueError for anything malformed."""
    try:
        body = msgpack.unpackb(data, raw=False)
        kind = body[0]
        if kind == "i" and len(body) == 6:
            values = tuple(int(v) for v in body[5])
            return SeatInputs(str(body[1]), str(body[2]), int(body[3]), int(body[4]), values)
        if kind == "e" and len(body) == 5 and body[4] in SEAT_EVENTS:
            return SeatEvent(str(body[1]), str(body[2]), int(body[3]), str(body[4]))
        if kind == "x" and len(body) == 5 and (body[4] is None or isinstance(body[4], bool)):
            return SeatRematch(str(body[1]), str(body[2]), int(body[3]), body[4])
        if kind == "q" and len(body) == 2:
            return QueueNudge(str(body[1]))
        if kind == "r" and len(body) == 4 and body[1] in STREAMS and isinstance(body[3], bytes):
            return StreamRecord(str(body[1]), int(body[2]), body[3])
        if kind == "f" and len(body) == 6 and isinstance(body[5], dict):
            lags = {str(guest): int(lag) for guest, lag in body[5].items()}
            return Follow(str(body[1]), int(body[2]), int(body[3]), int(body[4]), lags)
        if kind == "p" and len(body) == 5:
            return SeatPing(str(body[1]), str(body[2]), int(body[3]), int(body[4]))
        if kind == "b" and len(body) == 6 and isinstance(body[3], dict):
            players, spectators = (_base_stream(part) for part in body[4:6])
            return Base(str(body[1]), str(body[2]), body[3], players, spectators)
        if kind == "d" and len(body) == 5 and isinstance(body[3], bytes):
            return Direct(str(body[1]), str(body[2]), body[3], int(body[4]))
        if kind == "n" and len(body) == 2 and isinstance(body[1], bytes):
            return Notice(body[1])
    except (ValueError, TypeError, IndexError, msgpack.UnpackException) as error:
        raise ValueError(f"a malformed bus message: {error}") from None
    raise ValueError("a malformed bus message: unknown kind or shape")


def _base_stream(part: Sequence[object]) -> BaseStream:
    after, head, reset, messages = part
    if not isinstance(messages, list) or not all(isinstance(item, bytes) for item in messages):
        raise TypeError("a base's messages are bytes")
    return BaseStream(int(after), int(head), bool(reset), tuple(messages))  # type: ignore[call-overload]


#: What a bundle adds to its messages' bytes (its kind and array headers), at most, and per message.
BUNDLE_OVERHEAD = 16
BUNDLE_PER_MESSAGE = 5


def encode_bundles(messages: Sequence[bytes], limit: int) -> list[bytes]:
    """Several encoded messages for one channel as few bus messages as `limit` bytes allow (a
    publisher's backlog goes out in one publish per channel instead of one per message: Redis' round
    trips, not the bytes, are what a relaying owner waits on). One message goes as it is."""
    if len(messages) == 1:
        return [messages[0]]
    bundles: list[bytes] = []
    part: list[bytes] = []
    size = BUNDLE_OVERHEAD
    for data in messages:
        cost = len(data) + BUNDLE_PER_MESSAGE
        if part and size + cost > limit:
            bundles.append(_bundle(part))
            part, size = [], BUNDLE_OVERHEAD
        part.append(data)
        size += cost
    if part:
        bundles.append(part[0] if len(part) == 1 else _bundle(part))
    return bundles


def _bundle(part: list[bytes]) -> bytes:
    data: bytes = msgpack.packb(("m", part), use_bin_type=True)
    return data


def decode_all(data: bytes) -> list[Relayed]:
    """The messages of one bus message (a bundle, or one message); ValueError for anything malformed."""
    try:
        body = msgpack.unpackb(data, raw=False)
    except (ValueError, msgpack.UnpackException) as error:
        raise ValueError(f"a malformed bus message: {error}") from None
    if isinstance(body, list) and len(body) == 2 and body[0] == "m" and isinstance(body[1], list):
        if not all(isinstance(item, bytes) for item in body[1]):
            raise ValueError("a malformed bus message: a bundle holds bytes")
        return [decode_relayed(item) for item in body[1]]
    return [decode_relayed(data)]
