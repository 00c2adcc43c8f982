"""The conformance suite's fixtures: real servers for the match over websockets (tests/server's)."""

from __future__ import annotations

from tests.server.conftest import no_logged_errors, start_server

__all__ = ["no_logged_errors", "start_server"]
