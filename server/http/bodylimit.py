"""A bound on every request body, enforced before the route reads it (an ASGI middleware).

JSON routes read their whole body before validating it, so an unbounded body costs memory before
anything can refuse it. This middleware answers 413 `too-large` (the server's one error shape) as
soon as the declared `Content-Length` is over the route's bound, and cuts off a body sent without one
(chunked) the moment it passes it: the route sees at most the bound, then a disconnect. The bound is
`http_body_bytes` for every route, or a larger one for the routes that take uploads (`upload_bytes`,
by path prefix).
"""

from __future__ import annotations

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

    def __init__(self, app: App, default_bytes: int, upload_bytes: Mapping[str, int]) -> None:
        self.app = app
        self.default_bytes = default_bytes
        self.upload_bytes = dict(upload_bytes)

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
            await _refuse(send, f"body of {declared} bytes is over the limit of {limit}")
            return
        seen = 0
        started = refused = False

        async def bounded_receive() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    # Answer now, and tell the app the client went away (it stops reading; whatever it
                    # sends after this is dropped).
                    refused = True
                    if not started:
                        await _refuse(send, f"body is over the limit of {limit} bytes")
                    return {"type": "http.disconnect"}
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


async def _refuse(send: Send, message: str) -> None:
    body = json.dumps(to_plain(error_message(ErrorCode.TOO_LARGE, message))).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
