"""The MCP adapter end to end: the SDK's client session over stdio."""

from __future__ import annotations

import sys

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from layoutkit import Workspace
from layoutkit.service.road.lean import tool_schema


def _run(script):  # type: ignore[no-untyped-def]
    async def main():  # type: ignore[no-untyped-def]
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "layoutkit.adapters.cli", "mcp", "--db", "sqlite://", "--toolsets", "all"],
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await script(session)

    return anyio.run(main)


def test_tools_are_the_registered_operations() -> None:
    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        return (await session.list_tools()).tools

    tools = _run(script)
    ws = Workspace.open()
    # Board-UI routes for people (agent_verdict), the HTTP upload of any file to a
    # task (attach_task_files) and the two halves of a wait_for_work look are
    # operations but never tools.
    expected = {op.name: op.describe() for op in ws.registry.tools()}
    assert {op["name"] for op in ws.operations()} - set(expected) == {
        "agent_verdict",
        "attach_task_files",
        "peek_work",
        "take_work",
    }
    assert {t.name for t in tools} == set(expected)
    for tool in tools:
        assert tool.description == expected[tool.name]["description"]
        # The lean schema: the contract's payload shapes are named, not inlined.
        assert tool.input_schema == tool_schema(ws.registry.get(tool.name))


def test_structured_result_and_coded_error() -> None:
    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        ok = await session.call_tool(
            "validate", {"element": {"kind": "prose", "payload": {"md": "hi"}}}
        )
        bad = await session.call_tool("docs", {"topic": "chrat"})
        unknown = await session.call_tool("nope", {})
        return ok, bad, unknown

    ok, bad, unknown = _run(script)
    assert ok.is_error is False
    assert ok.structured_content["ok"] is True
    assert bad.is_error is True
    assert bad.structured_content["status"] == 404
    assert bad.structured_content["code"] == "unknown_topic"
    assert unknown.is_error is True
    assert unknown.structured_content["code"] == "unknown_operation"


def test_render_board_comes_back_as_image_content_with_readable_tiles() -> None:
    notes = [{"kind": "note", "payload": {"md": f"Note {i}: read me"}} for i in range(60)]

    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        await session.call_tool("create", {"kind": "board", "slug": "seen"})
        await session.call_tool("compose_board", {"board": "seen", "cards": notes})
        small = await session.call_tool(
            "render_board",
            {"board": "seen", "format": "png", "region": {"x": 0, "y": 0, "w": 600, "h": 400}},
        )
        large = await session.call_tool(
            "render_board", {"board": "seen", "format": "png", "scale": 1.5}
        )
        return small, large

    small, large = _run(script)
    assert not small.is_error and not large.is_error
    assert [c.type for c in small.content] == ["image", "text"]
    assert small.content[0].mime_type == "image/png"
    kinds = [c.type for c in large.content]
    tiles = large.structured_content["tiles"]
    # The overview, the text mapping each tile to its board region, the tiles, the JSON.
    assert kinds == ["image", "text", *["image"] * len(tiles), "text"] and len(tiles) > 1
    assert "image 2: x" in large.content[1].text
    assert "data" not in large.structured_content["image"]
    assert all("data" not in t and t["scale"] == 1.5 for t in tiles)
    assert '"data"' not in large.content[-1].text  # no picture bytes in the JSON text
