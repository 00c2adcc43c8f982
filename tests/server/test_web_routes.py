"""The routes a browser uses besides the API proper: the client at `/`, /docs offline, the rules as JSON."""

from __future__ import annotations

import io
import re

import httpx
import pytest

from floe_cli import versus_cmds
from rules.payload.ruleset import PAYLOAD_VERSUS
from rules.versus.ruleset import PENGO_VERSUS
from server.app import DEFAULT_WEB_ROOT
from server.compendium import compendium
from tests.server.conftest import StartServer, fast_config

pytestmark = pytest.mark.asyncio


async def test_docs_load_nothing_from_elsewhere_and_name_the_websocket(start_server: StartServer) -> None:
    """/docs refers only to this server's own files (Swagger UI from the client's build), and the API's
    description sends readers to the websocket at /ws."""
    server = await start_server(fast_config())
    async with httpx.AsyncClient(base_url=server.http_url, timeout=30) as http:
        page = await http.get("/docs")
        assert page.status_code == 200
        assert re.findall(r"(?:src|href)=\"(https?:[^\"]+)\"", page.text) == []
        assert "https://cdn" not in page.text and "/docs-assets/swagger-ui-bundle.js" in page.text
        schema = (await http.get("/openapi.json")).json()
        assert "/ws" in schema["info"]["description"]
        if (DEFAULT_WEB_ROOT / "index.html").is_file():  # make test builds the client first
            for path in ("/docs-assets/swagger-ui-bundle.js", "/docs-assets/swagger-ui.css"):
                assert (await http.get(path)).status_code == 200, path
            index = await http.get("/")
            assert index.status_code == 200 and "<main id=\"app\">" in index.text
            asset = re.search(r"/assets/[^\"]+\.js", index.text)
            assert asset is not None and (await http.get(asset.group(0))).status_code == 200


async def test_the_rules_page_reads_the_table_floe_rules_prints(start_server: StartServer) -> None:
    """GET /api/rules is the node's ruleset's compendium, `?ruleset=payload-versus` Payload versus's (from
    its Ruleset's tables), every row of each a line `floe rules [--ruleset]` prints; an unknown one 404s."""
    server = await start_server(fast_config())
    async with httpx.AsyncClient(base_url=server.http_url, timeout=30) as http:
        book = (await http.get("/api/rules")).json()
        payload = (await http.get("/api/rules", params={"ruleset": "payload-versus"})).json()
        unknown = await http.get("/api/rules", params={"ruleset": "chess"})
    assert book == compendium(PENGO_VERSUS).plain()
    assert payload == compendium(PAYLOAD_VERSUS).plain()
    assert payload["heading"].startswith("payload-versus ruleset version 1")
    assert any(row[0].endswith("Prism") for section in payload["sections"] for row in section["rows"])
    assert unknown.status_code == 404 and unknown.json()["code"] == "not-found"
    for shown, argv in ((book, ["rules"]), (payload, ["rules", "--ruleset", "payload-versus"])):
        out = io.StringIO()
        assert versus_cmds.main(argv, stdout=out) == 0
        printed = out.getvalue()
        assert shown["heading"] in printed
        for section in shown["sections"]:
            assert section["title"] in printed
            for name, value, _note in section["rows"]:
                row = rf"^  {re.escape(name)} +{re.escape(value[:28])}"
                assert re.search(row, printed, re.MULTILINE), name
