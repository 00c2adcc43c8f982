"""The recorded streams the browser client's model is tested on (clients/web/test/fixtures) are current.

The spectator streams are re-recorded (about 4 s: three bot matches re-simulated, no server) and must
be the same bytes; the player's stream comes from a live server with late inputs, which cannot be
replayed byte for byte, so it must speak today's protocol, ruleset, tables and config. When one of
these fails, run `python -m tests.web.record_streams` (about a minute) and commit the fixtures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from protocol.codec import ProtocolError, decode_server_messages
from protocol.messages import Joined, Welcome
from protocol.version import PROTOCOL_VERSION
from rules.versus.ruleset import PENGO_VERSUS

from .record_streams import (
    FIXTURES,
    PAYLOAD_FIXTURES,
    PAYLOAD_MATCHES,
    PLAYER_SECONDS,
    SPECTATOR_MATCHES,
    payload_stream,
    spectator_stream,
)

PLAYER_FIXTURE = FIXTURES / "player-rewinds.msgpack"
RERECORD = "run `python -m tests.web.record_streams` and commit clients/web/test/fixtures"


def plain(value: Any) -> Any:
    """A value as it reads back from msgpack (tuples become lists)."""
    return msgpack.unpackb(msgpack.packb(value), raw=False, strict_map_key=False)


@pytest.mark.parametrize(("name", "seed", "bots", "seconds"), SPECTATOR_MATCHES,
                         ids=[match[0] for match in SPECTATOR_MATCHES])
def test_a_spectator_stream_is_what_todays_server_would_send(name: str, seed: int, bots: tuple[str, ...],
                                                             seconds: int) -> None:
    """Re-recording a spectator fixture from today's rules, codec and replay stream gives the same bytes."""
    recorded = (FIXTURES / f"{name}.msgpack").read_bytes()
    assert spectator_stream(seed, bots, seconds) == recorded, f"{name}.msgpack is stale: {RERECORD}"


@pytest.mark.parametrize(("name", "seed", "bots", "seconds"), PAYLOAD_MATCHES,
                         ids=[match[0] for match in PAYLOAD_MATCHES])
def test_a_payload_versus_stream_is_what_todays_server_would_send(name: str, seed: int, bots: tuple[str, ...],
                                                                  seconds: int) -> None:
    """Re-recording a Payload versus fixture from today's rules, codec and replay stream: the same bytes."""
    recorded = (PAYLOAD_FIXTURES / f"{name}.msgpack").read_bytes()
    stale = f"payload-versus/{name}.msgpack is stale: {RERECORD}"
    assert payload_stream(seed, bots, seconds) == recorded, stale


def player_messages(path: Path) -> list[Any]:
    """The player fixture's messages, each checked by today's protocol codec."""
    data = path.read_bytes()
    messages = decode_server_messages(data, max_bytes=len(data))
    errors = [message for message in messages if isinstance(message, ProtocolError)]
    assert errors == [], f"{path.name} is not protocol {PROTOCOL_VERSION}: {errors[:1]}; {RERECORD}"
    return messages


def test_the_player_stream_speaks_todays_protocol_ruleset_tables_and_config() -> None:
    """The live player fixture was recorded with today's protocol, ruleset version, tables and rules."""
    messages = player_messages(PLAYER_FIXTURE)
    welcome = next(message for message in messages if isinstance(message, Welcome))
    joined = next(message for message in messages if isinstance(message, Joined))
    assert welcome.version == PROTOCOL_VERSION, f"recorded with protocol {welcome.version}: {RERECORD}"
    assert (joined.ruleset, joined.ruleset_version) == (PENGO_VERSUS.name, PENGO_VERSUS.version), RERECORD
    assert plain(joined.tables) == plain(PENGO_VERSUS.stream_tables), f"the tables changed: {RERECORD}"
    config = PENGO_VERSUS.with_time_limit(PENGO_VERSUS.default_config(), PLAYER_SECONDS * 60)
    assert plain(joined.config) == plain(PENGO_VERSUS.config_plain(config)), f"the rules changed: {RERECORD}"
