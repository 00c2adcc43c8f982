"""The protocol version: the `hello` a client sends names it, and the server refuses any other.

A change to a message's fields, meaning or order bumps it; clients and server must agree exactly
(there is no negotiation down to an older version: one server speaks one version).
"""

from __future__ import annotations

#: 2: `input` carries a run of bytes (`inputs`); a server websocket message may hold several
#: messages back to back; `welcome` tells `input_batch` and `send_every`.
#: 3: the ranked queue: `queue`, `unqueue` from clients; `queued`, `unqueued`, `matched`, `rated` from
#: the server; new error codes (`cooldown`, `already-queued`).
#: 4: the stream shows everything a client that owns no rules draws (seat summaries, notes, records
#: of every moving thing), lean: `frame` records are arrays, events compact arrays, actors delta-coded;
#: `joined.tables` publishes the words and layouts.
PROTOCOL_VERSION = 4
