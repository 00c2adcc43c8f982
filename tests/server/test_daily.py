"""The daily challenge over a real server: a run written by a script, verified and ranked; refusals."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import replace
from typing import Any

import httpx
import pytest

from protocol.replay_codec import decode_replay, encode_replay
from rules.replay import record
from rules.result import MatchResult
from rules.ruleset import seat_seed
from rules.solo.match import SoloConfig
from server.config import ServerConfig
from server.embed import RunningServer
from tests.server.conftest import StartServer, fast_config

pytestmark = pytest.mark.asyncio

MSGPACK = {"Content-Type": "application/msgpack"}


def daily_config(**overrides: object) -> ServerConfig:
    """A server whose daily is a 20-second run (quick to play and verify) with a cap of 3 runs."""
    return fast_config().override(daily_config=SoloConfig(time_limit_frames=1200), daily_submissions=3,
                                  **overrides)


def bot_authors_run(challenge: dict[str, Any], bot: str = "competent", name: str = "my-bot") -> bytes:
    """What a bot author's script does: read the challenge, play it with the rules package, write a replay."""
    from rules.registry import lookup

    ruleset = lookup(str(challenge["ruleset"]), int(challenge["ruleset_version"]))
    config = ruleset.config_from_plain(challenge["config"])
    seed = int(challenge["seed"])
    match = ruleset.new_match(config, seed, [name])
    player = ruleset.make_bot(bot, seat_seed(seed, 0))
    while match.result is None:
        match.step([player.decide(match.seat_view(0), match.frame)])
    return encode_replay(record(match, ruleset))


async def guest(http: httpx.AsyncClient, name: str) -> tuple[str, dict[str, str]]:
    """A guest id and its authorization header."""
    answer = (await http.post("/api/guests", json={"name": name})).json()
    return answer["guest"], {"Authorization": f"Bearer {answer['token']}"}


async def start(start_server: StartServer) -> RunningServer:
    """A server with the short daily."""
    return await start_server(daily_config())


async def test_a_scripted_run_is_verified_and_ranked(start_server: StartServer) -> None:
    """A run played by a script from GET /api/daily is verified, enters the day's board, and its replay is
    kept; a worse run later leaves the best in place."""
    server = await start(start_server)
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        challenge = (await http.get("/api/daily")).json()
        assert challenge["ruleset"] == "pengo-solo" and challenge["submissions"] == 3
        ann, auth = await guest(http, "ann")
        run = bot_authors_run(challenge)
        answer = await http.post("/api/daily/runs", content=run, headers={**auth, **MSGPACK})
        assert answer.status_code == 200, answer.text
        verified = answer.json()
        score = decode_replay(run).result.scores[0]
        assert verified["score"] == score and verified["day"] == challenge["day"]
        worse = await http.post("/api/daily/runs", content=bot_authors_run(challenge, "lazy"),
                                headers={**auth, **MSGPACK})
        assert worse.status_code == 200 and worse.json()["best"]["replay"] == verified["replay"]
        board = (await http.get(f"/api/daily/{challenge['day']}")).json()
        assert board["total"] == 1 and board["seed"] == challenge["seed"] and "key" not in board
        assert board["entries"][0] | {"at": 0} == {"rank": 1, "guest": ann, "name": "ann", "score": score,
                                                   "frames": verified["frames"], "replay": verified["replay"],
                                                   "at": 0}
        kept = await http.get(f"/api/replays/{verified['replay']}")
        assert kept.status_code == 200
        assert decode_replay(kept.content) == replace(decode_replay(run), format_version=2, player=ann)


async def test_a_tampered_run_is_refused_with_a_clear_error(start_server: StartServer) -> None:
    """A run whose score was raised is refused 422 `unverified` naming the difference; the board stays
    empty."""
    server = await start(start_server)
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        challenge = (await http.get("/api/daily")).json()
        _, auth = await guest(http, "eve")
        replay = decode_replay(bot_authors_run(challenge))
        result = replay.result
        scores = (result.scores[0] + 5000,)
        richer = MatchResult(result.winner, result.outcomes, result.reason, result.frame, scores)
        body = encode_replay(replace(replay, result=richer))
        answer = await http.post("/api/daily/runs", content=body, headers={**auth, **MSGPACK})
        assert answer.status_code == 422
        refusal = answer.json()
        assert refusal["code"] == "unverified" and "result differs" in refusal["message"]
        assert (await http.get(f"/api/daily/{challenge['day']}")).json()["total"] == 0


async def test_runs_of_another_challenge_and_non_replays_are_refused(start_server: StartServer) -> None:
    """Another seed or config is `not-daily`, bytes that are no replay `bad-replay`, no token `auth`."""
    server = await start(start_server)
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        challenge = (await http.get("/api/daily")).json()
        _, auth = await guest(http, "mal")
        other_seed = bot_authors_run({**challenge, "seed": (challenge["seed"] + 1) % 2**32})
        other_config = bot_authors_run({**challenge, "config": {**challenge["config"], "lives": 5}})
        garbage = b"\x93not a replay"
        refusals = ((other_seed, "not-daily"), (other_config, "not-daily"), (garbage, "bad-replay"))
        for body, code in refusals:
            answer = await http.post("/api/daily/runs", content=body, headers={**auth, **MSGPACK})
            assert answer.status_code == 422 and answer.json()["code"] == code, answer.text
        anonymous = await http.post("/api/daily/runs", content=other_seed, headers=MSGPACK)
        assert anonymous.status_code == 401 and anonymous.json()["code"] == "auth"


async def test_a_guest_has_a_cap_of_runs_a_day(start_server: StartServer) -> None:
    """Past the cap (3 here) a new run is refused 429 with a retry hint; every submission counts, the
    same run sent again too (it is refused as a duplicate, and counted)."""
    server = await start(start_server)
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        challenge = (await http.get("/api/daily")).json()
        _, auth = await guest(http, "cap")
        runs = [bot_authors_run(challenge, bot) for bot in ("competent", "lazy", "random")]
        answers = [await http.post("/api/daily/runs", content=run, headers={**auth, **MSGPACK})
                   for run in (runs[0], runs[0], runs[1], runs[2])]
        assert [answer.status_code for answer in answers] == [200, 409, 200, 429]
        assert answers[1].json()["code"] == "duplicate-run"
        refused = answers[3]
        assert refused.json()["code"] == "rate-limited" and int(refused.headers["retry-after"]) >= 1


async def test_a_leaders_replay_renamed_is_refused_and_the_original_kept(start_server: StartServer) -> None:
    """The leader's public replay, renamed (seat and player) and resubmitted by another guest, is refused
    409 `duplicate-run`; the board and the stored original are unchanged."""
    server = await start(start_server)
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        challenge = (await http.get("/api/daily")).json()
        ann, ann_auth = await guest(http, "ann")
        run = bot_authors_run(challenge)
        first = await http.post("/api/daily/runs", content=run, headers={**ann_auth, **MSGPACK})
        run_id = first.json()["replay"]
        original = (await http.get(f"/api/replays/{run_id}")).content
        eve, eve_auth = await guest(http, "eve")
        for player in (eve, None):
            copy = encode_replay(replace(decode_replay(original), seats=("eve",), player=player))
            answer = await http.post("/api/daily/runs", content=copy, headers={**eve_auth, **MSGPACK})
            assert answer.status_code == 409 and answer.json()["code"] == "duplicate-run", answer.text
        board = (await http.get(f"/api/daily/{challenge['day']}")).json()
        assert board["total"] == 1 and board["entries"][0]["guest"] == ann
        assert (await http.get(f"/api/replays/{run_id}")).content == original


async def test_a_run_is_bound_to_its_player(start_server: StartServer) -> None:
    """A run naming another player is refused 422 `not-daily`; a layout 1 run (no player) is kept as a
    layout 2 replay naming its submitter."""
    server = await start(start_server)
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        challenge = (await http.get("/api/daily")).json()
        bob, auth = await guest(http, "bob")
        run = decode_replay(bot_authors_run(challenge))
        someone_elses = encode_replay(replace(run, format_version=2, player="g-someone"))
        answer = await http.post("/api/daily/runs", content=someone_elses, headers={**auth, **MSGPACK})
        assert answer.status_code == 422 and answer.json()["code"] == "not-daily"
        assert "submitted by its own player" in answer.json()["message"]
        layout_1 = bot_authors_run(challenge)
        assert decode_replay(layout_1).format_version == 1
        kept = await http.post("/api/daily/runs", content=layout_1, headers={**auth, **MSGPACK})
        assert kept.status_code == 200, kept.text
        stored = decode_replay((await http.get(f"/api/replays/{kept.json()['replay']}")).content)
        assert (stored.format_version, stored.player) == (2, bob)


async def test_a_board_is_asked_for_by_its_date_only(start_server: StartServer) -> None:
    """`GET /api/daily/{day}` takes YYYY-MM-DD only: other ISO forms of a date are 422 `malformed`."""
    server = await start(start_server)
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        assert (await http.get("/api/daily/2030-01-02")).status_code == 200
        for form in ("20300102", "2030-W01-3", "2030-002", "2030-1-2", "2030-01-02T00"):
            answer = await http.get(f"/api/daily/{form}")
            assert answer.status_code == 422 and answer.json()["code"] == "malformed", form


async def test_a_past_days_key_proves_its_seed(start_server: StartServer) -> None:
    """A closed day publishes its key; anyone recomputes the seed from the key and the date."""
    server = await start(start_server)
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        past = (await http.get("/api/daily/2020-02-29")).json()
        key = bytes.fromhex(past["key"])
        digest = hmac.new(key, b"floe-daily-seed:2020-02-29", hashlib.sha256).digest()
        assert past["seed"] == int.from_bytes(digest[:4], "big") and past["entries"] == []
        future = (await http.get("/api/daily/2999-01-01")).json()
        assert "seed" not in future and "key" not in future
        bad = await http.get("/api/daily/yesterday")
        assert bad.status_code == 422 and bad.json()["code"] == "malformed"

