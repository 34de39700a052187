"""Workspace search over HTTP (``GET /api/v1/search``) and the tool protocol, end to end."""

from __future__ import annotations

from typing import Any

import anyio
import httpx

from layoutkit import Workspace
from layoutkit.adapters.http import create_app
from layoutkit.meaning import HashingEmbedder
from tests.adapters.conftest import Api, LiveServer, mcp_session


def _seed(ws: Workspace) -> int:
    ws.call("create", {"kind": "board", "slug": "billing", "tags": ["Invoices"]})
    ws.call(
        "compose_board",
        {"board": "billing", "cards": [{"kind": "note", "payload": {"md": "Invoice layout"}}]},
    )
    task = ws.call("create", {"kind": "task", "title": "Invoice numbers skip", "body": "since May"})
    return int(task["task"]["id"])


def test_get_search_answers_every_group_with_limit_and_resolve(api: Api) -> None:
    tid = _seed(api.ws)
    got = api.client.get("/api/v1/search", params={"q": "invoice"})
    assert got.status_code == 200, got.text
    groups = got.json()["groups"]
    assert {g: len(rows) for g, rows in groups.items() if rows} == {
        "tasks": 1,
        "boards": 1,
        "cards": 1,
        "tags": 1,
    }
    assert groups["tasks"][0]["url"] == f"/tasks/{tid}"
    assert groups["tasks"][0]["snippet"] == "«Invoice» numbers skip"
    typo = api.client.get("/api/v1/search", params={"q": "invoce", "kind": "task"}).json()
    assert typo["corrections"] == [{"from": "invoce", "to": "invoice"}]
    assert [(h["id"], h["corrected"]) for h in typo["groups"]["tasks"]] == [(tid, True)]
    pinned = api.client.get("/api/v1/search", params={"q": f"#{tid}", "limit": 1}).json()
    assert [h["pinned"] for h in pinned["groups"]["tasks"]] == [True]
    resolved = api.client.get(
        "/api/v1/search", params={"q": "invoice numbers skip", "mode": "resolve"}
    )
    assert resolved.status_code == 200 and resolved.json()["verdict"] == "exact"
    bad = api.client.get("/api/v1/search", params={"q": "invoice", "limit": 0})
    assert bad.status_code == 400


def test_an_mcp_client_searches_through_the_generic_tool() -> None:
    ws = Workspace.open()
    tid = _seed(ws)
    token = ws.create_token("agent", "claude")

    async def run() -> Any:
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                return await session.call_tool("search", {"q": "numbers skip"})

    got = anyio.run(run)
    ws.close()
    assert got.is_error is False
    rows = got.structured_content["groups"]["tasks"]
    assert [(r["id"], r["matchedIn"]) for r in rows] == [(tid, ["title"])]


def test_get_search_ranks_tasks_by_meaning_with_an_embedder() -> None:
    ws = Workspace.open(embedder=HashingEmbedder(1024))
    tid = ws.call("create", {"kind": "task", "title": "Users cannot reset their password"})
    ws.call("create", {"kind": "task", "title": "Dashboard layout drifts"})
    token = ws.create_token("owner", "tests")
    with LiveServer(create_app(ws)) as server:
        got = httpx.get(
            f"{server.url}/api/v1/search",
            params={"q": "password reset mail", "kind": "task"},
            headers={"authorization": f"Bearer {token}"},
            timeout=30,
        )
    ws.close()
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["mode"] == "hybrid"
    assert [(h["id"], h["matchedIn"]) for h in body["groups"]["tasks"]] == [
        (tid["task"]["id"], ["meaning"])
    ]
