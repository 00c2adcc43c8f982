"""No one client can hurt the others through the websocket listener (issue 18): every frame paid for,
answers to a client that does not read bounded, idle websockets closed, the node's connections capped.

As in tests/server/test_abuse.py, the attacker speaks from 127.0.0.2 while a bystander's match (two
server bots) runs on the same server; each test asserts the bound's answer and prints the bystander's
frame lateness meanwhile (no timed assertion). The attackers here are raw sockets speaking websocket
frames through websockets' sans-I/O client, so a test decides exactly which frames go out and
whether anything is read.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import pytest_asyncio
import websockets
from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode

from bench.abuse_ws import open_raw
from protocol.codec import decode_server_messages, encode
from protocol.messages import Error, Hello, Joined, Watch
from protocol.version import PROTOCOL_VERSION
from server.app import create_app
from server.config import ConfigError, ServerConfig
from server.embed import RunningServer
from server.node import Node
from server.transport.budget import FrameBudget
from server.transport.listener import Listener
from server.transport.settings import connection_cap, descriptor_limit
from server.transport.websocket import READ_SLICE, WebSocketSession
from tests.server.bystander import print_lateness, start_bystander
from tests.server.conftest import StartServer
from tests.server.helpers import UNIT, until
from tests.server.test_abuse import ATTACKER, abuse_config, bystander, status_of

pytestmark = pytest.mark.asyncio

#: A budget no test's honest traffic comes near (the tests of the other bounds run on it).
UNBOUNDED = {"ws_frame_rate": 1e9, "ws_frame_burst": 1e9, "ws_byte_rate": 1e12, "ws_byte_burst": 1e12}

StartWithBystander = Callable[..., Awaitable[RunningServer]]


@pytest_asyncio.fixture
async def served(start_server: StartServer) -> AsyncIterator[StartWithBystander]:
    """Start a server on the default limits with the given overrides and a bystander's match running on it
    (long enough to outlast the test); its lateness is printed at the end."""
    hubs: list[Node] = []

    async def start(**overrides: object) -> RunningServer:
        server = await start_server(abuse_config(**overrides).with_time_limit(600))
        hubs.append(await start_bystander(server))
        return server

    yield start
    for node in hubs:
        print_lateness(node)


def masked(opcode: Opcode, payload: bytes = b"", fin: bool = True) -> bytes:
    """One client frame on the wire (masked, as a client must)."""
    return Frame(opcode, payload, fin=fin).serialize(mask=True)


class RawWebSocket:
    """A websocket client on a bare socket from the attacker's address: the handshake through websockets'
    sans-I/O client, then whatever bytes the test writes; what the server sends is read only on demand."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, protocol: ClientProtocol,
                 sent: int) -> None:
        self.reader, self.writer, self.protocol = reader, writer, protocol
        #: Bytes written to the server so far (the handshake's request included).
        self.sent = sent
        self.frames: list[Frame] = []

    @classmethod
    async def connect(cls, server: RunningServer, receive_buffer: int | None = None) -> RawWebSocket:
        async with asyncio.timeout(10 * UNIT):
            reader, writer, protocol, request = await open_raw(server, receive_buffer)
        assert protocol.handshake_exc is None
        return cls(reader, writer, protocol, request)

    def write(self, data: bytes) -> None:
        self.writer.write(data)
        self.sent += len(data)

    async def read_until_closed(self, answer: bool = True) -> list[Frame]:
        """Every frame the server sends until it ends the connection; with `answer`, what websockets'
        client answers (its close reply) is sent back, unwritten by `write` and uncounted."""
        async with asyncio.timeout(10 * UNIT):
            while True:
                try:
                    data = await self.reader.read(65536)
                except ConnectionError:
                    data = b""
                if not data:
                    self.writer.close()
                    return self.frames
                self.protocol.receive_data(data)
                self.frames += [e for e in self.protocol.events_received() if isinstance(e, Frame)]
                replies = self.protocol.data_to_send()
                if answer:
                    self.writer.write(b"".join(replies))


def close_code(frames: list[Frame]) -> int | None:
    """The code of the server's close frame, if it sent one."""
    closes = [Close.parse(bytes(frame.data)) for frame in frames if frame.opcode is Opcode.CLOSE]
    return closes[0].code if closes else None


def errors(frames: list[Frame]) -> list[Error]:
    """The typed errors among the server's binary frames."""
    binary = [bytes(frame.data) for frame in frames if frame.opcode is Opcode.BINARY]
    messages = [message for data in binary for message in decode_server_messages(data)]
    return [message for message in messages if isinstance(message, Error)]


async def session_of(server: RunningServer, count: int = 1) -> WebSocketSession:
    """The server's side of the attacker's newest websocket (once `count` of its websockets are open)."""
    listener = server.listener

    def mine() -> list[WebSocketSession]:
        return [session for session in listener.websockets() if session.peer == ATTACKER]

    await until(lambda: len(mine()) >= count, 10 * UNIT, "the attacker's websocket open")
    return mine()[-1]


# ---- answers to a client that does not read ------------------------------------------------------------


async def test_a_client_that_pings_and_never_reads_is_bounded_then_dropped(
    served: StartWithBystander,
) -> None:
    """Pings flooded by a client that never reads: once its socket holds more than `send_buffer_bytes`
    unsent, the server stops reading it (no more pongs are queued), and drops it at `ws_unread_timeout`;
    the unsent bytes never pass the bound by more than one read's pongs."""
    server = await served(send_buffer_bytes=64 * 1024, ws_unread_timeout=0.5, **UNBOUNDED)
    config: ServerConfig = server.app.state.node.config
    client = await RawWebSocket.connect(server, receive_buffer=4096)
    session = await session_of(server)
    chunk = masked(Opcode.PING, b"p" * 125) * 512  # 512 pings of 131 bytes, each answered by 127 bytes
    try:
        async with asyncio.timeout(60 * UNIT):
            while client.sent < 64 * 1024 * 1024:  # far past what the kernel's buffers absorb
                client.write(chunk)
                await client.writer.drain()
    except ConnectionError:
        pass  # the server dropped the socket
    finally:
        client.writer.close()
    await until(lambda: session.ended_for is not None, 10 * UNIT, "the server dropping the client")
    # One read's frames are handled before reading pauses: their pongs may come on top of the bound.
    one_read = (config.transport.ws_frames_per_read + READ_SLICE // 131 + 1) * 127
    print(f"\nsent {client.sent} bytes of pings; the server held at most {session.peak_buffered} bytes "
          f"unsent (bound {config.transport.send_buffer_bytes} + {one_read})")
    assert session.ended_for == "not-reading"
    buffered = config.transport.send_buffer_bytes
    assert buffered < session.peak_buffered <= buffered + one_read
    dispatcher = server.app.state.dispatcher
    await until(lambda: dispatcher.connections == 0, 10 * UNIT, "the connection forgotten")


# ---- every frame paid for ------------------------------------------------------------------------------


async def test_every_frame_is_charged_to_the_connection(served: StartWithBystander) -> None:
    """Pings, unsolicited pongs, a message in three fragments, a whole message and the close: each frame
    and each byte is charged to the connection's budget."""
    server = await served()
    client = await RawWebSocket.connect(server)
    session = await session_of(server)
    hello = encode(Hello(version=PROTOCOL_VERSION))
    frames = [masked(Opcode.PING, b"%d" % n) for n in range(10)]
    frames += [masked(Opcode.PONG, b"unasked") for _ in range(3)]
    frames += [masked(Opcode.BINARY, hello[:2], fin=False), masked(Opcode.CONT, hello[2:4], fin=False),
               masked(Opcode.CONT, hello[4:])]
    frames += [masked(Opcode.BINARY, encode(Watch(match="nowhere")))]
    frames += [masked(Opcode.CLOSE, Close(1000, "bye").serialize())]
    for frame in frames:
        client.write(frame)
    answers = await client.read_until_closed(answer=False)  # its close came first: nothing to answer
    await until(lambda: session.conn is not None and not session.conn.open, 10 * UNIT, "the close")
    assert [frame.opcode for frame in answers].count(Opcode.PONG) == 10 and close_code(answers) == 1000
    assert session.budget.frames_charged == len(frames) == 18
    assert session.budget.bytes_charged == client.sent


@pytest.mark.parametrize("overspent", ["frames", "bytes"])
async def test_a_connection_that_overspends_is_closed(served: StartWithBystander, overspent: str) -> None:
    """100,000 pings in one write (or 100 frames of 60 KB) past the connection's budget: a fatal
    `rate-limited` error and close code 1008; the rest of what it sent is dropped unparsed (the frames
    charged stay within the burst, the refill meanwhile and one slice of parsing)."""
    budget = ({"ws_frame_rate": 10.0, "ws_frame_burst": 100.0} if overspent == "frames"
              else {"ws_byte_rate": 1024.0, "ws_byte_burst": 256 * 1024.0})
    # (its socket is not read after the close: it is dropped at the close timeout, shortened here)
    server = await served(ws_close_timeout=0.3, **{**UNBOUNDED, **budget})
    config: ServerConfig = server.app.state.node.config
    client = await RawWebSocket.connect(server)
    session = await session_of(server)
    started = asyncio.get_running_loop().time()
    if overspent == "frames":
        client.write(masked(Opcode.PING) * 100_000)
    else:
        client.write(masked(Opcode.BINARY, b"\x00" * 60_000) * 100)
    answers = await client.read_until_closed()
    elapsed = asyncio.get_running_loop().time() - started
    await until(lambda: session.ended_for is not None, 10 * UNIT, "the server ending the connection")
    refused = errors(answers)
    assert session.ended_for == "overspent" and close_code(answers) == 1008
    assert refused and refused[-1].code == "rate-limited" and refused[-1].fatal
    budget_now = session.budget
    transport = config.transport
    most_frames = transport.ws_frame_burst + transport.ws_frame_rate * elapsed + READ_SLICE // 6 + 1
    most_bytes = config.transport.ws_byte_burst + config.transport.ws_byte_rate * elapsed + READ_SLICE
    print(f"\ncharged {budget_now.frames_charged} frames and {budget_now.bytes_charged} bytes of "
          f"{client.sent} sent")
    assert budget_now.frames_charged <= most_frames and budget_now.bytes_charged <= most_bytes
    assert budget_now.bytes_charged < client.sent // 2


async def test_one_read_handles_a_bounded_number_of_frames(served: StartWithBystander) -> None:
    """5,000 pings in one write, within the budget: no read of the socket handles more than
    `ws_frames_per_read` frames (and one slice), the rest waits for the loop's next turn; every ping is
    answered."""
    server = await served(ws_frames_per_read=64, **UNBOUNDED)
    client = await RawWebSocket.connect(server)
    session = await session_of(server)
    client.write(masked(Opcode.PING) * 5000 + masked(Opcode.CLOSE, Close(1000, "").serialize()))
    answers = await client.read_until_closed()
    assert [frame.opcode for frame in answers].count(Opcode.PONG) == 5000
    assert session.budget.frames_charged == 5001
    assert 64 <= session.peak_frames_per_read <= 64 + READ_SLICE // 6 + 1


# ---- text that is not UTF-8 ----------------------------------------------------------------------------


async def test_a_text_frame_that_is_not_utf8_closes_with_1007(served: StartWithBystander) -> None:
    """A text frame with invalid UTF-8 gets a fatal `malformed` error and close code 1007 (RFC 6455 §8.1);
    valid text is still only answered `malformed`."""
    server = await served()
    client = await RawWebSocket.connect(server)
    client.write(masked(Opcode.BINARY, encode(Hello(version=PROTOCOL_VERSION))))
    client.write(masked(Opcode.TEXT, "ünïcode".encode()))
    client.write(masked(Opcode.TEXT, b"\xff\xfe not utf-8"))
    answers = await client.read_until_closed()
    refused = errors(answers)
    assert [(error.code, error.fatal) for error in refused] == [("malformed", False), ("malformed", True)]
    assert close_code(answers) == 1007


# ---- idle websockets and the node's connections --------------------------------------------------------


async def test_a_websocket_that_follows_nothing_is_closed(served: StartWithBystander) -> None:
    """A websocket that said hello and follows no match is closed at `ws_idle_timeout` (fatal `idle`,
    1008); one that watches a match, opened before it, is not."""
    from websockets.exceptions import ConnectionClosed

    server = await served(ws_idle_timeout=0.3)
    node: Node = server.app.state.node
    match_id = next(iter(node.hub.matches))
    # (max_queue=None: the stream it does not read must not stop it from reading the close at the end)
    async with websockets.connect(server.ws_url, compression=None, proxy=None, max_queue=None) as watcher:
        await watcher.send(encode(Hello(version=PROTOCOL_VERSION)))
        await watcher.send(encode(Watch(match=match_id)))
        async with asyncio.timeout(10 * UNIT):
            while not any(isinstance(message, Joined)
                          for message in decode_server_messages(await watcher.recv(decode=False))):
                pass
        async with websockets.connect(server.ws_url, compression=None, proxy=None,
                                      local_addr=(ATTACKER, 0)) as idle:
            await idle.send(encode(Hello(version=PROTOCOL_VERSION)))
            received: list[object] = []
            with pytest.raises(ConnectionClosed) as closed:
                async with asyncio.timeout(10 * UNIT):
                    while True:
                        received += decode_server_messages(await idle.recv(decode=False))
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        last = received[-1]
        assert isinstance(last, Error) and last.code == "idle" and last.fatal
        watching = [session for session in server.listener.websockets() if session.peer == "127.0.0.1"]
        assert len(watching) == 1 and watching[0].ended_for is None and watcher.state is websockets.State.OPEN


async def test_the_node_caps_its_connections_and_logs_each_refusal(
    served: StartWithBystander, caplog: pytest.LogCaptureFixture
) -> None:
    """48 idle connections from four addresses against a node cap of 40: the 8 past it are answered 503
    `busy` and closed, each refusal logged (WARNING), as a refusal by the per-address cap is; once the
    idle ones go, a bystander connects."""
    server = await served(max_connections=40, max_connections_per_address=12, head_timeout=60.0)
    listener = server.listener
    caplog.set_level(logging.WARNING, logger="floe.listener")
    streams = []
    for host in ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"):
        for _ in range(12):
            streams.append(await asyncio.open_connection(server.host, server.port, local_addr=(host, 0)))
    try:
        reads = (asyncio.wait_for(reader.read(), 30 * UNIT) for reader, _ in streams[40:])
        answers = [status_of(answer) for answer in await asyncio.gather(*reads)]
        assert {(status, body["code"]) for status, body in answers} == {(503, "busy")}
        assert listener.open_count() == 40
    finally:
        for _, writer in streams:
            writer.close()
    await until(lambda: listener.open_count() == 0, 10 * UNIT, "the idle connections closing")
    events = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert events.count("listener.full") == 8
    async with bystander(server) as http:
        assert (await http.get("/health")).status_code == 200
    streams = [await asyncio.open_connection(server.host, server.port, local_addr=("127.0.0.6", 0))
               for _ in range(13)]
    refused = await asyncio.wait_for(streams[-1][0].read(), 10 * UNIT)
    for _, writer in streams:
        writer.close()
    assert status_of(refused)[0] == 429
    assert "listener.address-full" in [record.getMessage() for record in caplog.records]


async def test_the_connection_cap_stays_below_the_descriptor_limit() -> None:
    """By default the cap is what the descriptor limit leaves (two a connection, 256 kept); a configured
    cap above it is refused at startup."""
    assert connection_cap(None, 1024) == 384 and connection_cap(100, 1024) == 100
    with pytest.raises(ConfigError, match="max_connections"):
        connection_cap(1000, 1024)
    app = create_app(abuse_config().override(max_connections=None))
    listener = Listener(app.state.config.transport, app.state.dispatcher, "unused")
    assert listener.max_connections < descriptor_limit()
    app = create_app(abuse_config().override(max_connections=descriptor_limit()))
    with pytest.raises(ConfigError, match="ulimit"):
        Listener(app.state.config.transport, app.state.dispatcher, "unused")


async def test_the_frame_budget_is_two_token_buckets() -> None:
    """Frames and bytes are each a bucket that refills at its rate up to its burst; a charge always lands,
    and the one that takes either below zero is refused; a budget no connection could use is refused at
    startup."""
    budget = FrameBudget(frame_rate=10, frame_burst=20, byte_rate=100, byte_burst=1000, now=0.0)
    assert budget.charge(20, 500, 0.0) and not budget.charge(1, 0, 0.0)
    assert budget.charge(4, 0, 0.5)  # 5 frames refilled, 1 owed
    assert not budget.charge(0, 600, 0.5) and budget.charge(0, 0, 6.0)  # bytes owed, then refilled
    assert (budget.frames_charged, budget.bytes_charged) == (25, 1100)
    for bad in ({"ws_frame_rate": 0.0}, {"ws_byte_burst": 0.5}, {"ws_frames_per_read": 0}):
        app = create_app(abuse_config().override(**bad))
        with pytest.raises(ConfigError):
            Listener(app.state.config.transport, app.state.dispatcher, "unused")
