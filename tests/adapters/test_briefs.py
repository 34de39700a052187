"""Briefs through every road: HTTP (a real server), the CLI (click's runner) and MCP."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
from click.testing import CliRunner

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app
from layoutkit.service.tasks.briefs import CHAPTER, SECTIONS
from tests.adapters.conftest import Api, LiveServer, mcp_session
from tests.service.brainstorm import brainstorm


def test_brief_route_composes_and_the_completed_brief_uploads_as_version_2(api: Api) -> None:
    b = brainstorm(api.ws)
    res = api.client.post(f"/api/v1/tasks/{b.epic}/brief", json={})
    assert res.status_code == 200, res.text
    body = res.json()
    assert body["brief"]["version"] == 1 and body["chapter"]["title"] == CHAPTER
    assert body["skeleton"].startswith("# Brief: Checkout v2")
    done = body["skeleton"].replace(SECTIONS[0].placeholder(), "Guests pay; carts last.")
    up = api.client.post(
        f"/api/v1/tasks/{b.epic}/upload",
        files=[("files", (body["brief"]["filename"], done.encode(), "text/markdown"))],
        data={"kind": "brief"},
    )
    assert up.status_code == 201, up.text
    assert [(u["ref"], u["version"]) for u in up.json()["uploaded"]] == [(body["brief"]["ref"], 2)]
    pickup = api.op("pickup_task", {"id": b.epic}).json()
    assert pickup["rail"][0]["ref"] == body["brief"]["ref"] and pickup["rail"][0]["version"] == 2
    plan = api.op("scrape_board", {"board": b.board, "section": CHAPTER}).json()
    assert plan["cards"][0]["id"] == body["chapter"]["section"]
    bare = api.op("create", {"kind": "task", "title": "Bare", "type": "epic"}).json()["task"]["id"]
    missing = api.client.post(f"/api/v1/tasks/{bare}/brief", json={})
    assert (missing.status_code, missing.json()["code"]) == (404, "no_brainstorm_board")
    openapi = api.client.get("/api/v1/openapi.json").json()
    assert "post" in openapi["paths"]["/api/v1/tasks/{id}/brief"]


def test_cli_task_brief_writes_the_skeleton_and_upload_continues_it(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    with Workspace.open(db) as ws:
        b = brainstorm(ws)
    runner = CliRunner()
    out = tmp_path / "brief.md"
    res = runner.invoke(main, ["task", "brief", str(b.epic), "--out", str(out), "--db", db])
    assert res.exit_code == 0, res.output
    text = out.read_text(encoding="utf-8")
    assert [line[3:] for line in text.splitlines() if line.startswith("## ")] == [
        s.title for s in SECTIONS
    ]
    assert "uploaded as version 1" in res.output
    completed = tmp_path / f"{b.board}-brief.md"
    completed.write_text(text.replace(SECTIONS[0].placeholder(), "Guests pay."), encoding="utf-8")
    upload = ["task", "upload", str(b.epic), str(completed), "--kind", "brief"]
    res = runner.invoke(main, [*upload, "--hint", "read first", "--json", "--db", db])
    assert res.exit_code == 0, res.output
    (uploaded,) = json.loads(res.stdout)["uploaded"]
    assert (uploaded["ref"], uploaded["version"]) == (f"{b.board}-brief", 2)
    printed = runner.invoke(main, ["task", "brief", str(b.epic), "--db", db])
    assert printed.exit_code == 0, printed.output
    assert printed.output.startswith("# Brief: Checkout v2")
    pickup = runner.invoke(main, ["task", "pickup", str(b.epic), "--db", db])
    assert pickup.exit_code == 0, pickup.output
    assert f"brief {b.board}-brief v2" in pickup.output and "## Read on demand" in pickup.output
    refused = runner.invoke(main, ["task", "brief", "999", "--db", db])
    assert refused.exit_code == 1 and "unknown_task" in refused.output


def test_compose_brief_over_mcp() -> None:
    ws = Workspace.open()
    b = brainstorm(ws)
    token = ws.create_token("owner", "mcp")

    async def session_script() -> tuple:
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                tools = {t.name for t in (await session.list_tools()).tools}
                brief = await session.call_tool("compose_brief", {"id": b.epic})
                pickup = await session.call_tool("pickup_task", {"id": b.epic})
                return tools, brief, pickup

    tools, brief, pickup = anyio.run(session_script)
    ws.close()
    assert {"compose_brief", "pickup_task"} <= tools
    assert brief.is_error is False
    assert brief.structured_content["brief"]["uploaded"] is True
    assert pickup.structured_content["rail"][0]["kind"] == "brief"
