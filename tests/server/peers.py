"""A test's websocket client that reads in the background: every server message kept, in order, and a
neutral input sent for each stream record once playing (so the server confirms the seat's frames)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TypeVar

import websockets

from protocol.client import ClientSession
from protocol.messages import Frame, Resync, ServerMessage
from rules.versus.inputs import NEUTRAL

M = TypeVar("M")


class Peer:
    """One websocket and its ClientSession; `messages` grows as the server speaks."""

    def __init__(self, ws: websockets.ClientConnection, session: ClientSession, play: bool) -> None:
        self.ws = ws
        self.session = session
        self.play = play
        self.messages: list[ServerMessage] = []
        self._task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, token: str | None, play: bool = True, address: str = "127.0.0.1") -> Peer:
        """Connect to `url` from `address`, say hello (with `token`), and read in the background."""
        ws = await websockets.connect(url, compression=None, proxy=None, local_addr=(address, 0))
        peer = cls(ws, ClientSession(token), play)
        await ws.send(peer.session.hello())
        return peer

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for data in self.ws:
                assert isinstance(data, bytes)
                now = time.monotonic()
                for message in self.session.receive(data, now):
                    self.messages.append(message)
                    if self.play and isinstance(message, Frame | Resync) and self.session.over is None:
                        for payload in self.session.input(NEUTRAL, now):
                            await self.ws.send(payload)

    async def send(self, data: bytes) -> None:
        """Send one message."""
        await self.ws.send(data)

    def of(self, kind: type[M]) -> list[M]:
        """The messages of one kind heard so far."""
        return [message for message in self.messages if isinstance(message, kind)]

    async def close(self) -> None:
        """Close the websocket and stop reading."""
        await self.ws.close()
        await asyncio.wait_for(self._task, 10)
