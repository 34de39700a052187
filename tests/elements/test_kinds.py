"""Per element kind: a valid payload passes with defaults filled; each rule's violation is found."""

from __future__ import annotations

import copy

import pytest

from layoutkit.elements import ELEMENT_KINDS, validate_element
from tests.elements.conftest import VALID_ELEMENTS, P, codes, el, errors, warnings


def test_every_kind_has_a_valid_case() -> None:
    assert set(VALID_ELEMENTS) == set(ELEMENT_KINDS)
    assert len(ELEMENT_KINDS) == 28


@pytest.mark.parametrize("kind", sorted(VALID_ELEMENTS))
def test_valid_payload_passes_clean(kind: str) -> None:
    v = validate_element(el(kind, copy.deepcopy(VALID_ELEMENTS[kind])))
    assert v.ok, codes(v)
    assert errors(v) == []
    assert v.normalized["kind"] == kind


DEFAULTS = [
    ("columns", "ratio", "1:1"),
    ("diagram", "dir", "TD"),
    ("gallery", "layout", "grid"),
    ("list", "style", "bullet"),
    ("epic", "phase", "planned"),
    ("goal", "status", "planned"),
    ("release", "status", "cut"),
    ("timeline", "axis", "spine"),
    ("verdict", "tone", "info"),
    ("ref", "mode", "link"),
]


@pytest.mark.parametrize(("kind", "field", "default"), DEFAULTS)
def test_normalization_fills_documented_defaults(kind: str, field: str, default: str) -> None:
    v = validate_element(el(kind, copy.deepcopy(VALID_ELEMENTS[kind])))
    assert v.normalized["payload"][field] == default


def test_three_columns_default_to_equal_thirds() -> None:
    v = validate_element(el("columns", {"cols": [{"elements": [P]}] * 3}))
    assert v.ok
    assert v.normalized["payload"]["ratio"] == "1:1:1"


# (kind, payload, expected (path, code), severity)
BAD = [
    # chart
    ("chart", {"data": {"series": []}}, ("payload.viz", "missing_field"), "error"),
    ("chart", {"viz": "pies", "data": {}}, ("payload.viz", "unknown_value"), "error"),
    ("chart", {"viz": "line"}, ("payload.data", "missing_data"), "error"),
    (
        "chart",
        {"viz": "line", "data": {"items": []}},
        ("payload.data.series", "missing_data"),
        "error",
    ),
    (
        "chart",
        {"viz": "pie", "data": {"series": []}},
        ("payload.data.items", "missing_data"),
        "error",
    ),
    ("chart", {"viz": "bars", "data": {}}, ("payload.data.series", "missing_data"), "error"),
    (
        "chart",
        {"viz": "heatmap", "data": {"x": [1], "y": [1]}},
        ("payload.data.values", "missing_data"),
        "error",
    ),
    (
        "chart",
        {"viz": "scatter", "data": {"series": [{"points": [1, [2, 3]]}]}},
        ("payload.data.series[0].points", "scatter_pairs"),
        "error",
    ),
    (
        "chart",
        {"viz": "compare", "data": {"items": [{"label": "a", "before": 1, "after": 2}]}},
        ("payload.data.better", "missing_field"),
        "error",
    ),
    (
        "chart",
        {"viz": "compare", "data": {"better": "lower", "items": [{"label": "a", "before": 1}]}},
        ("payload.data.items[0].after", "missing_field"),
        "error",
    ),
    (
        "chart",
        {"viz": "pie", "data": {"items": [{"label": "a", "value": 1, "tone": "great"}]}},
        ("payload.data.items[0].tone", "unknown_value"),
        "error",
    ),
    (
        "chart",
        {"viz": "line", "data": {"series": [{"points": ["x"]}]}},
        ("payload.data.series[0].points[0]", "wrong_type"),
        "error",
    ),
    (
        "chart",
        {"viz": "pie", "data": {"items": [], "refs": []}},
        ("payload.data.refs", "ignored_field"),
        "warning",
    ),
    (
        "chart",
        {"viz": "heatmap", "data": {"x": [1, 2], "y": ["a"], "values": [[1], [2]]}},
        ("payload.data.values", "shape_mismatch"),
        "warning",
    ),
    ("prose", {"md": "Fish &amp; chips"}, ("payload.md", "html_entity"), "warning"),
    ("verdict", {"text": "a &#8212; b"}, ("payload.text", "html_entity"), "warning"),
    (
        "gallery",
        {"items": [{"src": "a", "alt": "a"}]},
        ("payload.items", "single_image"),
        "warning",
    ),
    # chips, code
    ("chips", {"items": [{"k": "a"}]}, ("payload.items[0].v", "missing_field"), "error"),
    ("code", {"lang": "py"}, ("payload.source", "missing_field"), "error"),
    # columns
    ("columns", {"cols": [{"elements": [P]}]}, ("payload.cols", "too_few"), "error"),
    ("columns", {"cols": [{"elements": [P]}] * 4}, ("payload.cols", "too_many"), "error"),
    (
        "columns",
        {"cols": [{"elements": [P]}, {"elements": []}]},
        ("payload.cols[1].elements", "empty_column"),
        "error",
    ),
    (
        "columns",
        {"ratio": "1:1:1", "cols": [{"elements": [P]}] * 2},
        ("payload.ratio", "ratio_mismatch"),
        "error",
    ),
    (
        "columns",
        {"ratio": "3:1", "cols": [{"elements": [P]}] * 2},
        ("payload.ratio", "unknown_value"),
        "error",
    ),
    # compare
    (
        "compare",
        {"a": {"elements": [P]}, "b": {"label": "B", "elements": [P]}},
        ("payload.a.label", "missing_label"),
        "warning",
    ),
    ("compare", {"a": {"label": "A", "elements": [P]}}, ("payload.b", "missing_field"), "error"),
    # deploy
    ("deploy", {"env": "prod"}, ("payload.sha", "missing_field"), "error"),
    (
        "deploy",
        {"env": "prod", "sha": "a", "at": "yesterday"},
        ("payload.at", "bad_timestamp"),
        "error",
    ),
    # epic, goal, release
    ("epic", {"title": "E", "phase": "done"}, ("payload.phase", "unknown_value"), "error"),
    (
        "epic",
        {"title": "E", "done": 5, "total": 2},
        ("payload.done", "done_exceeds_total"),
        "warning",
    ),
    ("goal", {"title": "G", "percent": 140}, ("payload.percent", "out_of_range"), "error"),
    ("release", {"title": "R", "status": "shipped"}, ("payload.status", "unknown_value"), "error"),
    # figure, media
    ("figure", {"alt": "x"}, ("payload", "missing_field"), "error"),
    ("figure", {"src": "a", "ref": "b"}, ("payload.ref", "conflicting_fields"), "error"),
    ("media", {"mime": "video/mp4"}, ("payload", "missing_field"), "error"),
    # finding
    ("finding", {"title": "no proof"}, ("payload.evidence", "missing_evidence"), "warning"),
    ("finding", {"sev": "critical", "evidence": "x"}, ("payload.sev", "unknown_value"), "error"),
    (
        "finding",
        {"status": "closed", "evidence": "x"},
        ("payload.status", "unknown_value"),
        "error",
    ),
    # gallery
    ("gallery", {"items": []}, ("payload.items", "too_few"), "error"),
    ("gallery", {"items": [{"src": "a", "alt": "a"}] * 25}, ("payload.items", "too_many"), "error"),
    ("gallery", {"items": [{"alt": "a"}]}, ("payload.items[0]", "missing_field"), "error"),
    (
        "gallery",
        {"items": [{"src": "a", "shot": 1, "alt": "a"}]},
        ("payload.items[0].shot", "conflicting_fields"),
        "error",
    ),
    ("gallery", {"items": [{"src": "a"}]}, ("payload.items[0]", "missing_alt"), "warning"),
    (
        "gallery",
        {"items": [{"src": "a", "alt": "a", "span": "wide"}]},
        ("payload.items[0].span", "ignored_field"),
        "warning",
    ),
    # html
    ("html", {}, ("payload", "missing_field"), "error"),
    (
        "html",
        {"src": "<html></html>", "files": {"index.html": "x"}},
        ("payload.files", "conflicting_fields"),
        "error",
    ),
    ("html", {"files": {"app.js": "x"}}, ("payload.files", "missing_index"), "error"),
    # list
    ("list", {"items": ["a", 3]}, ("payload.items[1]", "wrong_type"), "error"),
    ("list", {"style": "dash", "items": []}, ("payload.style", "unknown_value"), "error"),
    # meter
    (
        "meter",
        {"items": [{"label": "a", "value": 1}]},
        ("payload.items[0].max", "missing_field"),
        "error",
    ),
    (
        "meter",
        {"items": [{"label": "a", "value": 1, "max": 0}]},
        ("payload.items[0].max", "out_of_range"),
        "error",
    ),
    (
        "meter",
        {"items": [{"label": "a", "value": 1, "max": -3}]},
        ("payload.items[0].max", "out_of_range"),
        "error",
    ),
    # milestone
    ("milestone", {"due": "2024-01-01"}, ("payload.title", "missing_field"), "error"),
    # mockup
    ("mockup", {"frames": []}, ("payload.frames", "too_few"), "error"),
    ("mockup", {"frames": [{"name": "a"}]}, ("payload.frames[0].tree", "missing_field"), "error"),
    (
        "mockup",
        {"frames": [{"name": "a", "tree": [{"label": "x"}]}]},
        ("payload.frames[0].tree[0].t", "missing_field"),
        "error",
    ),
    (
        "mockup",
        {"frames": [{"name": "a", "tree": [{"t": "row", "dir": "column"}]}]},
        ("payload.frames[0].tree[0].dir", "unknown_value"),
        "error",
    ),
    # page, prose
    ("page", {"source": {"kind": "git"}}, ("payload.md", "missing_field"), "error"),
    (
        "page",
        {"md": "x", "source": {"kind": "git"}},
        ("payload.source.ref", "missing_field"),
        "error",
    ),
    ("prose", {"md": 5}, ("payload.md", "wrong_type"), "error"),
    # ref
    ("ref", {}, ("payload", "missing_field"), "error"),
    ("ref", {"card": 1, "page": "x"}, ("payload.page", "conflicting_fields"), "error"),
    ("ref", {"card": "12"}, ("payload.card", "wrong_type"), "error"),
    ("ref", {"page": "p", "mode": "popup"}, ("payload.mode", "unknown_value"), "error"),
    # section
    ("section", {"title": "x", "elements": []}, ("payload.elements", "empty_section"), "warning"),
    ("section", {"id": "Bad Id", "elements": [P]}, ("payload.id", "bad_section_id"), "error"),
    ("section", {"id": "a" * 65, "elements": [P]}, ("payload.id", "bad_section_id"), "error"),
    ("section", {"id": "-x", "elements": [P]}, ("payload.id", "bad_section_id"), "error"),
    # stat
    (
        "stat",
        {"items": [{"label": str(i), "value": i} for i in range(7)]},
        ("payload.items", "too_many_items"),
        "warning",
    ),
    (
        "stat",
        {"items": [{"label": "a", "value": 1, "tone": "up"}]},
        ("payload.items[0].tone", "unknown_value"),
        "error",
    ),
    (
        "stat",
        {"items": [{"label": "a", "value": [1]}]},
        ("payload.items[0].value", "wrong_type"),
        "error",
    ),
    ("stat", {"items": [{"value": 1}]}, ("payload.items[0].label", "missing_field"), "warning"),
    # table
    ("table", {"rows": []}, ("payload.cols", "missing_field"), "error"),
    (
        "table",
        {"cols": [{"key": "f", "type": "formula"}]},
        ("payload.cols[0].type", "reserved_type"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "f", "type": "money"}]},
        ("payload.cols[0].type", "unknown_value"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}, {"key": "a"}]},
        ("payload.cols[1].key", "duplicate_column"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "rows": [{"a": [1, 2]}]},
        ("payload.rows[0].a", "wrong_type"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "rows": [{"a": {"href": "x"}}]},
        ("payload.rows[0].a.v", "missing_field"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "rows": [{"a": {"v": 1, "tone": "ok"}}]},
        ("payload.rows[0].a.tone", "unknown_value"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "rows": [{"a": {"v": 1, "href": "javascript:alert(1)"}}]},
        ("payload.rows[0].a.href", "unsafe_href"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "rows": [{"b": 1}]},
        ("payload.rows[0].b", "unknown_column"),
        "warning",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "rows": [{"cells": {"a": 1}, "audience": ["everyone"]}]},
        ("payload.rows[0].audience[0]", "bad_audience"),
        "error",
    ),
    ("table", {"cols": [{"key": "a"}], "rows": [7]}, ("payload.rows[0]", "wrong_type"), "error"),
    (
        "table",
        {"cols": [{"key": "a"}], "views": [{"filter": [{"col": "a", "op": "like", "value": 1}]}]},
        ("payload.views[0].filter[0].op", "unknown_value"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "views": [{"filter": [{"col": "z", "op": "eq", "value": 1}]}]},
        ("payload.views[0].filter[0].col", "unknown_column"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "views": [{"filter": [{"col": "a", "op": "eq"}]}]},
        ("payload.views[0].filter[0].value", "missing_field"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "views": [{"sort": [{"col": "a", "dir": "up"}]}]},
        ("payload.views[0].sort[0].dir", "unknown_value"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "views": [{"sort": [{"col": "b"}]}]},
        ("payload.views[0].sort[0].col", "unknown_column"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "views": [{"group": "b"}]},
        ("payload.views[0].group", "unknown_column"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "aggregates": {"b": "sum"}},
        ("payload.aggregates.b", "unknown_column"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "aggregates": {"a": "median"}},
        ("payload.aggregates.a", "unknown_value"),
        "error",
    ),
    (
        "table",
        {"cols": [{"key": "a"}], "aggregates": {"a": "sum"}},
        ("payload.aggregates.a", "aggregate_type"),
        "warning",
    ),
    (
        "table",
        {
            "cols": [{"key": "s", "type": "select", "options": ["open", "done"]}],
            "rows": [{"s": "open"}, {"cells": {"s": {"v": "dne"}}, "audience": ["public"]}],
        },
        ("payload.rows[1].s", "unknown_option"),
        "warning",
    ),
    # timeline
    (
        "timeline",
        {"items": [{"when": 3, "title": "x"}], "axis": "time"},
        ("payload.items[0]", "axis_fallback"),
        "warning",
    ),
    ("timeline", {"items": "x"}, ("payload.items", "wrong_type"), "error"),
    # verdict
    ("verdict", {"tone": "good"}, ("payload", "missing_field"), "error"),
    ("verdict", {"state": "go", "tone": "neutral"}, ("payload.tone", "unknown_value"), "error"),
    # diagram
    ("diagram", {"nodes": [{"title": "a"}]}, ("payload.title", "missing_field"), "error"),
    (
        "diagram",
        {"title": "t", "nodes": [{"id": "a"}]},
        ("payload.nodes[0].title", "missing_field"),
        "error",
    ),
    (
        "diagram",
        {"title": "t", "nodes": [{"title": "a", "type": "robot"}]},
        ("payload.nodes[0].type", "unknown_value"),
        "error",
    ),
    (
        "diagram",
        {"title": "t", "dir": "BT", "nodes": [{"title": "a"}]},
        ("payload.dir", "unknown_value"),
        "error",
    ),
    ("diagram", {"title": "t"}, ("payload", "empty_diagram"), "warning"),
    (
        "diagram",
        {"title": "t", "nodes": [{"id": "a", "title": "A"}, {"id": "a", "title": "B"}]},
        ("payload.nodes", "duplicate_node"),
        "error",
    ),
    (
        "diagram",
        {
            "title": "t",
            "nodes": [{"id": "api", "title": "A"}],
            "edges": [{"from": "api", "to": "apo"}],
        },
        ("payload.edges[0].to", "unknown_endpoint"),
        "warning",
    ),
    (
        "diagram",
        {"title": "t", "nodes": [{"title": "a", "codes": [200, "x"]}]},
        ("payload.nodes[0].codes[1]", "wrong_type"),
        "error",
    ),
    (
        "diagram",
        {"title": "t", "lanes": [{"note": "n"}]},
        ("payload.lanes[0].label", "missing_field"),
        "error",
    ),
    (
        "diagram",
        {"title": "t", "edges": [{"from": "a"}], "nodes": [{"title": "a"}]},
        ("payload.edges[0].to", "missing_field"),
        "error",
    ),
    (
        "diagram",
        {"title": "t", "nodes": [{"title": "a"}], "quality": "perfect"},
        ("payload.quality", "unknown_value"),
        "warning",
    ),
    # doc
    ("doc", {"title": "x"}, ("payload.elements", "missing_field"), "error"),
    (
        "doc",
        {"elements": [P], "accentColor": "pink"},
        ("payload.accentColor", "unknown_value"),
        "error",
    ),
    (
        "doc",
        {"elements": [P], "accentColor": {"light": "#fff", "dark": "#000000"}},
        ("payload.accentColor.light", "bad_color"),
        "error",
    ),
    (
        "doc",
        {"elements": [P], "direction": "novel"},
        ("payload.direction", "unknown_value"),
        "error",
    ),
    ("doc", {"elements": [P], "typeset": "comic"}, ("payload.typeset", "unknown_value"), "error"),
    (
        "doc",
        {"elements": [P], "sources": {"app": {"repo": "x"}}},
        ("payload.sources.app.ref", "missing_field"),
        "error",
    ),
]


@pytest.mark.parametrize(("kind", "payload", "expected", "severity"), BAD)
def test_rule_violation_is_reported(
    kind: str, payload: dict, expected: tuple[str, str], severity: str
) -> None:
    v = validate_element(el(kind, payload))
    found = errors(v) if severity == "error" else warnings(v)
    assert expected in found, codes(v)
    assert v.ok is (severity == "warning" and not errors(v))


def test_tone_is_never_inferred() -> None:
    v = validate_element(
        el(
            "stat",
            {"items": [{"label": "a", "value": -12, "delta": -3}, {"label": "b", "value": 5}]},
        )
    )
    assert all("tone" not in item for item in v.normalized["payload"]["items"])


def test_scatter_accepts_pairs_and_other_series_accept_both() -> None:
    assert validate_element(
        el("chart", {"viz": "scatter", "data": {"series": [{"points": [[1, 2], [3, 4]]}]}})
    ).ok
    assert validate_element(
        el("chart", {"viz": "line", "data": {"series": [{"points": [1, [2, 3], ["Mon", 4]]}]}})
    ).ok


def test_heatmap_calendar_replaces_the_grid() -> None:
    v = validate_element(
        el(
            "chart",
            {"viz": "heatmap", "data": {"calendar": {"from": "2024-01-01", "values": [1, 2]}}},
        )
    )
    assert v.ok, codes(v)


def test_compare_chart_items_carry_before_and_after() -> None:
    v = validate_element(
        el(
            "chart",
            {
                "viz": "compare",
                "data": {
                    "better": "higher",
                    "before": "v1",
                    "after": "v2",
                    "items": [
                        {"label": "rps", "before": 10, "after": 30, "note": "x", "tone": "good"}
                    ],
                },
            },
        )
    )
    assert v.ok, codes(v)


def test_section_ref_mode_is_always_link() -> None:
    doc = el(
        "doc",
        {
            "elements": [
                el("section", {"id": "a", "elements": [P]}),
                el("ref", {"section": "a", "mode": "embed"}),
            ]
        },
    )
    v = validate_element(doc)
    assert ("payload.elements[1].payload.mode", "ignored_field") in warnings(v)
    assert v.normalized["payload"]["elements"][1]["payload"]["mode"] == "link"


def test_table_rows_keep_both_row_forms_and_cell_objects() -> None:
    rows = [
        {"a": "x", "b": 2.5},
        {
            "cells": {"a": {"v": "y", "href": "https://x.example", "tone": "good"}},
            "audience": ["internal"],
        },
        {},
    ]
    v = validate_element(
        el("table", {"cols": [{"key": "a"}, {"key": "b", "type": "number"}], "rows": rows})
    )
    assert v.ok, codes(v)
    assert v.normalized["payload"]["rows"] == rows


def test_empty_and_nonempty_filters_take_no_value() -> None:
    v = validate_element(
        el("table", {"cols": [{"key": "a"}], "views": [{"filter": [{"col": "a", "op": "empty"}]}]})
    )
    assert v.ok
    assert v.normalized["payload"]["views"][0]["filter"][0] == {"col": "a", "op": "empty"}


def test_sort_direction_defaults_to_ascending() -> None:
    v = validate_element(el("table", {"cols": [{"key": "a"}], "views": [{"sort": [{"col": "a"}]}]}))
    assert v.normalized["payload"]["views"][0]["sort"][0]["dir"] == "asc"


@pytest.mark.parametrize(
    ("value", "pair"),
    [
        ("teal", {"light": "#00796b", "dark": "#4fc3b5"}),
        ({"light": "#AABBCC", "dark": "#112233"}, {"light": "#aabbcc", "dark": "#112233"}),
    ],
)
def test_accent_color_is_stored_as_a_light_dark_pair(value: object, pair: dict) -> None:
    v = validate_element(el("doc", {"elements": [P], "accentColor": value}))
    assert v.ok
    assert v.normalized["payload"]["accentColor"] == pair


def test_every_named_accent_has_a_pair() -> None:
    from layoutkit.elements.vocab import ACCENT_NAMES

    for name in ACCENT_NAMES:
        v = validate_element(el("doc", {"elements": [P], "accentColor": name}))
        assert set(v.normalized["payload"]["accentColor"]) == {"light", "dark"}


def test_diagram_title_may_come_from_text_import() -> None:
    v = validate_element(el("diagram", {"diagram_text": "flowchart LR\n a --> b"}))
    assert v.ok, codes(v)
    assert v.normalized["payload"]["diagram_text"].startswith("flowchart")


def test_diagram_text_is_ignored_when_members_exist() -> None:
    v = validate_element(
        el("diagram", {"title": "t", "nodes": [{"title": "a"}], "diagram_text": "graph TD"})
    )
    assert ("payload.diagram_text", "ignored_field") in warnings(v)


@pytest.mark.parametrize(
    ("member", "value", "fallback", "fix"),
    [
        ("tone", "gren", "neutral", "did you mean 'green'?"),
        ("shape", "cylindre", "rect", "did you mean 'cylinder'?"),
    ],
)
def test_diagram_open_vocabulary_falls_back_with_a_fix(
    member: str, value: str, fallback: str, fix: str
) -> None:
    v = validate_element(el("diagram", {"title": "t", "nodes": [{"title": "a", member: value}]}))
    assert v.ok
    (f,) = v.findings
    assert (f.path, f.code, f.severity, f.fix) == (
        f"payload.nodes[0].{member}",
        "unknown_vocabulary",
        "warning",
        fix,
    )
    assert v.normalized["payload"]["nodes"][0][member] == fallback


def test_diagram_edge_style_falls_back_with_a_fix() -> None:
    v = validate_element(
        el(
            "diagram",
            {
                "title": "t",
                "nodes": [{"id": "a", "title": "A"}],
                "edges": [{"from": "a", "to": "a", "style": "dashd"}],
            },
        )
    )
    (f,) = v.findings
    assert f.fix == "did you mean 'dashed'?"
    assert v.normalized["payload"]["edges"][0]["style"] == "solid"


def test_diagram_quality_showcase_is_accepted_and_never_stored() -> None:
    v = validate_element(
        el("diagram", {"title": "t", "nodes": [{"title": "a"}], "quality": "showcase"})
    )
    assert v.ok and v.findings == []
    assert "quality" not in v.normalized["payload"]


def test_diagram_groups_and_lanes_nest_and_edges_reach_ports() -> None:
    payload = {
        "title": "t",
        "groups": [
            {
                "title": "g",
                "tone": "blue",
                "nodes": [{"id": "a", "title": "A", "ports": [{"id": "out"}]}],
                "groups": [{"title": "inner", "nodes": [{"id": "b", "title": "B"}]}],
            }
        ],
        "lanes": [{"label": "ops", "nodes": [{"id": "c", "title": "C"}]}],
        "edges": [{"from": "a.out", "to": "b", "style": "dashed"}, {"from": "b", "to": "c"}],
        "stats": [{"value": "3", "label": "services"}],
        "legend": [{"style": "dashed", "label": "async"}],
    }
    v = validate_element(el("diagram", payload))
    assert v.ok and v.findings == [], codes(v)


def test_diagram_edges_may_end_on_a_group() -> None:
    """A composite state or a subgraph named by an edge is drawn; no unknown_endpoint."""
    payload = {
        "title": "t",
        "groups": [
            {"id": "outer", "title": "O", "groups": [{"id": "inner", "title": "I", "nodes": [{"id": "a", "title": "A"}]}]}
        ],
        "nodes": [{"id": "b", "title": "B"}],
        "edges": [{"from": "outer", "to": "b"}, {"from": "b", "to": "inner"}, {"from": "inner", "to": "inner"}],
    }  # fmt: skip
    v = validate_element(el("diagram", payload))
    assert v.ok and v.findings == [], codes(v)


def test_diagram_group_nesting_is_capped() -> None:
    group: dict = {"title": "leaf"}
    for _ in range(12):
        group = {"title": "g", "groups": [group]}
    v = validate_element(el("diagram", {"title": "t", "groups": [group]}))
    assert "nesting_too_deep" in [c for _, c in errors(v)]


def test_timestamps_accept_dates_and_date_times() -> None:
    for stamp in ("2024-05-01", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00.5+02:00"):
        assert validate_element(el("milestone", {"title": "m", "due": stamp})).ok, stamp
    for stamp in ("2024-13-01", "05/01/2024", "2024-05-01X10:00"):
        assert not validate_element(el("milestone", {"title": "m", "due": stamp})).ok, stamp


def test_figure_takes_a_shot_index() -> None:
    assert validate_element(el("figure", {"shot": 2})).ok
    assert not validate_element(el("figure", {"shot": -1})).ok


def test_gallery_span_is_fine_on_bento() -> None:
    items = [{"src": "a", "alt": "a", "span": "large"}, {"ref": "b", "alt": "b"}]
    v = validate_element(el("gallery", {"layout": "bento", "items": items}))
    assert v.findings == []


def test_ampersands_that_are_not_entities_are_fine() -> None:
    v = validate_element(el("prose", {"md": "R&D and Q&A; a && b"}))
    assert v.findings == []
