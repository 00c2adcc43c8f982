"""What the HTTP routes are given: the peers and stores they use and their settings, built by the root."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..match.hub import Hub
from ..match.lobby import Lobby
from ..match.sources import Clock, IdSource
from ..store.base import Stores
from ..tokens import TokenSigner
from .settings import DailySettings, HttpSettings, VerifySettings


@dataclass(frozen=True)
class ApiContext:
    """The routes' view of the node (server/node.py fills it)."""

    #: The live matches (the live list, a match's summary) and the lobby that makes them.
    hub: Hub
    lobby: Lobby
    signer: TokenSigner
    clock: Clock
    ids: IdSource
    stores: Stores
    #: The token secret in use: the daily challenge's seeds derive from it.
    secret: bytes
    http: HttpSettings
    verify: VerifySettings
    daily: DailySettings
    #: The browser origins allowed to open the websocket (`GET /api/origin` answers with them).
    origins: tuple[str, ...]
    #: The numbers `/health` shows.
    stats: Callable[[], dict[str, Any]]
    #: This node's name (a live match's summary names the node that owns it).
    node: str = ""
    #: Another node's live match: its summary as this node knows it (None: no node owns it live).
    elsewhere: Callable[[str], Awaitable[dict[str, Any] | None]] | None = None
