"""The match layer's settings: the hub and its live matches, a client's session, the lobby, ranked play.

Each is a small frozen dataclass the composition root (server/config.py) builds; the names are the
settings' names (`floe serve --NAME`, `FLOE_NAME`, protocol/README.md's limits table). The match layer
serves any ruleset, so what names one game (the node's default ruleset) is given by the root:
`MatchSettings` has no default ruleset. Each live match holds its own `MatchSettings` (`for_ruleset`:
the node's, with the ruleset the match plays and that ruleset's config).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from protocol.limits import MAX_CLIENT_MESSAGE_BYTES, RATE_BURST, RATE_PER_SECOND, REMATCH_OFFER_SECONDS
from rules.ruleset import Ruleset

from ..netcode.runner import RunnerSettings
from .matchmaker import QueueSettings


@dataclass(frozen=True)
class MatchSettings:
    """The hub's and its live matches' numbers: the loop's pace, the streams, what is played, admission.

    The node's are its defaults; a live match holds its own (`for_ruleset`)."""

    #: The ruleset a match is played with (the node's: what a match that names none plays, and the
    #: ranked queue), and its config (None: the ruleset's default).
    ruleset: Ruleset[Any, Any]
    #: Frames per second of the match loop (0: what the ruleset declares, its `frame_hz`; tests run
    #: faster). A node's loop runs at its own; a match of another pace is refused (`Hub.admit`).
    frame_rate: int = 0
    match_config: Any = None
    runner: RunnerSettings = field(default_factory=RunnerSettings)
    #: Frames ahead that clients stamp inputs (told in `welcome`).
    input_delay: int = 2
    #: The clock wakes this many times a frame, each time ticking one slice of the matches.
    tick_slices: int = 4
    #: Frames of input a client gathers per message (told in `welcome`); a change goes at once.
    input_batch: int = 2
    #: The streams go out every this many ticks, each connection's records in one websocket message:
    #: half the messages of one per frame, for at most one frame more of display latency.
    send_every: int = 2
    #: A node that journals its matches (on a shared store) logs the publications of this many
    #: neighbouring tick slices in one round trip to the store: they publish on the same tick, and the
    #: append goes out after the last of them. 1 is one append a slice (120 a second at 60 frames and
    #: 4 slices); 4 (all of them) is one append every other tick, 30 a second, for up to three slice
    #: intervals (12.5 ms at 60 × 4) more before the first slice's publications go out: the client
    #: predicts both boards, so the wait falls on the stream's corrections, not on what a key draws
    #: (bench/README.md, `cluster_cpu`, stop 31). Capped at `tick_slices`; a node that journals nothing
    #: publishes each slice at once, on a phase of its own (the slices take turns), whatever this says.
    journal_slices: int = 4
    #: Stream messages kept per stream for reconnects; an older gap gets a resync from a keyframe.
    history: int = 600
    #: Seconds a dropped player may take to come back before the seat forfeits.
    reconnect_grace: float = 30.0
    #: Seconds a room waits for its players before it is cancelled (from its creation: not renewable).
    room_timeout: float = 300.0
    #: Seconds a finished match stays listed for late reconnects before it is forgotten.
    linger: float = 30.0
    #: At most this many frames simulated per match in one tick when the loop fell behind; past it the
    #: schedule slips (logged) instead of stepping a burst that would make every later tick late too.
    max_catch_up: int = 8
    #: Live matches (rooms included) one process holds at most.
    max_matches: int = 2000
    #: The work this node admits, in board-frames a second: a live match (a room waiting, a running
    #: match) costs its seats times `frame_rate`, and a new one past the budget is refused (HTTP 503
    #: `busy` with Retry-After). Counted work, never measured load, so a busy machine refuses nothing.
    #: 6000 is 50 1 v 1 matches at 60 frames/s: bench/SERVER.md's capacity of one core.
    capacity_board_frames: int = 6000
    #: Seconds a guest who took a room's seat by its invitation has to connect before the seat is given
    #: back (the room waits for the invitation again).
    invite_connect_timeout: float = 30.0
    #: Seconds between two looks at a running match's `status` (each seat's lag and grace countdown, the
    #: spectators): it goes out when it changed (a lag by 10 ms or more), besides the one at every
    #: change of state or connection.
    status_every: float = 2.0

    def __post_init__(self) -> None:
        if self.journal_slices < 1:
            raise ValueError(f"journal_slices must be at least 1, not {self.journal_slices!r}")
        if self.match_config is None:
            object.__setattr__(self, "match_config", self.ruleset.default_config())

    @property
    def pace(self) -> int:
        """The match loop's frames a second: `frame_rate`, or the ruleset's `frame_hz` when it is 0."""
        return self.frame_rate or self.ruleset.frame_hz

    def for_ruleset(self, ruleset: Ruleset[Any, Any]) -> MatchSettings:
        """These settings for a match of `ruleset` (with its default config): the same ones when it is
        this ruleset already; the frame rate stays the one given (0 stays the ruleset's own)."""
        if ruleset is self.ruleset:
            return self
        return replace(self, ruleset=ruleset, match_config=None)

    def with_time_limit(self, seconds: float) -> MatchSettings:
        """The same settings, every other rule kept, with matches limited to `seconds` of the game's
        frames (its ruleset's `frame_hz` a second, whatever the loop's pace)."""
        frames = max(1, round(seconds * self.ruleset.frame_hz))
        return replace(self, match_config=self.ruleset.with_time_limit(self.match_config, frames))


@dataclass(frozen=True)
class SessionSettings:
    """One client's session: its messages' size, rate and strikes, and its address's shared budget."""

    max_message_bytes: int = MAX_CLIENT_MESSAGE_BYTES
    rate_per_second: float = RATE_PER_SECOND
    rate_burst: float = RATE_BURST
    #: Refused messages (errors) after which a connection is closed as hostile.
    max_strikes: int = 1000
    #: Messages a connection may send while its `hello`'s token is checked against the store; past it
    #: they are refused (`busy`).
    hello_backlog: int = 32
    #: Messages all the websockets of one client address may send together (a token bucket they share,
    #: on top of each connection's own): a burst, then this many a second.
    message_rate_per_address: float = 480.0
    message_burst_per_address: float = 960.0


@dataclass(frozen=True)
class LimitSettings:
    """Per-guest and per-address bounds of the lobby (rates are per second; a burst is a bucket's size)."""

    #: Matches with every seat taken that one guest may hold a seat in at once.
    live_matches_per_guest: int = 1
    #: `desync` reports (a browser engine disagreed with a keyframe) logged per connection; later ones
    #: are ignored.
    desync_reports_per_connection: int = 1
    #: Rooms one guest may have waiting for a second player.
    open_rooms_per_guest: int = 3
    #: Rooms and bot matches one guest may make: a burst, then this many a second.
    match_rate_per_guest: float = 0.2
    match_burst_per_guest: float = 5
    #: The same per address (several guests behind one address share it).
    match_rate_per_address: float = 1.0
    match_burst_per_address: float = 20
    #: Guests one address may make.
    guest_rate_per_address: float = 0.2
    guest_burst_per_address: float = 10
    #: Live matches (rooms waiting or joined, bot matches, ranked matches) one client address may have a
    #: seat in at once, counted once per match whatever the number of its guests from that address: a
    #: household's players, not a node's worth (bench/SERVER.md: a core holds about 50).
    live_matches_per_address: int = 8


@dataclass(frozen=True)
class LobbySettings:
    """The lobby's rooms and bounds, and rematch offers."""

    #: Per-guest and per-address bounds of the lobby.
    limits: LimitSettings = field(default_factory=LimitSettings)
    #: Seconds a seat in a live match counts against its guest at most (a match that never reported
    #: its end frees its seats then; matches end long before).
    live_hold: float = 3600.0
    #: Seats a room may have (its creator chooses, `POST /api/rooms` `seats`): the engine plays 2 to 4.
    room_seats_min: int = 2
    room_seats_max: int = 4
    #: Minutes a room's match may be limited to (`POST /api/rooms` `minutes`; none: the ruleset's default):
    #: at most the verifier's `verify_max_frames`, so every room's replay stays verifiable.
    room_minutes_min: int = 1
    room_minutes_max: int = 10
    #: A node lists its matches for the others (in the store) this often, each part valid three times
    #: that long; a node reads the others' parts at most this often (seconds).
    live_list_every: float = 1.0
    #: Matches one node lists for the others (its newest).
    live_list_max: int = 100
    #: Seconds a node waits for the node of a room it was asked to join (by its invitation) to answer.
    room_join_timeout: float = 5.0
    #: Joins asked of one node by the others that may wait in its mailbox at once.
    room_asks_max: int = 100
    #: A node with rooms reads its mailbox this often, and an asking node looks for the answer as
    #: often (seconds).
    room_asks_every: float = 0.05
    #: Seconds a rematch offer waits for the other player's answer before it expires...
    rematch_offer_seconds: float = REMATCH_OFFER_SECONDS
    #: ...and the offers one seat may make of one ended match (declined and expired ones count).
    rematch_offers_per_seat: int = 3


@dataclass(frozen=True)
class RankedSettings:
    """Ranked play: the queue, found matches, dodges and aborts, the journal of results."""

    #: The ranked queue: its windows, wait and capacity (server/match/matchmaker.py).
    queue: QueueSettings = field(default_factory=QueueSettings)
    #: Seconds both players of a found ranked match have to connect before it is cancelled.
    ranked_join_timeout: float = 15.0
    #: Seconds the ranked queue refuses a guest who was not connected when its found match had to start.
    ranked_dodge_cooldown: float = 300.0
    #: Seconds between two pairing passes of the queue (a guest's arrival pairs at once, too).
    ranked_pair_every: float = 0.5
    #: Seconds between looks at the journal of ranked results to apply; an entry with no match record
    #: after ranked_stale_after seconds is dropped (its match died with its node).
    ranked_recovery_every: float = 60.0
    ranked_stale_after: float = 3600.0
    #: A ranked result is rated only when the match ran at least this many seconds of frames (at the
    #: game's 60 frames a second) and both seats sent an input other than neutral; a match that ends
    #: before that (a leave, a forfeit, anything) is aborted: cancelled, not rated. 0: every result
    #: is rated (the rule off).
    ranked_min_play_seconds: float = 10.0
    #: A guest's dodges (and aborts) within this many seconds double its cooldown each time, up to
    #: ranked_dodge_cooldown_max...
    ranked_dodge_memory: float = 24 * 3600.0
    ranked_dodge_cooldown_max: float = 3600.0
    #: ...and a player is not paired again (for ranked_dodge_memory) with a guest, or any guest of an
    #: address, that dodged it this many times in that time.
    ranked_avoid_after: int = 2
    #: Seconds a ranked match's spectators follow it late: the server holds their confirmed stream
    #: (records, keyframes, `over`) this long, so a spectator cannot relay a ranked game as it is played.
    #: Other matches' spectators get the confirmed stream at once (the rollback window behind).
    ranked_spectator_delay: float = 10.0
