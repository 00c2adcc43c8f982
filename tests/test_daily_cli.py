"""`floe daily`: play today's challenge against a real server, submit it, read the board; offline runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from protocol.replay_codec import decode_replay
from rules.replay import verify
from rules.solo.match import SoloConfig
from server.app import create_app
from server.embed import server_in_thread
from tests.server.conftest import fast_config


def floe(*args: str) -> subprocess.CompletedProcess[str]:
    """Run `floe` (the module) with these arguments."""
    return subprocess.run([sys.executable, "-m", "floe_cli.main", *args], capture_output=True, text=True,
                          timeout=300, check=False)


def test_floe_daily_plays_submits_and_shows_the_board(tmp_path: Path) -> None:
    """`floe daily play --submit --name` plays the server's day with a bot, gets a guest, writes a layout 2
    replay naming that guest (which `floe verify` reads), is verified, and `floe daily board` lists it; a
    second submit of the same run is refused as a duplicate."""
    config = fast_config().override(daily_config=SoloConfig(time_limit_frames=900))
    with server_in_thread(create_app(config)) as server:
        out = tmp_path / "run.replay"
        url = server.http_url
        played = floe("daily", "play", "--server", url, "--out", str(out), "--submit", "--name", "cli")
        assert played.returncode == 0, played.stderr
        assert "verified:" in played.stdout and out.exists()
        token = next(line.rsplit(" ", 1)[1] for line in played.stdout.splitlines() if "its token:" in line)
        guest = next(line.split()[2] for line in played.stdout.splitlines() if "its token:" in line)
        written = decode_replay(out.read_bytes())
        assert (written.format_version, written.player) == (2, guest)
        assert floe("verify", "--no-progress", str(out)).returncode == 0
        again = floe("daily", "submit", str(out), "--server", server.http_url, "--token", token)
        assert again.returncode == 1 and "409 duplicate-run" in again.stderr, again.stderr
        board = floe("daily", "board", "--server", server.http_url)
        assert board.returncode == 0 and "1 players" in board.stdout and " cli " in board.stdout
        refused = floe("daily", "submit", str(out), "--server", server.http_url, "--token", "v1.forged.token")
        assert refused.returncode == 1 and "401 auth" in refused.stderr


def test_floe_daily_plays_offline_and_the_file_verifies(tmp_path: Path) -> None:
    """`floe daily play --seed N --out F` needs no server; the replay it writes (layout 1: no token, no
    player) verifies, with `floe verify` too."""
    out = tmp_path / "offline.replay"
    played = floe("daily", "play", "--seed", "77", "--bot", "lazy", "--out", str(out))
    assert played.returncode == 0, played.stderr
    replay = decode_replay(out.read_bytes())
    assert verify(replay).ok and (replay.format_version, replay.player) == (1, None)
    assert floe("verify", "--no-progress", str(out)).returncode == 0
