"""Toolsets and tool hints, seen by the official MCP client: in memory, over HTTP
(URL path and header) and over stdio (the CLI flag and the environment)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
from click.testing import CliRunner
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.memory import create_client_server_memory_streams

from layoutkit import ServiceError, Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app
from layoutkit.adapters.mcp import build_server
from layoutkit.service.road import toolsets
from layoutkit.service.road.registry import Operation
from tests.adapters.conftest import LiveServer

BOARD_BASICS = {
    "compose_board",
    "update_cards",
    "scrape_board",
    "render_board",
    "create",
    "update",
    "list",
    "get",
    "search",
    "validate",
    "docs",
}


def _in_memory(ws: Workspace, selected: frozenset[str] | None, script):  # type: ignore[no-untyped-def]
    server = build_server(ws, selected=selected)

    async def main_():  # type: ignore[no-untyped-def]
        async with (
            create_client_server_memory_streams() as (client, served),
            anyio.create_task_group() as tg,
        ):
            options = server.create_initialization_options()
            tg.start_soon(lambda: server.run(served[0], served[1], options))
            async with ClientSession(client[0], client[1]) as session:
                await session.initialize()
                out = await script(session)
            tg.cancel_scope.cancel()
        return out

    return anyio.run(main_)


async def _names(session: ClientSession) -> list[str]:
    return [t.name for t in (await session.list_tools()).tools]


# ---------------------------------------------------------------- the registry


def test_toolsets_partition_the_tools_and_the_default_covers_board_basics() -> None:
    ws = Workspace.open()
    for op in ws.registry:  # board-UI routes too: every operation has its one toolset
        assert toolsets.toolset_of(op) in toolsets.TOOLSETS, op.name
    groups = toolsets.members(ws.registry)
    listed = [name for names in groups.values() for name in names]
    assert sorted(listed) == sorted(op.name for op in ws.registry.tools())
    assert all(groups.values()), "a toolset without tools"
    default = {name for ts in toolsets.DEFAULT for name in groups[ts]}
    assert default >= BOARD_BASICS


def test_selection_names_all_default_and_refuses_unknown_names() -> None:
    assert toolsets.parse(None) == frozenset(toolsets.DEFAULT)
    assert toolsets.parse("all") == frozenset(toolsets.TOOLSETS)
    assert toolsets.parse(" Tasks, work ") == {"tasks", "work"}
    assert toolsets.parse("default,admin") == {*toolsets.DEFAULT, "admin"}
    with pytest.raises(ServiceError) as refused:
        toolsets.parse("boards,taks")
    body = refused.value.body
    assert body["code"] == "unknown_toolset"
    assert "tasks" in body["message"] and "all" in body["allowed"]
    assert body["didYouMean"] == ["tasks"]


# ---------------------------------------------------------------- hints


def _writers(op: Operation) -> list[Operation]:
    ops = list(op.kinds.values()) if op.kinds else [op]
    return [o for o in ops if o.writes or o.changes]


def test_every_tool_carries_a_title_and_hints_that_follow_its_declarations() -> None:
    ws = Workspace.open()
    ops = {op.name: op for op in ws.registry.tools()}

    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        return (await session.list_tools()).tools

    tools = _in_memory(ws, frozenset(toolsets.TOOLSETS), script)
    assert {t.name for t in tools} == set(ops)
    for tool in tools:
        op, hints = ops[tool.name], tool.annotations
        writers = _writers(op)
        assert tool.title and tool.title == hints.title and "_" not in tool.title
        assert hints.read_only_hint is (not writers), op.name
        # A retry is safe for a read, and for a write only when it takes a requestKey.
        keyed = all("requestKey" in w.params_schema["properties"] for w in writers)
        assert hints.idempotent_hint is keyed, op.name
        removes = any(
            w.destroys or "remove" in w.params_schema.get("properties", {}) for w in writers
        )
        assert hints.destructive_hint is removes, op.name
        fetches = any(o.fetches for o in (op.kinds or {op.name: op}).values())
        assert hints.open_world_hint is fetches, op.name
    by_name = {t.name: t.annotations for t in tools}
    # What the declarations mean for the tools an agent meets first.
    assert by_name["scrape_board"].read_only_hint is True
    assert by_name["compose_board"].open_world_hint is True  # link cards are fetched
    assert by_name["update_cards"].destructive_hint is True  # it takes `remove`
    assert by_name["delete_review_rule"].destructive_hint is True
    assert by_name["create"].read_only_hint is False and by_name["get"].read_only_hint is True
    assert by_name["wait_for_work"].read_only_hint is False  # it leases what it answers


# ---------------------------------------------------------------- in memory


def test_a_session_per_toolset_lists_exactly_its_tools() -> None:
    ws = Workspace.open()
    groups = toolsets.members(ws.registry)

    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        return await _names(session)

    for name, tools in groups.items():
        assert _in_memory(ws, frozenset({name}), script) == tools, name
    default = _in_memory(ws, None, script)
    assert sorted(default) == sorted(t for ts in toolsets.DEFAULT for t in groups[ts])


def test_a_tool_outside_the_selection_answers_which_toolset_has_it() -> None:
    ws = Workspace.open()

    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        outside = await session.call_tool("hand_back", {"id": "T-1"})
        inside = await session.call_tool("docs", {"topic": "chart"})
        return outside, inside

    outside, inside = _in_memory(ws, None, script)
    assert outside.is_error is True
    body = outside.structured_content
    assert body["code"] == "tool_not_selected" and body["toolset"] == "tasks"
    assert "/mcp/x/tasks" in body["message"] and "--toolsets" in body["message"]
    assert inside.is_error is False


# ---------------------------------------------------------------- over HTTP


def _over_http(url: str, token: str, path: str, headers: dict[str, str], script):  # type: ignore[no-untyped-def]
    async def main_():  # type: ignore[no-untyped-def]
        sent = {"authorization": f"Bearer {token}", **headers}
        async with (
            httpx2.AsyncClient(headers=sent, timeout=30) as client,
            streamable_http_client(f"{url}{path}", http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await script(session)

    return anyio.run(main_)


def test_http_selects_toolsets_by_path_and_by_header() -> None:
    ws = Workspace.open()
    token = ws.create_token("agent", "claude")
    groups = toolsets.members(ws.registry)

    async def listing(session: ClientSession):  # type: ignore[no-untyped-def]
        return await _names(session)

    async def outside(session: ClientSession):  # type: ignore[no-untyped-def]
        return await session.call_tool("list_tokens", {})

    with LiveServer(create_app(ws)) as server:
        for name, tools in groups.items():
            assert _over_http(server.url, token, f"/mcp/x/{name}", {}, listing) == tools
        both = _over_http(server.url, token, "/mcp/", {"X-MCP-Toolsets": "work,tasks"}, listing)
        # The path wins over the header.
        pathed = _over_http(server.url, token, "/mcp/x/admin/", {"X-MCP-Toolsets": "work"}, listing)
        default = _over_http(server.url, token, "/mcp", {}, listing)
        refused = _over_http(server.url, token, "/mcp/x/work", {}, outside)
        unknown = httpx.post(
            f"{server.url}/mcp/x/boards,diagramz",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={
                "accept": "application/json, text/event-stream",
                "authorization": f"Bearer {token}",
            },
        )
    assert set(both) == {*groups["work"], *groups["tasks"]}
    assert pathed == groups["admin"]
    assert set(default) == {t for ts in toolsets.DEFAULT for t in groups[ts]}
    assert refused.is_error is True
    assert refused.structured_content["toolset"] == "admin"
    assert unknown.status_code == 400
    assert unknown.json()["code"] == "unknown_toolset"
    assert "boards" in unknown.json()["allowed"]


def test_serve_offers_the_environment_selection_at_bare_mcp(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(toolsets.ENV, "review,annotations")
    ws = Workspace.open()
    token = ws.create_token("agent", "claude")
    groups = toolsets.members(ws.registry)

    async def listing(session: ClientSession):  # type: ignore[no-untyped-def]
        return await _names(session)

    with LiveServer(create_app(ws)) as server:
        bare = _over_http(server.url, token, "/mcp", {}, listing)
        named = _over_http(server.url, token, "/mcp/x/default", {}, listing)
    assert set(bare) == {*groups["review"], *groups["annotations"]}
    assert set(named) == {t for ts in toolsets.DEFAULT for t in groups[ts]}


# ---------------------------------------------------------------- the CLI


def _stdio(args: list[str], env: dict[str, str]) -> list[str]:
    async def main_() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "layoutkit.adapters.cli", "mcp", "--db", "sqlite://", *args],
            env={**os.environ, **env},
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await _names(session)

    return anyio.run(main_)


def test_cli_flag_and_environment_select_toolsets() -> None:
    groups = toolsets.members(Workspace.open().registry)
    assert _stdio(["--toolsets", "tasks,search"], {}) == groups["tasks"] + groups["search"]
    assert _stdio([], {toolsets.ENV: "work"}) == groups["work"]


def test_cli_refuses_an_unknown_toolset_naming_the_allowed() -> None:
    result = CliRunner().invoke(main, ["mcp", "--db", "sqlite://", "--toolsets", "bords"])
    assert result.exit_code == 2
    assert "no toolset named 'bords'" in result.output and "annotations" in result.output


def test_the_toolsets_page_is_current() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "mcp-toolsets.md"
    assert page.read_text() == toolsets.render(Workspace.open().registry), (
        "docs/mcp-toolsets.md is stale: python -m layoutkit.service.road.toolsets "
        "> docs/mcp-toolsets.md"
    )


def test_serve_refuses_an_unknown_toolset_in_the_environment() -> None:
    result = CliRunner().invoke(
        main, ["serve", "--db", "sqlite://"], env={toolsets.ENV: "boards,nope"}
    )
    assert result.exit_code == 2
    assert "no toolset named 'nope'" in result.output
