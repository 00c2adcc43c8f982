"""Rooms of 3 and 4 seats with the creator's time limit, and a guest's identity carried to another
device by a recovery code (revocable), over a real server."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest

from protocol.messages import Joined, MatchState
from server.node import Node
from tests.server.bystander import bystander_match
from tests.server.conftest import TEST_LIMITS, StartServer, fast_config
from tests.server.helpers import UNIT, until
from tests.server.peers import Peer
from tests.server.test_abuse import attacker

pytestmark = pytest.mark.asyncio


async def new_guest(http: httpx.AsyncClient, name: str) -> dict[str, str]:
    """A guest's answer from `POST /api/guests`."""
    answer: dict[str, str] = (await http.post("/api/guests", json={"name": name})).json()
    return answer


def bearer(token: str) -> dict[str, str]:
    """The Authorization header of a token."""
    return {"Authorization": f"Bearer {token}"}


async def test_a_three_seat_room_starts_when_its_three_players_are_in(start_server: StartServer) -> None:
    """A room made with seats=3 and minutes=2 takes two guests by its one invitation (a fourth is
    room-full), waits until the third has connected, then plays three boards limited to 2 minutes."""
    server = await start_server()
    node: Node = server.app.state.node
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        guests = [await new_guest(http, name) for name in ("ann", "bob", "cy", "dee")]
        room = (await http.post("/api/rooms", json={"seats": 3, "minutes": 2},
                                headers=bearer(guests[0]["token"]))).json()
        assert room["seats"] == 3 and room["minutes"] == 2
        invite = {"invite": room["invite"]}
        seats = [(await http.post("/api/rooms/join", json=invite, headers=bearer(g["token"]))).json()["seat"]
                 for g in guests[1:3]]
        assert seats == [1, 2]
        full = await http.post("/api/rooms/join", json=invite, headers=bearer(guests[3]["token"]))
        assert full.status_code == 409 and full.json()["code"] == "room-full"
        live = node.hub.matches[room["match"]]
        peers = []
        for g in guests[:2]:
            peer = await Peer.open(server.ws_url, g["token"])
            await peer.send(peer.session.join(room["match"]))
            peers.append(peer)
        await until(lambda: all(p.of(Joined) for p in peers), 10 * UNIT, "the first two joined")
        assert live.state == MatchState.WAITING  # the third is not in yet
        third = await Peer.open(server.ws_url, guests[2]["token"])
        await third.send(third.session.join(room["match"]))
        peers.append(third)
        await until(lambda: live.state == MatchState.RUNNING and bool(third.of(Joined)), 10 * UNIT,
                    "the match running, the third player told")
        joined = peers[2].of(Joined)[0]
        assert list(joined.seats) == ["ann", "bob", "cy"]
        assert joined.config["rules"]["time_limit_frames"] == 2 * 60 * 60
        for peer in peers:
            await peer.close()


async def test_a_room_of_three_is_its_creators_open_room_until_full(start_server: StartServer) -> None:
    """With one open room per guest, a room of 3 joined by one friend still has a seat free: it is still
    its creator's open room (another room is refused too-many-rooms) until the second friend takes the
    last seat; then the creator may open another."""
    server = await start_server(fast_config(limits=replace(TEST_LIMITS, open_rooms_per_guest=1)))
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        ann, bob, cy = [await new_guest(http, name) for name in ("ann", "bob", "cy")]
        room = (await http.post("/api/rooms", json={"seats": 3}, headers=bearer(ann["token"]))).json()
        invite = {"invite": room["invite"]}
        joined = await http.post("/api/rooms/join", json=invite, headers=bearer(bob["token"]))
        assert joined.status_code == 200
        another = await http.post("/api/rooms", json={"seats": 2}, headers=bearer(ann["token"]))
        assert another.status_code == 409 and another.json()["code"] == "too-many-rooms"
        joined = await http.post("/api/rooms/join", json=invite, headers=bearer(cy["token"]))
        assert joined.status_code == 200
        another = await http.post("/api/rooms", json={"seats": 2}, headers=bearer(ann["token"]))
        assert another.status_code == 200, another.json()


async def test_a_friend_leaving_a_room_of_three_leaves_its_creator_playing(start_server: StartServer) -> None:
    """In a room of 3 joined by two friends, one friend who leaves before the start gives only their own
    seat back: the creator (and the other friend) still play it, so a bot match of theirs is refused
    already-playing, and a newcomer takes the freed seat by the invitation; once no friend holds a seat
    the creator plays nothing and may make a bot match."""
    server = await start_server()
    node: Node = server.app.state.node
    hub = node.hub
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        ann, bob, cy, dee = [await new_guest(http, name) for name in ("ann", "bob", "cy", "dee")]
        room = (await http.post("/api/rooms", json={"seats": 3}, headers=bearer(ann["token"]))).json()
        invite = {"invite": room["invite"]}
        for friend in (bob, cy):
            joined = await http.post("/api/rooms/join", json=invite, headers=bearer(friend["token"]))
            assert joined.status_code == 200
        live = hub.matches[room["match"]]

        async def leaves(token: str, seat: int) -> None:
            peer = await Peer.open(server.ws_url, token, play=False)
            await peer.send(peer.session.join(room["match"]))
            await until(lambda: bool(peer.of(Joined)), 10 * UNIT, "the friend joined")
            await peer.send(peer.session.leave())
            await until(lambda: live.seats[seat].guest is None and not node.background, 10 * UNIT,
                        "the seat given back and counted so")
            await peer.close()

        async def bot_match(guest: dict[str, str]) -> httpx.Response:
            return await http.post("/api/bot-matches", json={"bot": "lazy"}, headers=bearer(guest["token"]))

        await leaves(bob["token"], 1)
        assert live.state == MatchState.WAITING
        for player in (ann, cy):
            refused = await bot_match(player)
            assert refused.status_code == 409 and refused.json()["code"] == "already-playing", player["name"]
        taken = await http.post("/api/rooms/join", json=invite, headers=bearer(dee["token"]))
        assert taken.json() == {"match": room["match"], "seat": 1}
        await leaves(dee["token"], 1)
        await leaves(cy["token"], 2)
        assert (await bot_match(ann)).status_code == 200


async def test_a_refused_join_to_a_room_of_3_leaves_its_creator_playing(start_server: StartServer) -> None:
    """A friend whose address is at its live matches (127.0.0.2, one match an address here) is refused
    too-many-matches joining a room of 3 another friend holds a seat in: the creator still plays the room
    (a bot match of hers is refused already-playing)."""
    server = await start_server(fast_config(limits=replace(TEST_LIMITS, live_matches_per_address=1)))
    async with httpx.AsyncClient(base_url=server.http_url) as http, attacker(server) as other:
        ann, bob = [await new_guest(http, name) for name in ("ann", "bob")]
        cy, dee = [await new_guest(other, name) for name in ("cy", "dee")]
        room = (await http.post("/api/rooms", json={"seats": 3}, headers=bearer(ann["token"]))).json()
        invite = {"invite": room["invite"]}
        joined = await http.post("/api/rooms/join", json=invite, headers=bearer(bob["token"]))
        assert joined.status_code == 200
        busy = await other.post("/api/bot-matches", json={"bot": "lazy"}, headers=bearer(dee["token"]))
        assert busy.status_code == 200  # 127.0.0.2's one live match
        refused = await other.post("/api/rooms/join", json=invite, headers=bearer(cy["token"]))
        assert refused.status_code == 429 and refused.json()["code"] == "too-many-matches"
        playing = await http.post("/api/bot-matches", json={"bot": "lazy"}, headers=bearer(ann["token"]))
        assert playing.status_code == 409 and playing.json()["code"] == "already-playing"


async def test_room_seats_and_minutes_are_bounded(start_server: StartServer) -> None:
    """Seats outside 2–4 and minutes outside 1–10 are refused 422 malformed and make no room."""
    server = await start_server()
    node: Node = server.app.state.node
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        headers = bearer((await new_guest(http, "ann"))["token"])
        for body in ({"seats": 1}, {"seats": 5}, {"minutes": 0}, {"minutes": 11}, {"seats": "x"}):
            answer = await http.post("/api/rooms", json=body, headers=headers)
            assert answer.status_code == 422 and answer.json()["code"] == "malformed", body
        assert not node.hub.matches
        four = (await http.post("/api/rooms", json={"seats": 4}, headers=headers)).json()
        assert four["seats"] == 4 and len(node.hub.matches[four["match"]].seats) == 4


async def test_a_recovery_code_carries_the_guest_and_revoking_it_stops_it(start_server: StartServer) -> None:
    """A guest's recovery code gives another browser a token of the same guest id and name; a second
    code replaces the first; revoking makes the code and the token redeemed from it refused (401),
    while the revoking browser gets a fresh token that works."""
    server = await start_server()
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        ann = await new_guest(http, "ann")
        first = (await http.post("/api/guests/recovery", headers=bearer(ann["token"]))).json()["code"]
        code = (await http.post("/api/guests/recovery", headers=bearer(ann["token"]))).json()["code"]
        replaced = await http.post("/api/guests/recover", json={"code": first})
        assert replaced.status_code == 401 and replaced.json()["code"] == "auth"
        other = (await http.post("/api/guests/recover", json={"code": code})).json()
        assert (other["guest"], other["name"]) == (ann["guest"], "ann")
        made = await http.post("/api/bot-matches", json={"bot": "lazy"}, headers=bearer(other["token"]))
        assert made.status_code == 200  # the other device acts as ann
        await http.post("/api/rooms", headers=bearer(ann["token"]))  # ann's own token still works...
        revoked = (await http.post("/api/guests/recovery/revoke", headers=bearer(ann["token"]))).json()
        assert revoked["guest"] == ann["guest"]
        for token in (other["token"], ann["token"]):  # ...until she revokes: every older token stops
            refused = await http.post("/api/rooms", headers=bearer(token))
            assert refused.status_code == 401 and refused.json()["code"] == "auth"
        again = await http.post("/api/guests/recover", json={"code": code})
        assert again.status_code == 401
        fresh = await http.post("/api/guests/recovery", headers=bearer(revoked["token"]))
        assert fresh.status_code == 200
        forged = await http.post("/api/guests/recover", json={"code": ann["token"]})  # a token is not a code
        assert forged.status_code == 401


async def test_recovery_attempts_are_rate_limited_per_address(start_server: StartServer) -> None:
    """An attacker (127.0.0.2) guessing codes is refused 429 with Retry-After past `recoveries_per_address`
    tries, counted before the code is read, while a bystander's match runs; another address still
    redeems a real code."""
    server = await start_server(fast_config(recoveries_per_address=3))
    async with bystander_match(server), attacker(server) as guesser, \
            httpx.AsyncClient(base_url=server.http_url) as http:
        guesses = [{"code": f"rc1.guess{n}.sig"} for n in range(4)]
        answers = [await guesser.post("/api/guests/recover", json=guess) for guess in guesses]
        assert [a.status_code for a in answers] == [401, 401, 401, 429]
        assert answers[3].json()["code"] == "rate-limited" and int(answers[3].headers["retry-after"]) > 0
        ann = await new_guest(http, "ann")
        code = (await http.post("/api/guests/recovery", headers=bearer(ann["token"]))).json()["code"]
        assert (await http.post("/api/guests/recover", json={"code": code})).status_code == 200
