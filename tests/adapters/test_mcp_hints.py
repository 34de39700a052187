"""Tool errors an agent can act on: isError, status and code kept, a hint added."""

from __future__ import annotations

from typing import Any

from mcp.client.session import ClientSession

from layoutkit import Principal, Workspace
from tests.adapters.mcp_memory import in_memory
from tests.adapters.naive_agent import apply_patch

AGENT = Principal.agent("claude")
USER = Principal.user("ana")


def _errors(ws: Workspace, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    async def script(session: ClientSession) -> list[dict[str, Any]]:
        found = []
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            assert result.is_error, (name, arguments)
            found.append(dict(result.structured_content or {}))
        return found

    return in_memory(ws, script, AGENT)


def test_a_hint_names_the_corrected_call() -> None:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "h"})
    card = {"kind": "note", "payload": {"md": "hi"}}
    calls = [
        ("compose_bord", {"board": "h"}),
        ("compose_board", {"board": "h", "cards": [{"kind": "nte", "payload": {"md": "hi"}}]}),
        ("compose_board", {"board": "h", "cards": [{**card, "refs": "x"}]}),
        ("compose_board", {"board": "h", "cards": [card], "layout": "grd"}),
        (
            "compose_board",
            {"board": "h", "cards": [{"kind": "shape", "payload": {"shape": "rnd"}}]},
        ),
    ]
    tool, kind, field, layout, value = _errors(ws, calls)
    assert (tool["status"], tool["code"]) == (404, "unknown_operation")
    assert tool["hint"]["tool"] == "compose_board"
    # Existing fields stay; the hint is added beside them.
    assert (kind["status"], kind["code"], kind["index"]) == (400, "unknown_kind", 0)
    assert kind["hint"]["patch"] == [{"op": "replace", "path": "/cards/0/kind", "value": "note"}]
    assert field["code"] == "invalid_params" and field["field"] == "cards[0].refs"
    assert field["hint"]["patch"] == [
        {"op": "move", "from": "/cards/0/refs", "path": "/cards/0/ref"}
    ]
    assert layout["hint"]["allowed"] == ["column", "row", "grid"]
    assert apply_patch(calls[3][1], layout["hint"]["patch"])["layout"] == "grid"
    assert value["docs"] == "shape" and value["resource"] == "layoutkit://schema/card/shape"
    assert value["hint"]["patch"][0] == {
        "op": "replace",
        "path": "/cards/0/payload/shape",
        "value": "round",
    }


def test_a_needs_confirm_hint_carries_the_token() -> None:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "c"}, USER)
    notes = [{"kind": "note", "payload": {"md": f"idea {i}"}} for i in range(3)]
    ids = [c["id"] for c in ws.call("compose_board", {"board": "c", "cards": notes}, USER)["cards"]]
    asked = {"remove": ids[:1]}
    (refused,) = _errors(ws, [("update_cards", asked)])
    assert (refused["status"], refused["code"]) == (409, "needs_confirm")
    patch = refused["hint"]["patch"]
    assert patch == [{"op": "add", "path": "/confirm", "value": refused["token"]}]
    confirmed = {**apply_patch(asked, patch), "reason": "the user asked for it to go"}

    async def script(session: ClientSession) -> Any:
        return await session.call_tool("update_cards", confirmed)

    assert in_memory(ws, script, AGENT).is_error is False


def test_an_invalid_param_names_its_expected_shape_and_docs_topic() -> None:
    ws = Workspace.open()
    (refused,) = _errors(ws, [("render_board", {"board": "x", "scale": "big"})])
    assert refused["code"] == "invalid_params" and refused["field"] == "scale"
    assert refused["docs"] == "op:render_board"
    assert refused["expected"].startswith("scale: a number")
    assert refused["expectedSchema"]["type"] == "number"


def test_a_payload_patch_is_named_by_its_place_in_the_patch_list() -> None:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "p"}, AGENT)
    (card,) = ws.call(
        "compose_board", {"board": "p", "cards": [{"kind": "note", "payload": {"md": "x"}}]}, AGENT
    )["cards"]
    asked = {"patch": [{"id": card["id"], "payload": {"color": "pinkk"}}]}
    (refused,) = _errors(ws, [("update_cards", asked)])
    assert refused["path"] == "patch[0].payload.color" and refused["docs"] == "note"
    fixed = apply_patch(asked, refused["hint"]["patch"])
    assert fixed["patch"][0]["payload"]["color"] == "pink"

    async def script(session: ClientSession) -> Any:
        return await session.call_tool("update_cards", fixed)

    assert in_memory(ws, script, AGENT).is_error is False
