"""The HTTP API: guests, rooms, bot matches, the live list, replays, verification, health.

Every refusal is the protocol's `error` message as JSON (`{"kind": "error", "code": …, "message": …}`)
with a fitting status; protocol/README.md lists the endpoints.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from protocol.errors import ErrorCode

from ..errors import ServerError
from ..match.hub import Hub
from ..tokens import Guest
from .auth import guest_of as bearer_guest
from .daily import daily_router, read_body
from .ranked import ranked_router
from .verify import Verifier

MSGPACK = "application/msgpack"


class GuestRequest(BaseModel):
    """`POST /api/guests` body (optional)."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[str | None, Field(max_length=64)] = None


class BotRequest(BaseModel):
    """`POST /api/bot-matches` body."""

    model_config = ConfigDict(extra="forbid")
    bot: Annotated[str, Field(max_length=32)] = "competent"


def build_router(hub: Hub, verifier: Verifier) -> APIRouter:
    """The routes, closed over one hub and verifier."""
    router = APIRouter()

    def guest_of(authorization: str | None) -> Guest:
        return bearer_guest(hub, authorization)

    @router.post("/api/guests")
    async def new_guest(body: GuestRequest | None = None) -> dict[str, str]:
        """A guest identity and its signed token."""
        name = body.name if body else None
        guest, token = hub.signer.new_guest(hub.ids.guest_id(), name, hub.clock.wall())
        return {"guest": guest.id, "name": guest.name, "token": token}

    @router.post("/api/rooms")
    async def new_room(authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        """A custom room; share its id, a second player joins it."""
        guest = guest_of(authorization)
        live = hub.create_room(guest)
        return {"match": live.id, "seat": 0}

    @router.post("/api/rooms/{match_id}/join")
    async def join_room(
        match_id: str, authorization: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        """Take the free seat of a room."""
        guest = guest_of(authorization)
        live, seat = hub.join_room(match_id, guest)
        return {"match": live.id, "seat": seat}

    @router.post("/api/bot-matches")
    async def new_bot_match(
        body: BotRequest, authorization: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        """Play against a server-side bot ("competent" or "lazy"); it starts when you connect."""
        guest = guest_of(authorization)
        live = hub.create_bot_match(guest, body.bot)
        return {"match": live.id, "seat": 0}

    @router.get("/api/matches")
    async def live_matches() -> dict[str, Any]:
        """Matches to watch: waiting and running ones."""
        return {"matches": hub.live_list()}

    @router.get("/api/matches/{match_id}")
    async def match_record(match_id: str) -> dict[str, Any]:
        """A live match's summary, or a finished match's record."""
        live = hub.matches.get(match_id)
        if live is not None:
            return {"live": True, **live.summary(), "result": live.result}
        record = await hub.store.get_match(match_id)
        if record is None:
            raise ServerError(ErrorCode.NOT_FOUND, f"no match {match_id!r}", 404)
        return {"live": False, **record.plain()}

    @router.get("/api/replays/{replay_id}")
    async def replay(replay_id: str) -> Response:
        """A finished match's replay, msgpack (protocol/replay_codec.py)."""
        data = await hub.store.get_replay(replay_id)
        if data is None:
            raise ServerError(ErrorCode.NOT_FOUND, f"no replay {replay_id!r}", 404)
        return Response(content=data, media_type=MSGPACK)

    @router.post("/api/replays/verify")
    async def verify_replay(request: Request) -> dict[str, Any]:
        """Re-simulate an uploaded replay (msgpack body) and compare its result and log hash."""
        return await verifier.verify(await read_body(request, hub.config.verify_max_bytes))

    @router.get("/health")
    async def health() -> dict[str, Any]:
        """Liveness and the loop's numbers."""
        return {"ok": True, **hub.stats()}

    router.include_router(ranked_router(hub))
    router.include_router(daily_router(hub, verifier))
    return router
