"""The wire: message types, msgpack codec, validation, version. Imports rules/ only for types.

`messages` defines every message, `codec` turns them into bytes and back (typed errors for anything
else), `session` is the server's sans-I/O handshake and validation, `client` a client's sans-I/O
session; `README.md` documents each message for client authors.
"""
