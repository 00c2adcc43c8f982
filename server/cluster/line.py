"""A node's own connection to one Redis for its journal's hot path: a request and its reply, nothing else.

A node logs its matches' batches in one script call for each publishing group of tick slices, every
`send_every` frames (30 a second with the default groups; 120 with one slice a group:
server/match/live.py `publish_phase`). Through redis-py's client each call costs
about 100 µs of Python besides the socket's own cost (the connection pool, retries, observability,
the command's packing and parsing): as much as the rest of the journal together (bench/README.md,
`cluster_cpu`). This line sends the same command on a connection of its own, packed and parsed by
hiredis (Redis' own C parser, the one redis-py itself uses when it is installed): about 25 µs.

It speaks to one Redis (not a cluster: a cluster's appends go through redis-py's cluster pipeline,
which routes each match to its master). It opens on first use with the client's own connection
settings (host and port or a Unix socket, TLS, user, password, database), sends one request at a
time, and bounds every wait by the client's socket timeout. A request that meets a closed or broken
connection raises `ConnectionError` and closes the line (the next request opens it again): the owner
logs the same batches again with the same numbers (server/match/owner.py `_put_back`), which the
journal's scripts make safe (a batch is never logged twice: had the lost request been applied, the
second is refused as out of order and the match moves to a node that restores it from the journal).
A script the Redis does not hold (`NOSCRIPT`: it restarted) is loaded once and the request sent again.
`evalsha_all` writes several calls of one script at once and awaits their replies together (a flush's
snapshots: one round trip for all the matches due).

`evalsha_soon` is the owner's fast path (server/match/owner.py `flush_soon`): the request is written at
once, without a task or an `await` (no lock: Redis answers in order, so it may follow a request still
waiting), and its reply, or the error that failed it, is handed to a callback in the read callback
itself. It starts only on a line that is open; a script Redis lost is not loaded there (the callback
gets `NoScriptError` and the owner's slow path, `evalsha`, loads it).
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Protocol, cast

import hiredis
from redis.exceptions import NoScriptError, ResponseError

#: How long a request waits for its connection or reply when the client names no socket timeout (s).
DEFAULT_TIMEOUT = 5.0
#: The connection's name in Redis' CLIENT LIST (an operator sees which connection is the journal's).
CLIENT_NAME = "floe-journal"


class _Waiter(Protocol):
    """What waits for a reply: a future (`evalsha`) or a callback (`evalsha_soon`)."""

    def done(self) -> bool: ...

    def set_result(self, result: Any, /) -> None: ...

    def set_exception(self, exception: BaseException, /) -> None: ...


class _Callback:
    """A reply's waiter that calls `on_reply` with the reply, or with the error that failed the request
    (a `ConnectionError` when the connection broke or the reply is `timeout` late, `NoScriptError` or
    `ResponseError` for Redis' own refusal)."""

    __slots__ = ("on_reply", "called")

    def __init__(self, on_reply: Callable[[Any], None]) -> None:
        self.on_reply = on_reply
        self.called = False

    def done(self) -> bool:
        return self.called

    def set_result(self, result: Any, /) -> None:
        self.called = True
        self.on_reply(_refusal(result) if isinstance(result, hiredis.ReplyError) else result)

    def set_exception(self, exception: BaseException, /) -> None:
        self.called = True
        self.on_reply(ConnectionError(f"the journal's Redis connection failed: {exception!r}"))


class _Replies(asyncio.Protocol):
    """The connection's reading side: replies parsed as they arrive (hiredis), each handed to the
    request waiting for it, in order, right in the event loop's read callback (no reader task)."""

    def __init__(self) -> None:
        self.parser = hiredis.Reader()
        self.waiting: deque[_Waiter] = deque()
        self.transport: asyncio.Transport | None = None
        #: Called once the connection is gone (the line forgets it: the next request opens another).
        self.on_lost: Callable[[], None] = lambda: None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream connection's transport (uvloop's is not an asyncio.Transport subclass).
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.parser.feed(data)
        while self.waiting:
            reply = self.parser.gets()
            if reply is False:
                return
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.on_lost()
        self.fail(EOFError("Redis closed the connection") if exc is None else exc)

    def fail(self, error: BaseException) -> None:
        """Every waiting request fails with `error`."""
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_exception(error)


class ScriptLine:
    """One connection, one request at a time (see the module docstring)."""

    def __init__(self, settings: Mapping[str, Any], tls: bool = False) -> None:
        #: The client's connection settings (redis-py's `connection_pool.connection_kwargs`), and
        #: whether it speaks TLS (`rediss://`).
        self.settings = dict(settings)
        self.tls = tls
        self.timeout = float(self.settings.get("socket_timeout") or DEFAULT_TIMEOUT)
        self._replies: _Replies | None = None
        #: The connection is open and its handshake done (`evalsha_soon` writes only then).
        self._ready = False
        self._lock = asyncio.Lock()
        #: When the request out now has waited `timeout` (see `_watch`), and the timer watching it.
        self._deadline = 0.0
        self._watchdog: asyncio.TimerHandle | None = None

    async def evalsha(self, sha: str, script: str, args: list[Any], keys: list[str] | None = None) -> Any:
        """Run a loaded script with `keys` and `args`; its reply (ResponseError for a script's error)."""
        keys = keys or []
        async with self._lock:
            try:
                return await self._request("EVALSHA", sha, len(keys), *keys, *args)
            except NoScriptError:
                await self._request("SCRIPT", "LOAD", script)
                return await self._request("EVALSHA", sha, len(keys), *keys, *args)

    async def evalsha_all(self, sha: str, script: str,
                          calls: Sequence[tuple[list[str], list[Any]]]) -> list[Any]:
        """Several calls of one loaded script (each its keys and args) written at once, one round trip:
        each call's reply, in order, or the ResponseError Redis answered it with (a script Redis lost is
        loaded and the calls it refused sent again)."""
        async with self._lock:
            commands = [("EVALSHA", sha, len(keys), *keys, *args) for keys, args in calls]
            replies = await self._requests(commands)
            again = [index for index, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
            if again:
                await self._request("SCRIPT", "LOAD", script)
                sent_again = await self._requests([commands[index] for index in again])
                for index, reply in zip(again, sent_again, strict=True):
                    replies[index] = reply
            return replies

    async def call(self, *command: Any) -> Any:
        """Any other command (a read: the orphan scan's); its reply (ResponseError for Redis' refusal)."""
        async with self._lock:
            return await self._request(*command)

    def evalsha_soon(self, sha: str, args: list[Any], on_reply: Callable[[Any], None]) -> bool:
        """Write a loaded script's call (no keys) now; `on_reply` gets its reply or error from the read
        callback (see the module docstring). False, with nothing written, when the line is not open."""
        replies = self._replies
        if not self._ready or replies is None or replies.transport is None or replies.transport.is_closing():
            return False
        self._write(replies, [("EVALSHA", sha, 0, *args)], [_Callback(on_reply)])
        return True

    async def _request(self, *command: Any) -> Any:
        """One command's reply (its ResponseError raised)."""
        [reply] = await self._requests([command])
        if isinstance(reply, ResponseError):
            raise reply
        return reply

    async def _requests(self, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
        """Several commands written at once (opening the connection first if it is not): each one's
        reply, or the ResponseError Redis answered it with."""
        try:
            replies = self._replies
            if replies is None:
                async with asyncio.timeout(self.timeout):
                    replies = await self._open()
            answers = await asyncio.gather(*self._send(replies, commands))
        except (OSError, EOFError, TimeoutError) as error:
            self.close()
            raise ConnectionError(f"the journal's Redis connection failed: {error!r}") from error
        return [_refusal(reply) if isinstance(reply, hiredis.ReplyError) else reply for reply in answers]

    def _send(self, replies: _Replies, commands: Sequence[tuple[Any, ...]]) -> list[asyncio.Future[Any]]:
        """Write requests at once; the futures of their replies, failed with TimeoutError after `timeout`."""
        loop = asyncio.get_running_loop()
        waiters: list[asyncio.Future[Any]] = [loop.create_future() for _ in commands]
        self._write(replies, commands, waiters)
        return waiters

    def _write(self, replies: _Replies, commands: Sequence[tuple[Any, ...]],
               waiters: Sequence[_Waiter]) -> None:
        """Write requests in one write whose replies `waiters` get, in order (their error after
        `timeout`: the watchdog)."""
        replies.waiting.extend(waiters)
        assert replies.transport is not None
        replies.transport.write(b"".join(hiredis.pack_command(command) for command in commands))
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + self.timeout
        if self._watchdog is None:
            self._watchdog = loop.call_at(self._deadline, self._watch)

    def _watch(self) -> None:
        """The watchdog: one timer that follows the requests (a timer each would cost as much as the
        request itself, 120 times a second); a reply `timeout` late fails its request."""
        self._watchdog = None
        replies = self._replies
        if replies is None or not replies.waiting:
            return
        loop = asyncio.get_running_loop()
        if loop.time() >= self._deadline:
            replies.fail(TimeoutError(f"no reply from Redis within {self.timeout} s"))
            self.close()
        else:
            self._watchdog = loop.call_at(self._deadline, self._watch)

    async def _open(self) -> _Replies:
        settings = self.settings
        loop = asyncio.get_running_loop()
        replies = _Replies()
        replies.on_lost = partial(self._lost, replies)
        if settings.get("path"):
            await loop.create_unix_connection(lambda: replies, str(settings["path"]))
        else:
            context = _tls(settings) if self.tls else None
            await loop.create_connection(lambda: replies, str(settings.get("host", "127.0.0.1")),
                                         int(settings.get("port", 6379)), ssl=context)
        self._replies = replies
        password, username = settings.get("password"), settings.get("username")
        if password is not None:
            await self._handshake(replies, "AUTH", *([username] if username else []), password)
        if int(settings.get("db") or 0):
            await self._handshake(replies, "SELECT", int(settings["db"]))
        await self._handshake(replies, "CLIENT", "SETNAME", CLIENT_NAME)
        self._ready = True
        return replies

    async def _handshake(self, replies: _Replies, *command: Any) -> None:
        [waiter] = self._send(replies, [command])
        reply = await waiter
        if isinstance(reply, hiredis.ReplyError):
            raise ConnectionError(f"Redis refused {command[0]}: {reply}")

    def _lost(self, replies: _Replies) -> None:
        if self._replies is replies:
            self._replies, self._ready = None, False

    def close(self) -> None:
        """Close the connection (the next request opens it again)."""
        replies, self._replies = self._replies, None
        self._ready = False
        if replies is not None and replies.transport is not None:
            replies.transport.close()


def _refusal(reply: hiredis.ReplyError) -> ResponseError:
    """Redis' error reply as redis-py's exception (`NoScriptError` for a script it does not hold)."""
    text = str(reply)
    return NoScriptError(text) if text.startswith("NOSCRIPT") else ResponseError(text)


def _tls(settings: Mapping[str, Any]) -> ssl.SSLContext:
    """A TLS context from redis-py's `rediss://` settings (its certificates and checks)."""
    context = ssl.create_default_context(cafile=settings.get("ssl_ca_certs"))
    if settings.get("ssl_certfile"):
        context.load_cert_chain(settings["ssl_certfile"], settings.get("ssl_keyfile"))
    if settings.get("ssl_cert_reqs") in ("none", ssl.CERT_NONE):
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context
