"""Who an HTTP request speaks for: the guest token in `Authorization: Bearer <token>`."""

from __future__ import annotations

from protocol.errors import ErrorCode

from ..errors import ServerError
from ..match.hub import Hub
from ..tokens import Guest, TokenError


def guest_of(hub: Hub, authorization: str | None) -> Guest:
    """The guest of a request's bearer token; ServerError `auth` (401) without a valid one."""
    if authorization is None or not authorization.startswith("Bearer "):
        raise ServerError(ErrorCode.AUTH, "send the guest token as 'Authorization: Bearer <token>'", 401)
    try:
        return hub.signer.verify(authorization.removeprefix("Bearer ").strip(), hub.clock.wall())
    except TokenError as error:
        raise ServerError(ErrorCode.AUTH, f"token refused: {error}", 401) from None
