"""Who an HTTP request speaks for: the guest token in `Authorization: Bearer <token>`.

`guest_of` checks the signature and expiry only; `current_guest` also asks the store whether a
renewal has revoked the token (one store read), which the routes that act for a guest use.
"""

from __future__ import annotations

from protocol.errors import ErrorCode

from ..errors import ServerError
from ..tokens import Guest, TokenError, token_key
from .context import ApiContext


def guest_of(api: ApiContext, authorization: str | None) -> Guest:
    """The guest of a request's bearer token; ServerError `auth` (401) without a valid one."""
    if authorization is None or not authorization.startswith("Bearer "):
        raise ServerError(ErrorCode.AUTH, "send the guest token as 'Authorization: Bearer <token>'", 401)
    try:
        return api.signer.verify(authorization.removeprefix("Bearer ").strip(), api.clock.wall())
    except TokenError as error:
        raise ServerError(ErrorCode.AUTH, f"token refused: {error}", 401) from None


async def token_revoked(api: ApiContext, guest: Guest) -> bool:
    """Has a renewal replaced this token (its generation is older than the oldest still accepted)?"""
    return guest.generation < await api.stores.limits.generation(token_key(guest.id), api.clock.wall())


async def current_guest(api: ApiContext, authorization: str | None) -> Guest:
    """`guest_of`, and refused (401 `auth`) when a renewal has revoked the token."""
    guest = guest_of(api, authorization)
    if await token_revoked(api, guest):
        raise ServerError(ErrorCode.AUTH, "token refused: it was renewed (use the newest token)", 401)
    return guest
