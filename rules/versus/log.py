"""The canonical event log and its hash.

The log hash is chained per frame: h₋₁ = SHA-256 of b"floe-versus-log", and
hₖ = SHA-256(hₖ₋₁ ‖ canonical([k, records of frame k])). A chain (rather than one digest over the
whole log) keeps the running hash a plain string, so it rolls back with a snapshot.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from rules.synctest import canonical_encoding

from .events import Record, record_plain

GENESIS_HASH = hashlib.sha256(b"floe-versus-log").hexdigest()


def chain_hash(previous: str, frame: int, records: Sequence[Record]) -> str:
    """The log hash after frame `frame`, given the hash before it."""
    return chain_plain(previous, frame, [record_plain(r) for r in records] if records else [])


def chain_plain(previous: str, frame: int, plain_records: list[dict[str, Any]]) -> str:
    """The log hash after frame `frame` from the frame's records as plain data (any ruleset's)."""
    digest = hashlib.sha256(bytes.fromhex(previous))
    if plain_records:
        digest.update(canonical_encoding([frame, plain_records]))
    else:
        digest.update(b"[%d,[]]" % frame)  # the same bytes canonical_encoding gives a quiet frame
    return digest.hexdigest()
