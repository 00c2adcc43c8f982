"""The HTTP layer's settings: the API's bodies and rates, replay verification, the daily challenge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.ruleset import Ruleset


@dataclass(frozen=True)
class HttpSettings:
    """The HTTP API: the client's build, request bodies, replay streams, token renewals and recovery."""

    #: The browser client's build served at `/` (None: clients/web/dist beside the server package).
    web_root: str | None = None
    #: The largest request body of the JSON routes (bytes; refused with 413 before it is read).
    http_body_bytes: int = 16 * 1024
    #: Seconds a request's body (JSON or upload) may take to arrive, from its head (408 past it: a
    #: trickled body holds no request open, nor a verification slot).
    http_body_seconds: float = 10.0
    #: Replay streams kept in memory, and how many of them one client's cache misses may hold (a miss
    #: past its share evicts that client's own oldest stream, not another client's).
    replay_stream_cache: int = 16
    replay_stream_cache_per_client: int = 4
    #: Token renewals per guest, and per client address, in an hour (a burst of that many, refilled
    #: over the hour).
    renewals_per_guest: int = 6
    renewals_per_address: int = 20
    #: Recovery codes a guest may be given, and codes redeemed from one client address, in an hour (a
    #: burst of that many, refilled over the hour): a guessed code is 256 bits of HMAC, and this keeps
    #: even the signature checks few.
    recovery_codes_per_guest: int = 6
    recoveries_per_address: int = 10


@dataclass(frozen=True)
class VerifySettings:
    """Replay verification: body bound, frame bound, concurrency, wall-time bound, pool kind, queue."""

    verify_max_bytes: int = 1024 * 1024
    #: The most frames a verified replay may have: 10 minutes at 60 frames a second.
    verify_max_frames: int = 10 * 60 * 60
    verify_concurrency: int = 2
    #: Of those, how many one client address may hold at once.
    verify_per_client: int = 1
    verify_timeout: float = 30.0
    verify_pool: str = "process"
    #: Verification requests (verify, daily runs, replay streams) one client address may have waiting
    #: for a slot (429 past it), all clients together (503 past it), and seconds one may wait (503).
    verify_queue_per_client: int = 4
    verify_queue_total: int = 64
    verify_queue_seconds: float = 20.0


@dataclass(frozen=True)
class DailySettings:
    """The daily challenge: its ruleset (the composition root names it: pengo-solo) and config (None:
    the ruleset's default, for pengo-solo a 10-minute run), runs a guest may submit a day, seconds after
    midnight the previous day still takes runs, and bytes of runs' replays kept per day (the
    lowest-ranked runs' replays go first; their scores stay)."""

    #: The ruleset the daily is played under (one seat: each guest's run).
    daily_ruleset: Ruleset[Any, Any]
    daily_config: Any = None
    daily_submissions: int = 20
    daily_grace: float = 900.0
    daily_replay_bytes: int = 32 * 1024 * 1024

    def __post_init__(self) -> None:
        if self.daily_config is None:
            object.__setattr__(self, "daily_config", self.daily_ruleset.default_config())
