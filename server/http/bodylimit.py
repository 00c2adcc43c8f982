"""A bound on every request body, in size and in time, enforced before the route reads it (an ASGI
middleware).

JSON routes read their whole body before validating it, so an unbounded body costs memory before
anything can refuse it, and a body trickled a byte at a time holds the request open. This middleware
answers 413 `too-large` (the server's one error shape) as soon as the declared `Content-Length` is
over the route's bound, and cuts off a body sent without one (chunked) the moment it passes it: the
route sees at most the bound, then a disconnect. The bound is `http_body_bytes` for every route, or a
larger one for the routes that take uploads (`upload_bytes`, by path prefix). A body not all arrived
`seconds` after the request reached the app is cut off the same way with 408 `timeout` (uploads have
the same deadline again in their own reading, server/http/body.py).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from protocol.codec import error_message, to_plain
from protocol.errors import ErrorCode

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodyLimit:
    """Wraps an ASGI app: bodies over their bound are refused before (or while) they are read."""

    def __init__(self, app: App, default_bytes: int, upload_bytes: Mapping[str, int], seconds: float) -> None:
        self.app = app
        self.default_bytes = default_bytes
        self.upload_bytes = dict(upload_bytes)
        self.seconds = seconds

    def bound(self, path: str) -> int:
        """The body bound of a path."""
        for prefix, limit in self.upload_bytes.items():
            if path.startswith(prefix):
                return limit
        return self.default_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.bound(scope.get("path", ""))
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            message = f"body of {declared} bytes is over the limit of {limit}"
            await _refuse(send, 413, ErrorCode.TOO_LARGE, message)
            return
        seen = 0
        started = refused = arrived = False
        deadline = asyncio.get_running_loop().time() + self.seconds

        async def refuse(status: int, code: ErrorCode, message: str) -> Message:
            # Answer now, and tell the app the client went away (it stops reading; whatever it sends
            # after this is dropped).
            nonlocal refused
            refused = True
            if not started:
                await _refuse(send, status, code, message)
            return {"type": "http.disconnect"}

        async def bounded_receive() -> Message:
            nonlocal seen, arrived
            if refused:
                return {"type": "http.disconnect"}
            if arrived:  # after the body: a wait for the client's disconnect, which has no deadline
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                late = f"the body did not arrive within {self.seconds:g} s"
                return await refuse(408, ErrorCode.TIMEOUT, late)
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    return await refuse(413, ErrorCode.TOO_LARGE, f"body is over the limit of {limit} bytes")
                arrived = not message.get("more_body", False)
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, bounded_receive, guarded_send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(send: Send, status: int, code: ErrorCode, message: str) -> None:
    body = json.dumps(to_plain(error_message(code, message))).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
