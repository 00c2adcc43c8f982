"""The security headers every HTTP answer carries (an ASGI middleware), and the page policies.

    app.add_middleware(SecurityHeaders, policies={"/": PAGE_POLICY, "/docs": docs_policy(html)},
                       prefixes={"/engine/": ENGINE_POLICY})

Every answer says `X-Content-Type-Options: nosniff` (a JSON error or a replay is never run as a
script or a page), `X-Frame-Options: DENY` and `frame-ancestors 'none'` (no page of floe is framed
by another site: a framed lobby could be clicked through), and `Referrer-Policy: no-referrer` (a
room's share link carries its invitation: it must not leak to another site as a referrer). The
Content-Security-Policy is the path's: the browser client's page and /docs load only this server's
own files (the page opens its websocket to this same host: CSP 3 counts `ws:`/`wss:` to it as
'self'); everything else (the API's JSON, replays, the client's files) gets a policy that allows
nothing, as a document never needs to render them. The engine's worker (clients/web/src/engine,
served from /engine/ with Pyodide's files) runs under its own script's policy, `ENGINE_POLICY`: it
may import this server's scripts, fetch this server's files and compile WebAssembly
(`'wasm-unsafe-eval'`, which allows no JavaScript `eval`); the page may start workers from this
server only (`worker-src 'self'`) and compiles no WebAssembly itself.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The browser client (clients/web/dist): its module script and stylesheet from /assets, the empty
#: `data:` favicon, its fetches and websocket to this host, the engine's worker from /engine/.
PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: The engine's worker and Pyodide's files (/engine/): a worker's policy is its script's. It imports
#: Pyodide's modules from this server, fetches the wasm, the standard library and the rules from it,
#: and compiles the wasm; nothing else (no eval, no other host, no nested worker).
ENGINE_POLICY = (
    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
#: Everything that is not a page: nothing may load, nothing may frame it.
API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

#: The headers every answer gets besides its policy.
COMMON_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def docs_policy(html: str) -> str:
    """The policy of /docs: Swagger UI's files from this server's build (docs-assets/), its one inline
    script allowed by its hash (no other inline script runs), its `data:` icons; Swagger UI sets its
    styles through the DOM, which a policy does not govern, so no inline style is allowed."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii") + "'"
        for script in _INLINE_SCRIPT.findall(html)
    )
    return (
        f"default-src 'self'; script-src 'self' {hashes}; style-src 'self'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    )


class SecurityHeaders:
    """Wraps an ASGI app: every HTTP answer gets the common headers and its path's policy (`policies`
    by exact path, then `prefixes` by the path's start, else `API_POLICY`)."""

    def __init__(self, app: App, policies: Mapping[str, str],
                 prefixes: Mapping[str, str] | None = None) -> None:
        self.app = app
        self.policies = {path: policy.encode("ascii") for path, policy in policies.items()}
        self.prefixes = [(prefix, policy.encode("ascii")) for prefix, policy in (prefixes or {}).items()]
        self.default = API_POLICY.encode("ascii")

    def policy(self, path: str) -> bytes:
        """The policy of an answer to `path`."""
        exact = self.policies.get(path)
        if exact is not None:
            return exact
        for prefix, policy in self.prefixes:
            if path.startswith(prefix):
                return policy
        return self.default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = self.policy(scope.get("path", ""))

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (name, value)
                    for name, value in message.get("headers", ())
                    if name.lower() != b"content-security-policy"
                ]
                headers += [*COMMON_HEADERS, (b"content-security-policy", policy)]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
