"""The HTTP layer's small holes of issue 18, reproduced against a real server: JSON bodies trickled to
hold requests open, pages without security headers, 405s without `Allow`, a keep-alive connection
after an early 413, and an OpenAPI document that left statuses out.

As in tests/server/test_abuse.py, the attacker speaks from 127.0.0.2 while a bystander's match runs;
each test asserts the bound's answer and prints the bystander's frame lateness (no timed assertion).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import pytest_asyncio

from server.app import DEFAULT_WEB_ROOT
from server.embed import RunningServer
from tests.server.bystander import bystander_match
from tests.server.conftest import StartServer
from tests.server.helpers import UNIT
from tests.server.test_abuse import ATTACKER, MSGPACK, abuse_config, attacker

pytestmark = pytest.mark.asyncio

#: The body deadline of these tests' server (short, so the trickled bodies are cut off soon).
BODY_SECONDS = 1.0
#: Trickled JSON bodies the attacker holds open at once.
TRICKLED = 16


@pytest_asyncio.fixture
async def served(start_server: StartServer) -> AsyncIterator[RunningServer]:
    """A server on the default limits (a 1 s body deadline, a 4 KiB upload bound) with a bystander's
    match (two server bots) running on it; prints the bystander's lateness afterwards."""
    server = await start_server(abuse_config(http_body_seconds=BODY_SECONDS, verify_max_bytes=4096))
    async with bystander_match(server):
        yield server


async def open_raw(server: RunningServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A raw TCP connection to the public port from the attacker's address."""
    return await asyncio.open_connection(server.host, server.port, local_addr=(ATTACKER, 0))


async def read_answer(reader: asyncio.StreamReader) -> tuple[str, dict[str, str], bytes]:
    """One HTTP answer: its status line, its headers (names lowercased) and its body (Content-Length)."""
    head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10 * UNIT)).decode("latin-1")
    status, *lines = head.strip().split("\r\n")
    fields = (line.partition(":") for line in lines)
    headers = {name.strip().lower(): value.strip() for name, _, value in fields}
    body = await asyncio.wait_for(reader.readexactly(int(headers.get("content-length", "0"))), 10 * UNIT)
    return status, headers, body


async def closed_by_server(reader: asyncio.StreamReader) -> bool:
    """Does the server close the connection (end of stream or reset, within the wait) with nothing more?"""
    try:
        return await asyncio.wait_for(reader.read(65536), 10 * UNIT) == b""
    except ConnectionResetError:
        return True


async def test_a_trickled_json_body_is_cut_off_with_408(served: RunningServer) -> None:
    """JSON bodies sent a few bytes and then held: each gets 408 `timeout` once the body deadline has
    passed (before, a JSON body had none and held its request open for minutes)."""

    async def trickle() -> tuple[str, dict[str, str], bytes, bool]:
        reader, writer = await open_raw(served)
        try:
            writer.write(b"POST /api/guests HTTP/1.1\r\nHost: floe\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 64\r\n\r\n{\"name\":")
            status, headers, body = await read_answer(reader)
            return status, headers, body, await closed_by_server(reader)
        finally:
            writer.close()

    answers = await asyncio.gather(*(trickle() for _ in range(TRICKLED)))
    for status, headers, body, closed in answers:
        assert status.startswith("HTTP/1.1 408"), status
        assert json.loads(body)["code"] == "timeout" and headers["connection"] == "close" and closed


async def test_every_answer_carries_the_security_headers(served: RunningServer) -> None:
    """`/`, `/docs`, the API, its refusals, the body bound's and the listener's own answers say nosniff,
    deny framing (X-Frame-Options and CSP frame-ancestors), send no referrer, and carry a
    Content-Security-Policy: the pages' allow only this server's files (/docs its one inline script by
    hash), the rest nothing."""
    async with attacker(served) as http:
        answers = {
            "page": await http.get("/"),
            "docs": await http.get("/docs"),
            "api": await http.get("/health"),
            "refusal": await http.get("/api/matches/nope"),
            "too-large": await http.post("/api/guests", content=b"x" * 20_000,
                                         headers={"content-type": "application/json"}),
            "schema": await http.get("/openapi.json"),
        }
    assert answers["too-large"].status_code == 413
    reader, writer = await open_raw(served)
    try:
        writer.write(b"HELLO THERE\r\n\r\n")  # refused by the listener itself, before the app
        status, listener_headers, _ = await read_answer(reader)
    finally:
        writer.close()
    assert status.startswith("HTTP/1.1 400")
    for name, headers in [*((name, answer.headers) for name, answer in answers.items()),
                          ("listener", httpx.Headers(listener_headers))]:
        assert headers["x-content-type-options"] == "nosniff", name
        assert headers["x-frame-options"] == "DENY", name
        assert headers["referrer-policy"] == "no-referrer", name
        assert "frame-ancestors 'none'" in headers["content-security-policy"], name
    page = answers["page"].headers["content-security-policy"]
    assert "script-src 'self';" in page and "connect-src 'self'" in page
    docs = answers["docs"].headers["content-security-policy"]
    assert re.search(r"script-src 'self' 'sha256-[A-Za-z0-9+/=]+';", docs), docs
    assert "https:" not in docs and "unsafe-eval" not in docs
    assert answers["api"].headers["content-security-policy"].startswith("default-src 'none'")
    assert "worker-src 'self'" in page and "wasm-unsafe-eval" not in page


async def test_the_engine_files_policy_allows_the_worker_wasm_and_nothing_more() -> None:
    """The engine's worker (served from /engine/, whose script's policy is the worker's) may compile
    WebAssembly and load this server's files only; no JavaScript eval, no other host; a path that
    merely starts alike gets the API's policy."""
    from server.http.headers import API_POLICY, ENGINE_POLICY, PAGE_POLICY, SecurityHeaders

    async def app(scope: Any, receive: Any, send: Any) -> None:  # pragma: no cover - never called
        raise AssertionError

    headers = SecurityHeaders(app, {"/": PAGE_POLICY}, prefixes={"/engine/": ENGINE_POLICY})
    engine = headers.policy("/engine/worker-abc.js").decode()
    assert engine == ENGINE_POLICY
    assert "script-src 'self' 'wasm-unsafe-eval';" in engine and "connect-src 'self'" in engine
    assert "'unsafe-eval'" not in engine and "http" not in engine and engine.startswith("default-src 'none'")
    assert headers.policy("/engine").decode() == API_POLICY
    assert headers.policy("/").decode() == PAGE_POLICY


async def test_a_405_says_which_methods_the_route_allows(served: RunningServer) -> None:
    """A wrong method on a route or on the client's files answers 405 with `Allow` naming the methods
    that route takes."""
    async with attacker(served) as http:
        rooms = await http.get("/api/rooms")
        health = await http.post("/health")
        guests = await http.delete("/api/guests")
        files = await http.post("/assets/index.js")
    assert rooms.status_code == 405 and rooms.headers["allow"] == "POST"
    assert health.status_code == 405 and health.headers["allow"] == "GET"
    if (DEFAULT_WEB_ROOT / "assets").is_dir():  # the client's files are served once it is built
        assert files.status_code == 405 and files.headers["allow"] == "GET, HEAD"
    assert guests.status_code == 405 and guests.headers["allow"] == "POST"
    assert rooms.json()["code"] == "malformed"


@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "chunked"])
async def test_an_early_413_closes_a_kept_alive_connection(served: RunningServer, chunked: bool) -> None:
    """An upload refused before its body was read (by its declared length, or part-way through a chunked
    body) is answered 413 with `Connection: close` and the connection then closes: the next request,
    sent on it meanwhile, is never taken for part of the body nor silently swallowed."""
    reader, writer = await open_raw(served)
    try:
        framing = b"Transfer-Encoding: chunked" if chunked else b"Content-Length: 1000000"
        writer.write(b"POST /api/replays/verify HTTP/1.1\r\nHost: floe\r\n"
                     b"Content-Type: application/msgpack\r\n" + framing + b"\r\n\r\n")
        part = b"\x00" * 8192
        writer.write(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
        status, headers, body = await read_answer(reader)
        writer.write(b"GET /health HTTP/1.1\r\nHost: floe\r\n\r\n")
        assert status.startswith("HTTP/1.1 413") and json.loads(body)["code"] == "too-large"
        assert headers.get("connection") == "close", headers
        assert await closed_by_server(reader)
    finally:
        writer.close()
    async with attacker(served) as http:  # a new connection, as `Connection: close` says
        assert (await http.get("/health")).status_code == 200


def operation_statuses(schema: dict[str, Any], path: str, method: str) -> set[str]:
    return set(schema["paths"][path][method]["responses"])


async def test_the_openapi_document_lists_the_statuses_the_routes_answer(served: RunningServer) -> None:
    """Every operation lists the refusals it can give: every one 405 (a wrong method on its path, with
    `Allow`), 429 and 503 (the listener's connection cap, a stopping server); a route with a body 408,
    413 and 422; a guest's route 401; the daily and ranked routes theirs."""
    async with attacker(served) as http:
        schema = (await http.get("/openapi.json")).json()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            listed = set(operation["responses"])
            assert {"405", "429", "503"} <= listed, (method, path, listed)
            if "requestBody" in operation:
                assert {"408", "413", "422"} <= listed, (method, path, listed)
            if any(parameter["name"] == "authorization" for parameter in operation.get("parameters", ())):
                assert "401" in listed, (method, path, listed)
    assert {"400", "401", "408", "413", "422", "429", "503", "504"} <= operation_statuses(
        schema, "/api/daily/runs", "post")
    assert "422" in operation_statuses(schema, "/api/daily/{day}", "get")
    assert {"404"} <= operation_statuses(schema, "/api/players/{guest_id}", "get")
    assert {"401", "429"} <= operation_statuses(schema, "/api/guests/renew", "post")
    assert "application/msgpack" in schema["paths"]["/api/replays/verify"]["post"]["requestBody"]["content"]
    assert MSGPACK["content-type"] == "application/msgpack"
