"""Guest tokens: a guest id and name, an expiry, and an HMAC-SHA256 signature over them.

A token is `v1.<payload>.<signature>`, both parts base64url without padding; the payload is JSON
`{"g": guest id, "n": name, "e": expiry (unix seconds)}`, and `"r": generation` on a renewed token
(absent: 0). The server keeps no session table: any process with the same secret accepts the token,
which is what several nodes sharing one Redis need. Renewal revokes: the store keeps, per guest, the
oldest generation still accepted (`token_key`), raised by each renewal, and a token of an older
generation is refused where a guest is let in (`hello`, the HTTP routes' bearer check), not per message.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import secrets
from dataclasses import dataclass, field

from .errors import ConfigError

PREFIX = "v1"
#: A recovery code's prefix (its signature covers it, so a code is never taken for a token, nor back).
RECOVERY_PREFIX = "rc1"
_NAME = re.compile(r"[^A-Za-z0-9 _.-]")


#: The environment variable holding the token secret (at least MIN_SECRET_BYTES bytes of UTF-8).
SECRET_ENV = "FLOE_SECRET"
#: The shortest token secret the server takes.
MIN_SECRET_BYTES = 16


def secret_from_env() -> bytes | None:
    """FLOE_SECRET as bytes, or None when it is not set; ConfigError when it is set but too short
    (an empty one included: it must not silently mean a random secret)."""
    value = os.environ.get(SECRET_ENV)
    if value is None:
        return None
    secret = value.encode("utf-8")
    if len(secret) < MIN_SECRET_BYTES:
        raise ConfigError(f"{SECRET_ENV} must be at least {MIN_SECRET_BYTES} bytes, got {len(secret)}")
    return secret


def token_secret(configured: bytes | None, shared_store: bool) -> tuple[bytes, str]:
    """The secret to sign tokens with, and where it came from ("configured" or "random").

    A random secret is made only for the embedded store (tokens then die with the process, which is
    what one process on its own store means); a store shared by several processes needs every one
    of them to sign alike, so it refuses to start without a configured secret.
    """
    if configured is not None:
        if len(configured) < MIN_SECRET_BYTES:
            raise ConfigError(f"the token secret must be at least {MIN_SECRET_BYTES} bytes")
        return configured, "configured"
    if shared_store:
        raise ConfigError(f"a shared store needs a token secret: set {SECRET_ENV} (at least "
                          f"{MIN_SECRET_BYTES} bytes, the same on every node)")
    return secrets.token_bytes(32), "random"


@dataclass(frozen=True)
class TokenSettings:
    """Tokens: the HMAC secret (None: FLOE_SECRET's, or a random one for the embedded store, see
    `token_secret`) and their lifetime."""

    #: The HMAC secret of the guest tokens (at least 16 bytes; None: a per-process one).
    secret: bytes | None = field(default_factory=secret_from_env, repr=False)
    #: Seconds a token is good for.
    token_ttl: float = 7 * 24 * 3600.0


class TokenError(ValueError):
    """A token that is malformed, forged or expired."""


@dataclass(frozen=True, slots=True)
class Guest:
    """Who a token speaks for."""

    id: str
    name: str
    #: The token's generation: 0 when made, one more at each renewal.
    generation: int = 0


def token_key(guest_id: str) -> str:
    """The store's generation key of a guest's tokens."""
    return f"token:{guest_id}"


def recovery_key(guest_id: str) -> str:
    """The store's generation key of a guest's recovery codes (a new code, or a revocation, raises it)."""
    return f"recovery:{guest_id}"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def clean_name(name: str | None, guest_id: str) -> str:
    """A display name: printable ASCII letters, digits, space and `_.-`, at most 24 characters."""
    cleaned = _NAME.sub("", name or "").strip()[:24]
    return cleaned or f"guest-{guest_id[-4:]}"


class TokenSigner:
    """Issues and checks guest tokens with one secret."""

    def __init__(self, secret: bytes, ttl: float) -> None:
        if len(secret) < 16:
            raise ValueError("the token secret must be at least 16 bytes")
        self._secret = secret
        self.ttl = ttl

    def _sign(self, payload: str, prefix: str = PREFIX) -> str:
        return _b64(hmac.new(self._secret, f"{prefix}.{payload}".encode("ascii"), hashlib.sha256).digest())

    def recovery_code(self, guest: Guest, generation: int, now: float) -> str:
        """A recovery code for `guest` (its id and name), of the guest's recovery `generation`, valid
        for `ttl` seconds: whoever enters it becomes that guest while the generation is the newest."""
        body = json.dumps({"g": guest.id, "n": guest.name, "k": generation, "e": int(now + self.ttl)},
                          separators=(",", ":"))
        payload = _b64(body.encode("utf-8"))
        return f"{RECOVERY_PREFIX}.{payload}.{self._sign(payload, RECOVERY_PREFIX)}"

    def read_recovery_code(self, code: str, now: float) -> tuple[Guest, int]:
        """The guest a recovery code speaks for and its generation; TokenError for anything else."""
        parts = code.strip().split(".")
        if len(parts) != 3 or parts[0] != RECOVERY_PREFIX:
            raise TokenError("not a recovery code")
        _, payload, signature = parts
        if not hmac.compare_digest(self._sign(payload, RECOVERY_PREFIX), signature):
            raise TokenError("bad recovery code signature")
        try:
            data = json.loads(_unb64(payload))
            guest = Guest(str(data["g"]), str(data["n"]))
            generation, expiry = int(data["k"]), int(data["e"])
        except (ValueError, KeyError, TypeError, AttributeError, binascii.Error) as error:
            raise TokenError(f"malformed recovery code ({type(error).__name__})") from None
        if expiry < now:
            raise TokenError("recovery code expired")
        return guest, generation

    def new_guest(self, guest_id: str, name: str | None, now: float) -> tuple[Guest, str]:
        """A guest identity under a fresh id (server/match/sources.py) and its token."""
        guest = Guest(guest_id, clean_name(name, guest_id))
        return guest, self.issue(guest, now)

    def issue(self, guest: Guest, now: float) -> str:
        """A token for `guest`, valid for `ttl` seconds from `now`."""
        fields: dict[str, str | int] = {"g": guest.id, "n": guest.name, "e": int(now + self.ttl)}
        if guest.generation:
            fields["r"] = guest.generation
        body = json.dumps(fields, separators=(",", ":"))
        payload = _b64(body.encode("utf-8"))
        return f"{PREFIX}.{payload}.{self._sign(payload)}"

    def verify(self, token: str, now: float) -> Guest:
        """The guest a token speaks for; raises TokenError for anything else."""
        parts = token.split(".")
        if len(parts) != 3 or parts[0] != PREFIX:
            raise TokenError("malformed token")
        _, payload, signature = parts
        if not hmac.compare_digest(self._sign(payload), signature):
            raise TokenError("bad token signature")
        try:
            data = json.loads(_unb64(payload))
            guest = Guest(str(data["g"]), str(data["n"]), int(data.get("r", 0)))
            expiry = int(data["e"])
        except (ValueError, KeyError, TypeError, AttributeError, binascii.Error) as error:
            raise TokenError(f"malformed token payload ({type(error).__name__})") from None
        if expiry < now:
            raise TokenError("token expired")
        if guest.generation < 0:
            raise TokenError("malformed token payload (generation)")
        return guest
