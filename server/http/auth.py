"""Who an HTTP request speaks for: the guest token in `Authorization: Bearer <token>`.

`guest_of` checks the signature and expiry only; `current_guest` also asks the store whether a
renewal has revoked the token (one store read), which the routes that act for a guest use.
"""

from __future__ import annotations

from protocol.errors import ErrorCode

from ..errors import ServerError
from ..match.hub import Hub
from ..tokens import Guest, TokenError, token_key


def guest_of(hub: Hub, authorization: str | None) -> Guest:
    """The guest of a request's bearer token; ServerError `auth` (401) without a valid one."""
    if authorization is None or not authorization.startswith("Bearer "):
        raise ServerError(ErrorCode.AUTH, "send the guest token as 'Authorization: Bearer <token>'", 401)
    try:
        return hub.signer.verify(authorization.removeprefix("Bearer ").strip(), hub.clock.wall())
    except TokenError as error:
        raise ServerError(ErrorCode.AUTH, f"token refused: {error}", 401) from None


async def token_revoked(hub: Hub, guest: Guest) -> bool:
    """Has a renewal replaced this token (its generation is older than the oldest still accepted)?"""
    return guest.generation < await hub.store.generation(token_key(guest.id), hub.clock.wall())


async def current_guest(hub: Hub, authorization: str | None) -> Guest:
    """`guest_of`, and refused (401 `auth`) when a renewal has revoked the token."""
    guest = guest_of(hub, authorization)
    if await token_revoked(hub, guest):
        raise ServerError(ErrorCode.AUTH, "token refused: it was renewed (use the newest token)", 401)
    return guest
