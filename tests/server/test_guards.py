"""Bad input gets a typed error and changes nothing: seats, spectators, origins, sizes, kinds, floods."""

from __future__ import annotations

import asyncio
import json

import msgpack  # type: ignore[import-untyped]
import pytest
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Origin

from protocol.client import ClientSession
from protocol.codec import ProtocolError, decode_server_messages, encode
from protocol.messages import Error, Hello, Input, Joined, Ping, Pong, ServerMessage, Welcome
from protocol.version import PROTOCOL_VERSION
from server import botclient
from server.embed import RunningServer
from tests.server.conftest import StartServer, fast_config
from tests.server.helpers import UNIT
from tests.server.test_match_network import open_room

pytestmark = pytest.mark.asyncio


class Probe:
    """A raw websocket client that sends frames and reads answers one at a time."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self._pending: list[ServerMessage] = []

    async def send(self, data: bytes | str) -> None:
        await self.ws.send(data)

    async def next(self, kind: type[ServerMessage] | None = None) -> ServerMessage:
        """The next message (of `kind`, skipping others such as stream frames)."""
        while True:
            if not self._pending:
                data = await asyncio.wait_for(self.ws.recv(), 10 * UNIT)
                assert isinstance(data, bytes)
                for item in decode_server_messages(data):
                    assert not isinstance(item, ProtocolError), item
                    self._pending.append(item)
            message = self._pending.pop(0)
            if kind is None or isinstance(message, kind):
                return message

    async def error(self) -> Error:
        message = await self.next(Error)
        assert isinstance(message, Error)
        return message


async def probe(server: RunningServer, token: str | None = None, hello: bool = True) -> Probe:
    ws = await websockets.connect(server.ws_url, compression=None, max_size=2**22)
    client = Probe(ws)
    if hello:
        await client.send(encode(Hello(version=PROTOCOL_VERSION, token=token)))
        welcome = await client.next()
        assert isinstance(welcome, Welcome)
    return client


async def test_a_token_drives_only_its_own_seat(start_server: StartServer) -> None:
    """A guest holding no seat in a match cannot join it as a player, so cannot send its inputs."""
    server = await start_server()
    match_id, _, _ = await open_room(server)
    _, outsider = await botclient.new_guest(server.http_url, "eve")
    client = await probe(server, outsider)
    await client.send(ClientSession(outsider).join(match_id))
    assert (await client.error()).code == "not-seated"
    await client.send(encode(Input(frame=0, inputs=[3])))
    assert (await client.error()).code == "not-joined"
    taken = await botclient.http_bytes(f"{server.http_url}/api/rooms/join", "POST", b"{}")
    assert taken[0] == 422 and json.loads(taken[1])["code"] == "malformed"


async def test_a_spectator_cannot_send_inputs(start_server: StartServer) -> None:
    """Watching is read-only: an input from a spectator is refused with read-only."""
    server = await start_server()
    match_id, _, _ = await open_room(server)
    client = await probe(server)
    await client.send(ClientSession().watch(match_id))
    assert isinstance(await client.next(), Joined)
    await client.send(encode(Input(frame=0, inputs=[3])))
    error = await client.error()
    assert error.code == "read-only" and error.ref == "input"


async def test_playing_needs_a_token(start_server: StartServer) -> None:
    """A connection without a valid token is told why and cannot join as a player."""
    server = await start_server()
    match_id, _, _ = await open_room(server)
    client = await probe(server, hello=False)
    await client.send(encode(Hello(version=PROTOCOL_VERSION, token="v1.forged.token")))
    assert (await client.error()).code == "auth"
    assert isinstance(await client.next(), Welcome)
    await client.send(ClientSession().join(match_id))
    assert (await client.error()).code == "auth"


async def test_origin_not_allowed_is_refused(start_server: StartServer) -> None:
    """A websocket upgrade from a foreign origin gets HTTP 403 with a typed error body."""
    server = await start_server()
    with pytest.raises(InvalidStatus) as caught:
        await websockets.connect(server.ws_url, origin=Origin("http://evil.example"))
    assert caught.value.response.status_code == 403
    assert json.loads(caught.value.response.body or b"{}")["code"] == "origin"
    ok = await websockets.connect(server.ws_url, origin=Origin("http://localhost:8000"))
    await ok.close()


async def test_oversized_and_unknown_frames_get_typed_errors(start_server: StartServer) -> None:
    """Oversized, unknown, malformed and text frames are answered with errors; the connection lives on."""
    server = await start_server()
    client = await probe(server)
    await client.send(b"\x00" * 5000)
    assert (await client.error()).code == "too-large"
    await client.send(msgpack.packb({"kind": "teleport", "to": [1, 2]}))
    assert (await client.error()).code == "unknown-kind"
    await client.send(msgpack.packb({"kind": "input", "frame": "soon", "input": 3}))
    assert (await client.error()).code == "malformed"
    await client.send("hello?")
    assert (await client.error()).code == "malformed"
    await client.send(encode(Ping(id=1, t=0)))
    assert await client.next() == Pong(id=1, t=0, frame=-1)


async def test_frames_past_the_socket_limit_close_the_connection(start_server: StartServer) -> None:
    """A frame past the websocket layer's hard limit closes the socket (1009) and the server stays up."""
    server = await start_server(fast_config().override(ws_max_bytes=16 * 1024))
    client = await probe(server)
    await client.send(b"\x00" * (32 * 1024))
    with pytest.raises(ConnectionClosed) as caught:
        await client.next()
    assert caught.value.rcvd is not None and caught.value.rcvd.code == 1009
    again = await probe(server)
    await again.send(encode(Ping(id=2, t=0)))
    assert isinstance(await again.next(), Pong)


async def test_handshake_order_and_version(start_server: StartServer) -> None:
    """Joining before hello is refused; a hello of another version is fatal."""
    server = await start_server()
    client = await probe(server, hello=False)
    await client.send(ClientSession().watch("nope"))
    error = await client.error()
    assert error.code == "hello-first" and error.ref == "watch"
    await client.send(encode(Hello(version=99)))
    fatal = await client.error()
    assert fatal.code == "version" and fatal.fatal
    with pytest.raises(ConnectionClosed):
        await client.next()


async def test_floods_are_rate_limited(start_server: StartServer) -> None:
    """Over a real socket a flood past the token bucket is answered with a rate-limited error and the
    connection stays open (the bucket's exact arithmetic: tests/server/test_session.py)."""
    server = await start_server(fast_config().override(rate_per_second=50, rate_burst=20))
    client = await probe(server)
    ping = encode(Ping(id=3, t=0))
    for _ in range(200):
        await client.send(ping)
    error = await client.error()
    assert error.code == "rate-limited" and not error.fatal
    assert client.ws.state is websockets.protocol.State.OPEN


async def test_no_such_match_and_double_join(start_server: StartServer) -> None:
    """Watching a match that does not exist, or a second match on one connection, is refused."""
    server = await start_server()
    match_id, _, _ = await open_room(server)
    client = await probe(server)
    await client.send(ClientSession().watch("missing"))
    assert (await client.error()).code == "no-such-match"
    await client.send(ClientSession().watch(match_id))
    assert isinstance(await client.next(), Joined)
    await client.send(ClientSession().watch(match_id))
    assert (await client.error()).code == "already-joined"
