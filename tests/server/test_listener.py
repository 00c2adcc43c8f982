"""floe's listener (server/transport/listener.py) end to end: websockets on their direct path, HTTP
relayed to uvicorn with the peer's address, the bounds on request heads, close and keepalive timeouts,
and a shutdown that leaves nothing behind."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
import websockets
from fastapi import Request
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.frames import Close, Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from protocol.codec import encode
from protocol.messages import Hello, Ping, Pong
from protocol.version import PROTOCOL_VERSION
from rules.replay import verify
from server import botclient
from server.app import create_app
from server.embed import RunningServer, running_server
from tests.server.conftest import StartServer, fast_config
from tests.server.helpers import UNIT
from tests.server.test_guards import probe
from tests.server.test_http import finished_replay_bytes
from tests.server.test_match_network import fetch_replay

pytestmark = pytest.mark.asyncio


async def until(condition: Callable[[], bool], timeout: float = 10 * UNIT) -> None:
    """Wait until `condition()` holds (polled), failing after `timeout` seconds."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def read_some(reader: asyncio.StreamReader) -> bytes:
    """The next bytes the server sent; b"" once it closed the socket (a reset counts as closed)."""
    try:
        return await reader.read(65536)
    except ConnectionResetError:
        return b""


async def read_until_closed(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes the socket."""
    received = bytearray()
    async with asyncio.timeout(10 * UNIT):
        while data := await read_some(reader):
            received += data
    return bytes(received)


async def raw_http(server: RunningServer, request: bytes) -> bytes:
    """Send raw bytes to the public port; everything that comes back before the server closes."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    try:
        writer.write(request)
        return await read_until_closed(reader)
    finally:
        writer.close()


class RawClient:
    """A websocket client on a bare socket, so a test decides what it answers: pings, a close, or nothing."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, protocol: ClientProtocol):
        self.reader, self.writer, self.protocol = reader, writer, protocol
        self.frames: list[Frame] = []

    @classmethod
    async def connect(cls, url: str) -> RawClient:
        uri = parse_uri(url)
        reader, writer = await asyncio.open_connection(uri.host, uri.port)
        protocol = ClientProtocol(uri)
        protocol.send_request(protocol.connect())
        writer.write(b"".join(protocol.data_to_send()))
        async with asyncio.timeout(10 * UNIT):
            while not any(isinstance(event, Response) for event in protocol.events_received()):
                protocol.receive_data(await reader.read(65536))
        assert protocol.handshake_exc is None
        return cls(reader, writer, protocol)

    def send(self, data: bytes) -> None:
        self.protocol.send_binary(data)
        self.writer.write(b"".join(self.protocol.data_to_send()))

    async def read(self, answer: bool, until: Callable[[list[Frame]], bool] = lambda _: False) -> bool:
        """Read frames into `frames` until `until(frames)` holds (True) or the server drops the socket
        (False); with `answer`, what the protocol answers (pongs, the close reply) is sent back."""
        async with asyncio.timeout(10 * UNIT):
            while not until(self.frames):
                data = await read_some(self.reader)
                if not data:
                    self.writer.close()
                    return False
                self.protocol.receive_data(data)
                self.frames += [e for e in self.protocol.events_received() if isinstance(e, Frame)]
                replies = self.protocol.data_to_send()
                if answer:
                    self.writer.write(b"".join(replies))
        return True


def pings(frames: list[Frame]) -> int:
    """How many keepalive pings the server sent."""
    return sum(frame.opcode is Opcode.PING for frame in frames)


def close_code(frames: list[Frame]) -> int | None:
    """The code of the server's close frame, if it sent one."""
    closes = [Close.parse(bytes(frame.data)) for frame in frames if frame.opcode is Opcode.CLOSE]
    return closes[0].code if closes else None


# ---- websockets ----------------------------------------------------------------------------------------


async def test_a_match_plays_through_the_listener(start_server: StartServer) -> None:
    """A guest plays a short match against the lazy bot, watched by a spectator, both on the direct path
    (each message a plain call in, a direct write out); both see the end and the replay verifies."""
    server = await start_server(fast_config().with_time_limit(3))
    _, token = await botclient.new_guest(server.http_url, "cat")
    created = await botclient.http_json(f"{server.http_url}/api/bot-matches", "POST", {"bot": "lazy"}, token)
    run, watched = await asyncio.wait_for(
        asyncio.gather(
            botclient.play(server.ws_url, token, created["match"], "competent", seed=5),
            botclient.watch(server.ws_url, created["match"]),
        ),
        30 * UNIT,
    )
    replay = await fetch_replay(server, created["match"])
    assert verify(replay).ok and run.session.over is not None and watched.over is not None
    assert watched.gaps == 0 and run.session.gaps == 0
    node = server.app.state.node
    assert node.dispatcher.websockets_served == 2 and node.stats()["crashed"] == 0


async def test_permessage_deflate_is_not_negotiated(start_server: StartServer) -> None:
    """A client offering permessage-deflate (websockets does by default) gets no extension."""
    server = await start_server()
    async with websockets.connect(server.ws_url, proxy=None) as ws:
        assert ws.response is not None and "Sec-WebSocket-Extensions" not in ws.response.headers
        assert ws.protocol.extensions == []


async def test_a_fragmented_message_is_put_together(start_server: StartServer) -> None:
    """A message sent in several frames reaches the reader whole."""
    server = await start_server()
    client = await probe(server)
    ping = encode(Ping(id=9, t=0))
    await client.ws.send([ping[:3], ping[3:]])
    assert await client.next(Pong) == Pong(id=9, t=0, frame=-1)


async def test_a_client_that_never_answers_a_close_is_dropped(start_server: StartServer) -> None:
    """After a fatal error the server sends its close (1008); a client that never replies loses the
    socket after `ws_close_timeout`, and the server forgets the connection."""
    server = await start_server(fast_config().override(ws_close_timeout=0.3 * UNIT))
    client = await RawClient.connect(server.ws_url)
    client.send(encode(Hello(version=99)))
    assert not await client.read(answer=False)
    assert close_code(client.frames) == 1008
    await until(lambda: server.app.state.node.dispatcher.connections == 0)


async def test_a_client_that_never_answers_pings_is_dropped(start_server: StartServer) -> None:
    """The server pings every `ws_ping_interval`; without a pong within `ws_ping_timeout` it closes
    the connection (1011) and drops the socket."""
    config = fast_config().override(ws_ping_interval=0.2 * UNIT, ws_ping_timeout=0.2 * UNIT)
    server = await start_server(config)
    client = await RawClient.connect(server.ws_url)
    assert not await client.read(answer=False)
    assert pings(client.frames) >= 1 and close_code(client.frames) == 1011


async def test_a_client_that_answers_pings_stays(start_server: StartServer) -> None:
    """A client that answers the keepalive pings keeps its connection across many of them (the next
    ping goes out only once the last one's pong came back)."""
    config = fast_config().override(ws_ping_interval=0.05 * UNIT, ws_ping_timeout=5 * UNIT)
    server = await start_server(config)
    client = await RawClient.connect(server.ws_url)
    assert await client.read(answer=True, until=lambda frames: pings(frames) >= 5)
    assert close_code(client.frames) is None


# ---- HTTP through the relay ----------------------------------------------------------------------------


MSGPACK = {"Content-Type": "application/msgpack"}


async def in_chunks(data: bytes, size: int) -> AsyncIterator[bytes]:
    """`data` as a stream of `size`-byte pieces (httpx sends it with Transfer-Encoding: chunked)."""
    for start in range(0, len(data), size):
        yield data[start : start + size]


async def test_the_app_sees_the_peer_and_not_what_the_client_claims() -> None:
    """Relayed requests carry the socket's peer address to the app; a client's own X-Forwarded-For
    and X-Forwarded-Proto are dropped."""
    app = create_app(fast_config())

    @app.get("/test/peer")
    async def peer(request: Request) -> dict[str, object]:
        client = request.client
        return {"host": client.host if client else None, "scheme": request.url.scheme}

    claims = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
    async with running_server(app) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        plain = (await http.get("/test/peer")).json()
        claimed = (await http.get("/test/peer", headers=claims)).json()
    assert plain == claimed == {"host": "127.0.0.1", "scheme": "http"}


async def test_a_streamed_upload_and_404s_go_through_the_relay(start_server: StartServer) -> None:
    """A replay streamed in chunks (Transfer-Encoding: chunked) verifies, and unknown paths are 404s."""
    server = await start_server()
    data = finished_replay_bytes()
    async with httpx.AsyncClient(base_url=server.http_url, timeout=60) as http:
        verdict = await http.post("/api/replays/verify", content=in_chunks(data, 100), headers=MSGPACK)
        assert verdict.status_code == 200 and verdict.json()["ok"] is True
        assert (await http.get("/nowhere")).status_code == 404
        missing = await http.get("/api/replays/none")
        assert missing.status_code == 404 and missing.json()["code"] == "not-found"


@pytest.mark.parametrize("streamed", [False, True], ids=["content-length", "chunked"])
async def test_an_early_answer_reaches_the_client(start_server: StartServer, streamed: bool) -> None:
    """The app's 413 for an upload past its bound, given before the body is all read (by the declared
    length, or part-way through a stream) and followed by uvicorn's close, still reaches the client,
    which goes on sending its body meanwhile."""
    server = await start_server(fast_config().override(verify_max_bytes=2048))
    body = b"\x00" * (256 * 1024)
    async with httpx.AsyncClient(base_url=server.http_url, timeout=30 * UNIT) as http:
        content = in_chunks(body, 4096) if streamed else body
        answer = await http.post("/api/replays/verify", content=content, headers=MSGPACK)
    assert answer.status_code == 413 and answer.json()["code"] == "too-large"


async def test_expect_100_continue_is_answered(start_server: StartServer) -> None:
    """A client that waits for `100 Continue` before its body gets it from the listener, then the answer."""
    server = await start_server()
    reader, writer = await asyncio.open_connection(server.host, server.port)
    writer.write(
        b"POST /api/guests HTTP/1.1\r\nHost: floe\r\nContent-Type: application/json\r\n"
        b"Content-Length: 15\r\nExpect: 100-continue\r\n\r\n"
    )
    interim = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10 * UNIT)
    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    writer.write(b'{"name": "ann"}')
    answer = await read_until_closed(reader)
    writer.close()
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 200") and json.loads(body)["name"] == "ann"


def connection_header(answer: bytes) -> bytes | None:
    """The `Connection` header of an HTTP answer (its head, or the whole answer), lowercased."""
    for line in answer.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"connection":
            return value.strip().lower()
    return None


async def read_answer(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """One HTTP answer off a kept-alive connection: its head and its body (by its Content-Length)."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10 * UNIT)
    length = re.search(rb"(?im)^content-length: *(\d+)\r$", head)
    assert length is not None, head
    return head, await asyncio.wait_for(reader.readexactly(int(length.group(1))), 10 * UNIT)


async def test_a_kept_alive_connection_serves_request_after_request(start_server: StartServer) -> None:
    """An HTTP/1.1 client keeps its connection: each answer leaves it open, a pipelined pair is answered
    in order, and the request that says `Connection: close` gets the last answer before the close."""
    server = await start_server()
    reader, writer = await asyncio.open_connection(server.host, server.port)
    try:
        writer.write(b"GET /health HTTP/1.1\r\nHost: floe\r\n\r\n")
        first, _ = await read_answer(reader)
        writer.write(b"GET /health HTTP/1.1\r\nHost: floe\r\n\r\nGET /nowhere HTTP/1.1\r\nHost: floe\r\n\r\n")
        second, _ = await read_answer(reader)
        third, _ = await read_answer(reader)
        writer.write(b"GET /health HTTP/1.1\r\nHost: floe\r\nConnection: close\r\n\r\n")
        last = await read_until_closed(reader)
    finally:
        writer.close()
    statuses = [answer[:12] for answer in (first, second, third, last)]
    assert statuses == [b"HTTP/1.1 200", b"HTTP/1.1 200", b"HTTP/1.1 404", b"HTTP/1.1 200"]
    assert [connection_header(answer) for answer in (first, second, third, last)] == [None] * 3 + [b"close"]


async def test_an_http_1_0_request_is_answered_and_closed(start_server: StartServer) -> None:
    """An HTTP/1.0 request gets its answer with `Connection: close`, then the socket closes."""
    server = await start_server()
    answer = await raw_http(server, b"GET /health HTTP/1.0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200") and connection_header(answer) == b"close"


@pytest.mark.parametrize("complete", [True, False], ids=["whole-head", "unfinished-head"])
async def test_an_oversized_request_head_gets_431(start_server: StartServer, complete: bool) -> None:
    """A request head past `max_head_bytes`, finished or not, is answered 431 with a typed error body."""
    server = await start_server()
    head = b"GET /health HTTP/1.1\r\nHost: floe\r\nX-Padding: " + b"a" * (9 * 1024)
    answer = await raw_http(server, head + (b"\r\n\r\n" if complete else b""))
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 431")
    assert json.loads(body)["code"] == "too-large"


async def test_a_malformed_request_head_gets_400(start_server: StartServer) -> None:
    """A request line that is not HTTP is answered 400 with a typed `malformed` error body."""
    server = await start_server()
    answer = await raw_http(server, b"HELLO THERE\r\n\r\n")
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 400") and json.loads(body)["code"] == "malformed"


async def test_a_head_that_never_completes_is_dropped(start_server: StartServer) -> None:
    """A connection that does not finish its request head within `head_timeout` is dropped unanswered."""
    server = await start_server(fast_config().override(head_timeout=0.3 * UNIT))
    assert await raw_http(server, b"GET /health HTTP/1.1\r\nHost: floe\r\n") == b""


# ---- starting and stopping -----------------------------------------------------------------------------


def open_sockets() -> int:
    """Sockets this process holds (Linux: its descriptors that are sockets)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor is gone by now
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
    return count


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts sockets in /proc")
async def test_stopping_closes_every_socket_and_task() -> None:
    """Leaving `running_server` closes the websockets (1001) and a half-sent request, stops uvicorn,
    and leaves no task or socket behind."""
    before = open_sockets()
    app = create_app(fast_config())
    async with running_server(app) as server:
        client = await probe(server)
        reader, writer = await asyncio.open_connection(server.host, server.port)
        writer.write(b"GET /health HTTP/1.1\r\n")  # a head still coming when the server stops
        await until(lambda: app.state.node.dispatcher.connections == 1)
    with pytest.raises(ConnectionClosed) as caught:
        await client.ws.recv()
    assert caught.value.rcvd is not None and caught.value.rcvd.code == 1001
    assert await read_until_closed(reader) == b""
    writer.close()
    with contextlib.suppress(ConnectionResetError):  # a dropped socket may end in a reset
        await writer.wait_closed()
    with pytest.raises(OSError):
        await asyncio.open_connection(server.host, server.port)
    assert [task.get_name() for task in asyncio.all_tasks() if task.get_name().startswith("floe-")] == []
    assert open_sockets() == before


def log_lines(data: bytes) -> list[dict[str, object]]:
    """floe serve's JSON log lines."""
    return [json.loads(line) for line in data.splitlines() if line.startswith(b"{")]


async def test_floe_serve_starts_and_stops_cleanly() -> None:
    """`floe serve --port 0` answers HTTP and websockets on one port and exits 0 on SIGTERM after a
    graceful stop, logging no error."""
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "server.cli", "serve", "--port", "0"),
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "FLOE_SECRET": "a test secret of 32 bytes or more"},
    )
    assert process.stderr is not None
    lines: list[dict[str, object]] = []
    try:
        async with asyncio.timeout(30 * UNIT):
            while not any(line.get("event") == "serve.listening" for line in lines):
                raw = await process.stderr.readline()
                assert raw, f"floe serve stopped early: {lines}"
                lines += log_lines(raw)
        listening = next(line for line in lines if line.get("event") == "serve.listening")
        health = await botclient.http_json(f"{listening['http']}/health")
        assert health["ok"] is True
        async with websockets.connect(str(listening["ws"]), compression=None, proxy=None) as ws:
            await ws.send(encode(Hello(version=PROTOCOL_VERSION)))
            assert b"welcome" in await asyncio.wait_for(ws.recv(decode=False), 10 * UNIT)
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30 * UNIT):
            lines += log_lines(await process.stderr.read())
            assert await process.wait() == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert [line for line in lines if line.get("level") == "error"] == []
    assert any(line.get("event") == "serve.stopped" for line in lines)
