"""Exhaustiveness: a message kind added to messages.py must be registered, exampled and documented."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

import msgpack  # type: ignore[import-untyped]

from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.examples import EXAMPLES
from protocol.messages import CLIENT_MESSAGES, SERVER_MESSAGES, ClientMessage, ServerMessage

README = Path(__file__).resolve().parents[2] / "protocol" / "README.md"


def test_registries_hold_every_union_member() -> None:
    """The codec's registries are exactly the unions' members, and no kind is used twice."""
    assert set(CLIENT_MESSAGES.values()) == set(get_args(ClientMessage))
    assert set(SERVER_MESSAGES.values()) == set(get_args(ServerMessage))
    assert not set(CLIENT_MESSAGES) & set(SERVER_MESSAGES)


def test_every_kind_has_an_example() -> None:
    """Every kind has an example of its own class."""
    kinds = {**CLIENT_MESSAGES, **SERVER_MESSAGES}
    assert set(EXAMPLES) == set(kinds)
    for kind, message in EXAMPLES.items():
        assert type(message) is kinds[kind]


def test_readme_documents_every_kind_and_error_code() -> None:
    """protocol/README.md has a section per message kind and names every error code."""
    text = README.read_text(encoding="utf-8")
    sections = set(re.findall(r"^### `([a-z-]+)`", text, flags=re.MULTILINE))
    assert sections == set(CLIENT_MESSAGES) | set(SERVER_MESSAGES)
    for code in ErrorCode:
        assert f"`{code.value}`" in text, code


def test_readme_examples_are_the_examples() -> None:
    """Each kind's JSON example in protocol/README.md is exactly protocol/examples.py's as it travels (a
    `frame` as its array), so neither drifts."""
    text = README.read_text(encoding="utf-8")
    found = dict(re.findall(r"^### `([a-z-]+)`.*?```json\n(.*?)\n```", text, flags=re.MULTILINE | re.DOTALL))
    for kind, message in EXAMPLES.items():
        assert json.loads(found[kind]) == msgpack.unpackb(encode(message)), kind
