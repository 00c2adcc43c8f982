"""What the store keeps per player and per daily run: plain, immutable records with a JSON form.

`PlayerRecord` is one guest's ratings, one `Standing` per ruleset it played ranked (Glicko-2: rating,
RD, volatility; counts; the rated games it has applied, newest first and bounded by `GAMES_KEPT`: the
list is both the player's recent matches and the note of which match results the record has applied,
which is what makes a rating update idempotent per record, server/match/ratings.py), and its dodge
cooldown and notes (one per guest, whatever the ruleset: a dodge is a dodge of the queue).
`DailyEntry` is one guest's best verified run of one day's challenge; `DailyStored` what keeping a
run did. A daily run's replay id names its day (`daily_run_id`), so a store finds the run among
that day's kept replays.

Both round-trip through `plain()` / `from_plain()` (JSON-ready dicts: the Redis store writes them as
JSON, the HTTP API answers with them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

#: Rated games a player record keeps (newest first): its recent matches, and the results it applied.
GAMES_KEPT = 50
#: A rating is provisional while its deviation is at least this (lichess's `provisionalDeviation`).
PROVISIONAL_RD = 110.0
#: Notes of who dodged a player (`PlayerRecord.dodged_by`) a record keeps, newest first.
DODGE_NOTES_KEPT = 16


@dataclass(frozen=True)
class Glicko:
    """A Glicko-2 rating on the display scale: rating, rating deviation (RD) and volatility."""

    rating: float
    rd: float
    volatility: float

    @property
    def provisional(self) -> bool:
        """Too uncertain to rank (RD ≥ PROVISIONAL_RD)."""
        return self.rd >= PROVISIONAL_RD

    def plain(self) -> dict[str, float]:
        """JSON-ready data."""
        return {"rating": self.rating, "rd": self.rd, "volatility": self.volatility}

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> Glicko:
        """Rebuild from `plain()`."""
        return cls(float(data["rating"]), float(data["rd"]), float(data["volatility"]))


@dataclass(frozen=True)
class RatedGame:
    """One ranked match as a player's record applied it."""

    match: str
    opponent: str
    opponent_name: str
    #: 1 won, 0.5 drawn, 0 lost or forfeited.
    score: float
    outcome: str
    before: Glicko
    after: Glicko
    replay: str | None
    at: float

    def plain(self) -> dict[str, Any]:
        """JSON-ready data, with the rating change."""
        return {
            "match": self.match,
            "opponent": self.opponent,
            "opponent_name": self.opponent_name,
            "score": self.score,
            "outcome": self.outcome,
            "before": self.before.plain(),
            "after": self.after.plain(),
            "change": self.after.rating - self.before.rating,
            "replay": self.replay,
            "at": self.at,
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> RatedGame:
        """Rebuild from `plain()`."""
        return cls(
            str(data["match"]),
            str(data["opponent"]),
            str(data["opponent_name"]),
            float(data["score"]),
            str(data["outcome"]),
            Glicko.from_plain(data["before"]),
            Glicko.from_plain(data["after"]),
            None if data["replay"] is None else str(data["replay"]),
            float(data["at"]),
        )


@dataclass(frozen=True)
class DodgeNote:
    """Someone made this player's found ranked match not happen (or aborted it): who, from where, when."""

    guest: str
    address: str
    at: float

    def plain(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {"guest": self.guest, "address": self.address, "at": self.at}

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> DodgeNote:
        """Rebuild from `plain()`."""
        return cls(str(data["guest"]), str(data["address"]), float(data["at"]))


#: The ruleset of a record written before records named theirs: every match (and every rating) was
#: pengo-versus's then, so a player record of that time reads back as its pengo-versus standing.
LEGACY_RULESET = "pengo-versus"
#: A new player's rating in any ruleset (lichess's: server/match/ratings.py).
START = Glicko(rating=1500.0, rd=500.0, volatility=0.09)


@dataclass(frozen=True)
class Standing:
    """A player's rating in one ruleset: Glicko-2, counts, and the rated games it applied (newest first,
    at most GAMES_KEPT)."""

    glicko: Glicko = START
    wins: int = 0
    losses: int = 0
    draws: int = 0
    games: tuple[RatedGame, ...] = ()

    @property
    def played(self) -> int:
        """Rated games played in all."""
        return self.wins + self.losses + self.draws

    @property
    def provisional(self) -> bool:
        """Shown apart from the ranked players on the leaderboard while RD ≥ PROVISIONAL_RD."""
        return self.glicko.provisional

    def game(self, match_id: str) -> RatedGame | None:
        """The applied result of `match_id`, if this standing applied it."""
        return next((game for game in self.games if game.match == match_id), None)

    def with_game(self, game: RatedGame) -> Standing:
        """This standing with `game` applied: the new rating, the counts, the game noted (bounded)."""
        wins, losses, draws = self.wins, self.losses, self.draws
        if game.score == 1.0:
            wins += 1
        elif game.score == 0.0:
            losses += 1
        else:
            draws += 1
        return Standing(game.after, wins, losses, draws, (game, *self.games)[:GAMES_KEPT])

    def plain(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            **self.glicko.plain(),
            "provisional": self.provisional,
            "games": self.played,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "recent": [game.plain() for game in self.games],
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> Standing:
        """Rebuild from `plain()`."""
        return cls(
            glicko=Glicko.from_plain(data),
            wins=int(data["wins"]),
            losses=int(data["losses"]),
            draws=int(data["draws"]),
            games=tuple(RatedGame.from_plain(game) for game in data["recent"]),
        )


@dataclass(frozen=True)
class PlayerRecord:
    """One guest's rated standing per ruleset, and its dodges (see the module docstring)."""

    id: str
    name: str
    #: Ruleset name → the player's rating there (a ruleset it never played ranked is absent: START).
    ratings: dict[str, Standing] = field(default_factory=dict)
    #: Wall-clock second until which the ranked queue refuses this guest (a dodge's cooldown).
    cooldown_until: float = 0.0
    updated: float = 0.0
    #: This guest's own dodges (and aborts) counted for the escalating cooldown, and the last one's time.
    dodges: int = 0
    dodged_at: float = 0.0
    #: Who dodged this player, newest first, at most DODGE_NOTES_KEPT: the queue does not pair it
    #: with a guest or an address that dodged it too often lately (server/match/ranked.py).
    dodged_by: tuple[DodgeNote, ...] = ()

    def standing(self, ruleset: str) -> Standing:
        """The player's rating in `ruleset` (a fresh START standing where it has none)."""
        return self.ratings.get(ruleset) or Standing()

    def game(self, match_id: str) -> RatedGame | None:
        """The applied result of `match_id` (in whichever ruleset), if this record applied it."""
        for standing in self.ratings.values():
            game = standing.game(match_id)
            if game is not None:
                return game
        return None

    def with_game(self, ruleset: str, game: RatedGame, name: str, now: float) -> PlayerRecord:
        """This record with `game` applied to its `ruleset` standing (the others unchanged)."""
        ratings = {**self.ratings, ruleset: self.standing(ruleset).with_game(game)}
        return replace(self, name=name, ratings=ratings, updated=now)

    def plain(self) -> dict[str, Any]:
        """JSON-ready data (what the store writes; `public()` is what the API shows)."""
        return {
            "id": self.id,
            "name": self.name,
            "ratings": {ruleset: standing.plain() for ruleset, standing in sorted(self.ratings.items())},
            "cooldown_until": self.cooldown_until,
            "updated": self.updated,
            "dodges": self.dodges,
            "dodged_at": self.dodged_at,
            "dodged_by": [note.plain() for note in self.dodged_by],
        }

    def public(self, ruleset: str) -> dict[str, Any]:
        """What `GET /api/players/{id}?ruleset=` shows: `ruleset`'s standing at the top level (the page as
        it was when a player had one rating), every ruleset's under `ratings`, without who dodged the
        player (their addresses)."""
        shown = self.plain()
        del shown["dodged_by"]
        return {**shown, **self.standing(ruleset).plain(), "ruleset": ruleset}

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> PlayerRecord:
        """Rebuild from `plain()`; a record written before ratings per ruleset (its one rating at the top
        level) reads back as its LEGACY_RULESET standing."""
        if "ratings" in data:
            ratings = {str(name): Standing.from_plain(plain) for name, plain in data["ratings"].items()}
        else:
            legacy = Standing.from_plain(data)
            ratings = {LEGACY_RULESET: legacy} if legacy.played or legacy.glicko != START else {}
        return cls(
            id=str(data["id"]),
            name=str(data["name"]),
            ratings=ratings,
            cooldown_until=float(data["cooldown_until"]),
            updated=float(data["updated"]),
            dodges=int(data.get("dodges", 0)),
            dodged_at=float(data.get("dodged_at", 0.0)),
            dodged_by=tuple(DodgeNote.from_plain(note) for note in data.get("dodged_by", ())),
        )


@dataclass(frozen=True)
class DailyEntry:
    """One guest's run of a day's challenge: the verified score, when, and the run's replay id."""

    guest: str
    name: str
    score: int
    frames: int
    #: The run's replay id; None once its replay was dropped past the day's bytes budget.
    replay: str | None
    #: Seconds after the day's start (UTC midnight) the run was accepted: the earlier breaks a tie.
    at: float

    def plain(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "guest": self.guest,
            "name": self.name,
            "score": self.score,
            "frames": self.frames,
            "replay": self.replay,
            "at": self.at,
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> DailyEntry:
        """Rebuild from `plain()`."""
        return cls(
            str(data["guest"]),
            str(data["name"]),
            int(data["score"]),
            int(data["frames"]),
            None if data["replay"] is None else str(data["replay"]),
            float(data["at"]),
        )

    def beats(self, other: DailyEntry | None) -> bool:
        """A better run than `other`: a higher score, or the same score in an earlier second."""
        return other is None or board_score(self) > board_score(other)


#: The seconds of a day plus its grace fit below this, so `board_score` orders ties exactly.
_DAY_SPAN = 2**18


def board_score(entry: DailyEntry) -> float:
    """One number that orders daily entries (higher first): the score, then the earlier run.

    Exact in a float64 (a sorted set's score) for scores below 2**34.
    """
    return float(entry.score * _DAY_SPAN + (_DAY_SPAN - 1 - min(int(entry.at), _DAY_SPAN - 1)))


@dataclass(frozen=True)
class DailyStored:
    """What `put_daily` did with a run: the guest's best after it (None: none), and whether the run was
    refused as one already submitted that day (nothing changed then)."""

    best: DailyEntry | None
    duplicate: bool = False


#: A daily run's id: its board's key (the day, then `-{ruleset}-{board}` for a board other than the
#: node's daily ruleset's: server/http/daily.py `board_key`) and 20 hex digits of its log hash.
_RUN_ID = re.compile(r"d-(\d{4}-\d{2}-\d{2}(?:-[a-z0-9-]{1,40})?)-[0-9a-f]{20}")


def daily_run_id(board: str, log_hash: str) -> str:
    """A daily run's replay id: its board's key (the day alone for the node's daily ruleset) and its log
    hash (which its moves decide: one id per run)."""
    return f"d-{board}-{log_hash[:20]}"


def run_day(replay_id: str) -> str | None:
    """The board key (the day, for the node's daily ruleset) of a daily run's replay id, or None for
    any other replay id."""
    found = _RUN_ID.fullmatch(replay_id)
    return None if found is None else found.group(1)
