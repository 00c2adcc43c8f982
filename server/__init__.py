"""The match server: FastAPI + uvicorn for HTTP, floe's own websocket listener, rollback netcode.

Layers, each a folder (ARCHITECTURE.md; tests/test_layers.py enforces the direction of imports):
`netcode` (the runner, sans-I/O) → `match` (the hub, live matches and their streams, client
sessions) → `transport` (sockets) and `http` (the API, replay verification); `store` keeps finished
matches and replays; `app`, `embed` and `cli` compose them.
"""
