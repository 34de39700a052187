"""What hosts are shown: every field of every kind, card payload shapes, no top-level composition."""

from __future__ import annotations

import pytest

from layoutkit import ServiceError, Workspace, elements
from layoutkit.adapters.http import openapi_document
from layoutkit.adapters.mcp import _tools
from layoutkit.service.road.generic import VERBS


@pytest.fixture(scope="module")
def ws() -> Workspace:
    return Workspace.open()


def test_no_input_schema_composes_at_its_top(ws: Workspace) -> None:
    # Anthropic's and OpenAI's tool APIs refuse these keywords at the root of an input schema.
    for tool in _tools(ws):
        assert tool.input_schema["type"] == "object", tool.name
        assert not {"oneOf", "anyOf", "allOf", "not", "if"} & set(tool.input_schema), tool.name


@pytest.mark.parametrize("verb", VERBS)
def test_a_verb_shows_every_field_of_every_kind(ws: Workspace, verb: str) -> None:
    op = ws.registry.get(verb)
    shown = op.params_schema["properties"]
    kinds = [v["properties"]["kind"]["const"] for v in op.variants]
    assert shown["kind"]["enum"] == kinds and kinds
    for variant in op.variants:
        assert set(variant["properties"]) <= set(shown)
    # Shown as required only what every kind requires.
    for name in set(op.params_schema["required"]) - {"kind"}:
        assert all(name in v.get("required", ()) for v in op.variants)
    text = ws.call("docs", {"topic": f"op:{verb}"})["text"]
    assert all(f"## kind {kind}" in text for kind in kinds)


def test_search_declares_q_everywhere(ws: Workspace) -> None:
    body = openapi_document(ws)["paths"]["/api/v1/ops/search"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    assert "q" in schema["properties"] and schema["required"] == ["q"]
    assert "| q | string | yes |" in ws.call("docs", {"topic": "op:search"})["text"]
    tool = next(t for t in _tools(ws) if t.name == "search")
    assert "q" in tool.input_schema["properties"]


def test_a_field_of_some_kinds_names_them(ws: Workspace) -> None:
    shown = ws.registry.get("get").params_schema["properties"]
    assert shown["state"]["description"].endswith("Only for kind questions.")
    assert shown["board"]["description"].endswith(
        "Only for kind annotations, board, cards, comments, edges, questions, shot."
    )
    # A field every kind takes names none of them.
    q = ws.registry.get("search").params_schema["properties"]["q"]
    assert "Only for" not in q.get("description", "")


def test_showing_more_keeps_the_answers_of_the_check(ws: Workspace) -> None:
    with pytest.raises(ServiceError) as exc:
        ws.call("create", {"kind": "bord", "slug": "x"})
    assert (exc.value.code, exc.value.body["didYouMean"]) == ("unknown_kind", ["board"])
    with pytest.raises(ServiceError) as exc:
        ws.call("create", {"kind": "board", "slug": "x", "colour": "red"})
    assert (exc.value.code, exc.value.body["field"]) == ("invalid_params", "colour")


def test_compose_shows_each_card_payload_per_kind(ws: Workspace) -> None:
    schema = ws.registry.get("compose_board").params_schema
    item = schema["properties"]["cards"]["items"]
    assert item["oneOf"] == elements.card_variants()
    assert sorted(item["properties"]["kind"]["enum"]) == sorted(elements.BOARD_VOCABULARY)
    assert schema["$defs"] == elements.schema_defs()
    components = openapi_document(ws)["components"]["schemas"]
    assert components["text-card"]["required"] == ["md"]
    assert components["card"]["oneOf"][0]["properties"]["payload"]["$ref"].startswith(
        "#/components/schemas/"
    )
