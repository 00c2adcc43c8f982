"""A bot that plays over the websocket like any client: the tests' and the benchmark's player.

It speaks the protocol through `protocol.client.ClientSession`, keeps a local copy of the match
(`MatchMirror`: a match of the ruleset `joined` names, found in rules/registry.py, stepped with the
inputs of each confirmed frame, which the stream carries), lets that ruleset's bot decide from its
own seat's view there, and
sends one input per frame it hears, stamped `input_delay` frames ahead of the server's estimated
frame. The mirror also checks the stream: its own events must equal each confirmed frame's events.

Latency can be injected: `latency(frame) -> frames` holds each input message until the server is
that many frames past the message's first frame, so it arrives late on purpose and the server must roll back.
"Past" is what the server was heard publishing, not the clock's estimate: a loaded machine's server
runs behind its schedule, and an input released by the estimate could still reach it in time.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import websockets

from protocol.client import ClientSession
from protocol.codec import decode_client
from protocol.messages import Frame, Input, Joined, Matched, Over, Rated, Resync, Rewind, ServerMessage
from rules.registry import lookup
from rules.ruleset import Bot, Match, Ruleset

#: Seconds between clock-sync pings.
PING_EVERY = 0.25


class MatchMirror:
    """A local match of the stream's ruleset that follows the confirmed frames of the stream."""

    def __init__(self, joined: Joined) -> None:
        self.ruleset: Ruleset[Any, Any] = lookup(joined.ruleset, joined.ruleset_version)
        config = self.ruleset.config_from_plain(joined.config)
        self.match: Match[Any] = self.ruleset.new_match(config, joined.seed, joined.seats)
        self._inputs: dict[int, tuple[list[int], list[dict[str, Any]]]] = {}
        self.confirmed = 0
        self.mismatches = 0
        self.synced = True

    def feed(self, message: ServerMessage) -> None:
        """Take a stream message's frames (the newest version of a frame wins)."""
        match message:
            case Frame():
                self._inputs[message.frame] = (message.inputs, message.events)
                self.confirmed = max(self.confirmed, message.confirmed)
            case Rewind():
                for frame in [f for f in self._inputs if f >= message.frame]:
                    del self._inputs[frame]
            case Resync():
                # A resync starts from a keyframe (a view, not a state): a mirror behind it cannot follow.
                if message.frame > self.match.frame:
                    self.synced = False
                for body in message.frames:
                    self._inputs[body["frame"]] = (body["inputs"], body["events"])
                self.confirmed = max(self.confirmed, message.confirmed)
            case _:
                pass

    def advance(self) -> int:
        """Step every confirmed frame whose inputs are known; returns how many were stepped."""
        stepped = 0
        match = self.match
        while self.synced and match.result is None and match.frame < self.confirmed:
            entry = self._inputs.pop(match.frame, None)
            if entry is None:
                break
            inputs, events = entry
            records = match.step(inputs)
            if match.records_wire(records) != events:
                self.mismatches += 1
            stepped += 1
        return stepped


@dataclass
class BotRun:
    """What a bot client did: its session (the stream as received), input runs sent, and its mirror."""

    session: ClientSession
    seat: int | None = None
    #: Each input message sent: its first frame and its bytes.
    sent: list[tuple[int, list[int]]] = field(default_factory=list)
    mirror: MatchMirror | None = None
    messages: int = 0
    bytes_received: int = 0


async def http_json(
    url: str, method: str = "GET", body: dict[str, Any] | None = None, token: str | None = None
) -> Any:
    """A small JSON request (in a thread: urllib blocks)."""

    def call() -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - our own server's URL
            return json.loads(response.read())

    return await asyncio.to_thread(call)


async def http_bytes(url: str, method: str = "GET", body: bytes | None = None) -> tuple[int, bytes]:
    """A raw request: the status and the body (error statuses included)."""

    def call() -> tuple[int, bytes]:
        request = urllib.request.Request(url, data=body, method=method)
        if body is not None:
            request.add_header("Content-Type", "application/msgpack")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 - our own server's URL
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    return await asyncio.to_thread(call)


async def new_guest(http_url: str, name: str) -> tuple[str, str]:
    """A guest id and token from the server."""
    answer = await http_json(f"{http_url}/api/guests", "POST", {"name": name})
    return answer["guest"], answer["token"]


async def play(
    ws_url: str,
    token: str,
    match_id: str | None,
    bot: str = "competent",
    seed: int = 1,
    *,
    latency: Callable[[int], int] | None = None,
    validate: bool = True,
    keep_log: bool = True,
    leave: Callable[[BotRun], bool] | None = None,
    max_size: int = 2**22,
    record: list[bytes] | None = None,
    until_rated: bool = False,
    join_at: Callable[[str], str] | None = None,
    queue_ruleset: str | None = None,
) -> BotRun:
    """Play the seat `token` holds in `match_id` until the match is over.

    `match_id=None` joins the ranked queue first (of `queue_ruleset`; None: the server's) and plays the
    match it is paired into (`matched`);
    `join_at(match)`, when given, is the websocket URL to play that match at (another node's: the one
    that hosts it, as HAProxy's `/ws?match=<id>` pinning does), on a connection of its own.
    `leave(run)`, asked after every message, makes the bot leave (forfeit) once it says True; the
    bot then reads on until the match's `over`. `until_rated` reads on after `over` until `rated`.
    `record`, when given, gets every websocket message's bytes as it arrived (the stream's fixtures
    for the browser client's tests).
    """
    session = ClientSession(token, client=f"bot-{bot}", validate=validate, keep_log=keep_log)
    run = BotRun(session)
    player: Bot[Any] | None = None
    held: list[tuple[int, Input, bytes]] = []  # (release frame, message, its bytes), in order
    left = False
    if match_id is None and join_at is not None:
        async with websockets.connect(ws_url, max_size=max_size, compression=None, proxy=None) as queue_ws:
            await queue_ws.send(session.hello())
            await queue_ws.send(session.queue(queue_ruleset))
            match_id = await _matched(queue_ws, session)
        ws_url = join_at(match_id)
    async with websockets.connect(ws_url, max_size=max_size, compression=None, proxy=None) as ws:
        await ws.send(session.hello())
        if match_id is None:
            await ws.send(session.queue(queue_ruleset))
            match_id = await _matched(ws, session)
        await ws.send(session.join(match_id))

        async def pinger() -> None:
            while True:
                await ws.send(session.ping(time.monotonic()))
                await asyncio.sleep(PING_EVERY)

        ping_task = asyncio.create_task(pinger())
        try:
            async for data in ws:
                assert isinstance(data, bytes)
                now = time.monotonic()
                run.messages += 1
                run.bytes_received += len(data)
                if record is not None:
                    record.append(data)
                heard_frame = False
                for message in session.receive(data, now):
                    if isinstance(message, Joined) and run.mirror is None:
                        run.seat = message.seat
                        run.mirror = MatchMirror(message)
                        player = run.mirror.ruleset.make_bot(bot, seed)
                    elif run.mirror is not None:
                        run.mirror.feed(message)
                    heard_frame = heard_frame or isinstance(message, Frame | Resync)
                    if (isinstance(message, Over) and not until_rated) or isinstance(message, Rated):
                        return run
                mirror = run.mirror
                if mirror is None or player is None or run.seat is None:
                    continue
                stepped = mirror.advance()
                value = None
                for _ in range(stepped):
                    value = player.decide(mirror.match.seat_view(run.seat), mirror.match.frame)
                if heard_frame and mirror.match.result is None and not left:
                    if value is None:
                        value = player.decide(mirror.match.seat_view(run.seat), mirror.match.frame)
                    for payload in session.input(value, now):
                        run_sent = decode_client(payload)
                        assert isinstance(run_sent, Input)
                        delay = latency(run_sent.frame) if latency is not None else -(10**9)
                        release = run_sent.frame + delay
                        held.append((max(release, held[-1][0]) if held else release, run_sent, payload))
                heard = session.heard_frame
                while held and (latency is None or (heard is not None and heard >= held[0][0])):
                    _, told, payload = held.pop(0)
                    await ws.send(payload)
                    run.sent.append((told.frame, told.inputs))
                if leave is not None and not left and leave(run):
                    left = True
                    await ws.send(session.leave())
        finally:
            ping_task.cancel()
    return run


async def _matched(ws: Any, session: ClientSession) -> str:
    """Read until the queue's `matched` (a refusal raises); the match id."""
    async for data in ws:
        assert isinstance(data, bytes)
        for message in session.receive(data, time.monotonic()):
            if isinstance(message, Matched):
                return message.match
        if session.errors:
            raise RuntimeError(f"the queue refused: {session.errors[-1]}")
    raise RuntimeError("the connection closed before a match was found")


async def watch(
    ws_url: str, match_id: str, *, validate: bool = True, keep_log: bool = True, max_size: int = 2**22
) -> ClientSession:
    """Spectate `match_id` until it is over; returns the session holding the confirmed log."""
    session = ClientSession(None, client="spectator", validate=validate, keep_log=keep_log)
    async with websockets.connect(ws_url, max_size=max_size, compression=None, proxy=None) as ws:
        await ws.send(session.hello())
        await ws.send(session.watch(match_id))
        async for data in ws:
            assert isinstance(data, bytes)
            session.receive(data, time.monotonic())
            if session.over is not None:
                break
    return session
