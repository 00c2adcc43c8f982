"""The closed vocabulary of errors: every refusal the server sends carries one of these codes."""

from __future__ import annotations

import enum


class ErrorCode(enum.StrEnum):
    """Why a message (or an HTTP request) was refused. The wire carries the value."""

    MALFORMED = "malformed"
    """Not a msgpack map with a string `kind`, a text frame, or fields of the wrong type or range."""

    TOO_LARGE = "too-large"
    """The frame or request body is over the size limit; it was not parsed."""

    UNKNOWN_KIND = "unknown-kind"
    """The `kind` names no message this protocol version has."""

    VERSION = "version"
    """The `hello` names another protocol version."""

    HELLO_FIRST = "hello-first"
    """A message other than `hello` arrived before the handshake."""

    DUPLICATE_HELLO = "duplicate-hello"
    """A second `hello` on one connection."""

    AUTH = "auth"
    """The token is missing, malformed, forged or expired."""

    NOT_SEATED = "not-seated"
    """The token holds no seat in that match (a token drives only its own seat)."""

    NO_SUCH_MATCH = "no-such-match"
    """No live match or room has that id."""

    ALREADY_JOINED = "already-joined"
    """The connection already plays or watches a match."""

    NOT_JOINED = "not-joined"
    """An input or a leave from a connection that has joined no match."""

    READ_ONLY = "read-only"
    """A spectator sent an input: spectators only read."""

    BAD_INPUT = "bad-input"
    """The input byte is not a seat input (see rules/versus/inputs.py); nothing changed."""

    FRAME_AHEAD = "frame-ahead"
    """The input is stamped further ahead of the server's frame than the bound allows; it was dropped."""

    SEAT_OUT = "seat-out"
    """The seat has forfeited or left; it takes no more inputs."""

    NOT_STARTED = "not-started"
    """The match is still waiting for its players; inputs are refused until it starts."""

    MATCH_OVER = "match-over"
    """The match has ended (or was cancelled)."""

    ROOM_FULL = "room-full"
    """Every seat of the room is taken."""

    ALREADY_PLAYING = "already-playing"
    """The guest (or the room's creator) already holds a seat in a live match: one at a time."""

    TOO_MANY_ROOMS = "too-many-rooms"
    """The guest already has as many open rooms as a guest may (HTTP)."""

    RATE_LIMITED = "rate-limited"
    """Messages came faster than the connection's token bucket allows; the excess was dropped."""

    SLOW_CONSUMER = "slow-consumer"
    """The client read the stream too slowly and its send queue overflowed; it is disconnected."""

    REPLACED = "replaced"
    """The same seat connected again elsewhere; this older connection is closed."""

    ORIGIN = "origin"
    """The websocket upgrade came from an origin that is not allowed."""

    NOT_FOUND = "not-found"
    """No such replay or resource (HTTP)."""

    BAD_REPLAY = "bad-replay"
    """The uploaded bytes are not a replay (HTTP verify)."""

    BUSY = "busy"
    """Too many verifications are running; try again later (HTTP verify)."""

    TIMEOUT = "timeout"
    """The verification ran past its time bound (HTTP verify)."""

    COOLDOWN = "cooldown"
    """The ranked queue refuses this guest for a while: it left a found match before it started."""

    ALREADY_QUEUED = "already-queued"
    """The guest waits in the ranked queue already (from this or another connection)."""

    NOT_DAILY = "not-daily"
    """The run is not of a day's challenge that takes runs now (ruleset, config, seed or day)."""

    UNVERIFIED = "unverified"
    """The run does not reproduce: re-simulated from its moves it gives another result or log."""

    INTERNAL = "internal"
    """A bug on the server's side; the match and the process go on."""

    # ---- issue 18: daily runs bound to their player --------------------------------------------------
    DUPLICATE_RUN = "duplicate-run"
    """The run (its moves: its log hash) was submitted for that day already, by anyone (HTTP 409)."""
    IDLE = "idle"
    """The connection said hello, then followed no match and waited in no queue for too long (fatal)."""
    TOO_MANY_MATCHES = "too-many-matches"
    """The client's address already has a seat in as many live matches as one address may (HTTP 429)."""

    # ---- issue 19: rematch offers, the websocket URL's match ---------------------------------------------
    REMATCH = "rematch"
    """A rematch offer or answer that cannot be: the match is not an ended room or ranked match of two
    players you played, the other player is gone, no offer waits, or the seat's offers are used up."""
    WRONG_MATCH = "wrong-match"
    """A `join` or `watch` of another match than the one the websocket's URL names (`/ws?match=`)."""


class CloseCode(enum.IntEnum):
    """The websocket close codes the server uses (RFC 6455 §7.4.1)."""

    NORMAL = 1000
    """The match is over or the client left; nothing went wrong."""

    GOING_AWAY = 1001
    """The server is shutting down."""

    INVALID_DATA = 1007
    """A text frame that is not UTF-8 (RFC 6455 §8.1), with a fatal `malformed` error."""

    POLICY = 1008
    """The connection broke a rule: a fatal error (version, hostile, replaced, refused origin)."""

    TOO_BIG = 1009
    """A frame past the websocket layer's hard size limit."""

    TRY_AGAIN = 1013
    """The client read too slowly to follow the stream (`slow-consumer`); it may reconnect."""
