"""Docs topics generated from the field tables; snapshots of findings for representative bad input."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from layoutkit.elements import (
    CARD_KINDS,
    ELEMENT_KINDS,
    docs_index,
    docs_topic,
    topic_names,
    validate_card,
    validate_element,
)
from layoutkit.elements._cards import CARDS
from layoutkit.elements._element import ELEMENTS


def test_topics_cover_every_kind_and_the_general_topics() -> None:
    names = set(topic_names())
    assert {"envelope", "audiences", "limits"} <= names
    assert set(ELEMENT_KINDS) <= names
    for kind in CARD_KINDS:
        assert CARDS[kind].topic_name in names
    assert {"card-section", "card-compare"} <= names
    assert [t["topic"] for t in docs_index()] == topic_names()
    assert all(t["summary"] for t in docs_index())


def test_a_name_that_is_an_element_and_a_card_says_which_is_which_and_names_the_other() -> None:
    index = {t["topic"]: t["summary"] for t in docs_index()}
    for element, card in (("section", "card-section"), ("compare", "card-compare")):
        assert index[element].startswith("Document element: ")
        assert index[card].startswith("Board card: ")
        assert f"See also `{card}`" in (docs_topic(element) or "")
        assert f"See also `{element}`" in (docs_topic(card) or "")
    assert index["diagram"].startswith("Document element and board card: ")


def test_unknown_topic_is_none() -> None:
    assert docs_topic("nope") is None


@pytest.mark.parametrize("name", sorted(ELEMENTS))
def test_element_topic_tables_list_exactly_the_declared_fields(name: str) -> None:
    kind = ELEMENTS[name]
    text = docs_topic(kind.topic_name)
    assert text is not None and text.startswith(f"# {name}")
    table = text.split("## Payload fields", 1)[1].split("\n\n", 2)[1]
    rows = [line.split("|")[1].strip() for line in table.splitlines()[2:]]
    assert rows == [f.name for f in kind.spec.fields]


@pytest.mark.parametrize("name", sorted(CARDS))
def test_card_topics_exist_and_show_defaults(name: str) -> None:
    text = docs_topic(CARDS[name].topic_name)
    assert text is not None
    for f in CARDS[name].spec.fields:
        assert f"| {f.name} |" in text


def test_defaults_in_docs_match_normalization() -> None:
    assert '| layout | section layout or null | no | {"mode": "grid", "cols": 2} |' in docs_topic(
        "card-section"
    )
    assert "| phase | one of planned, built, verified, shipped | no | planned |" in docs_topic(
        "epic"
    )
    assert "| display | one of preview, phone, widget, live | no | preview |" in docs_topic("link")


def test_limits_and_audiences_topics_carry_the_numbers() -> None:
    limits = docs_topic("limits")
    assert "6 levels" in limits and "1 to 24" in limits and "sha256:" in limits
    assert "public, technical, internal" in docs_topic("audiences")
    assert "viz (use chart)" in docs_topic("envelope")


def test_bundled_example_validates_clean() -> None:
    raw = resources.files("layoutkit.examples").joinpath("report.json").read_text()
    v = validate_element(json.loads(raw))
    assert v.ok and v.findings == []
    kinds = set()

    def walk(e: object) -> None:
        if isinstance(e, dict):
            if "kind" in e:
                kinds.add(e["kind"])
            for x in e.values():
                walk(x)
        elif isinstance(e, list):
            for x in e:
                walk(x)

    walk(v.normalized)
    assert len(kinds & set(ELEMENT_KINDS)) >= 20


REPRESENTATIVE = {
    "chart_wrong_slots": {
        "kind": "chart",
        "payload": {
            "viz": "scatter",
            "title": 3,
            "data": {"series": [{"points": [1, [2, "y"]]}], "rank": 2, "better": "down"},
        },
    },
    "doc_nested_mistakes": {
        "kind": "doc",
        "payload": {
            "title": "Q2",
            "accentColor": {"light": "#12345", "dark": "#000000", "mid": "#111111"},
            "elements": [
                {"kind": "section", "payload": {"label": "Results", "elements": []}},
                {"kind": "columns", "payload": {"ratio": "2:1", "cols": [{"elements": []}]}},
                {"kind": "ref", "payload": {"section": "result", "card": 4}},
                {"kind": "stat", "payload": {"items": [{"label": "x", "value": 1}] * 7}},
                {"kind": "prose", "payload": {"markdown": "hi"}},
                {"kind": "wireframe", "payload": {}},
            ],
        },
    },
    "table_bad_columns_and_views": {
        "kind": "table",
        "payload": {
            "cols": [
                {"key": "n", "type": "formula"},
                {"key": "v", "type": "number"},
                {"label": "x"},
            ],
            "rows": [{"n": 1, "v": {"v": 2, "tone": "red"}, "w": 3}, ["not", "a", "row"]],
            "views": [
                {"filter": [{"col": "v", "op": "between"}], "sort": [{"col": "q", "dir": "down"}]}
            ],
            "aggregates": {"v": "median", "n": "sum"},
        },
        "audience": ["everyone"],
        "dataRef": 5,
    },
    "diagram_vocabulary": {
        "kind": "diagram",
        "payload": {
            "nodes": [{"id": "a", "title": "A", "shape": "blob", "tone": "rd", "type": "gizmo"}],
            "edges": [{"from": "a", "to": "b", "style": "wavy"}],
            "quality": "showcase",
        },
    },
    "gallery_items": {
        "kind": "gallery",
        "payload": {
            "layout": "grid",
            "items": [{"src": "a", "ref": "b", "span": "wide"}, {"alt": "x"}],
        },
    },
}


@pytest.mark.parametrize("name", sorted(REPRESENTATIVE))
def test_findings_snapshot(name: str, snapshot) -> None:  # type: ignore[no-untyped-def]
    v = validate_element(REPRESENTATIVE[name])
    assert [f.as_dict() for f in v.findings] == snapshot


CARD_REPRESENTATIVE = {
    "retired_viz": {"kind": "viz", "payload": {"viz": "line"}},
    "old_doc_grammar": {"kind": "doc", "payload": {"nodes": [{"t": "p"}]}},
    "artifact_both_shapes": {"kind": "artifact", "payload": {"html": "<p>x</p>", "body": "<p>"}},
    "step_and_envelope": {
        "kind": "step",
        "payload": {"image": "a.png", "cardId": 0},
        "children": [None],
        "anchr": {},
    },
}


@pytest.mark.parametrize("name", sorted(CARD_REPRESENTATIVE))
def test_card_findings_snapshot(name: str, snapshot) -> None:  # type: ignore[no-untyped-def]
    v = validate_card(CARD_REPRESENTATIVE[name])
    assert [f.as_dict() for f in v.findings] == snapshot
