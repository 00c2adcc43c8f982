"""A node's own connection to one Redis for its journal's hot path: a request and its reply, nothing else.

A node logs its matches' batches about 120 times a second (one script call a tick slice, every
`send_every` frames: server/match/live.py `publish_phase`). Through redis-py's client each call costs
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
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Mapping
from typing import Any

import hiredis
from redis.exceptions import NoScriptError, ResponseError

#: How long a request waits for its connection or reply when the client names no socket timeout (s).
DEFAULT_TIMEOUT = 5.0
#: The connection's name in Redis' CLIENT LIST (an operator sees which connection is the journal's).
CLIENT_NAME = "floe-journal"
#: Bytes read from the socket at once.
READ_BYTES = 64 * 1024


class ScriptLine:
    """One connection, one request at a time (see the module docstring)."""

    def __init__(self, settings: Mapping[str, Any], tls: bool = False) -> None:
        #: The client's connection settings (redis-py's `connection_pool.connection_kwargs`), and
        #: whether it speaks TLS (`rediss://`).
        self.settings = dict(settings)
        self.tls = tls
        self.timeout = float(self.settings.get("socket_timeout") or DEFAULT_TIMEOUT)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._parser = hiredis.Reader()
        self._lock = asyncio.Lock()

    async def evalsha(self, sha: str, script: str, args: list[Any]) -> Any:
        """Run a loaded script with no keys and `args`; its reply (ResponseError for a script's error)."""
        async with self._lock:
            try:
                return await self._request("EVALSHA", sha, 0, *args)
            except NoScriptError:
                await self._request("SCRIPT", "LOAD", script)
                return await self._request("EVALSHA", sha, 0, *args)

    async def _request(self, *command: Any) -> Any:
        try:
            async with asyncio.timeout(self.timeout):
                if self._writer is None:
                    await self._open()
                assert self._writer is not None
                self._writer.write(hiredis.pack_command(command))
                reply = await self._reply()
        except (OSError, EOFError, TimeoutError, asyncio.IncompleteReadError) as error:
            self.close()
            raise ConnectionError(f"the journal's Redis connection failed: {error!r}") from error
        if isinstance(reply, hiredis.ReplyError):
            text = str(reply)
            if text.startswith("NOSCRIPT"):
                raise NoScriptError(text)
            raise ResponseError(text)
        return reply

    async def _reply(self) -> Any:
        while True:
            reply = self._parser.gets()
            if reply is not False:
                return reply
            assert self._reader is not None
            data = await self._reader.read(READ_BYTES)
            if not data:
                raise EOFError("Redis closed the connection")
            self._parser.feed(data)

    async def _open(self) -> None:
        settings = self.settings
        self._parser = hiredis.Reader()
        if settings.get("path"):
            self._reader, self._writer = await asyncio.open_unix_connection(str(settings["path"]))
        else:
            context = _tls(settings) if self.tls else None
            self._reader, self._writer = await asyncio.open_connection(
                str(settings.get("host", "127.0.0.1")), int(settings.get("port", 6379)), ssl=context)
        password, username = settings.get("password"), settings.get("username")
        if password is not None:
            await self._handshake("AUTH", *([username] if username else []), password)
        if int(settings.get("db") or 0):
            await self._handshake("SELECT", int(settings["db"]))
        await self._handshake("CLIENT", "SETNAME", CLIENT_NAME)

    async def _handshake(self, *command: Any) -> None:
        assert self._writer is not None
        self._writer.write(hiredis.pack_command(command))
        reply = await self._reply()
        if isinstance(reply, hiredis.ReplyError):
            raise ConnectionError(f"Redis refused {command[0]}: {reply}")

    def close(self) -> None:
        """Close the connection (the next request opens it again)."""
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None


def _tls(settings: Mapping[str, Any]) -> ssl.SSLContext:
    """A TLS context from redis-py's `rediss://` settings (its certificates and checks)."""
    context = ssl.create_default_context(cafile=settings.get("ssl_ca_certs"))
    if settings.get("ssl_certfile"):
        context.load_cert_chain(settings["ssl_certfile"], settings.get("ssl_keyfile"))
    if settings.get("ssl_cert_reqs") in ("none", ssl.CERT_NONE):
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context
