"""Which browser origins may open the websocket: one rule, for the handshake and for the page's question.

The websocket's handshake refuses an origin not allowed with HTTP 403 (server/transport/websocket.py),
which a browser hides from the page (its websocket only says it closed, 1006). So the page asks first,
over HTTP, `GET /api/origin` (server/http/api.py), and can say why instead of reconnecting forever;
both answers come from `origin_allowed` and the same `allowed_origins` (`FLOE_ORIGINS`).
"""

from __future__ import annotations

from typing import Any

#: The environment variable naming more origins allowed (comma-separated; "*" allows any).
ORIGINS_ENV = "FLOE_ORIGINS"


def origin_allowed(origin: str | None, allowed: tuple[str, ...]) -> bool:
    """Browsers send Origin and must match the list ("*" allows any); clients without one are not browsers."""
    if origin is None:
        return True
    return "*" in allowed or origin.rstrip("/") in allowed


def origin_answer(origin: str | None, allowed: tuple[str, ...]) -> dict[str, Any]:
    """`GET /api/origin`'s answer: whether a websocket from `origin` would be accepted, the origins
    allowed, and a sentence saying why (and how to allow it) when it would not."""
    accepted = origin_allowed(origin, allowed)
    if origin is None:
        reason = "no Origin header: not a browser, which the websocket accepts"
    elif accepted:
        reason = f"origin {origin!r} is allowed"
    else:
        reason = (f"origin {origin!r} is not allowed to open this server's websocket; its operator adds "
                  f"it to {ORIGINS_ENV} (comma-separated) or serves the page from an allowed origin")
    return {"origin": origin, "allowed": accepted, "origins": list(allowed), "reason": reason}
