"""Rematch offers: after a room or ranked match ends, either player offers a rematch; the other accepts
(both are seated in a new private room and told its id), declines, or lets it expire; offers are
bounded, and a rematch is refused with the lobby's typed errors."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocol.messages import Error, Joined, MatchState, Over, RematchOffer, RematchReady, RematchRefused
from server import botclient
from server.embed import RunningServer
from server.node import Node
from tests.server.conftest import TEST_FRAME_RATE, TEST_LIMITS, StartServer, fast_config
from tests.server.helpers import UNIT, until
from tests.server.peers import Peer
from tests.server.test_abuse import ATTACKER, abuse_config
from tests.server.test_abuse_ranked import new_guest
from tests.server.test_match_network import open_room

pytestmark = pytest.mark.asyncio


async def played_to_the_end(server: RunningServer, match_id: str, tokens: tuple[str, str],
                            address: str = "127.0.0.1") -> tuple[Peer, Peer]:
    """Both players join `match_id` and play neutral until seat 1 leaves (a forfeit): both hear `over`."""
    first = await Peer.open(server.ws_url, tokens[0], address=address)
    second = await Peer.open(server.ws_url, tokens[1], address=address)
    await first.send(first.session.join(match_id))
    await second.send(second.session.join(match_id))
    node: Node = server.app.state.node
    live = node.hub.matches[match_id]
    await until(lambda: live.runner is not None and live.runner.match.frame > 10, 20 * UNIT,
                "the match running")
    second.play = False  # a seat that left sends no more inputs
    await second.send(second.session.leave())
    await until(lambda: bool(first.of(Over)) and bool(second.of(Over)), 20 * UNIT, "both told the end")
    return first, second


def both_told(first: Peer, second: Peer) -> bool:
    """Have both players heard `rematch-ready`?"""
    return bool(first.of(RematchReady)) and bool(second.of(RematchReady))


async def test_an_accepted_offer_seats_both_in_a_new_room(start_server: StartServer) -> None:
    """A room's player offers a rematch once it is over (not before: `rematch`); the other hears the
    offer and accepts; both are told the same new match, a private unrated room holding both in their
    seats, and join it on the same connections."""
    server = await start_server()
    node: Node = server.app.state.node
    match_id, first_token, second_token = await open_room(server)
    early = await Peer.open(server.ws_url, first_token, play=False)
    await early.send(early.session.rematch(match_id))
    await until(lambda: bool(early.of(Error)), 10 * UNIT, "the early offer answered")
    assert early.of(Error)[0].code == "rematch" and early.of(Error)[0].ref == "rematch"
    await early.close()
    first, second = await played_to_the_end(server, match_id, (first_token, second_token))
    await first.send(first.session.rematch(match_id))
    await until(lambda: bool(second.of(RematchOffer)) and bool(first.of(RematchOffer)), 10 * UNIT,
                "the offer")
    offer = second.of(RematchOffer)[0]
    assert offer.match == match_id and offer.seat == 0 and offer.name == "ann"
    assert offer.expires == node.config.lobby.rematch_offer_seconds
    await second.send(second.session.answer_rematch(match_id, accept=True))
    await until(lambda: both_told(first, second), 10 * UNIT, "the rematch")
    ready = first.of(RematchReady)[0], second.of(RematchReady)[0]
    rematch = ready[0].rematch
    assert ready[1].rematch == rematch != match_id and [r.seat for r in ready] == [0, 1]
    assert not ready[0].ranked
    old, new = node.hub.matches[match_id], node.hub.matches[rematch]
    assert [s.guest for s in new.seats] == [s.guest for s in old.seats] and new.private and not new.ranked
    await first.send(first.session.join(rematch))
    await second.send(second.session.join(rematch))
    await until(lambda: new.runner is not None, 10 * UNIT, "the rematch started")
    assert [j.match for j in first.of(Joined)] == [match_id, rematch]
    await first.send(first.session.rematch(match_id))  # made already: told again where it is
    await until(lambda: len(first.of(RematchReady)) == 2, 10 * UNIT, "the rematch told again")
    assert first.of(RematchReady)[1].rematch == rematch
    for peer in (first, second):
        await peer.close()


async def test_a_ranked_match_is_rematched_as_an_unrated_room(start_server: StartServer) -> None:
    """The rematch of a ranked match is a private room, not rated (a rated game comes from the queue)."""
    server = await start_server(fast_config(ranked_min_play_seconds=0.0))
    node: Node = server.app.state.node
    tokens = [(await new_guest(server, name))[1] for name in ("ann", "bob")]
    guests = [node.signer.verify(token, node.clock.wall()) for token in tokens]
    live = node.hub.create_ranked_match(guests[0], guests[1], "ranked-1", ("127.0.0.1", "127.0.0.1"))
    first, second = await played_to_the_end(server, live.id, (tokens[0], tokens[1]))
    await second.send(second.session.rematch(live.id))
    await until(lambda: bool(first.of(RematchOffer)), 10 * UNIT, "the offer")
    await first.send(first.session.rematch(live.id))  # crossing offers: accepted
    await until(lambda: both_told(first, second), 10 * UNIT, "the rematch")
    rematch = node.hub.matches[first.of(RematchReady)[0].rematch]
    assert not rematch.ranked and rematch.private and not first.of(RematchReady)[0].ranked
    for peer in (first, second):
        await peer.close()


async def test_offers_are_declined_expire_and_are_bounded(start_server: StartServer) -> None:
    """From 127.0.0.2 beside a bystander's match: a declined offer tells both, an unanswered one expires
    after rematch_offer_seconds, a seat's offers past rematch_offers_per_seat and answers with no
    offer waiting are refused (`rematch`), and no match is made."""
    config = abuse_config(rematch_offer_seconds=0.3, rematch_offers_per_seat=2)
    server = await start_server(config)
    node: Node = server.app.state.node
    node.hub.create_bot_duel("competent", "lazy")
    first_token = (await new_guest(server, "ann", ATTACKER))[1]
    second_token = (await new_guest(server, "bob", ATTACKER))[1]
    room = await botclient.http_json(f"{server.http_url}/api/rooms", "POST", {}, first_token)
    await botclient.http_json(f"{server.http_url}/api/rooms/join", "POST", {"invite": room["invite"]},
                              second_token)
    first, second = await played_to_the_end(server, room["match"], (first_token, second_token), ATTACKER)
    match_id = room["match"]
    await second.send(second.session.answer_rematch(match_id, accept=True))  # nothing offered
    await first.send(first.session.rematch(match_id))
    await until(lambda: bool(second.of(RematchOffer)), 10 * UNIT, "the first offer")
    await first.send(first.session.rematch(match_id))  # the same seat again while it waits
    await second.send(second.session.answer_rematch(match_id, accept=False))
    await until(lambda: bool(first.of(RematchRefused)), 10 * UNIT, "the decline told")
    assert [peer.of(RematchRefused)[0].reason for peer in (first, second)] == ["declined", "declined"]
    await first.send(first.session.rematch(match_id))
    await until(lambda: len(first.of(RematchRefused)) == 2 and len(second.of(RematchRefused)) == 2, 10 * UNIT,
                "the second offer expired")
    assert first.of(RematchRefused)[1].reason == "expired"
    matches = len(node.hub.matches)
    for _ in range(5):
        await first.send(first.session.rematch(match_id))
    await until(lambda: len(first.of(Error)) == 6, 10 * UNIT, "the offers past the bound refused")
    assert [e.code for e in second.of(Error)] == ["rematch"] and second.of(Error)[0].ref == "rematch-answer"
    assert {e.code for e in first.of(Error)} == {"rematch"}
    assert len(second.of(RematchOffer)) == 2 and len(node.hub.matches) == matches
    for peer in (first, second):
        await peer.close()
    lateness = node.stats()["lateness_ms"]
    print(f"\nbystander's frame lateness meanwhile: p50 {lateness['p50']} ms, p99 {lateness['p99']} ms, "
          f"max {lateness['max']} ms over {lateness['samples']} wake-ups")


@pytest.mark.parametrize("bound", ["too-many-matches", "busy"])
async def test_a_rematch_past_a_bound_is_refused_with_its_code(start_server: StartServer, bound: str) -> None:
    """An accepted rematch that would take the address past its live matches, or the node past its work
    budget, is refused to both with that code (`too-many-matches`, `busy`), and nothing is made or
    counted."""
    if bound == "busy":  # room for one 1 v 1: the bot match below takes it
        config = fast_config(capacity_board_frames=2 * TEST_FRAME_RATE)
    else:
        config = fast_config(limits=replace(TEST_LIMITS, live_matches_per_address=1))
    server = await start_server(config)
    node: Node = server.app.state.node
    match_id, first_token, second_token = await open_room(server)
    first, second = await played_to_the_end(server, match_id, (first_token, second_token))
    await until(lambda: not node.background, 10 * UNIT, "the ended match's counts given back")
    _, third = await botclient.new_guest(server.http_url, "eve")
    await botclient.http_json(f"{server.http_url}/api/bot-matches", "POST", {"bot": "lazy"}, third)
    matches = len(node.hub.matches)
    await first.send(first.session.rematch(match_id))
    await until(lambda: bool(second.of(RematchOffer)), 10 * UNIT, "the offer")
    await second.send(second.session.answer_rematch(match_id, accept=True))
    await until(lambda: bool(first.of(RematchRefused)) and bool(second.of(RematchRefused)), 10 * UNIT,
                "the refusal told")
    refused = first.of(RematchRefused)[0]
    assert refused.reason == "refused" and refused.code == bound and refused.message
    assert len(node.hub.matches) == matches and not first.of(RematchReady)
    await until(lambda: not node.background, 10 * UNIT, "the store settled")
    for peer in (first, second):  # neither guest counts a live match: a probe fits under their limit of 1
        welcome = peer.session.welcome
        assert welcome is not None and welcome.guest is not None
        key = f"live:{welcome.guest}"
        assert await node.stores.limits.add_member(key, "probe", 1, 60.0, node.clock.wall())
        await node.stores.limits.remove_member(key, "probe")
    for peer in (first, second):
        await peer.close()


async def test_a_room_of_three_is_rematched_when_both_others_accept(start_server: StartServer) -> None:
    """A room of 3 played to its end (two seats forfeit): an offer reaches all three; one accept is not
    enough and a second answer of the same seat is refused; the other's decline ends it for all. A second
    offer accepted by one answer and one crossing offer makes the rematch: all three are told the same new
    private room holding each in their seat, and it starts when all three have joined it."""
    server = await start_server()
    node: Node = server.app.state.node
    hub = node.hub
    tokens = [(await new_guest(server, name))[1] for name in ("ann", "bob", "cy")]
    room = await botclient.http_json(f"{server.http_url}/api/rooms", "POST", {"seats": 3}, tokens[0])
    for token in tokens[1:]:
        await botclient.http_json(f"{server.http_url}/api/rooms/join", "POST", {"invite": room["invite"]},
                                  token)
    match_id = room["match"]
    peers = [await Peer.open(server.ws_url, token) for token in tokens]
    for peer in peers:
        await peer.send(peer.session.join(match_id))
    live = hub.matches[match_id]
    await until(lambda: live.runner is not None and live.runner.match.frame > 10, 20 * UNIT,
                "the match running")
    for peer in peers[:0:-1]:  # cy then bob forfeit: ann wins
        peer.play = False
        await peer.send(peer.session.leave())
    await until(lambda: all(peer.of(Over) for peer in peers), 20 * UNIT, "all three told the end")
    assert live.result is not None and live.result["winner"] == 0
    ann, bob, cy = peers

    await ann.send(ann.session.rematch(match_id))
    await until(lambda: all(peer.of(RematchOffer) for peer in peers), 10 * UNIT, "the offer told to all")
    assert {(o.seat, o.name) for peer in peers for o in peer.of(RematchOffer)} == {(0, "ann")}
    await bob.send(bob.session.answer_rematch(match_id, accept=True))
    await bob.send(bob.session.answer_rematch(match_id, accept=True))  # bob answered already
    await until(lambda: bool(bob.of(Error)), 10 * UNIT, "bob's second answer refused")
    assert bob.of(Error)[0].code == "rematch" and bob.of(Error)[0].ref == "rematch-answer"
    assert not any(peer.of(RematchReady) or peer.of(RematchRefused) for peer in peers)  # cy has not answered
    await cy.send(cy.session.answer_rematch(match_id, accept=False))
    await until(lambda: all(peer.of(RematchRefused) for peer in peers), 10 * UNIT, "the decline told to all")
    assert {r.reason for peer in peers for r in peer.of(RematchRefused)} == {"declined"}

    matches = len(hub.matches)
    await bob.send(bob.session.rematch(match_id))
    await until(lambda: all(len(peer.of(RematchOffer)) == 2 for peer in peers), 10 * UNIT, "the second offer")
    await cy.send(cy.session.answer_rematch(match_id, accept=True))
    entry = node.rematches._entries[match_id]
    await until(lambda: entry.pending is not None and entry.pending.accepted == {2}, 10 * UNIT, "cy's accept")
    assert len(hub.matches) == matches and not any(peer.of(RematchReady) for peer in peers)  # ann has not
    await ann.send(ann.session.rematch(match_id))  # crossing offers: ann's is her accept
    await until(lambda: all(peer.of(RematchReady) for peer in peers), 10 * UNIT, "the rematch told to all")
    ready = [peer.of(RematchReady)[0] for peer in peers]
    rematch = ready[0].rematch
    assert {r.rematch for r in ready} == {rematch} != {match_id} and [r.seat for r in ready] == [0, 1, 2]
    new = hub.matches[rematch]
    assert [s.guest for s in new.seats] == [s.guest for s in live.seats] and new.private and not new.ranked
    for peer in peers:
        peer.play = True
        await peer.send(peer.session.join(rematch))
    await until(lambda: new.runner is not None and all(len(peer.of(Joined)) == 2 for peer in peers),
                10 * UNIT, "the rematch started, all three told")
    assert all([j.match for j in peer.of(Joined)] == [match_id, rematch] for peer in peers)
    for peer in peers:
        await peer.close()


async def test_a_player_leaving_the_rematch_before_it_starts_calls_it_off(start_server: StartServer) -> None:
    """No invitation leads to a rematch's seats: a player who joins the rematch and leaves before it
    starts cancels it (it does not wait out room_timeout with a seat nobody can take), and both players'
    seats are given back (each may make a bot match)."""
    server = await start_server()
    node: Node = server.app.state.node
    hub = node.hub
    match_id, first_token, second_token = await open_room(server)
    first, second = await played_to_the_end(server, match_id, (first_token, second_token))
    await first.send(first.session.rematch(match_id))
    await until(lambda: bool(second.of(RematchOffer)), 10 * UNIT, "the offer")
    await second.send(second.session.answer_rematch(match_id, accept=True))
    await until(lambda: both_told(first, second), 10 * UNIT, "the rematch")
    rematch = hub.matches[first.of(RematchReady)[0].rematch]
    await second.send(second.session.join(rematch.id))
    await until(lambda: len(second.of(Joined)) == 2, 10 * UNIT, "the second player in the rematch")
    await second.send(second.session.leave())
    await until(lambda: rematch.state == MatchState.CANCELLED and not node.background, 10 * UNIT,
                "the rematch called off and its seats given back")
    for token in (first_token, second_token):
        made = await botclient.http_json(f"{server.http_url}/api/bot-matches", "POST", {"bot": "lazy"}, token)
        assert made["match"]
    for peer in (first, second):
        await peer.close()
