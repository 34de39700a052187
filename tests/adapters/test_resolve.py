"""Resolving a task reference end to end: HTTP's GET /api/v1/search with mode resolve,
the MCP search tool, and an id-taking tool given a reference."""

from __future__ import annotations

from typing import Any

import anyio

from layoutkit import Workspace
from layoutkit.adapters.http import create_app
from tests.adapters.conftest import Api, LiveServer, mcp_session


def test_http_get_search_resolves_a_reference(api: Api) -> None:
    epic = api.op("create", {"kind": "task", "title": "Payments", "type": "epic"}).json()["task"]
    bug = api.op(
        "create",
        {"kind": "task", "title": "Card form crash", "type": "bug", "parentId": epic["id"]},
    ).json()["task"]
    api.op("create", {"kind": "task", "title": "Card form crash"})
    res = api.client.get(
        "/api/v1/search", params={"q": f"pod #{epic['id']} chyba card form", "mode": "resolve"}
    )
    assert res.status_code == 200
    body = res.json()
    assert body["verdict"] == "confident"
    assert [c["id"] for c in body["candidates"]] == [bug["id"]]
    assert body["candidates"][0]["parent"]["title"] == "Payments"
    assert body["interpreted"]["type"] == ["bug"]
    assert body["interpreted"]["under"] == {"id": epic["id"], "title": "Payments"}
    refused = api.client.get("/api/v1/search", params={"q": "tag:ux card", "mode": "resolve"})
    assert refused.status_code == 400
    assert (refused.json()["code"], refused.json()["facet"]) == ("unsupported_facet", "tag")


def test_mcp_search_and_an_id_taking_tool_given_a_reference() -> None:
    ws = Workspace.open()
    task = ws.call("create", {"kind": "task", "title": "Dark mode toggle"})["task"]
    token = ws.create_token("agent", "claude")

    async def run() -> tuple[Any, Any]:
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                found = await session.call_tool(
                    "search", {"q": "dark mode toggle", "mode": "resolve"}
                )
                refused = await session.call_tool(
                    "update", {"kind": "task", "id": "dark mode toggle", "status": "done"}
                )
                return found, refused

    found, refused = anyio.run(run)
    ws.close()
    assert found.is_error is False
    assert found.structured_content["verdict"] == "exact"
    assert found.structured_content["candidates"][0]["id"] == task["id"]
    assert refused.is_error is True
    body = refused.structured_content
    assert (body["code"], body["verdict"]) == ("task_reference", "exact")
    assert body["next"] == {
        "operation": "update",
        "params": {"kind": "task", "id": task["id"], "status": "done"},
    }
