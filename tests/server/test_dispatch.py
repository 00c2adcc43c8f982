"""Every client message kind has a handler: dispatching an example of each answers and raises nothing."""

from __future__ import annotations

import pytest

from protocol.codec import ProtocolError, decode_server_messages
from protocol.examples import EXAMPLES
from protocol.messages import CLIENT_MESSAGES, Hello
from protocol.version import PROTOCOL_VERSION
from server.match.session import Session
from server.node import Node
from server.store.memory import MemoryStore
from server.transport.connection import Connection
from tests.server.conftest import fast_config
from tests.server.helpers import RecordingTransport


def queued(conn: Connection) -> list[str]:
    """The kinds of the messages queued on a connection."""
    kinds = []
    while True:
        data, closing = conn.take_batch()
        if data is not None:
            for message in decode_server_messages(data):
                assert not isinstance(message, ProtocolError), message
                kinds.append(message.KIND)
        if data is None or closing:
            return kinds


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", sorted(CLIENT_MESSAGES))
async def test_every_kind_is_dispatched(kind: str) -> None:
    """After hello, an example of each kind reaches its handler and gets an answer (never assert_never)."""
    config = fast_config()
    dispatcher = Node(config, MemoryStore()).dispatcher
    conn = Connection(RecordingTransport(), queue_size=16)
    session = Session(conn, dispatcher, config.session, now=0.0)
    dispatcher.handle(session, Hello(version=PROTOCOL_VERSION), now=0.0)
    assert queued(conn) == ["welcome"]
    message = EXAMPLES[kind]
    assert isinstance(message, CLIENT_MESSAGES[kind])
    dispatcher.handle(session, message, now=0.0)
    answers = queued(conn)
    assert answers, f"{kind} got no answer"
