"""The HTTP API: guests, rooms and invitations, bot matches, the live list, replays, verification, health.

Every refusal is the protocol's `error` message as JSON (`{"kind": "error", "code": …, "message": …}`)
with a fitting status (the app's one handler of ServerError, server/app.py); each route documents
every status it answers in the OpenAPI schema; protocol/README.md lists the endpoints and limits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from protocol.errors import ErrorCode
from rules.registry import known, newest

from ..compendium import compendium
from ..errors import ServerError
from ..origins import origin_answer
from ..tokens import Guest
from .auth import current_guest
from .body import read_body
from .context import ApiContext
from .daily import daily_router
from .ranked import ranked_router
from .recovery import recovery_router
from .refusals import refusals
from .replaystream import ReplayStreams, replay_stream_bytes
from .verify import Verifier

MSGPACK = "application/msgpack"
#: Finished matches `GET /api/replays` lists.
RECENT_REPLAYS = 20


class GuestRequest(BaseModel):
    """`POST /api/guests` body (optional)."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[str | None, Field(max_length=64)] = None


#: A ruleset's name in a request (rules/registry.py's names; absent: the node's default ruleset).
RulesetName = Annotated[str | None, Field(min_length=1, max_length=32)]


class BotRequest(BaseModel):
    """`POST /api/bot-matches` body: the bot to play (one of its ruleset's, listed in the schema) and the
    ruleset (absent: the node's)."""

    model_config = ConfigDict(extra="forbid")
    bot: Annotated[str, Field(max_length=32)] = "competent"
    ruleset: RulesetName = None


class RoomRequest(BaseModel):
    """`POST /api/rooms` body (optional): the room's seats (2 to 4, the creator's included, as many as
    its ruleset plays), its match's time limit in minutes (absent: the ruleset's default; bounds in
    LobbySettings `room_*`) and its ruleset (absent: the node's)."""

    model_config = ConfigDict(extra="forbid")
    seats: Annotated[int, Field(ge=0, le=1000)] = 2
    minutes: Annotated[int | None, Field(ge=0, le=1000)] = None
    ruleset: RulesetName = None


class JoinRequest(BaseModel):
    """`POST /api/rooms/join` body: the invitation of a room's share link."""

    model_config = ConfigDict(extra="forbid")
    invite: Annotated[str, Field(min_length=1, max_length=64)]


#: Content types the verify route reads (a form or text post is refused, so a cross-origin page cannot
#: send one without a preflight).
REPLAY_TYPES = (MSGPACK, "application/octet-stream")


#: The `Authorization: Bearer <token>` header of a guest's request.
Authorization = Annotated[str | None, Header()]


def address_of(request: Request) -> str:
    """The client's address: the peer, or the one floe's listener forwarded for it (server/transport)."""
    client = request.client
    return client.host if client is not None else "unknown"


def build_router(api: ApiContext, verifier: Verifier, streams: ReplayStreams) -> APIRouter:
    """The routes, closed over one node's context, verifier and cache of replay streams."""
    router = APIRouter()
    default = api.hub.settings.ruleset
    rulesets = sorted({name for name, _ in known()})
    books = {name: compendium(default if name == default.name else newest(name)).plain() for name in rulesets}
    bots = sorted({bot for name in rulesets for bot in newest(name).bot_names})
    bot_schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"bot": {"type": "string", "enum": bots},
                       "ruleset": {"type": "string", "enum": rulesets}},
    }

    async def guest_of(authorization: str | None) -> Guest:
        return await current_guest(api, authorization)

    @router.post("/api/guests", responses=refusals(422, 429))
    async def new_guest(request: Request, body: GuestRequest | None = None) -> dict[str, str]:
        """A guest identity and its signed token (rate-limited per address)."""
        await api.lobby.admit_guest(address_of(request))
        name = body.name if body else None
        guest, token = api.signer.new_guest(api.ids.guest_id(), name, api.clock.wall())
        return {"guest": guest.id, "name": guest.name, "token": token}

    @router.post("/api/rooms", responses=refusals(401, 409, 422, 429, 503))
    async def new_room(
        request: Request, body: RoomRequest | None = None, authorization: Authorization = None
    ) -> dict[str, Any]:
        """A private room of 2 to 4 seats (`seats`), an optional time limit (`minutes`) and ruleset
        (`ruleset`, a name of rules/registry.py; absent: the node's): the guest holds seat 0; whoever has
        the invitation takes a free seat, each of them by the same one."""
        guest = await guest_of(authorization)
        asked = body or RoomRequest()
        live = await api.lobby.create_room(guest, address_of(request), asked.seats, asked.minutes,
                                           asked.ruleset)
        return {"match": live.id, "seat": 0, "invite": live.invite, "seats": len(live.seats),
                "minutes": asked.minutes, "ruleset": live.config.ruleset.name}

    @router.post("/api/rooms/join", responses=refusals(401, 404, 409, 422, 429, 503))
    async def join_room(
        request: Request, body: JoinRequest, authorization: Authorization = None
    ) -> dict[str, Any]:
        """Take the free seat of the room an invitation opens."""
        guest = await guest_of(authorization)
        match_id, seat = await api.lobby.join_room_anywhere(body.invite, guest, address_of(request))
        return {"match": match_id, "seat": seat}

    @router.post(
        "/api/bot-matches",
        responses=refusals(401, 409, 422, 429, 503),
        openapi_extra={"requestBody": {"content": {"application/json": {"schema": bot_schema}}}},
    )
    async def new_bot_match(
        request: Request, body: BotRequest, authorization: Authorization = None
    ) -> dict[str, Any]:
        """Play against a server-side bot of a ruleset (`ruleset`; absent: the node's); the match starts
        when you connect."""
        guest = await guest_of(authorization)
        live = await api.lobby.create_bot_match(guest, body.bot, address_of(request), body.ruleset)
        return {"match": live.id, "seat": 0, "ruleset": live.config.ruleset.name}

    @router.get("/api/matches")
    async def live_matches() -> dict[str, Any]:
        """Running public matches to watch, newest first (a match played from a room is not listed)."""
        return {"matches": await api.lobby.live_list()}

    @router.get("/api/matches/{match_id}", responses=refusals(404))
    async def match_record(match_id: str) -> dict[str, Any]:
        """A live match's summary (`node`: the node that owns it, this one or another), or a finished
        match's record."""
        live = api.hub.matches.get(match_id)
        if live is not None:
            return {"live": True, "node": api.node, **live.summary(), "result": live.result}
        record = await api.stores.matches.get_match(match_id)
        if record is not None:
            return {"live": False, **record.plain()}
        elsewhere = await api.elsewhere(match_id) if api.elsewhere is not None else None
        if elsewhere is None:
            raise ServerError(ErrorCode.NOT_FOUND, f"no match {match_id!r}", 404)
        return elsewhere

    @router.get(
        "/api/replays/{replay_id}",
        responses={200: {"content": {MSGPACK: {}}, "description": "the replay file"}, **refusals(404)},
    )
    async def replay(replay_id: str) -> Response:
        """A finished match's replay, msgpack (protocol/README.md documents the file)."""
        data = await api.stores.replay(replay_id)
        if data is None:
            raise ServerError(ErrorCode.NOT_FOUND, f"no replay {replay_id!r}", 404)
        return Response(content=data, media_type=MSGPACK)

    @router.get("/api/replays")
    async def recent_replays() -> dict[str, Any]:
        """The newest finished public matches that left a replay (of the RECENT_REPLAYS newest
        matches), newest first: a private room's replay is reachable by its id, not listed."""
        records = await api.stores.matches.recent_matches(RECENT_REPLAYS)
        return {"replays": [
            {"id": r.replay, "seats": list(r.seats), "result": r.result, "ended": r.ended, "frames": r.frames,
             "ruleset": r.ruleset}
            for r in records if r.replay is not None and not r.private
        ]}

    @router.get(
        "/api/replays/{replay_id}/stream",
        responses={200: {"content": {MSGPACK: {}}, "description": "the replay's spectators' stream"},
                   **refusals(404, 422, 429, 503, 504)},
    )
    async def replay_stream(replay_id: str, request: Request) -> Response:
        """A finished match's stream re-simulated from its replay (joined, keyframes, frames, over;
        msgpack values back to back), for a viewer that owns no rules; cached per replay."""
        client = address_of(request)

        async def make(began: Callable[[], None]) -> bytes:
            data = await api.stores.replay(replay_id)
            if data is None:
                raise ServerError(ErrorCode.NOT_FOUND, f"no replay {replay_id!r}", 404)
            async with verifier.slot(client) as held:  # the miss is paid from this client's share
                began()
                keyframe_every = api.hub.settings.runner.keyframe_every
                answer = await verifier.run(held, data, replay_stream_bytes, replay_id,
                                            api.verify.verify_max_frames, keyframe_every)
            body: bytes = answer["body"]
            return body

        return Response(content=await streams.stream(replay_id, client, make), media_type=MSGPACK)

    @router.post(
        "/api/replays/verify",
        responses=refusals(400, 408, 413, 415, 422, 429, 503, 504),
        openapi_extra={"requestBody": {"required": True, "content": {t: {"schema": {"type": "string",
                                                                                     "format": "binary"}}
                                                                     for t in REPLAY_TYPES}}},
    )
    async def verify_replay(request: Request) -> dict[str, Any]:
        """Re-simulate an uploaded replay (a msgpack body) and compare its result and log hash."""
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind not in REPLAY_TYPES:
            raise ServerError(ErrorCode.MALFORMED, f"send the replay as {' or '.join(REPLAY_TYPES)}", 415)
        limit = api.verify.verify_max_bytes
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            message = f"body of {declared} bytes is over the limit of {limit}"
            raise ServerError(ErrorCode.TOO_LARGE, message, 413)
        async with verifier.slot(address_of(request)) as held:  # before the body is read
            body = await read_body(request, limit, api.http.http_body_seconds)
            return await verifier.run(held, body)

    @router.get("/api/origin", responses=refusals(400))
    async def origin_check(request: Request) -> dict[str, Any]:
        """Would this page's websocket be accepted? The request's Origin checked against the websocket's
        allow-list (FLOE_ORIGINS): `{"origin", "allowed", "origins", "reason"}`. A browser hides the
        handshake's 403 from the page, so the page asks here first and can explain a refusal."""
        origins = request.headers.getlist("origin")
        if len(origins) > 1:  # the handshake refuses several Origin headers too
            raise ServerError(ErrorCode.MALFORMED, "send one Origin header", 400)
        return origin_answer(origins[0] if origins else None, api.origins)

    @router.get("/api/rules", responses=refusals(404))
    async def rules_compendium(ruleset: Annotated[str | None, Query(max_length=32)] = None) -> dict[str, Any]:
        """A ruleset's numbers (`?ruleset=NAME`; absent: the node's) as `floe rules --ruleset NAME` prints
        them: {"heading", "sections": [{"title", "rows"}]}."""
        book = books.get(ruleset or default.name)
        if book is None:
            raise ServerError(ErrorCode.NOT_FOUND, f"no ruleset {ruleset!r} (this build plays "
                              f"{', '.join(rulesets)})", 404)
        return book

    @router.get("/health")
    async def health() -> dict[str, Any]:
        """Liveness and the loop's numbers (constant time: running figures)."""
        return {"ok": True, **api.stats()}

    router.include_router(ranked_router(api, address_of))
    router.include_router(recovery_router(api, address_of))
    router.include_router(daily_router(api, verifier, address_of))
    return router
