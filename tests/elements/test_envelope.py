"""Envelope rules, nesting, server-owned fields, unknown fields, the result shapes."""

from __future__ import annotations

import json

import pytest

from layoutkit import elements
from layoutkit.elements import (
    CARD_KINDS,
    ELEMENT_KINDS,
    RETIRED_CARD_KINDS,
    Finding,
    Validation,
    validate_card,
    validate_element,
)
from tests.elements.conftest import P, codes, el, errors, warnings


def test_public_surface() -> None:
    for name in (
        "ELEMENT_KINDS",
        "CARD_KINDS",
        "RETIRED_CARD_KINDS",
        "Finding",
        "Validation",
        "validate_element",
        "validate_card",
        "filter_audience",
        "docs_index",
        "docs_topic",
        "topic_names",
        "SPILL_THRESHOLD",
    ):
        assert name in elements.__all__
        assert hasattr(elements, name)
    assert isinstance(ELEMENT_KINDS, tuple) and isinstance(CARD_KINDS, tuple)
    assert RETIRED_CARD_KINDS == {"viz": "chart", "wireframe": "mockup"}


def test_finding_as_dict_omits_missing_fix() -> None:
    assert Finding("payload", "error", "x", "m").as_dict() == {
        "path": "payload",
        "severity": "error",
        "code": "x",
        "message": "m",
    }
    assert Finding("payload", "warning", "x", "m", "do y").as_dict()["fix"] == "do y"


def test_validation_as_dict_and_ok() -> None:
    warn = Finding("p", "warning", "c", "m")
    err = Finding("p", "error", "c", "m")
    assert Validation([warn], {"a": 1}).ok is True
    assert Validation([warn, err], None).ok is False
    assert Validation([], 1).as_dict() == {"ok": True, "findings": [], "normalized": 1}
    assert Validation([], 1, {"sha256:x": [1]}).as_dict()["spilled"] == {"sha256:x": [1]}


@pytest.mark.parametrize(
    ("value", "path", "code"),
    [
        (None, "", "wrong_type"),
        ([], "", "wrong_type"),
        ({}, "kind", "missing_field"),
        ({"kind": 3, "payload": {}}, "kind", "wrong_type"),
        ({"kind": "slides", "payload": {}}, "kind", "unknown_kind"),
        ({"kind": "prose"}, "payload", "missing_field"),
        ({"kind": "prose", "payload": "hi"}, "payload", "wrong_type"),
    ],
)
def test_not_an_element_gives_no_normalized_value(value: object, path: str, code: str) -> None:
    v = validate_element(value)
    assert (path, code) in errors(v)
    assert v.normalized is None and not v.ok


def test_unknown_kind_lists_the_allowed_kinds_and_suggests() -> None:
    v = validate_element({"kind": "chrt", "payload": {}})
    (f,) = v.findings
    assert "prose" in f.message and "verdict" in f.message
    assert f.fix == "did you mean 'chart'?"


def test_retired_names_point_to_the_replacement_in_both_vocabularies() -> None:
    f = validate_element({"kind": "viz", "payload": {}}).findings[0]
    assert f.code == "retired_kind" and "'chart'" in f.message


@pytest.mark.parametrize(
    "audience", [["public"], ["technical", "internal"], ["public", "technical", "internal"]]
)
def test_audience_accepts_one_to_three_names(audience: list[str]) -> None:
    v = validate_element(el("prose", {"md": "x"}, audience=audience))
    assert v.ok
    assert v.normalized["audience"] == audience


@pytest.mark.parametrize(
    ("audience", "path"),
    [
        ([], "audience"),
        (["public", "technical", "internal", "public"], "audience"),
        (["staff"], "audience[0]"),
        (["public", "public"], "audience[1]"),
        ("public", "audience"),
    ],
)
def test_bad_audience_is_an_error(audience: object, path: str) -> None:
    v = validate_element(el("prose", {"md": "x"}, audience=audience))
    assert not v.ok
    assert path in [p for p, _ in errors(v)]
    assert "audience" not in v.normalized


def test_data_ref_only_on_chart_and_table() -> None:
    v = validate_element(el("prose", {"md": "x"}, dataRef="sha256:abc"))
    assert ("dataRef", "misplaced_field") in errors(v)
    assert validate_element(el("table", {"cols": [{"key": "a"}]}, dataRef="sha256:abc")).ok


def test_data_ref_replaces_inline_data_wholesale() -> None:
    v = validate_element(el("chart", {"viz": "line"}, dataRef="sha256:abc"))
    assert v.ok, codes(v)
    v = validate_element(el("chart", {"viz": "line", "data": {"series": []}}, dataRef="sha256:abc"))
    assert ("payload.data", "replaced_by_dataref") in warnings(v)
    assert "data" not in v.normalized["payload"]
    assert v.normalized["dataRef"] == "sha256:abc"
    v = validate_element(el("table", {"cols": [{"key": "a"}], "rows": [{"a": 1}]}, dataRef="r1"))
    assert "rows" not in v.normalized["payload"]


def test_unknown_field_warns_with_did_you_mean_and_is_left_out() -> None:
    v = validate_element(el("chart", {"viz": "line", "titel": "x", "data": {"series": []}}))
    assert v.ok
    (f,) = v.findings
    assert (f.path, f.code, f.severity, f.fix) == (
        "payload.titel",
        "unknown_field",
        "warning",
        "did you mean 'title'?",
    )
    assert "titel" not in v.normalized["payload"]


def test_unknown_envelope_field_warns() -> None:
    v = validate_element({"kind": "prose", "payload": {"md": "x"}, "audiance": ["public"]})
    assert ("audiance", "unknown_field") in warnings(v)
    assert v.findings[0].fix == "did you mean 'audience'?"


def test_nested_paths_follow_the_spec_form() -> None:
    doc = el(
        "doc",
        {
            "elements": [
                P,
                el("section", {"title": "s", "elements": [el("chart", {"viz": "pyramid"})]}),
            ]
        },
    )
    v = validate_element(doc)
    assert ("payload.elements[1].payload.elements[0].payload.viz", "unknown_value") in errors(v)


def test_columns_and_compare_validate_children_recursively() -> None:
    bad = el("prose", {"md": 1})
    v = validate_element(el("columns", {"cols": [{"elements": [P]}, {"elements": [P, bad]}]}))
    assert ("payload.cols[1].elements[1].payload.md", "wrong_type") in errors(v)
    v = validate_element(
        el(
            "compare",
            {"a": {"label": "a", "elements": [bad]}, "b": {"label": "b", "elements": [P]}},
        )
    )
    assert ("payload.a.elements[0].payload.md", "wrong_type") in errors(v)


def _nest(levels: int) -> dict:
    node = P
    for _ in range(levels):
        node = el("section", {"title": "s", "elements": [node]})
    return node


def test_nesting_six_levels_is_fine_seven_is_not() -> None:
    assert validate_element(_nest(6)).ok
    v = validate_element(_nest(7))
    (path, code) = errors(v)[0]
    assert code == "nesting_too_deep"
    assert path == ".".join(["payload.elements[0]"] * 6)


def test_nesting_counts_every_container_kind() -> None:
    inner = el("doc", {"elements": [P]})
    for kind in ("columns", "compare", "section", "doc", "section", "section"):
        if kind == "columns":
            inner = el("columns", {"cols": [{"elements": [inner]}, {"elements": [P]}]})
        elif kind == "compare":
            inner = el(
                "compare",
                {"a": {"label": "a", "elements": [inner]}, "b": {"label": "b", "elements": [P]}},
            )
        else:
            inner = el(kind, {"title": "t", "elements": [inner]})
    assert "nesting_too_deep" in [c for _, c in errors(validate_element(inner))]


SERVER_OWNED = [
    (
        "diagram",
        {"title": "t", "nodes": [{"title": "a"}]},
        ["geo", "render", "overrides", "metrics", "repairs", "diagnostics"],
    ),
    ("page", {"md": "x"}, ["pm", "pmStale"]),
    ("ref", {"card": 3}, ["target"]),
    ("html", {"src": "<html></html>"}, ["href", "natW", "natH"]),
]


@pytest.mark.parametrize(("kind", "payload", "fields"), SERVER_OWNED)
def test_server_owned_fields_round_trip_without_findings(
    kind: str, payload: dict, fields: list[str]
) -> None:
    read_back = {**payload, **{f: {"stamped": True} for f in fields}}
    v = validate_element(el(kind, read_back))
    assert v.ok and v.findings == [], codes(v)
    for f in fields:
        assert v.normalized["payload"][f] == {"stamped": True}


@pytest.mark.parametrize(("kind", "payload", "fields"), SERVER_OWNED)
def test_authored_server_owned_fields_are_dropped_with_a_warning(
    kind: str, payload: dict, fields: list[str]
) -> None:
    sent = {**payload, **{f: {"forged": True} for f in fields}}
    for v in (
        validate_card({"kind": kind, "payload": sent}, authored=True),
        validate_element(el("doc", {"elements": [el(kind, sent)]}), authored=True),
    ):
        assert v.ok, codes(v)
        inner = v.normalized["payload"]
        inner = inner["elements"][0]["payload"] if v.normalized["kind"] == "doc" else inner
        assert not set(fields) & set(inner)
        assert sorted(
            f.path.rsplit(".", 1)[-1] for f in v.findings if f.code == "server_owned"
        ) == sorted(fields)


def test_normalized_value_is_a_fresh_structure() -> None:
    rows = [{"a": 1}]
    payload = {"cols": [{"key": "a"}], "rows": rows}
    v = validate_element(el("table", payload))
    v.normalized["payload"]["rows"][0]["a"] = 2
    assert rows == [{"a": 1}]


def test_python_only_values_become_findings() -> None:
    weird = {
        "kind": "stat",
        "payload": {
            "items": [
                {"label": "a", "value": float("nan")},
                {"label": "b", "value": float("inf")},
                {"label": "c", "value": 10**5000},
                {("tuple", "key"): 1, 3: "x", "label": "d", "value": (1, 2)},
            ]
        },
    }
    v = validate_element(weird)
    assert not v.ok
    assert ("payload.items[0].value", "not_finite") in errors(v)
    assert ("payload.items[3].value", "wrong_type") in errors(v)
    assert ("payload.items[2].value", "out_of_range") in errors(v)
    assert "value" not in v.normalized["payload"]["items"][2]
    json.dumps(v.as_dict(), allow_nan=False)


def test_server_owned_values_must_be_plain_json() -> None:
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    v = validate_element(el("page", {"md": "x", "pm": deep, "pmStale": float("nan")}))
    assert v.ok
    assert {("payload.pm", "not_plain_json"), ("payload.pmStale", "not_plain_json")} <= set(
        warnings(v)
    )
    assert v.normalized["payload"] == {"md": "x"}


def test_card_kinds_in_a_document_say_so() -> None:
    f = validate_element({"kind": "checklist", "payload": {}}).findings[0]
    assert f.code == "unknown_kind" and "board card kind" in f.message


def test_many_repeated_titles_and_bad_names_stay_fast_and_complete() -> None:
    same = [el("section", {"title": "Same", "elements": [P]}) for _ in range(3000)]
    v = validate_element(el("doc", {"elements": same}))
    last = v.normalized["payload"]["elements"][-1]["payload"]["id"]
    assert last == "same-3000"
    noisy = el("prose", {"md": "x", **{f"field{i}": i for i in range(500)}})
    v = validate_element(noisy)
    assert len(v.findings) == 500 and v.ok
