"""The server's side of one connection, sans-I/O: bytes in, a valid message or a typed error out.

It owns what the protocol itself requires, independent of matches: the size bound, the codec's
validation, and the handshake (the first message must be a `hello` of this protocol version, and
there is only one). What a valid message *means* (tokens, seats, inputs) is the server's business.

    session = ServerSession()
    outcome = session.receive(data)     # a ClientMessage, or an Error to send back
"""

from __future__ import annotations

from .codec import ProtocolError, decode_client, error_message
from .errors import ErrorCode
from .limits import MAX_CLIENT_MESSAGE_BYTES
from .messages import ClientMessage, Error, Hello
from .version import PROTOCOL_VERSION


class ServerSession:
    """Validates one connection's incoming frames and tracks its handshake."""

    def __init__(self, max_message_bytes: int = MAX_CLIENT_MESSAGE_BYTES) -> None:
        self.max_message_bytes = max_message_bytes
        self.greeted = False
        self.received = 0
        self.refused = 0

    def receive(self, data: bytes | str) -> ClientMessage | Error:
        """Check one incoming frame: the message if it is valid here, else the error to answer with."""
        self.received += 1
        outcome = self._receive(data)
        if isinstance(outcome, Error):
            self.refused += 1
        return outcome

    def _receive(self, data: bytes | str) -> ClientMessage | Error:
        if isinstance(data, str):
            return error_message(
                ErrorCode.MALFORMED, "text frames are refused: send msgpack in binary frames"
            )
        try:
            message = decode_client(data, self.max_message_bytes)
        except ProtocolError as error:
            return error.to_message()
        if isinstance(message, Hello):
            if self.greeted:
                return error_message(ErrorCode.DUPLICATE_HELLO, "this connection already said hello", "hello")
            if message.version != PROTOCOL_VERSION:
                return error_message(
                    ErrorCode.VERSION,
                    f"protocol version {message.version} is not this server's ({PROTOCOL_VERSION}): "
                    f"this client is {'older' if message.version < PROTOCOL_VERSION else 'newer'} than the "
                    "server; update it (protocol/README.md)",
                    "hello",
                    fatal=True,
                )
            self.greeted = True
            return message
        if not self.greeted:
            return error_message(ErrorCode.HELLO_FIRST, f"send hello before {message.KIND}", message.KIND)
        return message
