"""Project memory (kind project_memory) through every road: HTTP (a real server), MCP
and the CLI write, list, read and refuse the same notes."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
from click.testing import CliRunner

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app
from tests.adapters.conftest import Api, LiveServer, mcp_session

NOTE = {"kind": "project_memory", "project": "app", "key": "deploy"}


def test_project_memory_over_http(api: Api) -> None:
    api.op("create", {"kind": "task", "title": "Make the project", "project": "app"})
    made = api.op("create", {**NOTE, "text": "Ship with make.", "load": "first"})
    assert made.status_code == 200, made.text
    assert made.json()["memory"]["version"] == 1
    again = api.op("update", {**NOTE, "text": "Ship with make ship."})
    assert again.json()["memory"]["version"] == 2
    listed = api.op("list", {"kind": "project_memory", "project": "app"}).json()["items"]
    assert [(n["key"], n["version"], n["load"]) for n in listed] == [("deploy", 2, "first")]
    got = api.op("get", NOTE).json()
    assert got["memory"]["text"] == "Ship with make ship."
    missing = api.op("get", {**NOTE, "key": "deplyo"})
    body = missing.json()
    assert (missing.status_code, body["code"], body["field"]) == (404, "unknown_memory", "key")
    bad = api.op("create", {**NOTE, "text": "x", "load": "soon"})
    assert (bad.status_code, bad.json()["field"]) == (400, "load")


def test_project_memory_over_mcp() -> None:
    ws = Workspace.open()
    token = ws.create_token("agent", "claude")
    ws.call("create", {"kind": "task", "title": "Make the project", "project": "app"})

    async def script() -> tuple:
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                made = await session.call_tool("create", {**NOTE, "text": "Ship with make."})
                got = await session.call_tool("get", NOTE)
                listed = await session.call_tool(
                    "list", {"kind": "project_memory", "project": "app"}
                )
                refused = await session.call_tool("get", {**NOTE, "project": "nope"})
                return made, got, listed, refused

    made, got, listed, refused = anyio.run(script)
    ws.close()
    assert made.is_error is False
    assert made.structured_content["memory"]["writtenBy"] == "agent:claude"
    assert got.structured_content["memory"]["text"] == "Ship with make."
    assert [n["key"] for n in listed.structured_content["items"]] == ["deploy"]
    assert refused.is_error is True
    assert (refused.structured_content["status"], refused.structured_content["code"]) == (
        404,
        "unknown_project",
    )


def test_project_memory_over_the_cli(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    runner = CliRunner()

    def call(op: str, params: dict) -> tuple[int, dict]:
        res = runner.invoke(main, ["call", op, json.dumps(params), "--db", db])
        return res.exit_code, json.loads(res.output)

    assert call("create", {"kind": "task", "title": "CLI", "project": "app"})[0] == 0
    code, made = call("create", {**NOTE, "text": "Ship with make.", "load": "never"})
    assert code == 0 and made["memory"]["load"] == "never"
    code, got = call("get", NOTE)
    assert code == 0 and got["memory"]["text"] == "Ship with make."
    code, refused = call("update", {**NOTE, "key": "other", "text": "x"})
    assert (code, refused["code"], refused["field"]) == (1, "unknown_memory", "key")
