"""Reading a request's body within its bounds: its size and the time it may take to arrive."""

from __future__ import annotations

import asyncio

from fastapi import Request
from starlette.requests import ClientDisconnect

from protocol.errors import ErrorCode

from ..errors import ServerError


async def read_body(request: Request, limit: int, seconds: float) -> bytes:
    """The request's body, at most `limit` bytes (413) within `seconds` (408: a body trickled to hold a
    slot is cut off); a client that went away ends the request quietly."""
    body = bytearray()
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise ServerError(ErrorCode.TOO_LARGE, f"body is over the limit of {limit} bytes", 413)
    except TimeoutError:
        raise ServerError(ErrorCode.TIMEOUT, f"the body did not arrive within {seconds:g} s", 408) from None
    except ClientDisconnect:
        raise ServerError(ErrorCode.MALFORMED, "the client went away before its body arrived", 400) from None
    return bytes(body)
