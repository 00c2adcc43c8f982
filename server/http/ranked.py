"""The ranked routes: the leaderboard, a player's page, and renewing a guest token.

- `GET /api/leaderboard?offset=0&limit=50&provisional=false`: players by rating, highest first,
  paged (`limit` ≤ MAX_PAGE); provisional players (RD ≥ 110) are a list apart
  (`provisional=true`), as lichess shows them.
- `GET /api/players/{id}`: rating, RD, volatility, games won/lost/drawn, the recent rated matches
  (opponent, outcome, rating change, replay id), the queue cooldown.

Both name the `ruleset` the ratings are of: the ranked queue plays the node's ruleset.
- `POST /api/guests/renew` (the token as `Authorization: Bearer`): a fresh token for the same guest
  (same id and name: the rating stays), while the old one is still valid; the old one (and any
  older) is revoked by it. At most `renewals_per_guest` an hour per guest and `renewals_per_address`
  an hour per client address (the address's budget is taken first, so a revoked or over-budget
  guest's attempts spend it too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request

from protocol.errors import ErrorCode

from ..errors import ServerError
from ..store.players import PlayerRecord
from ..tokens import token_key
from .auth import guest_of
from .context import ApiContext
from .refusals import refusals

#: Most entries of one leaderboard page.
MAX_PAGE = 100
HOUR = 3600.0
#: The `Authorization: Bearer <token>` header.
Authorization = Annotated[str | None, Header()]


def entry(rank: int, player: PlayerRecord) -> dict[str, Any]:
    """A leaderboard line."""
    return {
        "rank": rank,
        "id": player.id,
        "name": player.name,
        "rating": player.glicko.rating,
        "rd": player.glicko.rd,
        "games": player.played,
        "provisional": player.provisional,
    }


def ranked_router(api: ApiContext, address_of: Callable[[Request], str]) -> APIRouter:
    """The routes above, closed over one node's context (and how to read a request's client address)."""
    router = APIRouter()

    @router.get("/api/leaderboard", responses=refusals(422))
    async def leaderboard(
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
        provisional: bool = False,
    ) -> dict[str, Any]:
        """Players by rating, highest first: the ranked ones, or (provisional=true) the provisional ones."""
        players, total = await api.stores.players.leaderboard(provisional, offset, limit)
        return {
            "ruleset": api.hub.settings.ruleset.name,
            "provisional": provisional,
            "offset": offset,
            "total": total,
            "players": [entry(offset + index + 1, player) for index, player in enumerate(players)],
        }

    @router.get("/api/players/{guest_id}", responses=refusals(404))
    async def player(guest_id: str) -> dict[str, Any]:
        """A player's rating, counts and recent rated matches."""
        record = await api.stores.players.get_player(guest_id)
        if record is None:
            raise ServerError(ErrorCode.NOT_FOUND, f"no rated player {guest_id!r}", 404)
        return {**record.public(), "ruleset": api.hub.settings.ruleset.name}

    async def take_renewal(key: str, per_hour: int, whose: str) -> None:
        wait = await api.stores.limits.take_token(key, per_hour / HOUR, per_hour, api.clock.wall())
        if wait > 0:
            message = f"token renewed too often {whose}; again in {wait:.0f} s"
            raise ServerError(ErrorCode.RATE_LIMITED, message, 429, retry_after=wait)

    @router.post("/api/guests/renew", responses=refusals(401, 429))
    async def renew(request: Request, authorization: Authorization = None) -> dict[str, Any]:
        """A new token for the same guest, valid for the full lifetime from now; the old one is revoked."""
        config = api.http
        await take_renewal(f"renew-address:{address_of(request)}", config.renewals_per_address,
                           "from this address")
        guest = guest_of(api, authorization)
        oldest = await api.stores.limits.generation(token_key(guest.id), api.clock.wall())
        if guest.generation < oldest:
            raise ServerError(ErrorCode.AUTH, "token refused: it was renewed (use the newest token)", 401)
        await take_renewal(f"renew:{guest.id}", config.renewals_per_guest, "for this guest")
        wall = api.clock.wall()
        renewed = replace(guest, generation=guest.generation + 1)
        if not await api.stores.limits.advance_generation(token_key(guest.id), oldest, renewed.generation,
                                                  api.signer.ttl, wall):
            message = "token refused: it was renewed meanwhile (use the newest token)"
            raise ServerError(ErrorCode.AUTH, message, 401)
        token = api.signer.issue(renewed, wall)
        return {"guest": guest.id, "name": guest.name, "token": token, "expires": int(wall + api.signer.ttl)}

    return router
