"""The server's small parts without sockets: streams, send queues, tokens, the token bucket, origins."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import msgpack  # type: ignore[import-untyped]
import pytest

from protocol.codec import decode_server_messages, encode
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
from tests.server.helpers import RecordingTransport

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
async def test_what_one_callback_queues_leaves_in_one_write_after_it() -> None:
    """Messages queued in one callback leave right after it, joined back to back up to BATCH_BYTES
    (a bigger one alone), and the close follows the last of them."""
    transport = RecordingTransport()
    conn = Connection(transport, queue_size=64)
    small = [encode(Rewind(n=n, frame=n)) for n in range(1, 4)]
    for data in small:
        conn.send_bytes(data)
    assert transport.writes == []  # nothing before the callback ends
    await asyncio.sleep(0)
    assert transport.writes == [b"".join(small)] and conn.messages_sent == 3
    huge = encode(Error(code="internal", message="x" * (BATCH_BYTES // 2 + 10)))
    more = [encode(Rewind(n=n, frame=n)) for n in range(4, 6)]
    for data in (huge, huge, *more):
        conn.send_bytes(data)
    conn.close()
    await asyncio.sleep(0)
    assert transport.writes[1:] == [huge, huge + b"".join(more)] and transport.closed == [CloseCode.NORMAL]
    assert [len(decode_server_messages(data)) for data in transport.writes] == [3, 1, 3]
    assert not conn.send_bytes(small[0])


@pytest.mark.asyncio
async def test_a_queue_that_overflows_drops_its_client() -> None:
    """More than `queue_size` messages waiting for one flush close the connection with a fatal
    slow-consumer error (code 1013) instead of growing."""
    transport = RecordingTransport()
    conn = Connection(transport, queue_size=4)
    results = [conn.send_bytes(b"x%d" % i) for i in range(10)]
    assert results[:4] == [True] * 4 and not all(results) and not conn.open
    await asyncio.sleep(0)
    (written,) = transport.writes
    last = decode_server_messages(written)[-1]
    assert isinstance(last, Error) and last.code == "slow-consumer" and last.fatal
    assert transport.closed == [CloseCode.TRY_AGAIN]


@pytest.mark.asyncio
async def test_a_client_that_stops_reading_is_dropped() -> None:
    """Once the socket holds more than `max_buffered` unsent bytes, the client gets a fatal
    slow-consumer error and the close (code 1013), and later sends are refused."""
    transport = RecordingTransport()
    conn = Connection(transport, 64, max_buffered=1000)
    conn.send_bytes(encode(Rewind(n=1, frame=1)))
    await asyncio.sleep(0)
    transport.backlog = 5000  # the peer stopped reading
    conn.send_bytes(encode(Rewind(n=2, frame=2)))
    await asyncio.sleep(0)  # this flush finds the backlog and queues the drop...
    await asyncio.sleep(0)  # ...which the next one writes
    assert not conn.open and transport.closed == [CloseCode.TRY_AGAIN]
    last = decode_server_messages(transport.writes[-1])[-1]
    assert isinstance(last, Error) and last.code == "slow-consumer" and last.fatal
    assert not conn.send_bytes(b"late")


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
    config = ServerConfig().override(match_config=VersusConfig(rules=rules, difficulty="normal"))
    config = config.with_time_limit(5)
    assert config.match.match_config.rules.time_limit_frames == 300
    played = config.match.match_config.rules
    assert played.lives == 50 and played.attack.fuse_frames == 77
    assert config.match.match_config.difficulty == "normal"
