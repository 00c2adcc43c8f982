"""Every message of the websocket protocol, as a frozen dataclass; `protocol/README.md` documents each.

On the wire a message is a msgpack map: `kind` (the class's `KIND`) plus the dataclass's fields by
name. The client's messages are validated strictly (exact types, bounded ranges and lengths, no
unknown fields); the server's are trusted by the server and validated by clients that want to.

Stream messages (`frame`, `rewind`, `keyframe`, `over`) carry `n`, their number in the stream the
connection follows: numbers are consecutive, so a gap is visible, and a client that reconnects says
the last number it saw (`since`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import ConfigDict, Field, StrictBool, StrictInt, StrictStr

from .limits import (
    MAX_FRAME,
    MAX_ID_CHARS,
    MAX_INPUT_RUN,
    MAX_NAME_CHARS,
    MAX_PING_VALUE,
    MAX_RULESET_CHARS,
    MAX_TOKEN_CHARS,
)

#: Unknown fields are refused rather than ignored: a typo must not pass silently.
STRICT = ConfigDict(extra="forbid")

FrameNumber = Annotated[StrictInt, Field(ge=0, le=MAX_FRAME)]
PingValue = Annotated[StrictInt, Field(ge=0, le=MAX_PING_VALUE)]
StreamNumber = Annotated[StrictInt, Field(ge=0, le=2**62)]
MatchId = Annotated[StrictStr, Field(min_length=1, max_length=MAX_ID_CHARS)]
Token = Annotated[StrictStr, Field(min_length=1, max_length=MAX_TOKEN_CHARS)]
InputByte = Annotated[StrictInt, Field(ge=0, le=255)]
InputRun = Annotated[list[InputByte], Field(min_length=1, max_length=MAX_INPUT_RUN)]
Role = Literal["player", "spectator"]


class MatchState(enum.StrEnum):
    """Where a match is in its life (the wire carries the value)."""

    WAITING = "waiting"
    """A room: seats are being taken and players connect; nothing is simulated yet."""

    RUNNING = "running"
    """Every seat was taken and every player connected once: frames are simulated."""

    OVER = "over"
    """The match ended with a result; its replay is recorded."""

    CANCELLED = "cancelled"
    """The match ended without a result (a room that never started, or a server failure)."""


# ---- client → server -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """The first message of every connection: the protocol version, and the guest token of a player."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "hello"
    version: StrictInt
    token: Token | None = None
    client: Annotated[StrictStr, Field(max_length=MAX_NAME_CHARS)] = ""


@dataclass(frozen=True, slots=True)
class Join:
    """Play a match: take the seat the token holds in it. `since` is the last stream number seen."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "join"
    match: MatchId
    since: StreamNumber | None = None
    #: The client rebuilds the match in its own engine: each `resync` it is sent carries `state`.
    replica: bool = False


@dataclass(frozen=True, slots=True)
class Watch:
    """Spectate a match (read-only, confirmed frames only). `since` is the last stream number seen."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "watch"
    match: MatchId
    since: StreamNumber | None = None


@dataclass(frozen=True, slots=True)
class Input:
    """The seat's input bytes for consecutive match frames from `frame` on (`inputs[0]` is `frame`'s).

    Frames after the last one hold its direction with the kick dropped until the seat speaks again.
    """

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "input"
    frame: FrameNumber
    inputs: InputRun


@dataclass(frozen=True, slots=True)
class Ping:
    """Clock sync: the server answers `pong` at once with its frame; `t` is echoed (client milliseconds)."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "ping"
    id: PingValue
    t: PingValue


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave the match for good: a player forfeits (or cancels a room not yet started); a spectator stops."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True)
class Desync:
    """A player's browser engine (its replica of the match, clients/web/src/net/predict.ts) disagreed
    with the keyframe of `frame`: the server logs it (WARNING `match.client-desync`, at most
    `limits.desync_reports_per_connection` per connection) and changes nothing: the stream is the
    authority, and the client draws from it."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "desync"
    frame: FrameNumber


@dataclass(frozen=True, slots=True)
class Queue:
    """Join the ranked queue (1 v 1) of a two-seat ruleset (`ruleset`; absent: the server's): wait to be
    paired with the nearest rating in that ruleset (needs a token). One queue and one rating per
    ruleset; a guest waits in one queue at a time."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "queue"
    ruleset: Annotated[StrictStr, Field(min_length=1, max_length=MAX_RULESET_CHARS)] | None = None


@dataclass(frozen=True, slots=True)
class Unqueue:
    """Leave the ranked queue (no cost while not yet paired)."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "unqueue"


@dataclass(frozen=True, slots=True)
class Rematch:
    """Offer the other players a rematch of `match`, a room or ranked match you played that is over (an
    offer already waiting from another player is accepted instead: crossing offers start it)."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "rematch"
    match: MatchId


@dataclass(frozen=True, slots=True)
class RematchAnswer:
    """Accept or decline the rematch of `match` another player offered (`rematch-offer`)."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "rematch-answer"
    match: MatchId
    accept: StrictBool


ClientMessage = (
    Hello | Join | Watch | Input | Ping | Leave | Desync | Queue | Unqueue | Rematch | RematchAnswer
)


# ---- server → client -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Welcome:
    """The answer to `hello`: who the token is, and every number a client needs (rates, delay, window)."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "welcome"
    version: int
    guest: str | None
    name: str | None
    frame_rate: int
    input_delay: int
    rollback_window: int
    max_ahead: int
    max_message_bytes: int
    rate_per_second: int
    rate_burst: int
    #: Frames of input a client should gather per `input` message (it sends a change at once).
    input_batch: int
    #: The streams go out every this many frames, each websocket message holding all their records.
    send_every: int
    #: Seconds a dropped player has to come back before its seat forfeits (`status.grace` counts down).
    reconnect_grace: float = 30.0
    #: Seconds a rematch offer waits for its answer before it expires (`rematch-refused`, "expired").
    rematch_offer_seconds: float = 20.0


@dataclass(frozen=True, slots=True)
class Joined:
    """The answer to `join` or `watch`: the match's seats, seed and config, and where its stream stands."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "joined"
    match: str
    role: Role
    seat: int | None
    seats: list[str]
    bots: list[str | None]
    seed: int
    config: dict[str, Any]
    ruleset: str
    ruleset_version: int
    state: MatchState
    head: int
    keyframe_every: int
    #: The ruleset's stream tables: its words, event, record, summary and note layouts (protocol/README.md).
    tables: dict[str, Any] = field(default_factory=dict)
    #: Spectators following the match now (as `GET /api/matches` counts them).
    spectators: int = 0
    #: Seconds this stream runs behind the match: a ranked match's spectators get the confirmed
    #: stream `ranked_spectator_delay` seconds late; 0 for the others (and for players).
    delay: float = 0.0


@dataclass(frozen=True, slots=True)
class Status:
    """The match's state changed (started, a seat connected or dropped, ended, cancelled), and every
    `status_every` seconds while it runs: each seat's connection as the server sees it."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "status"
    match: str
    state: MatchState
    connected: list[bool]
    #: Per seat, the player's round trip in milliseconds as the server measures it (websocket pings,
    #: smoothed, whole milliseconds, at most MAX_LAG_MS); None for a bot, a seat not connected, or one
    #: not measured yet.
    lag: list[int | None] = field(default_factory=list)
    #: Per seat, the whole seconds (rounded up) left before a dropped player's seat forfeits
    #: (`reconnect_grace`); None for a seat that is connected, a bot, or a match not running.
    grace: list[int | None] = field(default_factory=list)
    #: Spectators following the match now.
    spectators: int = 0


#: A `frame` record travels as an array whose first element is this code (protocol/codec.py).
FRAME_CODE = 0


@dataclass(frozen=True, slots=True)
class Frame:
    """Stream record `n`: one simulated frame's events, what each seat shows (delta-coded) and inputs.

    Frames below `confirmed` are final. A player's stream may later rewind a frame (`rewind`);
    a spectator's never does. On the wire it is the array
    `[0, n, frame + 1 − confirmed, frame, inputs, events, actors]` (no map keys: it is sent 60 times a
    second); `events` are the ruleset's compact records, `actors` each seat's change (protocol/delta.py).
    """

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "frame"
    n: int
    frame: int
    events: list[Any]
    actors: list[Any]
    inputs: list[int]
    confirmed: int


@dataclass(frozen=True, slots=True)
class Rewind:
    """Stream record `n` (players only): forget frames ≥ `frame`; their corrected records follow."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "rewind"
    n: int
    frame: int


@dataclass(frozen=True, slots=True)
class Keyframe:
    """Stream record `n`: a view of the boards at the start of confirmed frame `frame`, with its checksum."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "keyframe"
    n: int
    frame: int
    view: dict[str, Any]
    checksum: str


@dataclass(frozen=True, slots=True)
class Resync:
    """Start again from here: a keyframe and every frame after it; the stream continues at `n` + 1."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "resync"
    n: int
    frame: int
    view: dict[str, Any]
    checksum: str
    frames: list[dict[str, Any]]
    confirmed: int
    #: Only to a player that joined with `replica`: the match's state at `frame`, to rebuild its replica
    #: from — `{"frame", "snapshot", "held"}`: the rules' `Match.snapshot()` as marshal version 2 bytes in
    #: base64 text (what `Match.restore` takes once loaded: the browser's engine is the rules' Python;
    #: plain msgpack would not survive a browser's numbers (integers to 2**62), and the protocol carries
    #: no bin values) and each seat's input byte on the frame before `frame` (None: not known), what the
    #: seats hold for prediction.
    state: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Over:
    """Stream record `n`, the last: the match's result, and the id of its replay (None if cancelled)."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "over"
    n: int
    result: dict[str, Any] | None
    replay: str | None


@dataclass(frozen=True, slots=True)
class Pong:
    """The answer to `ping`: the match frame the server was on when it answered (-1 before the start)."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "pong"
    id: int
    t: int
    frame: int


@dataclass(frozen=True, slots=True)
class InputLate:
    """An input stamped for a frame that can no longer change was applied at frame `applied` instead."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "input-late"
    frame: int
    applied: int


@dataclass(frozen=True, slots=True)
class Error:
    """A refusal: what was wrong (`code`, see protocol/errors.py) and the kind of message it answers."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "error"
    code: str
    message: str
    ref: str | None = None
    #: Fatal errors are followed by the server closing the connection.
    fatal: bool = field(default=False)


@dataclass(frozen=True, slots=True)
class Queued:
    """In the ranked queue now: the guest's rating, and the window it accepts at first (it widens)."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "queued"
    rating: float
    rd: float
    provisional: bool
    window: float
    #: Seconds the queue keeps a guest before `unqueued` (reason "timeout").
    max_wait: float
    #: The ruleset whose queue the guest waits in (and whose rating `rating` is).
    ruleset: str = ""


@dataclass(frozen=True, slots=True)
class Unqueued:
    """Out of the ranked queue without a match: `reason` is "asked" (unqueue) or "timeout"."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "unqueued"
    reason: str


@dataclass(frozen=True, slots=True)
class Matched:
    """Paired: `join` match `match` (your seat `seat`) within `join_within` seconds, or it is cancelled
    and whoever did not connect pays the queue cooldown."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "matched"
    match: str
    seat: int
    opponent: str
    opponent_rating: float
    join_within: float
    #: The opponent's rating is provisional (RD at least server/store/players.py PROVISIONAL_RD).
    opponent_provisional: bool = False
    #: Seconds of play a rated result needs, both players having moved (`ranked_min_play_seconds`;
    #: 0: the rule off); a match ended before it is aborted (see protocol/README.md "Ranked play").
    min_play: float = 0.0
    #: The queue cooldown, in seconds, a first dodge or abort costs whoever caused it
    #: (`ranked_dodge_cooldown`; it doubles with each further one within a day).
    abort_cooldown: float = 0.0
    #: The ruleset the match plays (the queue's).
    ruleset: str = ""


@dataclass(frozen=True, slots=True)
class Rated:
    """After a ranked match's `over`, once the store applied it: the rating change and the new rating."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "rated"
    match: str
    change: float
    rating: float
    rd: float
    provisional: bool
    games: int
    #: The ruleset of the rating (the match's): `games` counts that ruleset's rated games.
    ruleset: str = ""


@dataclass(frozen=True, slots=True)
class RematchOffer:
    """A rematch of `match` is offered by seat `seat` (`name`), to all its players: every other one
    answers with `rematch-answer` within `expires` seconds."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "rematch-offer"
    match: str
    seat: int
    name: str
    expires: float


@dataclass(frozen=True, slots=True)
class RematchRefused:
    """No rematch of `match` from that offer, to all its players: `reason` is "declined", "expired" or
    "refused" (the server refused to make it: `code` is the typed error, e.g. `too-many-matches`)."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "rematch-refused"
    match: str
    reason: str
    code: str | None = None
    message: str = ""


@dataclass(frozen=True, slots=True)
class RematchReady:
    """The rematch of `match` is made, to all its players: `join` match `rematch` (your seat `seat`).
    It is a private room between the same players, never rated (`ranked` is false; a rated game comes from the
    queue)."""

    __pydantic_config__ = STRICT
    KIND: ClassVar[str] = "rematch-ready"
    match: str
    rematch: str
    seat: int
    ranked: bool = False


ServerMessage = (
    Welcome | Joined | Status | Frame | Rewind | Keyframe | Resync | Over | Pong | InputLate | Error
    | Queued | Unqueued | Matched | Rated | RematchOffer | RematchRefused | RematchReady
)
Message = ClientMessage | ServerMessage

#: Message classes by kind, one registry per direction (the codec and the tests read these).
CLIENT_MESSAGES: dict[str, type[ClientMessage]] = {cls.KIND: cls for cls in get_args(ClientMessage)}
SERVER_MESSAGES: dict[str, type[ServerMessage]] = {cls.KIND: cls for cls in get_args(ServerMessage)}
