"""The store interface, as every store must keep it: records once, replays, players and the
leaderboard, the ranked journal, daily boards, and the limit counters."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from protocol.messages import MatchState
from server.store.base import MatchRecord, PlayerChange, Stores
from server.store.players import LEGACY_RULESET, DailyEntry, Glicko, PlayerRecord, Standing, daily_run_id

#: The ruleset these records rate (the one every record had before ratings per ruleset).
PV = LEGACY_RULESET

pytestmark = pytest.mark.asyncio


def record(match_id: str, ended: float = 2.0) -> MatchRecord:
    """A finished match's record."""
    return MatchRecord(match_id, ("a", "b"), ("g_a", None), MatchState.OVER, {"winner": 0}, match_id, 1.0,
                       ended, 60)


async def test_a_match_is_recorded_once(store: Stores) -> None:
    """The first put_match wins; a second one for the same id changes nothing and says so."""
    assert await store.matches.put_match(record("m1")) is True
    assert await store.matches.put_match(record("m1", ended=9.0)) is False
    got = await store.matches.get_match("m1")
    assert got is not None and got.ended == 2.0 and got.plain()["outcome"] == "over"
    assert await store.matches.get_match("m2") is None


async def test_recent_matches_are_newest_first(store: Stores) -> None:
    """recent_matches lists the last recorded first, up to the limit."""
    for index in range(5):
        await store.matches.put_match(record(f"m{index}"))
    assert [r.id for r in await store.matches.recent_matches(3)] == ["m4", "m3", "m2"]


async def test_replays_round_trip_their_bytes(store: Stores) -> None:
    """A replay's bytes come back as they were put; an unknown id is None."""
    await store.replays.put_replay("r1", b"\x00\x01floe")
    assert await store.replay("r1") == b"\x00\x01floe"
    assert await store.replay("nope") is None


async def test_a_token_bucket_per_key(store: Stores) -> None:
    """A bucket starts full, gives `burst` tokens at once, then one per 1/rate seconds; keys are apart."""
    waits = [await store.limits.take_token("ip:1", 2.0, 3.0, 100.0) for _ in range(4)]
    assert waits[:3] == [0.0, 0.0, 0.0] and waits[3] == pytest.approx(0.5)
    assert await store.limits.take_token("ip:2", 2.0, 3.0, 100.0) == 0.0
    assert await store.limits.take_token("ip:1", 2.0, 3.0, 100.5) == 0.0
    assert await store.limits.take_token("ip:1", 2.0, 3.0, 100.5) == pytest.approx(0.5)


async def test_a_claim_has_one_holder_until_it_expires_or_is_released(store: Stores) -> None:
    """The first holder keeps the key (and renews it); others see it until it expires or is released."""
    assert await store.limits.claim("live:g1", "m1", 10.0, 0.0) == "m1"
    assert await store.limits.claim("live:g1", "m2", 10.0, 5.0) == "m1"
    assert await store.limits.claim("live:g1", "m1", 10.0, 8.0) == "m1"  # renewed to 18
    assert await store.limits.claim("live:g1", "m2", 10.0, 15.0) == "m1"
    assert await store.limits.claim("live:g1", "m2", 10.0, 18.5) == "m2"
    await store.limits.release("live:g1", "m1")  # not the holder: nothing happens
    assert await store.limits.claim("live:g1", "m3", 10.0, 19.0) == "m2"
    await store.limits.release("live:g1", "m2")
    assert await store.limits.claim("live:g1", "m3", 10.0, 19.0) == "m3"


async def test_a_bounded_set_counts_live_members(store: Stores) -> None:
    """A set takes members up to its limit; renewing one is free; expired and removed ones make room."""
    assert await store.limits.add_member("rooms:g1", "r1", 2, 10.0, 0.0)
    assert await store.limits.add_member("rooms:g1", "r2", 2, 10.0, 1.0)
    assert not await store.limits.add_member("rooms:g1", "r3", 2, 10.0, 2.0)
    assert await store.limits.add_member("rooms:g1", "r1", 2, 10.0, 3.0)  # renewed to 13
    await store.limits.remove_member("rooms:g1", "r2")
    assert await store.limits.add_member("rooms:g1", "r3", 2, 10.0, 4.0)
    assert not await store.limits.add_member("rooms:g1", "r4", 2, 10.0, 12.0)
    assert await store.limits.add_member("rooms:g1", "r4", 2, 10.0, 13.5)  # r1 expired at 13


def player(guest: str, rating: float, rd: float = 80.0, name: str = "") -> PlayerRecord:
    """A player record with a pengo-versus rating (after one rated game)."""
    return PlayerRecord(guest, name or guest, {PV: Standing(Glicko(rating, rd, 0.09), wins=1)})


def wins(record: PlayerRecord | None) -> int:
    """The record's pengo-versus wins."""
    assert record is not None
    return record.standing(PV).wins


def with_wins(record: PlayerRecord, count: int) -> PlayerRecord:
    """The record with `count` pengo-versus wins."""
    return replace(record, ratings={**record.ratings, PV: replace(record.standing(PV), wins=count)})


def becomes(record: PlayerRecord) -> PlayerChange:
    """A change that leaves `record`, whatever was held."""
    return lambda held: record


async def test_a_match_record_round_trips_with_its_ranked_flag(store: Stores) -> None:
    """What put_match kept comes back field for field, the ranked flag included."""
    ranked = replace(record("r1"), ranked=True)
    assert await store.matches.put_match(ranked)
    assert await store.matches.get_match("r1") == ranked


async def test_the_archive_keeps_at_most_its_bound(store: Stores) -> None:
    """Past the store's bound (100 here) the oldest records go; the newest stay."""
    for index in range(105):
        await store.matches.put_match(record(f"m{index}", ended=float(index)))
    assert await store.matches.get_match("m0") is None and await store.matches.get_match("m104") is not None
    assert len(await store.matches.recent_matches(1000)) == 100


async def test_update_player_reads_modifies_and_writes_one_record(store: Stores) -> None:
    """update_player hands the stored record (None at first) to the change and keeps what it returns."""
    seen: list[PlayerRecord | None] = []

    def first(held: PlayerRecord | None) -> PlayerRecord:
        seen.append(held)
        return player("g1", 1500.0, 500.0)

    made = await store.players.update_player("g1", first)
    assert seen == [None] and made == player("g1", 1500.0, 500.0)
    kept = await store.players.update_player("g1", lambda held: None)
    assert kept == made and await store.players.get_player("g1") == made
    moved = await store.players.update_player("g1", lambda held: with_wins(held, 1) if held else None)
    assert moved is not None and wins(moved) == 1 and await store.players.get_player("g1") == moved
    assert await store.players.get_player("nobody") is None


async def test_concurrent_updates_of_one_record_all_apply(store: Stores) -> None:
    """Twenty updates racing on one record each apply once: none is lost (the write is atomic)."""
    await store.players.update_player("g1", lambda held: player("g1", 1500.0))

    def win(held: PlayerRecord | None) -> PlayerRecord:
        assert held is not None
        return with_wins(held, wins(held) + 1)

    await asyncio.gather(*(store.players.update_player("g1", win) for _ in range(20)))
    final = await store.players.get_player("g1")
    assert wins(final) == 1 + 20


async def test_the_leaderboard_pages_players_by_rating_with_provisional_ones_apart(store: Stores) -> None:
    """Established players by rating, highest first, paged; provisional ones (RD ≥ 110) in their own list."""
    standings = (("a", 1600.0, 60.0), ("b", 1700.0, 90.0), ("c", 1650.0, 200.0), ("d", 1400.0, 50.0))
    for guest, rating, rd in standings:
        await store.players.update_player(guest, becomes(player(guest, rating, rd)))
    page, total = await store.players.leaderboard(PV, False, 0, 2)
    assert [p.id for p in page] == ["b", "a"] and total == 3
    page, _ = await store.players.leaderboard(PV, False, 2, 2)
    assert [p.id for p in page] == ["d"]
    provisional, count = await store.players.leaderboard(PV, True, 0, 10)
    assert [p.id for p in provisional] == ["c"] and count == 1
    await store.players.update_player("c", lambda held: player("c", 1800.0, 100.0))  # now established, first
    page, total = await store.players.leaderboard(PV, False, 0, 10)
    assert [p.id for p in page] == ["c", "b", "a", "d"] and total == 4
    assert await store.players.leaderboard(PV, True, 0, 10) == ([], 0)


async def test_a_player_without_a_rated_game_is_on_no_leaderboard(store: Stores) -> None:
    """A record with no rated game (a dodger's cooldown) is kept but listed on neither board; its first
    rated game lists it."""
    dodger = replace(with_wins(player("d", 1500.0, 500.0), 0), cooldown_until=9.0)
    await store.players.update_player("d", lambda held: dodger)
    assert await store.players.get_player("d") is not None
    assert await store.players.leaderboard(PV, True, 0, 10) == ([], 0)
    assert await store.players.leaderboard(PV, False, 0, 10) == ([], 0)
    await store.players.update_player("d", lambda held: player("d", 1500.0, 500.0))
    assert [p.id for p in (await store.players.leaderboard(PV, True, 0, 10))[0]] == ["d"]


async def test_a_generation_advances_only_from_the_one_expected(store: Stores) -> None:
    """A generation reads 0 until set, and moves only from the value expected (a stale renewal fails)."""
    assert await store.limits.generation("token:g1", 0.0) == 0
    assert await store.limits.advance_generation("token:g1", 0, 1, 100.0, 0.0)
    assert not await store.limits.advance_generation("token:g1", 0, 2, 100.0, 1.0)  # a stale renewal
    assert await store.limits.generation("token:g1", 1.0) == 1
    assert await store.limits.generation("token:g2", 1.0) == 0
    assert await store.limits.advance_generation("token:g1", 1, 2, 100.0, 2.0)
    assert await store.limits.generation("token:g1", 2.0) == 2


async def test_pending_ranked_results_are_a_journal(store: Stores) -> None:
    """Noted ranked matches come back oldest first until done; noting one again keeps its first time."""
    await store.ranked.note_ranked("m2", 20.0)
    await store.ranked.note_ranked("m1", 10.0)
    await store.ranked.note_ranked("m2", 30.0)
    assert await store.ranked.pending_ranked(10) == [("m1", 10.0), ("m2", 20.0)]
    await store.ranked.done_ranked("m1")
    assert await store.ranked.pending_ranked(10) == [("m2", 20.0)]


async def test_a_daily_board_keeps_each_guests_best_run(store: Stores) -> None:
    """A guest's better run replaces the older one, a worse one does not; the board is best first, paged."""
    day = "2030-01-02"

    async def put(guest: str, name: str, score: int, frames: int, run: str, at: float) -> DailyEntry | None:
        entry = DailyEntry(guest, name, score, frames, run, at)
        return (await store.daily.put_daily(day, entry, run.encode(), 1 << 20)).best

    assert await put("g1", "ann", 500, 900, "r1", 10.0) == DailyEntry("g1", "ann", 500, 900, "r1", 10.0)
    best = await put("g1", "ann", 300, 900, "r2", 20.0)
    assert best is not None and best.replay == "r1"
    best = await put("g1", "ann", 800, 900, "r3", 30.0)
    assert best is not None and best.replay == "r3"
    await put("g2", "bob", 800, 700, "r4", 40.0)  # same score, later: second
    await put("g3", "cat", 100, 700, "r5", 5.0)
    board, total = await store.daily.daily_board(day, 0, 2)
    assert [e.guest for e in board] == ["g1", "g2"] and total == 3
    assert [e.guest for e in (await store.daily.daily_board(day, 2, 5))[0]] == ["g3"]
    entry = await store.daily.daily_entry(day, "g2")
    assert entry is not None and entry.replay == "r4"
    assert await store.daily.daily_entry("2030-01-03", "g2") is None
    assert await store.daily.daily_board("2030-01-03", 0, 5) == ([], 0)


def run_of(day: str, n: int) -> str:
    """The replay id of a day's run number n."""
    return daily_run_id(day, f"{n:02x}" * 32)


async def test_a_daily_run_is_kept_once_and_never_overwritten(store: Stores) -> None:
    """A run id the day has seen is refused as a duplicate, by any guest, even once it is no longer
    anyone's best, and its kept replay stays the first one's."""
    day = "2030-01-02"
    first = DailyEntry("g1", "ann", 500, 900, run_of(day, 1), 10.0)
    assert not (await store.daily.put_daily(day, first, b"ann's run", 1 << 20)).duplicate
    thief = DailyEntry("g2", "eve", 500, 900, run_of(day, 1), 5.0)
    stolen = await store.daily.put_daily(day, thief, b"eve's copy", 1 << 20)
    assert stolen.duplicate and stolen.best is None
    assert await store.replay(run_of(day, 1)) == b"ann's run"
    assert (await store.daily.daily_board(day, 0, 5))[1] == 1
    better = DailyEntry("g1", "ann", 600, 900, run_of(day, 2), 20.0)
    assert (await store.daily.put_daily(day, better, b"ann's better run", 1 << 20)).best == better
    assert await store.replay(run_of(day, 1)) is None  # no longer the best: not kept
    again = await store.daily.put_daily(day, replace(first, at=30.0), b"ann's run", 1 << 20)
    assert again.duplicate and again.best == better


async def test_a_days_run_replays_stay_within_its_bytes_budget(store: Stores) -> None:
    """Past the day's bytes budget the lowest-ranked runs' replays are dropped (their scores stay on the
    board, their replay null); the best runs' replays are kept; another day has its own budget."""
    day = "2030-01-02"
    for n, score in enumerate((300, 100, 500, 200, 400)):
        entry = DailyEntry(f"g{n}", f"p{n}", score, 900, run_of(day, n), float(n))
        await store.daily.put_daily(day, entry, bytes(1000), 3000)
    board, total = await store.daily.daily_board(day, 0, 10)
    assert total == 5 and [e.score for e in board] == [500, 400, 300, 200, 100]
    kept = [await store.replay(e.replay) if e.replay else None for e in board]
    assert [e.replay is not None for e in board] == [True, True, True, False, False]
    assert all(data == bytes(1000) for data in kept[:3])
    assert await store.replay(run_of(day, 1)) is None and await store.replay(run_of(day, 3)) is None
    other = DailyEntry("g9", "p9", 1, 900, run_of("2030-01-03", 9), 0.0)
    assert (await store.daily.put_daily("2030-01-03", other, bytes(1000), 3000)).best == other


async def test_each_ruleset_has_its_own_leaderboard(store: Stores) -> None:
    """A record rated in two rulesets is on both boards at each one's rating; a ruleset's board lists
    only who played it."""
    ratings = {PV: Standing(Glicko(1600.0, 80.0, 0.09), wins=1),
               "payload-versus": Standing(Glicko(1450.0, 90.0, 0.09), losses=1)}
    both = replace(player("a", 1600.0), ratings=ratings)
    await store.players.update_player("a", becomes(both))
    await store.players.update_player("b", becomes(player("b", 1700.0)))
    pengo, total = await store.players.leaderboard(PV, False, 0, 10)
    assert [(p.id, p.standing(PV).glicko.rating) for p in pengo] == [("b", 1700.0), ("a", 1600.0)]
    assert total == 2
    payload, total = await store.players.leaderboard("payload-versus", False, 0, 10)
    assert [(p.id, p.standing("payload-versus").glicko.rating) for p in payload] == [("a", 1450.0)]
    assert total == 1 and await store.players.leaderboard("kick-versus", False, 0, 10) == ([], 0)
    assert await store.players.get_player("a") == both


async def test_a_record_from_before_ratings_per_ruleset_reads_as_its_pengo_versus_standing() -> None:
    """The JSON of a record with one rating at the top level (written before ratings per ruleset) reads
    back as that rating in pengo-versus (every rated match was pengo-versus's then), counts and games
    kept; written again, it is the per-ruleset form."""
    game = {"match": "m1", "opponent": "g2", "opponent_name": "bob", "score": 1.0, "outcome": "won",
            "before": {"rating": 1500.0, "rd": 500.0, "volatility": 0.09},
            "after": {"rating": 1662.0, "rd": 290.0, "volatility": 0.09}, "change": 162.0, "replay": "m1",
            "at": 5.0}
    old = {"id": "g1", "name": "ann", "rating": 1662.0, "rd": 290.0, "volatility": 0.09, "provisional": True,
           "games": 1, "wins": 1, "losses": 0, "draws": 0, "recent": [game], "cooldown_until": 0.0,
           "updated": 5.0}
    record = PlayerRecord.from_plain(old)
    assert set(record.ratings) == {LEGACY_RULESET}
    standing = record.standing(LEGACY_RULESET)
    assert standing.glicko == Glicko(1662.0, 290.0, 0.09) and standing.wins == 1 and standing.played == 1
    assert record.game("m1") is not None and record.standing("payload-versus").played == 0
    assert PlayerRecord.from_plain(record.plain()) == record and "ratings" in record.plain()
