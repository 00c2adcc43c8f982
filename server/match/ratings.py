"""Ratings: Glicko-2 (the `glicko2-py` package's update, Glickman's algorithm) with lichess's numbers.

lichess rates every game as its own rating period, at once when it ends, and so does floe: a ranked
match is one period for each player, against the opponent's rating as it was before the match. A
player has one rating per ruleset (a payload-versus match moves the payload-versus ratings only).
The constants, lichess's (lila, `lila.rating.Glicko`):

- a new player starts at rating 1500, RD 500, volatility 0.09;
- τ (the system constant) 0.75;
- the RD stays within 45 … 500, the volatility at most 0.1, the rating at least 600;
- a rating is provisional while its RD is at least 110 (server/store/players.py: PROVISIONAL_RD).

Not taken: lichess's growth of the RD with the days a player stays away (0.21436 rating periods a
day); here the RD only moves with games.

Exactly once: `apply_result` is a pure change of one player record (the store applies it
atomically, server/store/base.py's `update_player`) that returns no change when the record has
already applied that match, so a retry, a reconnect or a second node's attempt changes nothing; the
opponent's rating before the match is read from the opponent's record (`rating_before`): its note
of this match when it has applied it, else its current rating.
"""

from __future__ import annotations

from dataclasses import replace

from glicko2.math import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi, update_rating

from protocol.messages import MatchState

from ..store.base import MatchRecord
from ..store.players import DODGE_NOTES_KEPT, DodgeNote, Glicko, PlayerRecord, RatedGame
from ..store.players import START as START  # a new player's rating (its home is the record's module)

#: Glicko-2's τ: how fast the volatility may change.
TAU = 0.75
MIN_RD = 45.0
MAX_RD = 500.0
MAX_VOLATILITY = 0.1
MIN_RATING = 600.0

#: A match outcome's score for the rating (a forfeit is a loss).
SCORES: dict[str, float] = {"won": 1.0, "drawn": 0.5, "lost": 0.0, "forfeited": 0.0}


def rate(player: Glicko, opponent: Glicko, score: float) -> Glicko:
    """The player's rating after one game (one rating period) against `opponent` scoring `score`."""
    updated = update_rating(
        rating_to_mu(player.rating),
        rd_to_phi(player.rd),
        player.volatility,
        [(rating_to_mu(opponent.rating), rd_to_phi(opponent.rd), score)],
        tau=TAU,
    )
    return Glicko(
        rating=max(MIN_RATING, mu_to_rating(updated.mu)),
        rd=min(MAX_RD, max(MIN_RD, phi_to_rd(updated.phi))),
        volatility=min(MAX_VOLATILITY, updated.sigma),
    )


def new_player(guest_id: str, name: str, now: float) -> PlayerRecord:
    """The record of a guest who has not played ranked yet (START in every ruleset)."""
    return PlayerRecord(guest_id, name, updated=now)


def rating_before(opponent: PlayerRecord | None, match_id: str, ruleset: str) -> Glicko:
    """The opponent's rating in `ruleset` before `match_id`: as its record noted it if applied, else as
    it stands."""
    if opponent is None:
        return START
    standing = opponent.standing(ruleset)
    game = standing.game(match_id)
    return game.before if game is not None else standing.glicko


def rated_seats(record: MatchRecord) -> list[tuple[int, str, float]] | None:
    """(seat, guest, score) of a ranked match's two players, or None when it moves no rating (not
    ranked, not over, not two guests, or no result)."""
    if not record.ranked or record.outcome is not MatchState.OVER or record.result is None:
        return None
    guests = record.guests
    outcomes = record.result.get("outcomes", [])
    if len(guests) != 2 or len(outcomes) != 2 or None in guests or guests[0] == guests[1]:
        return None
    return [(seat, str(guests[seat]), SCORES[str(outcomes[seat])]) for seat in range(2)]


def apply_result(
    held: PlayerRecord | None,
    record: MatchRecord,
    seat: int,
    opponent: Glicko,
    now: float,
) -> PlayerRecord | None:
    """Seat `seat`'s record with the ranked match `record` applied to its rating in the match's ruleset
    (the record's others unchanged); None (no change) once applied."""
    guest = record.guests[seat]
    assert guest is not None and record.result is not None
    player = held or new_player(guest, record.seats[seat], now)
    if player.game(record.id) is not None:
        return None
    before = player.standing(record.ruleset).glicko
    other = 1 - seat
    outcome = str(record.result["outcomes"][seat])
    game = RatedGame(
        match=record.id,
        opponent=str(record.guests[other]),
        opponent_name=record.seats[other],
        score=SCORES[outcome],
        outcome=outcome,
        before=before,
        after=rate(before, opponent, SCORES[outcome]),
        replay=record.replay,
        at=now,
    )
    return player.with_game(record.ruleset, game, record.seats[seat], now)


def dodge_cooldown(player: PlayerRecord | None, base: float, most: float, memory: float, now: float) -> float:
    """The cooldown of a guest's next dodge: `base`, doubled for each dodge of its within `memory`
    seconds, at most `most`."""
    if player is None or now - player.dodged_at > memory:
        return base
    return min(most, base * 2.0 ** min(player.dodges, 32))


def with_dodge(
    held: PlayerRecord | None, guest_id: str, name: str, base: float, most: float, memory: float, now: float
) -> PlayerRecord:
    """The record of a guest that dodged (or aborted) a ranked match at `now`: its dodge counted (anew
    when the last is older than `memory`) and the queue refused for the escalated cooldown."""
    player = held or new_player(guest_id, name, now)
    until = now + dodge_cooldown(player, base, most, memory, now)
    dodges = player.dodges + 1 if now - player.dodged_at <= memory else 1
    return replace(player, cooldown_until=max(player.cooldown_until, until), dodges=dodges, dodged_at=now)


def with_dodge_note(
    held: PlayerRecord | None, guest_id: str, name: str, note: DodgeNote, now: float
) -> PlayerRecord:
    """The record of a player whose ranked match `note`'s guest dodged: the note kept (bounded)."""
    player = held or new_player(guest_id, name, now)
    return replace(player, dodged_by=(note, *player.dodged_by)[:DODGE_NOTES_KEPT])


def guest_tag(guest_id: str) -> str:
    """A waiting guest's tag for itself (server/match/matchmaker.py)."""
    return f"guest:{guest_id}"


def address_tag(address: str) -> str:
    """A waiting guest's tag for its client address."""
    return f"address:{address}"


def avoided(player: PlayerRecord | None, after: int, memory: float, now: float) -> frozenset[str]:
    """The tags (guests, addresses) that dodged this player at least `after` times within `memory`
    seconds: the queue does not pair it with them."""
    if player is None:
        return frozenset()
    counts: dict[str, int] = {}
    for note in player.dodged_by:
        if now - note.at <= memory:
            for tag in (guest_tag(note.guest), address_tag(note.address)):
                counts[tag] = counts.get(tag, 0) + 1
    return frozenset(tag for tag, count in counts.items() if count >= after)
