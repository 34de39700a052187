"""The tool list an agent can afford: its size as a client receives it, and what it names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp.client.session import ClientSession

from layoutkit import ServiceError, Workspace, elements
from layoutkit.service.road.lean import tool_schema
from tests.adapters.mcp_memory import in_memory
from tests.adapters.test_parity import _literal_calls

#: The issue's limits: the whole default list, and any one tool.
LIST_LIMIT = 64_000
TOOL_LIMIT = 12_000


async def _listing(session: ClientSession) -> list[dict[str, Any]]:
    tools = (await session.list_tools()).tools
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]


@pytest.fixture(scope="module")
def listed() -> list[dict[str, Any]]:
    """Every tool of every toolset, as a client receives them."""
    return in_memory(Workspace.open(), _listing)


@pytest.fixture(scope="module")
def default_listed() -> list[dict[str, Any]]:
    """What a server offers a client that names no toolset."""
    return in_memory(Workspace.open(), _listing, toolsets="default")


def _chars(tool: dict[str, Any]) -> int:
    return len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False))


def test_no_tool_is_over_its_limit(listed: list[dict[str, Any]]) -> None:
    over = {t["name"]: _chars(t) for t in listed if _chars(t) > TOOL_LIMIT}
    assert not over


def test_the_default_list_is_within_its_limit(default_listed: list[dict[str, Any]]) -> None:
    total = sum(map(_chars, default_listed))
    assert total <= LIST_LIMIT, total
    assert {"compose_board", "scrape_board", "search"} <= {t["name"] for t in default_listed}


def test_kind_is_an_enum_and_payload_names_where_its_shape_lives(
    listed: list[dict[str, Any]],
) -> None:
    tools = {t["name"]: t["inputSchema"] for t in listed}
    card = tools["compose_board"]["properties"]["cards"]["items"]
    assert sorted(card["properties"]["kind"]["enum"]) == sorted(elements.BOARD_VOCABULARY)
    note = card["properties"]["payload"]["description"]
    assert "docs topic <kind>" in note and "layoutkit://schema/card/<kind>" in note
    assert "oneOf" not in card
    doc = tools["push_doc"]["properties"]["doc"]["properties"]["payload"]
    assert (
        doc["description"] == "Its shape: docs topic doc, resource layoutkit://schema/element/doc."
    )
    element = tools["validate"]["properties"]["element"]["properties"]
    assert element["kind"]["enum"] == list(elements.ELEMENT_KINDS)
    assert all(
        "$defs" not in schema and '"$ref"' not in json.dumps(schema) for schema in tools.values()
    )


def test_openapi_and_the_check_keep_the_full_contract() -> None:
    ws = Workspace.open()
    # params_schema (the OpenAPI document, the docs tool) keeps every payload shape.
    shown = ws.registry.get("compose_board").params_schema
    assert shown["properties"]["cards"]["items"]["oneOf"] == elements.card_variants()
    assert shown["$defs"] == elements.schema_defs()
    # And the road still checks each payload against the contract.
    ws.call("create", {"kind": "board", "slug": "lean"})
    with pytest.raises(ServiceError) as exc:
        ws.call("compose_board", {"board": "lean", "cards": [{"kind": "note", "payload": {}}]})
    assert exc.value.code == "missing_field"


def test_the_lean_list_refuses_no_call_the_road_takes() -> None:
    # A host that checks arguments against the tool list must never refuse a call
    # the road accepts: the lean schema only drops constraints.
    ops = {op.name: op for op in Workspace.open().registry}
    checked, refused = 0, []
    root = Path(__file__).resolve().parent.parent
    for where, name, params in _literal_calls(root):
        op = ops.get(name)
        if op is None or next(op.validator.iter_errors(params), None) is not None:
            continue
        checked += 1
        lean = Draft202012Validator(tool_schema(op))
        refused += [f"{where} {name}: {e.message[:200]}" for e in lean.iter_errors(params)]
    assert not refused, "\n".join(refused)
    assert checked > 100


def test_every_lean_schema_is_a_sound_schema() -> None:
    for op in Workspace.open().registry.tools():
        Draft202012Validator.check_schema(tool_schema(op))
