"""The websocket endpoint: it only shuttles. Bytes go through the guards and the protocol session to
the dispatcher (`Reader`); answers and the stream leave through the connection's queue. Under
uvicorn with server/native.py's protocol, messages arrive by a plain call and leave by a direct
write once the handshake is done; under any other ASGI server the endpoint reads in a loop and a
writer task sends.

Guards, in order: the origin (refused with HTTP 403 and a typed error body before the upgrade), the
token bucket (excess frames are dropped, with at most one `rate-limited` error a second), the size
bound and validation (protocol/session.py), and a strike count: a connection that keeps sending
refused frames is closed as hostile.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging

from fastapi import WebSocket
from fastapi.responses import JSONResponse

from protocol.codec import error_message, to_plain
from protocol.errors import CloseCode, ErrorCode

from ..logs import log_event
from ..match.dispatch import Dispatcher
from ..match.hub import Hub
from ..match.session import Session
from .connection import Connection
from .native import NativeSocket

log = logging.getLogger("floe.ws")

#: Seconds the writer may take to flush the last messages after the reader stopped.
FLUSH_SECONDS = 5.0


#: Set inside a connection's task once it was refused with a denial response (see DenialLogFilter).
_DENIED: contextvars.ContextVar[bool] = contextvars.ContextVar("floe_ws_denied", default=False)


class DenialLogFilter(logging.Filter):
    """Drops uvicorn's "returned without completing handshake" error after a deliberate denial response.

    uvicorn's sans-I/O websocket layer sends the denial (HTTP 403 with our typed body) correctly but
    then logs that error, because it only counts an accepted or closed handshake as complete. The
    record is logged in the connection's task, where `_DENIED` is set, so only those are dropped.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_DENIED.get() and "without completing handshake" in record.getMessage())


def install_denial_filter() -> None:
    """Attach DenialLogFilter to uvicorn's error logger (once)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, DenialLogFilter) for f in logger.filters):
        logger.addFilter(DenialLogFilter())


def origin_allowed(origin: str | None, allowed: tuple[str, ...]) -> bool:
    """Browsers send Origin and must match the list ("*" allows any); clients without one are not browsers."""
    if origin is None:
        return True
    return "*" in allowed or origin.rstrip("/") in allowed


async def serve_socket(websocket: WebSocket, hub: Hub, dispatcher: Dispatcher) -> None:
    """Run one websocket connection from upgrade to close."""
    config = hub.config
    origin = websocket.headers.get("origin")
    if not origin_allowed(origin, config.allowed_origins):
        log_event(log, logging.WARNING, "ws.origin-refused", origin=origin)
        refusal = error_message(ErrorCode.ORIGIN, f"origin {origin!r} is not allowed", fatal=True)
        try:
            _DENIED.set(True)
            await websocket.send_denial_response(JSONResponse(to_plain(refusal), status_code=403))
        except RuntimeError:  # a server without the denial extension: a bare 403
            await websocket.close(code=CloseCode.POLICY)
        return
    await websocket.accept()
    loop = asyncio.get_running_loop()
    client = websocket.client
    peer = f"{client.host}:{client.port}" if client else ""
    native = NativeSocket.of(websocket.scope)
    writer: asyncio.Task[None] | None = None
    if native is not None:
        conn = Connection(
            None,
            None,
            config.send_queue,
            peer,
            direct=native,
            max_buffered=config.send_buffer_bytes,
        )
        hub.native_connections += 1
    else:

        async def close(code: int) -> None:
            await websocket.close(code=code)

        conn = Connection(websocket.send_bytes, close, config.send_queue, peer)
        writer = asyncio.create_task(conn.run_writer(), name=f"floe-writer-{peer}")
    reader = Reader(conn, hub, dispatcher, loop)
    hub.connections += 1
    try:
        if native is not None:
            native.attach(reader.receive)
            await native.closed.wait()
        else:
            while conn.open:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                data = message.get("bytes")
                reader.receive(data if data is not None else message.get("text") or "")
    except Exception:  # noqa: BLE001 - a broken connection must never take the process down
        log_event(log, logging.ERROR, "ws.failed", exc_info=True, peer=peer)
    finally:
        hub.connections -= 1
        reader.closed()
        conn.close()
        if writer is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(writer, FLUSH_SECONDS)


class Reader:
    """One connection's way in: every message goes to its session (server/match/session.py) with the time."""

    def __init__(
        self, conn: Connection, hub: Hub, dispatcher: Dispatcher, loop: asyncio.AbstractEventLoop
    ) -> None:
        self.loop = loop
        self.session = Session(conn, dispatcher, hub.config, loop.time())

    def receive(self, data: bytes | str) -> None:
        """Handle one message from the client."""
        self.session.receive(data, self.loop.time())

    def closed(self) -> None:
        """The connection is gone."""
        self.session.closed(self.loop.time())
