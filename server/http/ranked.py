"""The ranked routes: the leaderboard, a player's page, and renewing a guest token.

- `GET /api/leaderboard?offset=0&limit=50&provisional=false`: players by rating, highest first,
  paged (`limit` ≤ MAX_PAGE); provisional players (RD ≥ 110) are a list apart
  (`provisional=true`), as lichess shows them.
- `GET /api/players/{id}`: rating, RD, volatility, games won/lost/drawn, the recent rated matches
  (opponent, outcome, rating change, replay id), the queue cooldown.
- `POST /api/guests/renew` (the token as `Authorization: Bearer`): a fresh token for the same guest
  (same id and name: the rating stays), while the old one is still valid; at most
  RENEWALS_PER_HOUR per guest.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query

from protocol.errors import ErrorCode

from ..errors import ServerError
from ..match.hub import Hub
from ..store.players import PlayerRecord
from .auth import guest_of
from .refusals import refusals

#: Most entries of one leaderboard page.
MAX_PAGE = 100
#: Token renewals one guest may make in an hour (a burst of that many, refilled over the hour).
RENEWALS_PER_HOUR = 6


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


def ranked_router(hub: Hub) -> APIRouter:
    """The routes above, closed over one hub."""
    router = APIRouter()

    @router.get("/api/leaderboard", responses=refusals(422))
    async def leaderboard(
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
        provisional: bool = False,
    ) -> dict[str, Any]:
        """Players by rating, highest first: the ranked ones, or (provisional=true) the provisional ones."""
        players, total = await hub.store.leaderboard(provisional, offset, limit)
        return {
            "provisional": provisional,
            "offset": offset,
            "total": total,
            "players": [entry(offset + index + 1, player) for index, player in enumerate(players)],
        }

    @router.get("/api/players/{guest_id}", responses=refusals(404))
    async def player(guest_id: str) -> dict[str, Any]:
        """A player's rating, counts and recent rated matches."""
        record = await hub.store.get_player(guest_id)
        if record is None:
            raise ServerError(ErrorCode.NOT_FOUND, f"no rated player {guest_id!r}", 404)
        return record.plain()

    @router.post("/api/guests/renew", responses=refusals(401, 429))
    async def renew(authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        """A new token for the same guest, valid for the full lifetime from now."""
        guest = guest_of(hub, authorization)
        wall = hub.clock.wall()
        rate = RENEWALS_PER_HOUR / 3600
        wait = await hub.store.take_token(f"renew:{guest.id}", rate, RENEWALS_PER_HOUR, wall)
        if wait > 0:
            raise ServerError(ErrorCode.RATE_LIMITED, f"token renewed too often; again in {wait:.0f} s", 429,
                              retry_after=wait)
        token = hub.signer.issue(guest, wall)
        return {"guest": guest.id, "name": guest.name, "token": token, "expires": int(wall + hub.signer.ttl)}

    return router
