"""The refusals the OpenAPI document lists: each route's own, and those every route can give.

A route names the refusals it gives itself (`responses=refusals(404, 422)`); `list_common_refusals`
adds to every operation of the finished document the ones that come from around the routes, so that
the document lists every status a route really answers:

- 405 (another method on the operation's path; `Allow` names the methods it takes), 413 (a body
  over its bound, refused by its declared length before any route runs: server/http/bodylimit.py),
  429 (the listener's bound on one address's open connections) and 503 (the server is stopping);
- with a request body, 408 (the body did not arrive within `http_body_seconds`) and 422 (it is not
  what the route takes);
- with a guest's `Authorization` header, 401.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


class ErrorBody(BaseModel):
    """Every refusal: the protocol's `error` message as JSON."""

    kind: Literal["error"] = "error"
    code: str
    message: str
    ref: str | None = None
    fatal: bool = False


STATUS_TEXT = {
    400: "the client went away before its body arrived (`malformed`)",
    401: "no guest token, or one that is malformed, forged or expired (`auth`)",
    404: "no such match, room, invitation, replay, player or day (`not-found`, `no-such-match`)",
    405: "another method on this path: `Allow` names the ones it takes (`malformed`)",
    408: "the body did not arrive in time (`timeout`)",
    409: "the guest already plays a match, has too many open rooms, or the room is full",
    413: "the body is over its size limit (`too-large`); it was not read",
    415: "the body is not msgpack (`malformed`)",
    422: "the request is malformed, or the bytes are not a replay (`malformed`, `bad-replay`, "
         "`not-daily`, `unverified`)",
    429: "a rate or share limit, or too many open connections from this address; see Retry-After "
         "(`rate-limited`); or the client's address already has a seat in as many live matches as one "
         "address may (`too-many-matches`)",
    503: "the server holds as many matches (its work budget) or verifications as it can, or is "
         "stopping; see Retry-After (`busy`)",
    504: "the verification ran past its time bound (`timeout`)",
}

#: What every operation can answer, whatever the route does.
EVERY_OPERATION = (405, 413, 429, 503)
#: What an operation with a request body can answer besides.
WITH_A_BODY = (408, 422)
#: The header that carries a guest's token (FastAPI names the parameter so in the document).
AUTHORIZATION = "authorization"


def refusals(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the refusals a route can answer, each in the error shape."""
    return {status: {"description": STATUS_TEXT[status], "model": ErrorBody} for status in statuses}


def list_common_refusals(schema: dict[str, Any]) -> dict[str, Any]:
    """The document with the refusals that come from around the routes added to every operation."""
    error_schema = {"$ref": "#/components/schemas/ErrorBody"}
    schema.setdefault("components", {}).setdefault("schemas", {}).setdefault(
        "ErrorBody", ErrorBody.model_json_schema()
    )
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            statuses = list(EVERY_OPERATION)
            if "requestBody" in operation:
                statuses += WITH_A_BODY
            if any(parameter.get("name") == AUTHORIZATION for parameter in operation.get("parameters", ())):
                statuses.append(401)
            responses = operation.setdefault("responses", {})
            for status in statuses:
                responses.setdefault(str(status), {
                    "description": STATUS_TEXT[status],
                    "content": {"application/json": {"schema": error_schema}},
                })
    return schema
