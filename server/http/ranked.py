"""The ranked routes: the leaderboard, a player's page, and renewing a guest token.

- `GET /api/leaderboard?ruleset=NAME&offset=0&limit=50&provisional=false`: players by their rating
  in the ruleset (absent: the node's), highest first, paged (`limit` ≤ MAX_PAGE); provisional
  players (RD ≥ 110) are a list apart (`provisional=true`), as lichess shows them. An unknown
  ruleset is 404 `not-found`.
- `GET /api/players/{id}?ruleset=NAME`: the asked ruleset's (absent: the node's) rating, RD,
  volatility, games won/lost/drawn and recent rated matches (opponent, outcome, rating change, replay
  id) at the top level, as the page was when a player had one rating; `ratings`: the same for every
  ruleset the player played ranked, by name; the queue cooldown (one per guest, whatever the queue).

Both name the `ruleset` the top-level ratings are of: a player has one rating per ruleset.
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
from rules.registry import known

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
#: `?ruleset=NAME` (rules/registry.py's names; absent: the node's ruleset).
RulesetQuery = Annotated[str | None, Query(min_length=1, max_length=32)]


def entry(rank: int, player: PlayerRecord, ruleset: str) -> dict[str, Any]:
    """A leaderboard line of `ruleset`'s board."""
    standing = player.standing(ruleset)
    return {
        "rank": rank,
        "id": player.id,
        "name": player.name,
        "rating": standing.glicko.rating,
        "rd": standing.glicko.rd,
        "games": standing.played,
        "provisional": standing.provisional,
    }


def ruleset_named(api: ApiContext, ruleset: str | None) -> str:
    """The ruleset a ratings request asks (None: the node's); 404 for a name the registry lacks."""
    if ruleset is None:
        return api.hub.settings.ruleset.name
    names = {name for name, _ in known()}
    if ruleset not in names:
        message = f"no ruleset {ruleset!r} (this build rates {', '.join(sorted(names))})"
        raise ServerError(ErrorCode.NOT_FOUND, message, 404)
    return ruleset


def ranked_router(api: ApiContext, address_of: Callable[[Request], str]) -> APIRouter:
    """The routes above, closed over one node's context (and how to read a request's client address)."""
    router = APIRouter()

    @router.get("/api/leaderboard", responses=refusals(422))
    async def leaderboard(
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
        provisional: bool = False,
        ruleset: RulesetQuery = None,
    ) -> dict[str, Any]:
        """Players by their rating in a ruleset (absent: the node's), highest first: the ranked ones, or
        (provisional=true) the provisional ones."""
        name = ruleset_named(api, ruleset)
        players, total = await api.stores.players.leaderboard(name, provisional, offset, limit)
        return {
            "ruleset": name,
            "provisional": provisional,
            "offset": offset,
            "total": total,
            "players": [entry(offset + index + 1, player, name) for index, player in enumerate(players)],
        }

    @router.get("/api/players/{guest_id}", responses=refusals(404))
    async def player(guest_id: str, ruleset: RulesetQuery = None) -> dict[str, Any]:
        """A player's rating, counts and recent rated matches in a ruleset (absent: the node's), and
        every ruleset's under `ratings`."""
        name = ruleset_named(api, ruleset)
        record = await api.stores.players.get_player(guest_id)
        if record is None:
            raise ServerError(ErrorCode.NOT_FOUND, f"no rated player {guest_id!r}", 404)
        return record.public(name)

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
