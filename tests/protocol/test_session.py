"""The server's sans-I/O session: size, validation and the hello handshake, byte for byte, no sockets."""

from __future__ import annotations

from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.messages import Error, Hello, Input, Ping
from protocol.session import ServerSession
from protocol.version import PROTOCOL_VERSION


def test_hello_opens_the_session() -> None:
    """A hello of this version is accepted and later messages pass through."""
    session = ServerSession()
    assert session.receive(encode(Hello(version=PROTOCOL_VERSION))) == Hello(version=PROTOCOL_VERSION)
    assert session.receive(encode(Ping(id=1, t=2))) == Ping(id=1, t=2)
    assert session.greeted and session.refused == 0


def test_messages_before_hello_are_refused() -> None:
    """Anything but hello before the handshake is a hello-first error naming its kind."""
    session = ServerSession()
    outcome = session.receive(encode(Input(frame=1, inputs=[0])))
    assert isinstance(outcome, Error) and outcome.code == ErrorCode.HELLO_FIRST and outcome.ref == "input"
    assert not session.greeted


def test_other_version_is_fatal() -> None:
    """A hello of another protocol version is a fatal version error and does not open the session."""
    session = ServerSession()
    outcome = session.receive(encode(Hello(version=PROTOCOL_VERSION + 1)))
    assert isinstance(outcome, Error) and outcome.code == ErrorCode.VERSION and outcome.fatal
    assert not session.greeted


def test_second_hello_is_refused() -> None:
    """One hello per connection."""
    session = ServerSession()
    session.receive(encode(Hello(version=PROTOCOL_VERSION)))
    outcome = session.receive(encode(Hello(version=PROTOCOL_VERSION)))
    assert isinstance(outcome, Error) and outcome.code == ErrorCode.DUPLICATE_HELLO


def test_text_frames_and_oversize_are_refused() -> None:
    """Text frames are malformed; frames over the session's bound are too large; both are counted."""
    session = ServerSession(max_message_bytes=64)
    text = session.receive('{"kind": "hello"}')
    big = session.receive(b"\x00" * 65)
    assert isinstance(text, Error) and text.code == ErrorCode.MALFORMED
    assert isinstance(big, Error) and big.code == ErrorCode.TOO_LARGE
    assert session.received == 2 and session.refused == 2
