"""The protocol version: the `hello` a client sends names it, and the server refuses any other.

A change to a message's fields, meaning or order bumps it; clients and server must agree exactly
(there is no negotiation down to an older version: one server speaks one version).
"""

from __future__ import annotations

PROTOCOL_VERSION = 1
