"""The journal's own Redis connection (server/cluster/line.py), on a private Redis of the test's own
(a password and a database other than 0, so the handshake is what lets the script run at all): a
script runs and its keys land in that database; a Redis that forgot its scripts gets them again (one
call, or several written at once, each with its own answer); a
killed connection fails the one request in flight with ConnectionError and the next opens a new one;
a request written at once (the owner's fast path) hands its reply, or its failure, to its callback;
a script's own error is a ResponseError and leaves the line usable; a Redis that is gone fails within
the line's timeout, and one that is back is used again."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal

import pytest
import redis.asyncio as aioredis
from redis.exceptions import NoScriptError, ResponseError

from server.cluster.journal import appending
from server.cluster.line import CLIENT_NAME, ScriptLine
from server.cluster.redis import RedisOwnership
from tests.cluster.test_ownership import batch, header
from tests.cluster_helpers import redis_alone
from tests.server.helpers import until, until_awaited

pytestmark = pytest.mark.asyncio

PASSWORD = "line-test-password"
#: Sets KEYS-less ARGV[1] to ARGV[2] and answers the key's new length (a key built in the script, as
#: the journal's many-match scripts do on one Redis).
SCRIPT = "redis.call('APPEND', ARGV[1], ARGV[2]) return redis.call('STRLEN', ARGV[1])"
FAILING = "return redis.error_reply('refused on purpose')"


def sha(script: str) -> str:
    return hashlib.sha1(script.encode()).hexdigest()


def url(port: int) -> str:
    return f"redis://:{PASSWORD}@127.0.0.1:{port}/3"


async def test_a_script_runs_through_the_handshake_and_again_after_the_redis_forgot_it() -> None:
    with redis_alone("--requirepass", PASSWORD) as port:
        client = aioredis.Redis.from_url(url(port))
        line = ScriptLine(client.connection_pool.connection_kwargs)
        try:
            assert await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "ab"]) == 2  # loaded on its NOSCRIPT
            assert await client.get("k") == b"ab"  # in database 3, the URL's
            journal = [c for c in await client.client_list() if c["name"] == CLIENT_NAME]
            assert len(journal) == 1 and journal[0]["db"] == "3"
            await client.script_flush()
            assert await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "c"]) == 3
            await client.script_flush()  # several calls in one round trip: each refused, loaded, sent again
            calls: list[tuple[list[str], list[str | int]]] = [([], ["k", "d"]), ([], ["j", "xy"])]
            assert await line.evalsha_all(sha(SCRIPT), SCRIPT, calls) == [4, 2]
            answers = await line.evalsha_all(sha(FAILING), FAILING, [([], []), ([], [])])
            assert [str(answer) for answer in answers] == ["refused on purpose"] * 2
            assert all(isinstance(answer, ResponseError) for answer in answers)
            assert await line.evalsha_all(sha(SCRIPT), SCRIPT, [([], ["k", "e"])]) == [5]  # still usable
        finally:
            line.close()
            await client.aclose()


async def test_a_killed_connection_fails_the_request_in_flight_and_the_next_one_reconnects() -> None:
    with redis_alone("--requirepass", PASSWORD) as port:
        client = aioredis.Redis.from_url(url(port))
        line = ScriptLine(client.connection_pool.connection_kwargs)
        try:
            assert await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "a"]) == 1
            blocked = asyncio.create_task(line.call("BLPOP", "nothing", 0))  # no reply until killed

            async def blocking() -> bool:
                return any(c["cmd"] == "blpop" for c in await client.client_list())

            await until_awaited(blocking, 10, "the line's BLPOP waiting in Redis")
            assert await client.client_kill_filter(_type="normal", skipme=True) >= 1
            with pytest.raises(ConnectionError):
                await blocked
            assert await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "b"]) == 2  # on a new connection
            with pytest.raises(ResponseError, match="refused on purpose"):
                await line.evalsha(sha(FAILING), FAILING, [])
            assert await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "c"]) == 3
        finally:
            line.close()
            await client.aclose()


async def test_a_request_written_at_once_hands_its_reply_or_refusal_to_its_callback() -> None:
    """`evalsha_soon`: nothing is written before the line is open; then the reply (and a script Redis
    does not hold, as NoScriptError) reaches the callback, and requests written back to back are
    answered in order, after one the async path still waits for."""
    with redis_alone("--requirepass", PASSWORD) as port:
        client = aioredis.Redis.from_url(url(port))
        line = ScriptLine(client.connection_pool.connection_kwargs)
        replies: list[object] = []
        try:
            assert not line.evalsha_soon(sha(SCRIPT), ["k", "a"], replies.append)  # not open yet
            assert replies == []
            assert await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "a"]) == 1  # opens it, loads the script
            connection = line._replies
            assert connection is not None
            # Written, its reply awaited:
            [slow] = line._send(connection, [("EVALSHA", sha(SCRIPT), 0, "k", "b")])
            assert line.evalsha_soon(sha(SCRIPT), ["k", "c"], replies.append)
            assert line.evalsha_soon(sha(FAILING), [], replies.append)  # never loaded
            assert line.evalsha_soon(sha(SCRIPT), ["k", "d"], replies.append)
            assert await slow == 2
            await until(lambda: len(replies) == 3, 10, "the three replies")
            assert replies[0] == 3 and replies[2] == 4
            assert isinstance(replies[1], NoScriptError)
        finally:
            line.close()
            await client.aclose()


async def test_a_redis_that_is_gone_fails_within_the_timeout_and_is_used_again_once_back() -> None:
    with redis_alone() as port:
        settings = {"host": "127.0.0.1", "port": port, "socket_timeout": 2.0}
        line = ScriptLine(settings)
        assert await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "a"]) == 1
    with pytest.raises(ConnectionError):  # nothing listens on the port now
        await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "b"])
    with redis_alone() as other:
        line.settings["port"] = other  # as if the same Redis came back (empty: nothing was kept)
        assert await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "c"]) == 1
        line.close()


async def test_the_ownership_logs_through_the_line_on_a_private_redis_with_a_password() -> None:

    with redis_alone("--requirepass", PASSWORD) as port:
        ownership = RedisOwnership.from_url(url(port), prefix="line:")
        try:
            lease = await ownership.acquire("m1", "node-a")
            assert lease is not None
            await ownership.create(lease, header())
            items = [appending(lease, batch(1)), appending(lease, batch(2))]
            assert await ownership.append_all(items) == [None, None]
            journal = await ownership.load("m1")
            assert journal is not None and [b.seq for b in journal.batches] == [1, 2]
        finally:
            await ownership.close()


async def test_a_redis_that_stops_answering_fails_the_request_after_the_timeout_and_is_used_again() -> None:
    """A paused Redis (SIGSTOP) keeps the connection open and answers nothing: the watchdog fails the
    request once the socket timeout passed, and the line opens a new connection for the next one."""
    with redis_alone() as port:
        client = aioredis.Redis.from_url(f"redis://127.0.0.1:{port}/0")
        pid = int((await client.info("server"))["process_id"])
        line = ScriptLine({"host": "127.0.0.1", "port": port, "socket_timeout": 0.5})
        try:
            assert await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "a"]) == 1
            os.kill(pid, signal.SIGSTOP)
            try:
                with pytest.raises(ConnectionError, match="no reply from Redis within 0.5 s"):
                    await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "b"])
            finally:
                os.kill(pid, signal.SIGCONT)
            # "b" was sent before the pause and may have run once Redis went on: the journal's
            # scripts refuse such a batch when it is sent again (server/cluster/line.py).
            assert await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "c"]) in (2, 3)
            replies: list[object] = []  # a request written at once: its callback gets the failure
            os.kill(pid, signal.SIGSTOP)
            try:
                assert line.evalsha_soon(sha(SCRIPT), ["k", "d"], replies.append)
                await until(lambda: bool(replies), 10, "the callback's answer")
            finally:
                os.kill(pid, signal.SIGCONT)
            assert isinstance(replies[0], ConnectionError) and "no reply from Redis within" in str(replies[0])
            assert not line.evalsha_soon(sha(SCRIPT), ["k", "e"], replies.append)  # closed: the slow path
            assert await line.evalsha(sha(SCRIPT), SCRIPT, ["k", "f"]) in (3, 4, 5)  # "b", "d" may have run
        finally:
            line.close()
            await client.aclose()

