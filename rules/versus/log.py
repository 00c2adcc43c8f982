"""The canonical event log and its hash.

The log hash is chained per frame: h₋₁ = SHA-256 of b"floe-versus-log", and
hₖ = SHA-256(hₖ₋₁ ‖ canonical([k, records of frame k])), each hₖ₋₁ as its 32 digest bytes; the log
hash is the last one in hex. A chain (rather than one digest over the whole log) keeps the running
hash a plain value, so it rolls back with a snapshot (which holds it as hex).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from rules.synctest import canonical_encoding

from .events import Record, record_plain

#: The chain's start, h₋₁, as digest bytes (a match keeps the digest; its `log_hash` is the hex).
GENESIS_DIGEST = hashlib.sha256(b"floe-versus-log").digest()
_SHA256 = hashlib.sha256


def chain_hash(previous: bytes, frame: int, records: Sequence[Record]) -> bytes:
    """The log digest after frame `frame`, given the digest before it."""
    return chain_plain(previous, frame, [record_plain(r) for r in records] if records else [])


def chain_plain(previous: bytes, frame: int, plain_records: list[dict[str, Any]]) -> bytes:
    """The log digest after frame `frame` from the frame's records as plain data (any ruleset's).

    Digests, not hex, are chained: the match runs this every frame, and the hex is only needed when
    the hash is shown or snapshotted."""
    if plain_records:
        return _SHA256(previous + canonical_encoding([frame, plain_records])).digest()
    return _SHA256(previous + b"[%d,[]]" % frame).digest()  # the bytes canonical_encoding gives a quiet frame
