"""Several `floe serve` nodes as one server (issue 20): who owns a live match (a lease with a fencing
token), the owner's journal (the input log and periodic snapshots a takeover restores), and the bus
that carries a match's inputs to its owner and its streams to the other nodes.

Each concern is a Protocol with two implementations: embedded (one process, `memory.py`) and Redis
(`redis.py`, one Redis or a Redis Cluster: every key and channel of one match shares the hash tag
`{m:<id>}`). This layer imports the netcode's plain data types and the store's error; never the
match layer, transport or HTTP (tests/test_layers.py).
"""
