"""deploy/haproxy.cfg is valid for HAProxy (Debian's 2.6, as the compose file's image), with and without
a certificate, and refuses to start without the ports docker-compose.yml gives it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.deploy.engine import ROOT

CONFIG = ROOT / "deploy" / "haproxy.cfg"
PORTS = {"FLOE_BIND": "127.0.0.1", "FLOE_HTTP_PORT": "18000", "FLOE_NODE1_PORT": "18001",
         "FLOE_NODE2_PORT": "18002", "FLOE_HTTPS_PORT": "18443"}


def check(variables: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`haproxy -c` on the config with these variables (and none of the caller's FLOE_*)."""
    binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not Path(binary).is_file():
        if os.environ.get("CI") == "true":
            raise AssertionError("CI=true and HAProxy is missing (make docker-tools)")
        pytest.skip("HAProxy is missing (make docker-tools installs it)")
    env = {key: value for key, value in os.environ.items() if not key.startswith("FLOE_")}
    return subprocess.run([binary, "-c", "-f", str(CONFIG)], env={**env, **variables}, capture_output=True,
                          text=True, timeout=60, check=False)


def test_the_config_is_valid_without_tls() -> None:
    done = check(PORTS)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr


def test_the_config_is_valid_with_a_certificate(tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=localhost"], check=True, capture_output=True, timeout=60)
    pem = tmp_path / "floe.pem"
    pem.write_bytes(cert.read_bytes() + key.read_bytes())
    done = check({**PORTS, "FLOE_TLS_CERT": str(pem)})
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr


def test_a_missing_certificate_is_refused(tmp_path: Path) -> None:
    done = check({**PORTS, "FLOE_TLS_CERT": str(tmp_path / "absent.pem")})
    assert done.returncode != 0
    assert "absent.pem" in done.stderr


def test_the_ports_are_required() -> None:
    done = check({key: value for key, value in PORTS.items() if key != "FLOE_NODE1_PORT"})
    assert done.returncode != 0
