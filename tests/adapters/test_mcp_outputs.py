"""Declared result shapes: every output schema is sound, the MCP tools advertise them,
and real results of those tools validate against them (through the SDK's own client,
which checks structured content against a listed outputSchema itself)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp.client._memory import InMemoryTransport
from mcp.client.session import ClientSession

from layoutkit import Principal, Workspace
from layoutkit.adapters.http import create_app
from layoutkit.adapters.mcp import _result, build_server
from layoutkit.service.road import toolsets
from tests.adapters.conftest import LiveServer, mcp_session
from tests.review.test_review_plan import board as screens_board
from tests.review.test_review_plan import screen, sight_of

AGENT = Principal.agent("claude")
#: The operations agents call most (issue 29), and those the docs' examples call.
NAMED = {
    "compose_board",
    "update_cards",
    "scrape_board",
    "search",
    "wait_for_work",
    "get_card_image",
    "annotate",
    "hand_back",
    "review_plan",
    "validate",
    "docs",
}
#: What one output schema may cost in the tool list.
OUTPUT_CHARS = 2500


def _declared(ws: Workspace) -> dict[str, dict[str, Any]]:
    return {op.name: op.output for op in ws.registry.tools() if op.output is not None}


def _errors(schema: dict[str, Any], value: Any) -> list[str]:
    return [e.message for e in Draft202012Validator(schema).iter_errors(value)]


def test_every_output_schema_is_sound_small_and_covers_the_named_operations() -> None:
    ws = Workspace.open()
    declared = _declared(ws)
    assert set(declared) >= NAMED
    for name, schema in declared.items():
        Draft202012Validator.check_schema(schema)
        # MCP wants an object at the root of an outputSchema.
        assert schema["type"] == "object", name
        assert len(json.dumps(schema)) <= OUTPUT_CHARS, name
    # A board-UI route is no tool, so nothing of it is advertised.
    assert all(op.tool for op in ws.registry if op.output is not None)


def test_schemas_are_not_vacuous() -> None:
    """A result missing what an agent relies on fails its shape."""
    schemas = _declared(Workspace.open())
    assert _errors(schemas["compose_board"], {"board": "b", "cards": []})
    assert _errors(schemas["wait_for_work"], {"agent": "a", "scope": {}, "leaseSeconds": 60})
    assert _errors(schemas["search"], {"corrections": []})
    picture_with_bytes = {"mime": "image/png", "data": "AAAA"}
    shot = {"board": "b", "cardId": 1, "cardVersion": 1, "width": 1, "height": 1}
    assert _errors(schemas["get_card_image"], {**shot, "image": picture_with_bytes})
    assert not _errors(schemas["get_card_image"], {**shot, "image": {"mime": "image/png"}})


def _seed(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "b", "project": "shop"})
    ws.call("post_ask", {"project": "shop", "question": "Which colour?"})
    ws.call("create", {"kind": "task", "title": "Fix login"})
    screens_board(ws, "app", [screen(), screen("Send")])


def _session_calls(ws: Workspace, script: Any) -> Any:
    async def main() -> Any:
        async with (
            InMemoryTransport(build_server(ws, AGENT, selected=toolsets.parse("all"))) as (
                read,
                write,
            ),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await script(session)

    return anyio.run(main)


async def _board_calls(session: ClientSession) -> dict[str, Any]:
    out: dict[str, Any] = {}
    notes = [
        {"ref": "a", "kind": "note", "payload": {"md": "Pay now"}},
        {"ref": "c", "kind": "note", "payload": {"md": "Then ship"}},
    ]
    out["compose_board"] = await session.call_tool(
        "compose_board", {"board": "b", "cards": notes, "edges": [{"from": "a", "to": "c"}]}
    )
    ids = [c["id"] for c in out["compose_board"].structured_content["cards"]]
    out["update_cards"] = await session.call_tool(
        "update_cards", {"patch": [{"id": ids[0], "payload": {"md": "Pay later"}, "w": 200}]}
    )
    out["scrape_board"] = await session.call_tool("scrape_board", {"board": "b"})
    out["get_card_image"] = await session.call_tool(
        "get_card_image", {"board": "b", "cardId": ids[0]}
    )
    out["get_card_image region"] = await session.call_tool(
        "get_card_image",
        {"board": "b", "cardId": ids[1], "region": {"x": 0, "y": 0, "w": 40, "h": 30}},
    )
    out["get_card_image sheet"] = await session.call_tool(
        "get_card_image", {"board": "b", "cardIds": ids}
    )
    finding = {
        "key": "k1",
        "cardId": ids[0],
        "cardVersion": 2,
        "region": {"nx": 0.1, "ny": 0.1, "nw": 0.3, "nh": 0.3},
        "prompt": {"summary": "Low contrast"},
        "severity": "high",
    }
    out["annotate"] = await session.call_tool("annotate", {"board": "b", "items": [finding]})
    return out


async def _other_calls(session: ClientSession) -> dict[str, Any]:
    out: dict[str, Any] = {}
    out["search"] = await session.call_tool("search", {"q": "later"})
    out["search resolve"] = await session.call_tool("search", {"q": "1", "mode": "resolve"})
    out["wait_for_work"] = await session.call_tool(
        "wait_for_work", {"project": "shop", "timeout": 0}
    )
    # The one ask is now held under this agent's lease: nothing more to take.
    out["wait_for_work idle"] = await session.call_tool(
        "wait_for_work", {"project": "shop", "timeout": 0}
    )
    out["review_plan"] = await session.call_tool("review_plan", {"boards": ["app"]})
    out["validate"] = await session.call_tool(
        "validate", {"card": {"kind": "note", "payload": {"md": "hi"}}}
    )
    out["docs"] = await session.call_tool("docs", {})
    out["docs topic"] = await session.call_tool("docs", {"topic": "note"})
    return out


def test_results_over_an_mcp_session_validate_against_the_advertised_schemas() -> None:
    ws = Workspace.open()
    _seed(ws)

    async def script(session: ClientSession) -> Any:
        listed = {t.name: t.output_schema for t in (await session.list_tools()).tools}
        # The SDK client validates each call's structured content against these itself.
        return listed, {**await _board_calls(session), **await _other_calls(session)}

    listed, results = _session_calls(ws, script)
    schemas = _declared(ws)
    assert {name for name, schema in listed.items() if schema} == set(schemas)
    assert all(listed[name] == schema for name, schema in schemas.items())
    for call, result in results.items():
        assert result.is_error is False, (call, result.structured_content)
        assert _errors(schemas[call.split()[0]], result.structured_content) == [], call
    assert results["wait_for_work"].structured_content["asks"]
    assert results["wait_for_work idle"].structured_content["idle"] is True
    assert results["search resolve"].structured_content["verdict"] == "exact"
    assert "text" in results["docs topic"].structured_content


def test_pictures_stay_image_content_outside_the_structured_result() -> None:
    ws = Workspace.open()
    _seed(ws)

    async def script(session: ClientSession) -> Any:
        return await _board_calls(session)

    results = _session_calls(ws, script)
    for call in ("get_card_image", "get_card_image sheet"):
        result = results[call]
        assert result.content[0].type == "image" and result.content[0].mime_type == "image/png"
        assert result.structured_content["image"] == {"mime": "image/png"}
        assert '"data"' not in result.content[-1].text


def test_errors_of_a_tool_with_an_output_schema_stay_readable() -> None:
    """A tool error carries the error body, not the result shape; the client skips its
    check for isError results, so the agent still reads the status and code."""
    ws = Workspace.open()

    async def script(session: ClientSession) -> Any:
        await session.list_tools()
        missing = await session.call_tool("scrape_board", {"board": "nope"})
        bad = await session.call_tool("compose_board", {"board": "nope", "cards": "x"})
        return missing, bad

    missing, bad = _session_calls(ws, script)
    assert missing.is_error and missing.structured_content["status"] == 404
    assert missing.structured_content["code"] == "unknown_board"
    assert bad.is_error and bad.structured_content["code"] == "invalid_params"


@pytest.mark.parametrize("with_next", [True, False])
def test_hand_back_through_the_road_fits_its_shape(with_next: bool) -> None:
    ws = Workspace.open()
    task = ws.call("create", {"kind": "task", "title": "Fix login"})["task"]["id"]
    params: dict[str, Any] = {"id": task, "summary": "Form done."}
    if with_next:
        params["next"] = [{"title": "Approve copy", "who": "ana", "ask": "Kind enough?"}]
    sent = _result(ws.call("hand_back", params), error=False).structured_content
    assert _errors(_declared(ws)["hand_back"], sent) == []
    assert sent["text"].startswith(f"# Hand-back: task {task}")


def test_a_review_run_over_mcp_fits_the_plan_and_image_shapes() -> None:
    """A run's sheets (a picture plus the text block mapping tiles to cards) and the
    verified receipt, each checked by the client and here."""
    ws = Workspace.open()
    screens_board(ws, "app", [screen(), screen("Send"), screen(dark=True)])

    async def script(session: ClientSession) -> Any:
        plan = await session.call_tool("review_plan", {"boards": ["app"]})
        run = plan.structured_content["run"]
        sight = sight_of(ws, run)
        sheets = [
            await session.call_tool("get_card_image", {"run": run, "sheet": 1}),
            await session.call_tool("get_card_image", {"run": run, "sheet": 2, "sight": sight}),
        ]
        receipt = await session.call_tool("review_plan", {"run": run, "sight": sight})
        return plan, sheets, receipt

    plan, sheets, receipt = _session_calls(ws, script)
    schemas = _declared(ws)
    for result in (plan, receipt):
        assert not result.is_error, result.structured_content
        assert _errors(schemas["review_plan"], result.structured_content) == []
    assert receipt.structured_content["state"] == "verified"
    for sheet in sheets:
        assert not sheet.is_error, sheet.structured_content
        assert _errors(schemas["get_card_image"], sheet.structured_content) == []
        # The picture, then its text block; the JSON keeps the text, not the bytes.
        assert [c.type for c in sheet.content] == ["image", "text", "text"]
        assert sheet.structured_content["text"] == sheet.content[1].text


def test_over_http_the_client_checks_results_against_the_listed_shapes() -> None:
    """The same shapes on the streamable-HTTP endpoint of a running server."""
    ws = Workspace.open()
    _seed(ws)
    token = ws.create_token("agent", "claude")

    async def run() -> Any:
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                await session.list_tools()
                return await _board_calls(session)

    results = anyio.run(run)
    schemas = _declared(ws)
    ws.close()
    for call, result in results.items():
        assert not result.is_error, (call, result.structured_content)
        assert _errors(schemas[call.split()[0]], result.structured_content) == [], call


def _variants(ws: Workspace) -> list[tuple[str, dict[str, Any]]]:
    """Results of the less common forms of the shaped operations, through the road."""
    ws.call("create", {"kind": "board", "slug": "v", "project": "shop"})
    done: list[tuple[str, dict[str, Any]]] = []

    def call(op: str, params: dict[str, Any]) -> dict[str, Any]:
        out = ws.call(op, params, AGENT)
        done.append((op, out))
        return out

    for title in ("S1", "S2"):
        cards = [{"kind": "note", "payload": {"md": f"In {title}"}}]
        call(
            "compose_board", {"board": "v", "section": title, "createSection": True, "cards": cards}
        )
    card = call(
        "compose_board", {"board": "v", "cards": [{"kind": "note", "payload": {"md": "x"}}]}
    )
    card_id = card["cards"][0]["id"]
    call("scrape_board", {"board": "v", "section": "S1"})
    call("scrape_board", {"board": "v", "diff": ["S1", "S2"]})
    call("scrape_board", {"board": "v", "pages": "full"})
    call("update_cards", {"patch": [{"id": card_id, "x": 500}]})
    for kind in ("board", "card", "task"):
        call("search", {"q": "In", "kind": kind})
    item = {
        "key": "k1",
        "cardId": card_id,
        "cardVersion": 2,
        "region": {"nx": 0.1, "ny": 0.1, "nw": 0.3, "nh": 0.3},
        "prompt": {"summary": "Low contrast"},
        "severity": "high",
    }
    call("annotate", {"board": "v", "items": [item], "dryRun": True})
    call("annotate", {"board": "v", "items": [item]})
    call("annotate", {"board": "v", "items": [item]})  # existing
    call("annotate", {"board": "v", "items": [{**item, "key": "k2", "cardVersion": 99}]})
    call("get_card_image", {"board": "v", "cardId": card_id, "version": 1, "maxDim": 50})
    call("validate", {"card": "not a card"})
    call("validate", {"element": {"kind": "nope"}})
    return done


def test_less_common_forms_fit_their_shapes_too() -> None:
    ws = Workspace.open()
    schemas = _declared(ws)
    for op, out in _variants(ws):
        sent = _result(out, error=False).structured_content
        assert _errors(schemas[op], sent) == [], (op, sent)
