"""review_plan end to end: the HTTP route of a running server, an MCP session, the CLI."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
from click.testing import CliRunner
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app
from tests.adapters.conftest import Api, LiveServer
from tests.review.test_review_plan import board, flat, screen


def test_the_plan_route(api: Api) -> None:
    board(api.ws, "app", [screen(), screen(), flat((0, 0, 0))])
    out = api.client.post("/api/v1/review/plan", json={"boards": ["app"]})
    assert out.status_code == 200, out.text
    body = out.json()
    assert body["planned"] == {"judge": 1, "exactDuplicates": 1, "reused": 0, "gaps": 1}
    receipt = api.client.post("/api/v1/review/plan", json={"run": body["run"]})
    assert (receipt.status_code, receipt.json()["code"]) == (403, "sight_required")
    unknown = api.client.post("/api/v1/review/plan", json={"boards": ["nope"]})
    assert (unknown.status_code, unknown.json()["field"]) == (404, "boards[0]")


def test_the_route_refuses_thousands_of_boards_and_a_repeated_one(api: Api) -> None:
    board(api.ws, "app", [screen()])
    many = api.client.post("/api/v1/review/plan", json={"boards": ["app"] * 20_000})
    assert many.status_code == 400, many.text
    body = many.json()
    assert (body["code"], body["field"]) == ("invalid_params", "boards")
    assert body["findings"] == [{"path": "boards", "message": "20000 items; at most 50"}]
    # The refusal names the count, not the 20,000 slugs sent.
    assert len(many.content) < 1000
    twice = api.client.post("/api/v1/review/plan", json={"boards": ["app", "app"]})
    assert twice.status_code == 400, twice.text
    assert (twice.json()["code"], twice.json()["field"]) == ("invalid_params", "boards[1]")


def test_an_agent_plans_over_mcp() -> None:
    ws = Workspace.open()
    board(ws, "app", [screen(), screen("Send")])
    token = ws.create_token("agent", "claude")

    async def go():  # type: ignore[no-untyped-def]
        with LiveServer(create_app(ws)) as server:
            async with (
                httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30) as c,
                streamable_http_client(f"{server.url}/mcp/x/review/", http_client=c) as (
                    read,
                    write,
                ),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await session.call_tool("review_plan", {"boards": ["app"]})

    out = anyio.run(go)
    ws.close()
    assert out.is_error is False
    assert out.structured_content["tiles"] == {"whole": 1, "crop": 1}


def test_cli_review_plan(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(db) as ws:
        board(ws, "app", [screen(), screen(), None])
    res = CliRunner().invoke(main, ["review", "plan", "app", "--db", db])
    assert res.exit_code == 0, res.output
    assert "1 whole screens and 0 crops; 1 exact duplicates, 0 reused, 1 gaps" in res.stdout
    assert "gap: card 3 on app: failed" in res.stdout
    missing = CliRunner().invoke(main, ["review", "plan", "nope", "--db", db])
    assert missing.exit_code == 1 and "unknown_board" in missing.stderr
