"""A guest's identity on another device: a recovery code, shown once, that another browser enters to
become the same guest (its id, so its rating, and its name), and its revocation.

- `POST /api/guests/recovery` (token): a new recovery code; any older code of the guest stops working
  (the code carries the guest's recovery generation, `recovery_key`, which this raises). At most
  `recovery_codes_per_guest` an hour per guest (429).
- `POST /api/guests/recover` `{"code"}`: a token for the code's guest (`{"guest", "name", "token",
  "expires"}`), of the guest's current token generation. At most `recoveries_per_address` an hour per
  client address, taken before the code is read (429); a forged, expired or replaced code: 401 `auth`.
- `POST /api/guests/recovery/revoke` (token): every recovery code of the guest stops working, and so
  does every token of the guest (those redeemed from a code among them: issue 18's token generations,
  `token_key`, raised past them all); the caller gets a fresh token, so this browser stays the guest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, ConfigDict, Field

from protocol.errors import ErrorCode

from ..errors import ServerError
from ..tokens import TokenError, recovery_key, token_key
from .auth import current_guest
from .context import ApiContext
from .refusals import refusals

HOUR = 3600.0
#: The `Authorization: Bearer <token>` header.
Authorization = Annotated[str | None, Header()]


class RecoverRequest(BaseModel):
    """`POST /api/guests/recover` body: the code another browser showed."""

    model_config = ConfigDict(extra="forbid")
    code: Annotated[str, Field(min_length=1, max_length=512)]


def recovery_router(api: ApiContext, address_of: Callable[[Request], str]) -> APIRouter:
    """The routes above, closed over one node's context (and how to read a request's client address)."""
    router = APIRouter()

    async def take(key: str, per_hour: int, what: str) -> None:
        wait = await api.stores.limits.take_token(key, per_hour / HOUR, per_hour, api.clock.wall())
        if wait > 0:
            raise ServerError(ErrorCode.RATE_LIMITED, f"{what}; again in {wait:.0f} s", 429, retry_after=wait)

    async def advance(key: str, past: int = 0, by: int = 1) -> int:
        """Set a generation key to one more than both what it holds and `past` (by=0: keep what it holds),
        living as long as a token from now; the generation set (401 when another request raced it)."""
        wall = api.clock.wall()
        held = await api.stores.limits.generation(key, wall)
        new = max(held, past) + by if by else held
        if not await api.stores.limits.advance_generation(key, held, new, api.signer.ttl, wall):
            raise ServerError(ErrorCode.AUTH, "changed meanwhile by another request: try again", 401)
        return new

    @router.post("/api/guests/recovery", responses=refusals(401, 429))
    async def new_code(authorization: Authorization = None) -> dict[str, Any]:
        """A recovery code for this guest (shown once; an older one stops working)."""
        guest = await current_guest(api, authorization)
        await take(f"recovery:{guest.id}", api.http.recovery_codes_per_guest,
                   "too many recovery codes for this guest")
        generation = await advance(recovery_key(guest.id))
        wall = api.clock.wall()
        code = api.signer.recovery_code(guest, generation, wall)
        return {"code": code, "expires": int(wall + api.signer.ttl)}

    @router.post("/api/guests/recover", responses=refusals(401, 422, 429))
    async def recover(request: Request, body: RecoverRequest) -> dict[str, Any]:
        """Become the guest a recovery code speaks for: its id (and rating) and name, in a new token."""
        await take(f"recover:{address_of(request)}", api.http.recoveries_per_address,
                   "too many recovery codes tried from this address")
        wall = api.clock.wall()
        try:
            guest, generation = api.signer.read_recovery_code(body.code, wall)
        except TokenError as error:
            raise ServerError(ErrorCode.AUTH, f"recovery code refused: {error}", 401) from None
        if generation != await api.stores.limits.generation(recovery_key(guest.id), wall):
            raise ServerError(ErrorCode.AUTH, "recovery code refused: it was revoked or replaced", 401)
        # The guest's token generation, kept as long as the token made here lives (a revocation then
        # still finds every token of the guest at or below it).
        current = replace(guest, generation=await advance(token_key(guest.id), by=0))
        token = api.signer.issue(current, wall)
        return {"guest": guest.id, "name": guest.name, "token": token, "expires": int(wall + api.signer.ttl)}

    @router.post("/api/guests/recovery/revoke", responses=refusals(401, 429))
    async def revoke(authorization: Authorization = None) -> dict[str, Any]:
        """Every recovery code of this guest, and every token (this one too), stop working; a fresh
        token for this browser."""
        guest = await current_guest(api, authorization)
        await take(f"recovery:{guest.id}", api.http.recovery_codes_per_guest,
                   "too many recovery changes for this guest")
        await advance(recovery_key(guest.id))
        fresh = replace(guest, generation=await advance(token_key(guest.id), past=guest.generation))
        wall = api.clock.wall()
        return {"guest": guest.id, "name": guest.name, "token": api.signer.issue(fresh, wall),
                "expires": int(wall + api.signer.ttl)}

    return router
