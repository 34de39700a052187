"""MCP over streamable HTTP, mounted by the HTTP app at /mcp, with bearer tokens."""

from __future__ import annotations

import anyio
import httpx
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.adapters.conftest import Api


def _session(api: Api, token: str, script, path: str = "/mcp/"):  # type: ignore[no-untyped-def]
    async def main():  # type: ignore[no-untyped-def]
        headers = {"authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as client,
            streamable_http_client(f"{api.url}{path}", http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await script(session)

    return anyio.run(main)


def test_tools_compose_and_read_back_over_http(api: Api) -> None:
    agent = api.ws.create_token("agent", "claude")

    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        tools = {t.name for t in (await session.list_tools()).tools}
        await session.call_tool("create", {"kind": "board", "slug": "m"})
        composed = await session.call_tool(
            "compose_board", {"board": "m", "cards": [{"kind": "text", "payload": {"md": "hi"}}]}
        )
        scraped = await session.call_tool("scrape_board", {"board": "m"})
        return tools, composed, scraped

    tools, composed, scraped = _session(api, agent, script)
    assert {"compose_board", "scrape_board", "docs"} <= tools
    assert composed.is_error is False
    card = scraped.structured_content["cards"][0]
    assert card["layer"] == "ai"  # the agent token's principal wrote it


def test_http_mcp_needs_a_credential(api: Api) -> None:
    res = httpx.post(
        f"{api.url}/mcp/",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"accept": "application/json, text/event-stream"},
    )
    assert res.status_code == 401


def test_mcp_answers_at_its_advertised_address_without_a_redirect(api: Api) -> None:
    # serve prints .../mcp; a client that does not follow redirects must work there.
    bare = httpx.post(
        f"{api.url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"accept": "application/json, text/event-stream"},
        follow_redirects=False,
    )
    assert bare.status_code == 401  # answered by the endpoint itself, not a 307

    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        return {t.name for t in (await session.list_tools()).tools}

    tools = _session(api, api.token, script, path="/mcp")
    assert "compose_board" in tools
