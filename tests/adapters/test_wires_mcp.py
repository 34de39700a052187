"""update_edges through MCP: an agent relabels its wire, and removing a person's
wire runs the confirm handshake with the hint that repeats the call."""

from __future__ import annotations

from typing import Any

from mcp.client.session import ClientSession

from layoutkit import Principal, Workspace
from tests.adapters.mcp_memory import in_memory
from tests.adapters.naive_agent import apply_patch

AGENT = Principal.agent("claude")
ANA = Principal.user("ana")


def test_an_agent_changes_and_removes_wires_through_mcp() -> None:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "m"})
    cards = [{"kind": "note", "ref": r, "payload": {"md": r}} for r in "abc"]
    a, b, c = (
        x["id"] for x in ws.call("compose_board", {"board": "m", "cards": cards}, AGENT)["cards"]
    )
    (mine,) = ws.call("compose_board", {"board": "m", "edges": [{"from": a, "to": b}]}, AGENT)[
        "edges"
    ]
    (hers,) = ws.call("compose_board", {"board": "m", "edges": [{"from": b, "to": c}]}, ANA)[
        "edges"
    ]

    async def script(session: ClientSession) -> list[Any]:
        names = {t.name for t in (await session.list_tools()).tools}
        assert "update_edges" in names  # in the default toolset, beside update_cards
        relabel = {"board": "m", "set": [{"id": mine["id"], "label": "then", "rel": "causes"}]}
        done = await session.call_tool("update_edges", relabel)
        remove = {"board": "m", "remove": [hers["id"]]}
        asked = await session.call_tool("update_edges", remove)
        again = apply_patch(remove, asked.structured_content["hint"]["patch"])
        again["reason"] = "the person asked for it in chat"
        gone = await session.call_tool("update_edges", again)
        read = await session.call_tool("scrape_board", {"board": "m"})
        return [done, asked, gone, read]

    done, asked, gone, read = in_memory(ws, script, AGENT)
    assert done.is_error is False
    assert asked.is_error is True
    body = asked.structured_content
    assert (body["status"], body["code"]) == (409, "needs_confirm")
    assert body["preview"][0]["author"] == "user:ana"
    assert gone.is_error is False
    assert read.structured_content["edges"] == [
        {"id": mine["id"], "from": a, "to": b, "rel": "causes", "label": "then"}
    ]
