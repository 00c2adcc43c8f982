"""A bystander's frame lateness while one client abuses websocket frames, and without it:
`python -m bench.abuse_ws`.

    PYTHONPATH=. python -m bench.abuse_ws [--seconds 3] [--no-frame-budget]

Each scenario starts a server in this process on the default settings (60 frames/s) with a bystander's
match of two server-side bots, then runs one attacker from 127.0.0.2 for `--seconds`: nothing (quiet),
pings of 125 bytes flooded by a client that never reads, 100,000 pings of 8 bytes written at once by
a client that reads its answers, and pings written as fast as the socket takes them by a client
that reads. Printed per scenario: the bystander's clock wake-up lateness over the window (p50, p99,
max; every window lasts `--seconds`), the most bytes the server held unsent for the attacker
(sampled every 5 ms), what the attacker sent and whether (and how) the server ended its connection.
It needs nothing the listener added for issue 18, so it measures the tree before that too.
`--no-frame-budget` lifts the frame budget (where the tree has one) to see the other bounds alone.
Results: bench/ABUSE.md ("Websocket frames").
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from server.app import create_app
from server.config import ServerConfig
from server.embed import RunningServer, running_server
from server.node import Node

ATTACKER = "127.0.0.2"


@dataclass
class Attack:
    """What one attacker did and saw."""

    sent: int = 0
    pongs: int = 0
    close_code: int | None = None
    ended: bool = False
    peak_unsent: int = 0
    #: Why the server ended the attacker's websocket, as it says (issue 18's trees; None before).
    ended_for: str | None = None
    notes: list[str] = field(default_factory=list)


async def open_raw(server: RunningServer, receive_buffer: int | None = None,
                   ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, ClientProtocol, int]:
    """A websocket from 127.0.0.2 whose client then writes raw frames: its reader, writer, websockets'
    client protocol (handshake done) and the request's bytes. `receive_buffer`: a small socket buffer,
    so that a client that does not read stops the server soon."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.bind((ATTACKER, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (server.host, server.port))
    reader, writer = await asyncio.open_connection(sock=sock)
    protocol = ClientProtocol(parse_uri(server.ws_url))
    protocol.send_request(protocol.connect())
    request = b"".join(protocol.data_to_send())
    writer.write(request)
    while not any(isinstance(event, Response) for event in protocol.events_received()):
        protocol.receive_data(await reader.read(65536))
    return reader, writer, protocol, len(request)


async def connect(server: RunningServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, ClientProtocol]:
    """A websocket from 127.0.0.2 (handshake done; the client then writes raw frames)."""
    reader, writer, protocol, _ = await open_raw(server)
    return reader, writer, protocol


async def read_answers(reader: asyncio.StreamReader, protocol: ClientProtocol, attack: Attack) -> None:
    """Count the pongs and note the close until the server ends the connection."""
    while True:
        try:
            data = await reader.read(65536)
        except ConnectionError:
            data = b""
        if not data:
            attack.ended = True
            return
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Frame) and event.opcode is Opcode.PONG:
                attack.pongs += 1
            elif isinstance(event, Frame) and event.opcode is Opcode.CLOSE:
                attack.close_code = Close.parse(bytes(event.data)).code


def ping(payload: bytes) -> bytes:
    """A masked ping frame."""
    return Frame(Opcode.PING, payload).serialize(mask=True)


async def quiet(server: RunningServer, seconds: float, attack: Attack) -> None:
    await asyncio.sleep(seconds)


async def unread_flood(server: RunningServer, seconds: float, attack: Attack) -> None:
    """125-byte pings as fast as the socket takes them; nothing is ever read."""
    _, writer, _ = await connect(server)
    chunk = ping(b"p" * 125) * 512
    try:
        async with asyncio.timeout(seconds):
            while True:
                writer.write(chunk)
                attack.sent += len(chunk)
                await writer.drain()
    except TimeoutError:
        pass
    except ConnectionError:
        attack.ended = True
    writer.close()


async def burst(server: RunningServer, seconds: float, attack: Attack) -> None:
    """100,000 pings of 8 bytes (1.4 MB) written at once; the answers are read."""
    reader, writer, protocol = await connect(server)
    reading = asyncio.create_task(read_answers(reader, protocol, attack))
    data = ping(b"01234567") * 100_000
    writer.write(data)
    attack.sent = len(data)
    await asyncio.wait([reading], timeout=seconds)
    reading.cancel()
    writer.close()


async def stream(server: RunningServer, seconds: float, attack: Attack) -> None:
    """Empty pings as fast as the socket takes them; the answers are read."""
    reader, writer, protocol = await connect(server)
    reading = asyncio.create_task(read_answers(reader, protocol, attack))
    chunk = ping(b"") * 4096
    try:
        async with asyncio.timeout(seconds):
            while not attack.ended:
                writer.write(chunk)
                attack.sent += len(chunk)
                await writer.drain()
    except (TimeoutError, ConnectionError):
        pass
    reading.cancel()
    writer.close()


SCENARIOS: dict[str, Callable[[RunningServer, float, Attack], Awaitable[None]]] = {
    "quiet": quiet,
    "pings, never read": unread_flood,
    "100k pings at once": burst,
    "pings as fast as possible": stream,
}


async def watch_unsent(server: RunningServer, attack: Attack) -> None:
    """The most bytes the server holds unsent on the attacker's sockets (sampled every 5 ms)."""
    listener = server.listener
    while True:
        for transport, protocol in list(listener._open.items()):  # noqa: SLF001 - a bench looks inside
            name = transport.get_extra_info("peername")
            if name and name[0] == ATTACKER:
                attack.ended_for = getattr(protocol, "ended_for", None) or attack.ended_for
                if not transport.is_closing():
                    attack.peak_unsent = max(attack.peak_unsent, transport.get_write_buffer_size())
        await asyncio.sleep(0.005)


async def run(name: str, seconds: float, frame_budget: bool) -> str:
    config = ServerConfig().override(secret=b"bench-secret-0123456789abcdef", tune_gc=False,
                                     verify_pool="thread")
    if not frame_budget and hasattr(config, "ws_frame_rate"):
        unbounded = {"ws_frame_rate": 1e9, "ws_frame_burst": 1e9, "ws_byte_rate": 1e12, "ws_byte_burst": 1e12}
        config = config.override(**unbounded)
    app = create_app(config.with_time_limit(600))
    async with running_server(app) as server:
        node: Node = app.state.node
        node.hub.create_bot_duel("competent", "lazy")
        while node.stats()["running"] != 1:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.5)  # the bystander settles
        lateness = node.hub.frame_clock.lateness
        mark = len(lateness)
        attack = Attack()
        watcher = asyncio.create_task(watch_unsent(server, attack))
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        await SCENARIOS[name](server, seconds, attack)
        await asyncio.sleep(max(0.0, end - loop.time()))  # every window is `seconds` long
        watcher.cancel()
        window = sorted(list(lateness)[mark:]) or [0.0]
    p50 = statistics.median(window) * 1000
    p99 = window[min(len(window) - 1, int(0.99 * len(window)))] * 1000
    ended = f"ended (close code {attack.close_code})" if attack.ended else "open as the attacker sees it"
    ended += f", the server's reason: {attack.ended_for}" if attack.ended_for else ""
    return (f"{name:28} bystander p50 {p50:6.2f} ms, p99 {p99:7.2f} ms, max {window[-1] * 1000:7.1f} ms "
            f"over {len(window)} wake-ups; attacker sent {attack.sent / 1e6:.1f} MB, {attack.pongs} pongs "
            f"read, server held up to {attack.peak_unsent / 1e6:.2f} MB unsent, {ended}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--no-frame-budget", action="store_true", help="lift the websocket frame budget")
    args = parser.parse_args()
    for name in SCENARIOS:
        print(asyncio.run(run(name, args.seconds, not args.no_frame_budget)), flush=True)


if __name__ == "__main__":
    main()
