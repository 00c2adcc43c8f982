"""The server's one refusal: a code from the closed vocabulary, a message, and the HTTP status to answer.

Everything the server refuses — a lobby request, a verification, a websocket message — raises or
returns a `ServerError`. The HTTP app has one handler for it (server/app.py: the body is the
protocol's `error` message as JSON); the websocket side sends `to_message()`.
"""

from __future__ import annotations

from typing import Any

from protocol.codec import error_message, to_plain
from protocol.errors import ErrorCode
from protocol.messages import Error


class ServerError(Exception):
    """A refusal: `code` (ErrorCode), `message`, the HTTP `status`, and seconds to wait before a retry."""

    def __init__(
        self, code: ErrorCode, message: str, status: int = 400, *, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after

    def to_message(self, ref: str | None = None, fatal: bool = False) -> Error:
        """The `error` message of the protocol."""
        return error_message(self.code, self.message, ref, fatal)

    def plain(self) -> dict[str, Any]:
        """The JSON body of an HTTP refusal."""
        return to_plain(self.to_message())

    def __repr__(self) -> str:
        return f"ServerError({self.code!r}, {self.message!r}, {self.status})"


class ConfigError(ValueError):
    """A setting the server refuses to start with."""
