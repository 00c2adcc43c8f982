"""The hub: every live match of this process and the one clock that advances them; it only hosts.

It starts and stops the clock, ticks the matches, admits new ones against the node's budget, holds
the live ones and writes each finished one to the replay and match stores once. The lobby, the ranked
queue, rematch offers, the token signer and the clock are its peers, wired by the composition root
(server/node.py): they tell it what to host (`new_match`), and it tells them what happened through
the hooks they register (`on_tick`, `on_forget`, `on_vacated`, `on_ending`, `on_recorded`).

One `FrameClock` task calls `_on_tick`, which ticks matches in turn; it never awaits. The clock runs
`tick_slices` times the frame rate and each wake-up ticks one slice of the matches (each match keeps
its slice, so its frames stay 1/60 s apart): the loop does the work of a frame in several short
callbacks instead of one long one, and sockets get in between, so no wake-up waits behind a whole
frame's simulation. A match
publishes on the ticks of its slice's phase (`LiveMatch.publish_phase`): on a node that journals its
matches (`group_publications`), the matches of a group of `journal_slices` neighbouring slices publish
on the same tick, and the hooks `after_group` run after the wake-up that ticked a group's last slice,
so the node logs a group's batches in one round trip (server/match/owner.py `flush_soon`); elsewhere
each slice is its own group and the slices take turns. A match
whose tick raises is cancelled (its players get an `internal` error) and the others go on. Writes to
the store happen in background tasks, so a slow store never stalls the loop; each finished match is
written once.

Admission: a new match (a room, a bot match, a ranked match) is refused with HTTP 503 `busy` and a
Retry-After when the table holds `max_matches` or when its work would take the node past its budget
(`capacity_board_frames`: every waiting or running match costs its seats times the frame rate). The
budget counts work the hub knows, never the machine's measured load.

Rulesets: each match plays its own (`settings_for` names it, by the registry's name, rules/registry.py;
the node's `settings.ruleset` when none is named). The one clock runs every match at the node's pace,
so a match whose frame rate is another is refused (422 `malformed`): every ruleset today declares 60.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from protocol.codec import error_message
from protocol.errors import ErrorCode
from protocol.messages import MatchState
from rules.registry import UnknownRulesetError, newest

from ..errors import ServerError
from ..logs import log_event
from ..store.base import MatchRecord, MatchStore, ReplayStore
from ..tokens import Guest
from .background import Background
from .clock import FrameClock
from .host import check_seats
from .live import Finished, LiveMatch, Seat
from .settings import MatchSettings, RankedSettings
from .sources import Clock, IdSource, RandomIds, SystemClock

log = logging.getLogger("floe.hub")

#: Seconds a client refused for a full node is told to wait (Retry-After): a match lasts minutes, so a
#: client asks a few times while one ends.
BUSY_RETRY_AFTER = 30.0


#: What the hub's peers are told of a finished match, before and after it is written.
MatchHook = Callable[[MatchRecord, "LiveMatch | None"], Awaitable[None]]


class Hub:
    """Hosts the matches of one process and runs their clock."""

    def __init__(
        self,
        settings: MatchSettings,
        replays: ReplayStore,
        matches: MatchStore,
        clock: Clock | None = None,
        ids: IdSource | None = None,
        background: Background | None = None,
        ranked_rules: RankedSettings | None = None,
        min_play_frames: int = 0,
    ) -> None:
        self.settings = settings
        #: The ranked rules a ranked match plays by (join timeout, rated minimum, spectators' delay).
        self.ranked_rules = ranked_rules or RankedSettings()
        #: The frame a ranked match must reach for its result to be rated (the root computes it).
        self.min_play_frames = min_play_frames
        self.replays = replays
        self.archive = matches
        self.clock: Clock = clock or SystemClock()
        self.ids: IdSource = ids or RandomIds()
        self.background = background if background is not None else Background()
        self.matches: dict[str, LiveMatch] = {}
        self.slices = settings.tick_slices
        #: Neighbouring slices that publish on the same tick (see the module docstring): one, each slice
        #: on its own phase, until a journal groups them (`group_publications`); and for each slice,
        #: whether ticking it ends its publishing group (the last slice of each).
        self.group_slices = 1
        self._ends_group: tuple[bool, ...] = ()
        self._group_by(1)
        #: The matches of each slice (a new match joins the emptiest).
        self._slices: list[dict[str, LiveMatch]] = [{} for _ in range(self.slices)]
        self._slice_of: dict[str, int] = {}
        self._last_subtick = 0
        self.frame_clock = FrameClock(settings.pace * self.slices, self._on_tick)
        self.finished = 0
        self.crashed = 0
        self.frames_simulated = 0
        self._clock_task: asyncio.Task[None] | None = None
        #: The node refused a match for its budget since it last admitted one (see `admit`).
        self._full = False
        #: The peers' hooks: each clock wake-up (with the monotonic time), a match forgotten, an invited
        #: guest's seat given back, a finished match before its write and after its record is kept.
        self.on_tick: list[Callable[[float], None]] = []
        #: After a clock wake-up that ticked the last slice of a publishing group (with the same time):
        #: a shared node's journal writes what the group's matches sealed (server/match/owner.py
        #: `flush_soon`).
        self.after_group: list[Callable[[float], None]] = []
        #: A match made here, before it is hosted (shared matches are journaled: server/match/sharing.py).
        self.on_new: list[Callable[[LiveMatch], None]] = []
        #: A match hosted here from now on (made here or taken over: its relay to other nodes listens).
        self.on_host: list[Callable[[LiveMatch], None]] = []
        self.on_forget: list[Callable[[LiveMatch], None]] = []
        self.on_vacated: list[Callable[[LiveMatch, str, str | None], Coroutine[Any, Any, None]]] = []
        self.on_ending: list[MatchHook] = []
        self.on_recorded: list[MatchHook] = []

    def group_publications(self, slices: int) -> None:
        """Publish the matches of each `slices` neighbouring tick slices on the same tick (capped at
        `tick_slices`), with `after_group` run after each group's last slice: what a node that journals
        its matches asks (server/match/sharing.py), so that a group's batches go in one round trip. A
        node that journals nothing keeps one slice a group: its publishing work spread over the frames.
        Called before any match is hosted."""
        if self.matches:
            raise RuntimeError("publishing groups are set before any match is hosted")
        self._group_by(slices)

    def _group_by(self, slices: int) -> None:
        self.group_slices = group = max(1, min(slices, self.slices))
        self._ends_group = tuple(index % group == group - 1 or index == self.slices - 1
                                 for index in range(self.slices))

    # ---- lifecycle -----------------------------------------------------------------------------------

    def now(self) -> float:
        """The monotonic clock (the schedule's and the grace periods' time)."""
        return self.clock.monotonic()

    async def start(self) -> None:
        """Start the clock."""
        self._clock_task = asyncio.create_task(self.frame_clock.run(), name="floe-clock")

    async def stop(self) -> None:
        """Stop the clock, close the matches' connections, finish pending store writes."""
        if self._clock_task is not None:
            self._clock_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._clock_task
        for live in self.matches.values():
            live.close_all()
        await self.background.drain(5)

    # ---- the loop --------------------------------------------------------------------------------------

    def _on_tick(self, subtick: int) -> None:
        """Tick the slices due since the last wake-up (each at most once), at their frame tick."""
        now = self.now()
        for listener in self.on_tick:
            listener(now)
        first = max(self._last_subtick + 1, subtick - self.slices + 1)
        self._last_subtick = subtick
        closed = False
        for due in range(first, subtick + 1):
            tick, index = divmod(due, self.slices)
            for live in list(self._slices[index].values()):
                self._tick_match(live, tick, now)
            closed = closed or self._ends_group[index]
        if closed:
            for after in self.after_group:
                after(now)

    def _tick_match(self, live: LiveMatch, tick: int, now: float) -> None:
        before = live.runner.match.frame if live.runner is not None else 0
        try:
            live.tick(tick, now)
        except Exception:  # noqa: BLE001 - one match's bug must not stop the others
            self.crashed += 1
            log_event(log, logging.ERROR, "match.crashed", exc_info=True, match=live.id, tick=tick)
            self._fail(live, now)
        if live.runner is not None:
            self.frames_simulated += max(0, live.runner.match.frame - before)
        if live.ended_at is not None and now - live.ended_at > self.settings.linger and not live.delayed():
            live.close_all()
            self._forget(live.id)

    def _forget(self, match_id: str) -> None:
        live = self.matches.pop(match_id, None)
        if live is not None:
            for forget in self.on_forget:
                forget(live)
        index = self._slice_of.pop(match_id, None)
        if index is not None:
            self._slices[index].pop(match_id, None)

    def _fail(self, live: LiveMatch, now: float) -> None:
        error = error_message(ErrorCode.INTERNAL, "the match failed on the server and was cancelled")
        for out in list(live.players.subscribers) + list(live.spectators.subscribers):
            out.send(error)
        try:
            live.cancel(now, "internal error")
        except Exception:  # noqa: BLE001 - a match that cannot even cancel is dropped
            log_event(log, logging.ERROR, "match.cancel-failed", exc_info=True, match=live.id)
            live.close_all()
            self._forget(live.id)

    def _finished(self, finished: Finished) -> None:
        self.finished += 1
        live = self.matches.get(finished.record.id)
        self.background.spawn(self._write(finished, live))

    def _vacated(self, live: LiveMatch, guest: str, address: str | None) -> None:
        """An invited guest gave a room's seat back (left, or never connected): the lobby frees its counts."""
        for vacated in self.on_vacated:
            self.background.spawn(vacated(live, guest, address))

    async def _write(self, finished: Finished, live: LiveMatch | None) -> None:
        record = finished.record
        try:
            for ending in self.on_ending:
                await ending(record, live)
            if finished.replay is not None and record.replay is not None:
                await self.replays.put_replay(record.replay, finished.replay)
            await self.archive.put_match(record)
            for recorded in self.on_recorded:
                await recorded(record, live)
        except Exception:  # noqa: BLE001 - a store failure is logged; the match already ended
            log_event(log, logging.ERROR, "store.write-failed", exc_info=True, match=record.id)

    # ---- rooms -----------------------------------------------------------------------------------------

    def work(self) -> int:
        """The board-frames a second the live matches cost (rooms waiting included: they will run)."""
        live_states = (MatchState.WAITING, MatchState.RUNNING)
        return sum(len(live.seats) * live.config.pace for live in self.matches.values()
                   if live.state in live_states)

    def settings_for(self, ruleset: str | None = None, seconds: float | None = None) -> MatchSettings:
        """The settings of a new match of the ruleset named `ruleset` (None: the node's; a name is played
        under its newest version, rules/registry.py, or the node's own version when it is the node's
        ruleset), limited to `seconds` of the game's frames when given. 422 `malformed` for a ruleset
        this build does not have, or one whose frame rate is not the loop's."""
        settings = self.settings
        if ruleset is not None and ruleset != settings.ruleset.name:
            try:
                settings = settings.for_ruleset(newest(ruleset))
            except UnknownRulesetError as error:
                raise ServerError(ErrorCode.MALFORMED, str(error), 422) from None
            if settings.pace != self.settings.pace:
                raise ServerError(ErrorCode.MALFORMED, f"{ruleset} plays at {settings.pace} frames a second, "
                                  f"this node's loop at {self.settings.pace}", 422)
        return settings.with_time_limit(seconds) if seconds is not None else settings

    def admit(self, seats: int) -> None:
        """Refuse (503 `busy`, Retry-After) a new match of `seats` seats the node has no room for: its
        table is full, or the match's work would take it past `capacity_board_frames`."""
        config = self.settings
        if len(self.matches) >= config.max_matches:
            raise ServerError(ErrorCode.BUSY, "this server holds as many matches as it can", 503,
                              retry_after=BUSY_RETRY_AFTER)
        work = self.work()
        if work + seats * config.pace > config.capacity_board_frames:
            if not self._full:  # logged once per time the node fills, not once per refusal
                self._full = True
                log_event(log, logging.WARNING, "hub.full", work=work, budget=config.capacity_board_frames)
            raise ServerError(ErrorCode.BUSY, "this server runs as many matches as it can; try again later",
                              503, retry_after=BUSY_RETRY_AFTER)
        self._full = False

    def new_match(
        self, seats: list[Seat], match_id: str | None = None, invite: str | None = None, ranked: bool = False,
        settings: MatchSettings | None = None,
    ) -> LiveMatch:
        """A new live match of these seats (a room while a seat is free); 503 when the node is full.
        `settings`: the match's own (`settings_for`: its ruleset, a room's time limit), else the node's."""
        self.admit(len(seats))
        live = LiveMatch(
            settings or self.settings,
            seats,
            self.now(),
            self._finished,
            match_id=match_id or self.ids.match_id(),
            seed=self.ids.seed(),
            created_wall=self.clock.wall(),
            ranked=ranked,
            invite=invite,
            on_vacated=self._vacated,
            ranked_rules=self.ranked_rules,
            min_play_frames=self.min_play_frames,
        )
        for hosted in self.on_new:
            hosted(live)
        self.host(live)
        return live

    def host(self, live: LiveMatch) -> None:
        """Hold and tick a match (a new one, or one taken over from another node) in the emptiest slice."""
        self.matches[live.id] = live
        index = min(range(self.slices), key=lambda i: len(self._slices[i]))
        self._slices[index][live.id] = live
        self._slice_of[live.id] = index
        live.publish_phase = index // self.group_slices
        for hosted in self.on_host:
            hosted(live)

    def forget(self, live: LiveMatch) -> None:
        """Stop hosting a match (another node owns it now)."""
        self._forget(live.id)

    def create_ranked_match(
        self, first: Guest, second: Guest, match_id: str, addresses: tuple[str, str],
        ruleset: str | None = None,
    ) -> LiveMatch:
        """A ranked 1 v 1 of `ruleset` (None: the node's; the queue's) of two guests the queue paired
        (seated by the lobby, from these client addresses); it starts when both are connected."""
        settings = self.settings_for(ruleset)
        check_seats(settings, 2)
        seats = [Seat(first.name, guest=first.id, address=addresses[0]),
                 Seat(second.name, guest=second.id, address=addresses[1])]
        live = self.new_match(seats, match_id, ranked=True, settings=settings)
        log_event(log, logging.INFO, "room.ranked", match=live.id, guests=[first.id, second.id],
                  ruleset=settings.ruleset.name)
        return live

    def seat_held(self, guest_id: str) -> bool:
        """Does the guest hold a seat in a match of this node that waits or runs?"""
        live_states = (MatchState.WAITING, MatchState.RUNNING)
        return any(live.state in live_states and live.seat_of(guest_id) is not None
                   for live in self.matches.values())

    def create_bot_duel(self, first: str, second: str, ruleset: str | None = None) -> LiveMatch:
        """A match of two server-side bots of a ruleset (None: the node's) that starts at once; used to
        watch bots and by the SyncTest tests."""
        settings = self.settings_for(ruleset)
        check_seats(settings, 2)
        for bot in (first, second):
            self.check_bot(bot, settings)
        return self.new_match([Seat(f"{first}-bot", bot=first), Seat(f"{second}-bot", bot=second)],
                              settings=settings)

    def check_bot(self, bot: str, settings: MatchSettings | None = None) -> None:
        """Refuse (422) a bot the match's ruleset (`settings`'s; None: the node's) does not have."""
        names = (settings or self.settings).ruleset.bot_names
        if bot not in names:
            raise ServerError(ErrorCode.MALFORMED, f"bot must be one of {names}, got {bot!r}", 422)

    # ---- reading -----------------------------------------------------------------------------------------

    def live_list(self) -> list[dict[str, Any]]:
        """Running public matches, newest first: rooms are joined by invitation, and a match played from
        one (private) is watched by its id, never listed."""
        entries = [live.summary() for live in self.matches.values()
                   if live.state == MatchState.RUNNING and not live.private]
        return sorted(entries, key=lambda entry: entry["created"], reverse=True)

    def stats(self) -> dict[str, Any]:
        """Numbers for /health and the benchmark."""
        running = [live for live in self.matches.values() if live.state == MatchState.RUNNING]
        return {
            "matches": len(self.matches),
            "running": len(running),
            "finished": self.finished,
            "crashed": self.crashed,
            "tick": self.frame_clock.tick // self.slices,
            "slices": self.slices,
            "missed_ticks": self.frame_clock.missed,
            "frames_simulated": self.frames_simulated,
            "lateness_ms": self.frame_clock.histogram.summary_ms(),
            "loop_busy_seconds": round(self.frame_clock.busy, 3),
        }
