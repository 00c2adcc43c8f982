"""The match server: FastAPI + uvicorn, one match loop per process, rollback netcode, websockets.

Layers, each its own module: `runner` (the netcode, sans-I/O) → `live` (one match's seats and
streams) → `hub` (every match and the frame clock) → `dispatch`/`ws`/`http_api` (the wire) → `app`.
"""
