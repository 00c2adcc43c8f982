"""Payload's daily through the server: the day's runs per difficulty from floe's HMAC day seed, a run by
the competent bot verified onto its own board, and runs of another seed refused.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from protocol.replay_codec import decode_replay
from rules.payload.daily import daily_seed, seed_variant
from tests.server.conftest import StartServer
from tests.server.test_daily import MSGPACK, bot_authors_run, daily_config, guest

pytestmark = pytest.mark.asyncio


def payload_run(challenge: dict[str, Any], board: str, bot: str = "competent", **changes: Any) -> bytes:
    """A one-seat Payload run of the day's `board` played by a bot from GET /api/daily?ruleset=payload
    (with `changes` to the challenge, e.g. another seed)."""
    return bot_authors_run({**challenge, "config": challenge["boards"][board], **changes}, bot)


async def test_a_payload_daily_run_is_verified_onto_its_own_board(start_server: StartServer) -> None:
    """GET /api/daily?ruleset=payload deals easy and hard from the day's HMAC seed (the seed the Pengo daily
    has, not the date key's hash), the seed's variant on both; the competent bot's easy run is verified
    and ranked on payload's easy board only, its replay kept; the board asks for its name."""
    server = await start_server(daily_config())
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        pengo = (await http.get("/api/daily")).json()
        challenge = (await http.get("/api/daily", params={"ruleset": "payload"})).json()
        day, seed = challenge["day"], challenge["seed"]
        assert challenge["ruleset"] == "payload" and seed == pengo["seed"] and seed != daily_seed(day)
        assert list(challenge["boards"]) == ["easy", "hard"] and "config" not in challenge
        for name, config in challenge["boards"].items():
            assert config["difficulty"] == name and config["variant"] == seed_variant(seed)
        ann, auth = await guest(http, "ann")
        run = payload_run(challenge, "easy")
        answer = await http.post("/api/daily/runs", content=run, headers={**auth, **MSGPACK})
        assert answer.status_code == 200, answer.text
        verified = answer.json()
        replay = decode_replay(run)
        assert replay.ruleset == "payload" and replay.result.reason in ("cleared", "missed")  # a whole run
        assert (verified["ruleset"], verified["board"], verified["day"]) == ("payload", "easy", day)
        assert verified["score"] == replay.result.scores[0] and verified["replay"] is not None
        assert verified["replay"].startswith(f"d-{day}-payload-easy-")
        easy = (await http.get(f"/api/daily/{day}", params={"ruleset": "payload", "board": "easy"})).json()
        assert easy["total"] == 1 and easy["seed"] == seed and easy["board"] == "easy"
        assert (easy["entries"][0]["guest"], easy["entries"][0]["score"]) == (ann, verified["score"])
        hard = (await http.get(f"/api/daily/{day}", params={"ruleset": "payload", "board": "hard"})).json()
        assert hard["total"] == 0
        assert (await http.get(f"/api/daily/{day}")).json()["total"] == 0  # Pengo's board is apart
        kept = await http.get(f"/api/replays/{verified['replay']}")
        assert kept.status_code == 200 and decode_replay(kept.content).log_hash == replay.log_hash
        boardless = await http.get(f"/api/daily/{day}", params={"ruleset": "payload"})
        assert boardless.status_code == 422 and "easy, hard" in boardless.json()["message"]
        versus = await http.get("/api/daily", params={"ruleset": "payload-versus"})
        assert versus.status_code == 404 and versus.json()["code"] == "not-found"


async def test_a_payload_run_of_another_seed_is_refused(start_server: StartServer) -> None:
    """A run dealt from the bare date key (the practice daily's seed, which anyone can compute ahead) or
    from tomorrow's guess is `not-daily`, on the day's own config; a hard run on the easy config's
    variant with another difficulty is refused likewise; nothing reaches a board."""
    server = await start_server(daily_config())
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        challenge = (await http.get("/api/daily", params={"ruleset": "payload"})).json()
        day = challenge["day"]
        _, auth = await guest(http, "mal")
        scouted = payload_run(challenge, "easy", seed=daily_seed(day))
        other = payload_run(challenge, "hard", seed=(challenge["seed"] + 1) % 2**32)
        retuned = bot_authors_run({**challenge, "config": {**challenge["boards"]["easy"], "queue_cap": 3}})
        for body, why in ((scouted, "seed"), (other, "seed"), (retuned, "config")):
            answer = await http.post("/api/daily/runs", content=body, headers={**auth, **MSGPACK})
            assert answer.status_code == 422, answer.text
            assert answer.json()["code"] == "not-daily" and why in answer.json()["message"], answer.text
        for board in ("easy", "hard"):
            page = (await http.get(f"/api/daily/{day}", params={"ruleset": "payload", "board": board})).json()
            assert page["total"] == 0
