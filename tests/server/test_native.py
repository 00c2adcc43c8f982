"""The websocket fast path (server/native.py): in use under uvicorn, equal to the ASGI path, and its
direct connections batch their writes and drop a client that stops reading."""

from __future__ import annotations

import asyncio

import pytest

from protocol.codec import decode_server_messages, encode
from protocol.errors import CloseCode
from protocol.messages import Error, Rewind
from rules.replay import verify
from server import botclient
from server.app import create_app
from server.embed import RunningServer, running_server
from server.transport.connection import Connection
from tests.server.conftest import fast_config
from tests.server.helpers import UNIT
from tests.server.test_match_network import fetch_replay


async def play_a_bot_match(server: RunningServer) -> None:
    """A guest plays a short match against the lazy bot, watched by a spectator; both see the end."""
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


@pytest.mark.asyncio
@pytest.mark.parametrize("fast_path", [True, False], ids=["fast-path", "asgi-path"])
async def test_both_paths_play_a_match(fast_path: bool) -> None:
    """Under uvicorn with floe's protocol class every websocket takes the fast path; with uvicorn's own
    class (any other server) every message goes through ASGI; a match plays the same either way."""
    app = create_app(fast_config().with_time_limit(3))
    async with running_server(app, fast_path=fast_path) as server:
        await play_a_bot_match(server)
        hub = app.state.hub
        assert hub.native_connections == (2 if fast_path else 0)
        assert hub.stats()["crashed"] == 0


class FakeTransport:
    """A direct transport that records writes and reports a buffer size the test sets."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed: list[int] = []
        self.backlog = 0

    def write(self, data: bytes) -> bool:
        if self.closed:
            return False
        self.writes.append(data)
        return True

    def buffered(self) -> int:
        return self.backlog

    def close(self, code: int) -> None:
        self.closed.append(code)


@pytest.mark.asyncio
async def test_a_direct_connection_writes_once_per_callback() -> None:
    """Messages queued in one callback leave in one write right after it, joined back to back."""
    transport = FakeTransport()
    conn = Connection(None, None, 64, direct=transport, max_buffered=1000)
    messages = [encode(Rewind(n=n, frame=n)) for n in range(1, 4)]
    for data in messages:
        conn.send_bytes(data)
    assert transport.writes == []  # nothing before the callback ends
    await asyncio.sleep(0)
    assert transport.writes == [b"".join(messages)] and conn.messages_sent == 3
    conn.close()
    await asyncio.sleep(0)
    assert transport.closed == [1000] and not conn.send_bytes(messages[0])


@pytest.mark.asyncio
async def test_a_direct_connection_drops_a_client_that_stops_reading() -> None:
    """Once the socket holds more than `max_buffered` unsent bytes, the client gets a fatal
    slow-consumer error and the close (code 1013), and later sends are refused."""
    transport = FakeTransport()
    conn = Connection(None, None, 64, direct=transport, max_buffered=1000)
    conn.send_bytes(encode(Rewind(n=1, frame=1)))
    await asyncio.sleep(0)
    transport.backlog = 5000  # the peer stopped reading
    conn.send_bytes(encode(Rewind(n=2, frame=2)))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert not conn.open and transport.closed == [CloseCode.TRY_AGAIN]
    last = decode_server_messages(transport.writes[-1])[-1]
    assert isinstance(last, Error) and last.code == "slow-consumer" and last.fatal
    assert not conn.send_bytes(b"late")
