"""The server's small parts without sockets: streams, send queues, tokens, the token bucket, origins."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import msgpack  # type: ignore[import-untyped]
import pytest

from protocol.codec import decode_server, decode_server_messages, encode
from protocol.errors import CloseCode
from protocol.messages import Error, Rewind
from protocol.ratelimit import TokenBucket
from rules.versus.match import VersusConfig
from rules.versus.tables import VERSUS_RULES
from server.config import ServerConfig
from server.match.stream import Stream
from server.tokens import Guest, TokenError, TokenSigner
from server.transport.connection import BATCH_BYTES, Connection
from server.transport.ws import origin_allowed

SECRET = b"0123456789abcdef0123456789abcdef"


class Inbox:
    """A subscriber that keeps what it is sent, or refuses once closed."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.open = True

    def send_bytes(self, data: bytes) -> bool:
        if self.open:
            self.received.append(data)
        return self.open


def test_stream_numbers_and_history() -> None:
    """Numbers are consecutive; since() replays the gap while the history holds it, else says None."""
    stream: Stream[Inbox] = Stream(history=3)
    inbox = Inbox()
    stream.subscribers.add(inbox)
    for frame in range(5):
        stream.publish(lambda n, f=frame: Rewind(n=n, frame=f))  # type: ignore[misc]
    assert [msgpack.unpackb(d)["n"] for d in inbox.received] == [1, 2, 3, 4, 5]
    assert [msgpack.unpackb(d)["n"] for d in stream.since(2) or []] == [3, 4, 5]
    assert stream.since(5) == [] and stream.since(1) is None and stream.since(9) is None


def test_stream_drops_gone_subscribers() -> None:
    """A subscriber that refuses a message is unsubscribed; the others still get it."""
    stream: Stream[Inbox] = Stream(history=10)
    gone, here = Inbox(), Inbox()
    gone.open = False
    stream.subscribers |= {gone, here}
    stream.publish(lambda n: Rewind(n=n, frame=0))
    assert stream.subscribers == {here} and len(here.received) == 1


@pytest.mark.asyncio
async def test_slow_consumer_is_dropped_not_buffered() -> None:
    """A connection whose queue overflows is closed with a slow-consumer error instead of growing."""
    sent: list[bytes] = []
    closed: list[int] = []
    release = asyncio.Event()

    async def send(data: bytes) -> None:
        await release.wait()  # a client that never reads
        sent.append(data)

    async def close(code: int) -> None:
        closed.append(code)

    conn = Connection(send, close, queue_size=4)
    writer = asyncio.create_task(conn.run_writer())
    results = [conn.send_bytes(b"x%d" % i) for i in range(10)]
    assert results[:4] == [True] * 4 and not all(results) and not conn.open
    release.set()
    await asyncio.wait_for(writer, 5)
    last = decode_server(sent[-1])
    assert isinstance(last, Error) and last.code == "slow-consumer" and last.fatal
    assert closed == [CloseCode.TRY_AGAIN] and len(sent) <= 5


@pytest.mark.asyncio
async def test_the_writer_joins_what_is_queued_into_one_websocket_message() -> None:
    """Messages queued before the writer runs leave as one websocket message, up to BATCH_BYTES each."""
    sent: list[bytes] = []
    closed: list[int] = []

    async def send(data: bytes) -> None:
        sent.append(data)

    async def close(code: int) -> None:
        closed.append(code)

    conn = Connection(send, close, queue_size=64)
    writer = asyncio.create_task(conn.run_writer())
    small = [encode(Rewind(n=n, frame=n)) for n in range(1, 4)]
    more = [encode(Rewind(n=n, frame=n)) for n in range(4, 6)]
    for data in small:
        conn.send_bytes(data)
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert sent == [b"".join(small)] and conn.messages_sent == 3
    huge = encode(Error(code="internal", message="x" * (BATCH_BYTES // 2 + 10)))
    for data in (huge, huge, *more):
        conn.send_bytes(data)
    conn.close()
    await asyncio.wait_for(writer, 5)
    assert sent[1:] == [huge, huge + b"".join(more)] and closed == [CloseCode.NORMAL]
    assert [len(decode_server_messages(data)) for data in sent] == [3, 1, 3]


def test_tokens_round_trip_and_refuse_forgeries() -> None:
    """A token names its guest; a changed byte, another secret or expiry is refused."""
    signer = TokenSigner(SECRET, ttl=60)
    guest, token = signer.new_guest("g_test", "Ann <script>", now=1000.0)
    assert guest.name == "Ann script" and signer.verify(token, 1010.0) == guest
    forged = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    for bad, now in ((forged, 1010.0), (token, 2000.0), ("v1.x", 1010.0), ("nonsense", 1010.0)):
        with pytest.raises(TokenError):
            signer.verify(bad, now)
    with pytest.raises(TokenError):
        TokenSigner(b"another secret 0123456789", ttl=60).verify(token, 1010.0)
    other = signer.issue(Guest("g_other", "bob"), now=1000.0)
    assert signer.verify(other, 1000.0).id == "g_other"


def test_token_bucket_allows_the_burst_then_the_rate() -> None:
    """A full bucket gives `burst` at once, then `rate` a second."""
    bucket = TokenBucket(rate=10, burst=5, now=0.0)
    assert [bucket.take(0.0) for _ in range(6)] == [True] * 5 + [False]
    assert bucket.take(0.1) and not bucket.take(0.1)
    assert sum(bucket.take(1.0 + i / 1000) for i in range(100)) == 5


def test_origin_check() -> None:
    """Browser origins must be listed; clients without an Origin header are not browsers."""
    allowed = ("http://localhost:8000",)
    assert origin_allowed(None, allowed) and origin_allowed("http://localhost:8000/", allowed)
    assert not origin_allowed("http://evil.example", allowed)
    assert origin_allowed("http://anything", ("*",))


def test_with_time_limit_keeps_every_other_rule() -> None:
    """ServerConfig.with_time_limit changes the time limit and nothing else: 50 lives stay 50."""
    rules = replace(VERSUS_RULES, lives=50, attack=replace(VERSUS_RULES.attack, fuse_frames=77))
    config = ServerConfig(match_config=VersusConfig(rules=rules, difficulty="normal")).with_time_limit(5)
    assert config.match_config.rules.time_limit_frames == 300
    assert config.match_config.rules.lives == 50 and config.match_config.rules.attack.fuse_frames == 77
    assert config.match_config.difficulty == "normal"
