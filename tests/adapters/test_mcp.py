"""The MCP adapter end to end: the SDK's client session over stdio."""

from __future__ import annotations

import sys

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from layoutkit import Workspace


def _run(script):  # type: ignore[no-untyped-def]
    async def main():  # type: ignore[no-untyped-def]
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "layoutkit.adapters.cli", "mcp", "--db", "sqlite://"],
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
    # Board-UI routes for people (agent_verdict) are operations but never tools.
    expected = {op.name: op.describe() for op in ws.registry.tools()}
    assert {op["name"] for op in ws.operations()} - set(expected) == {"agent_verdict"}
    assert {t.name for t in tools} == set(expected)
    for tool in tools:
        assert tool.description == expected[tool.name]["description"]
        assert tool.input_schema == expected[tool.name]["params_schema"]


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
