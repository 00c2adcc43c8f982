"""The match a websocket's URL names: `/ws?match=<id>`, for a reverse proxy to pin a match's clients on
one node (it routes on the URL; it cannot read the msgpack `join` inside the websocket).

The server still takes `join` and `watch` as before: the query only binds the connection to that match,
so a session pinned to one match refuses a `join` or `watch` of another (`wrong-match`, not fatal,
nothing changes: a proxy would have sent it to the wrong node). A URL without the query follows any
match, as before. Other query parameters are ignored (a cache-buster, a proxy's own).
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from protocol.limits import MAX_ID_CHARS

#: The query parameter naming the match.
MATCH_PARAMETER = "match"
#: Query parameters read at most (a longer query is refused: the head's size bounds it anyway).
MAX_QUERY_FIELDS = 16


def pinned_match(target: str) -> str | None:
    """The match id in a request target's query (None without one); ValueError when the query names it
    more than once, empty, or longer than a match id may be."""
    query = urlsplit(target).query
    if not query:
        return None
    try:
        fields = parse_qsl(query, keep_blank_values=True, max_num_fields=MAX_QUERY_FIELDS)
    except ValueError:
        raise ValueError(f"the websocket URL's query has more than {MAX_QUERY_FIELDS} fields") from None
    named = [value for name, value in fields if name == MATCH_PARAMETER]
    if not named:
        return None
    if len(named) > 1:
        raise ValueError(f"the websocket URL names `{MATCH_PARAMETER}` {len(named)} times")
    match = named[0]
    if not 1 <= len(match) <= MAX_ID_CHARS:
        raise ValueError(f"`{MATCH_PARAMETER}` in the websocket URL must be 1 to {MAX_ID_CHARS} characters")
    return match
