"""The daily challenge: one pengo-solo run for everyone each UTC day, best verified score per guest; and
the daily of every other ruleset that deals its own (rules/ruleset.py `DailyBoards`: Payload, one run
per difficulty), each board apart.

The day's seed (32 bits) is not predictable: it is an HMAC of the date under a key of that day,
itself an HMAC of the date under the server's secret (FLOE_SECRET):

    key(day)  = HMAC-SHA256(secret, "floe-daily-key:" + day)
    seed(day) = first 4 bytes, big-endian, of HMAC-SHA256(key(day), "floe-daily-seed:" + day)

So nobody can deal tomorrow's board today (no scouting ahead), and once a day's runs are closed
`GET /api/daily/{day}` publishes its key, with which anyone checks that the seed was fixed by the
date and not picked (revealing one day's key tells nothing of the secret or of other days). The
seed is public during its day: a run is played locally with the `rules` package (any number of
practice runs) or by a bot, and submitted.

The same seed deals every ruleset's daily of that day: the node's daily ruleset (`daily_ruleset`,
pengo-solo) plays one board with `daily_config`; a ruleset that deals its own (Payload) makes its
boards from the seed (`daily_boards(seed)`: Payload's easy and hard runs, the seed's variant): so
Payload's server daily takes floe's HMAC day seed where the practice daily takes the bare date key
(rules/payload/daily.py), and nobody deals tomorrow's parts today. A board is a (ruleset, board
name) of a day: the node's daily ruleset's one board has the name "" and keeps the day as its store
key (`board_key`); every other board's key is `{day}-{ruleset}-{board}`, and its runs' ids name it.

- `GET /api/daily?ruleset=NAME`: today's challenge of that ruleset (absent: the node's daily
  ruleset): day, seed, ruleset and version, config (the node's daily ruleset) or `boards` (name →
  config: a ruleset that deals its own), when its runs close, the submission cap. A ruleset with no
  daily is 404 `not-found`.
- `POST /api/daily/runs` (the guest token as `Authorization: Bearer`, the run's replay file as the
  body, msgpack, ≤ `verify_max_bytes`): the board is the one whose ruleset, config and seed the
  replay has; at most `daily_submissions` a guest a day across all boards, every submission
  counted (before verifying; 429 past it); the run is re-verified in the verification pool (off the
  event loop, under its bounds and the client's share) and must be of a day that takes runs: today,
  or yesterday within `daily_grace` after midnight (a run lasts at most 10 minutes). A run is bound
  to its player: a replay of layout 2 names its player, who must be the token's guest (a layout 1
  replay, or one naming no player, is the token's guest's), and the replay kept is layout 2 naming
  the guest. A run is submitted once: its id is its day and its log hash (which its moves decide),
  so the same moves again, renamed or not, by anyone, are refused 409 `duplicate-run`, and a kept
  replay is never overwritten. Answers: 422 `bad-replay` (not a replay file), 422 `not-daily`
  (another ruleset, config or seed, more than one seat, or another player's run), 422 `unverified`
  (the moves do not reproduce the result and log hash: the reason and the first frame it concerns),
  409 `duplicate-run`; 200 with the verified score and the guest's best of the day otherwise. Only
  verified runs reach the board; the guest's best run's replay is kept (`GET /api/replays/{id}`)
  while the day's kept replays are within `daily_replay_bytes` (past it the lowest-ranked runs'
  replays go first: their scores stay, their `replay` becomes null).
- `GET /api/daily/{day}?ruleset=NAME&board=NAME&offset=0&limit=50` (day: YYYY-MM-DD exactly, else
  422 `malformed`; `ruleset` absent: the node's daily ruleset; `board`: one of the ruleset's boards
  that day, e.g. `easy`, needed for a ruleset that deals its own, 422 `malformed` otherwise): that
  board, best first (ties: the earlier run), and once its runs are closed, the day's key.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request

from protocol.errors import ErrorCode
from protocol.replay_codec import encode_replay
from rules.registry import known, newest
from rules.replay import FORMAT_VERSION, verify
from rules.ruleset import DailyBoards, Ruleset

from ..errors import ServerError
from ..store.players import DailyEntry, daily_run_id
from ..tokens import Guest
from .auth import current_guest
from .body import read_body
from .context import ApiContext
from .refusals import refusals
from .verify import Verifier, decode_body

DAY_SECONDS = 24 * 3600
#: Most entries of one board page.
MAX_PAGE = 100
#: The one form of a day in a path: YYYY-MM-DD.
DAY_FORM = re.compile(r"\d{4}-\d{2}-\d{2}")
#: `?ruleset=NAME` of the daily routes (absent: the node's daily ruleset).
RulesetQuery = Annotated[str | None, Query(alias="ruleset", min_length=1, max_length=32)]


def day_of(wall: float) -> str:
    """The UTC date of a unix time, as YYYY-MM-DD."""
    return datetime.datetime.fromtimestamp(wall, tz=datetime.UTC).date().isoformat()


def day_start(day: str) -> float:
    """The unix time of a day's UTC midnight."""
    date = datetime.date.fromisoformat(day)
    return datetime.datetime(date.year, date.month, date.day, tzinfo=datetime.UTC).timestamp()


def day_key(secret: bytes, day: str) -> bytes:
    """The day's key (published once its runs are closed)."""
    return hmac.new(secret, f"floe-daily-key:{day}".encode(), hashlib.sha256).digest()


def day_seed(key: bytes, day: str) -> int:
    """The day's 32-bit seed from its key."""
    digest = hmac.new(key, f"floe-daily-seed:{day}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "big")


def board_key(day: str, ruleset: str, board: str) -> str:
    """A board's key in the daily store (and in its runs' ids): the day alone for the node's daily
    ruleset's one board (board ""), `{day}-{ruleset}-{board}` for every other."""
    return day if not board else f"{day}-{ruleset}-{board}"


@dataclass(frozen=True)
class Board:
    """One board of a day that takes runs: what a run must be to count for it."""

    day: str
    ruleset: str
    version: int
    #: The board's name among its ruleset's that day ("": the node's daily ruleset's one board).
    name: str
    config: dict[str, Any]
    seed: int

    @property
    def key(self) -> str:
        """Its key in the daily store."""
        return board_key(self.day, self.ruleset, self.name)


@dataclass(frozen=True)
class Terms:
    """What a run must be to count for one of the boards taking runs (passed to the worker)."""

    #: Every board of the days taking runs.
    boards: tuple[Board, ...]
    max_frames: int
    #: The submitting guest: a run naming another player is refused; the kept replay names this one.
    player: str
    #: The ruleset a run of no daily ruleset is told the daily is (the node's).
    default: str


def check_run(data: bytes, terms: Terms) -> dict[str, Any]:
    """Decode and verify a submitted run against the terms (runs in the worker); plain answer."""
    replay = decode_body(data)
    if isinstance(replay, dict):
        return replay
    wrong = None
    same = [b for b in terms.boards if (b.ruleset, b.version) == (replay.ruleset, replay.ruleset_version)]
    configured = [b for b in same if b.config == replay.config]
    seeded = [b for b in configured if b.seed == replay.seed]
    if not same:
        versions = sorted({f"{b.ruleset} v{b.version}" for b in terms.boards if b.ruleset == replay.ruleset})
        want = " or ".join(versions) or f"{terms.default} (or another ruleset's daily: GET /api/daily)"
        wrong = f"a {replay.ruleset} v{replay.ruleset_version} replay; the daily is {want}"
    elif not configured:
        wrong = "the config is not the daily's (GET /api/daily gives it)"
    elif len(replay.seats) != 1:
        wrong = f"a daily run has one seat, this replay {len(replay.seats)}"
    elif not seeded:
        wrong = f"seed {replay.seed} is not the seed of a day that takes runs now (GET /api/daily gives it)"
    elif replay.player is not None and replay.player != terms.player:
        wrong = f"the run is player {replay.player[:64]!r}'s; a run is submitted by its own player"
    if wrong is not None:
        code = ErrorCode.NOT_DAILY.value
        return {"decoded": True, "ok": False, "error": code, "reason": wrong, "frame": None}
    board = seeded[0]
    verdict = verify(replay, terms.max_frames)
    if not verdict.ok or verdict.result is None:
        code = ErrorCode.UNVERIFIED.value
        return {"decoded": True, "ok": False, "error": code, "reason": verdict.reason, "frame": verdict.frame}
    return {
        "decoded": True,
        "ok": True,
        "day": board.day,
        "ruleset": board.ruleset,
        "board": board.name,
        "key": board.key,
        "score": verdict.result.scores[0],
        "frames": verdict.frames,
        "log_hash": verdict.log_hash,
        "replay": encode_replay(replace(replay, format_version=FORMAT_VERSION, player=terms.player)),
    }


def dealers() -> dict[str, Ruleset[Any, Any]]:
    """The registry's rulesets (newest versions) that deal their own daily boards, by name."""
    found: dict[str, Ruleset[Any, Any]] = {}
    for name in sorted({name for name, _ in known()}):
        ruleset = newest(name)
        if isinstance(ruleset, DailyBoards) and ruleset.daily_boards(0):
            found[name] = ruleset
    return found


def daily_router(api: ApiContext, verifier: Verifier, address_of: Callable[[Request], str]) -> APIRouter:
    """The routes above, closed over one node's context, the verification pool and how to tell a client's
    address."""
    router = APIRouter()
    config = api.daily
    ruleset = config.daily_ruleset
    others = {name: dealt for name, dealt in dealers().items() if name != ruleset.name}

    def seed_of(day: str) -> int:
        return day_seed(day_key(api.secret, day), day)

    def boards_of(day: str, name: str) -> list[Board]:
        """The day's boards of a ruleset (the node's daily ruleset's one, or a dealer's)."""
        seed = seed_of(day)
        if name == ruleset.name:
            plain = ruleset.config_plain(config.daily_config)
            return [Board(day, ruleset.name, ruleset.version, "", plain, seed)]
        dealer = others[name]
        assert isinstance(dealer, DailyBoards)
        return [Board(day, name, dealer.version, board, dealer.config_plain(board_config), seed)
                for board, board_config in dealer.daily_boards(seed).items()]

    def open_boards(wall: float) -> tuple[Board, ...]:
        """Every board of the days that take runs at `wall`."""
        today = day_of(wall)
        days = [today]
        if wall - day_start(today) < config.daily_grace:
            days.append(day_of(wall - DAY_SECONDS))
        names = (ruleset.name, *others)
        return tuple(board for day in days for name in names for board in boards_of(day, name))

    def named(asked: str | None) -> str:
        """The ruleset a request names (None: the node's daily ruleset); 404 for one with no daily."""
        if asked is None or asked == ruleset.name:
            return ruleset.name
        if asked not in others:
            dailies = ", ".join((ruleset.name, *others))
            message = f"no daily of {asked[:32]!r} (the dailies: {dailies})"
            raise ServerError(ErrorCode.NOT_FOUND, message, 404)
        return asked

    def closes(day: str) -> float:
        return day_start(day) + DAY_SECONDS + config.daily_grace

    @router.get("/api/daily", responses=refusals(404))
    async def today(ruleset_name: RulesetQuery = None) -> dict[str, Any]:
        """Today's challenge of a ruleset (absent: the node's daily ruleset): what to play and until when."""
        name = named(ruleset_name)
        day = day_of(api.clock.wall())
        boards = boards_of(day, name)
        answer: dict[str, Any] = {
            "day": day,
            "seed": seed_of(day),
            "ruleset": name,
            "ruleset_version": boards[0].version,
        }
        if name == ruleset.name:
            answer["config"] = boards[0].config
        else:
            answer["boards"] = {board.name: board.config for board in boards}
        return answer | {
            "ends": day_start(day) + DAY_SECONDS,
            "runs_close": closes(day),
            "submissions": config.daily_submissions,
        }

    @router.get("/api/daily/{day}", responses=refusals(404, 422))
    async def board(
        day: str,
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
        ruleset_name: RulesetQuery = None,
        board: Annotated[str | None, Query(min_length=1, max_length=32)] = None,
    ) -> dict[str, Any]:
        """A day's board, best first; the day's key once its runs are closed."""
        try:
            if not DAY_FORM.fullmatch(day):
                raise ValueError(day)
            start = day_start(day)
        except ValueError:
            message = f"day: expected YYYY-MM-DD, got {day[:16]!r}"
            raise ServerError(ErrorCode.MALFORMED, message, 422) from None
        name = named(ruleset_name)
        names = [b.name for b in boards_of(day, name)]
        if (board or "") not in names:
            message = f"board: {name}'s daily has the boards {', '.join(names)}; got {(board or '')[:32]!r}"
            raise ServerError(ErrorCode.MALFORMED, message, 422)
        wall = api.clock.wall()
        entries, total = await api.stores.daily.daily_board(board_key(day, name, board or ""), offset, limit)
        answer: dict[str, Any] = {
            "day": day,
            "ruleset": name,
            "board": board or "",
            "total": total,
            "entries": [{"rank": offset + i + 1, **e.plain()} for i, e in enumerate(entries)],
        }
        if start <= wall:
            key = day_key(api.secret, day)
            answer["seed"] = day_seed(key, day)
            if wall >= closes(day):
                answer["key"] = key.hex()
        return answer

    @router.post("/api/daily/runs", responses=refusals(400, 401, 408, 413, 422, 429, 503, 504))
    async def submit(
        request: Request, authorization: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        """Verify a run of a day's challenge and put it on that day's board."""
        guest = await current_guest(api, authorization)  # a token a renewal replaced is refused
        limit = api.verify.verify_max_bytes
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            message = f"body of {declared} bytes is over the limit of {limit}"
            raise ServerError(ErrorCode.TOO_LARGE, message, 413)
        async with verifier.slot(address_of(request)) as held:  # before the body is read
            body = await read_body(request, limit, api.http.http_body_seconds)
            return await _submit(guest, body, held)

    async def _submit(guest: Guest, body: bytes, held: Any) -> dict[str, Any]:
        wall = api.clock.wall()
        today = day_of(wall)
        # Every submission counts (a unique member each): one run sent again is verified again, so it
        # costs the guest's cap like any other.
        counted = await api.stores.limits.add_member(
            f"daily:{today}:runs:{guest.id}", secrets.token_hex(8), config.daily_submissions,
            2 * DAY_SECONDS, wall,
        )
        if not counted:
            wait = max(1.0, day_start(today) + DAY_SECONDS - wall)
            message = f"{config.daily_submissions} runs submitted today already; tomorrow takes more"
            raise ServerError(ErrorCode.RATE_LIMITED, message, 429, retry_after=wait)
        terms = Terms(open_boards(wall), api.verify.verify_max_frames, guest.id, ruleset.name)
        answer = await verifier.run(held, body, check_run, terms)
        if not answer["ok"]:
            frame = f" (frame {answer['frame']})" if answer.get("frame") is not None else ""
            raise ServerError(ErrorCode(answer["error"]), f"{answer['reason']}{frame}", 422)
        day, key = answer["day"], answer["key"]
        run_id = daily_run_id(key, answer["log_hash"])
        at = wall - day_start(day)
        entry = DailyEntry(guest.id, guest.name, answer["score"], answer["frames"], run_id, at)
        stored = await api.stores.daily.put_daily(key, entry, answer["replay"], config.daily_replay_bytes)
        if stored.duplicate:
            message = f"this run (its moves) was submitted for {day} already; a run is submitted once"
            raise ServerError(ErrorCode.DUPLICATE_RUN, message, 409)
        best = stored.best
        assert best is not None
        return {
            "ok": True,
            "day": day,
            "ruleset": answer["ruleset"],
            "board": answer["board"],
            "score": entry.score,
            "frames": entry.frames,
            "replay": run_id if best.replay == run_id else None,
            "best": best.plain(),
        }

    return router
