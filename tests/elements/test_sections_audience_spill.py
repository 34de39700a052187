"""Section id derivation, the audience filter and the spill of bulk data."""

from __future__ import annotations

import hashlib
import json

import pytest

from layoutkit.elements import (
    SPILL_THRESHOLD_ROWS,
    SPILL_THRESHOLD_VALUES,
    filter_audience,
    slugify,
    validate_card,
    validate_element,
    visible_to,
)
from tests.elements.conftest import P, codes, el, errors


def sec(**payload: object) -> dict:
    return el("section", {"elements": [P], **payload})


def ids(v) -> list[str]:  # type: ignore[no-untyped-def]
    out = []

    def walk(e: dict) -> None:
        if e["kind"] == "section":
            out.append(e["payload"]["id"])
        for child in e["payload"].get("elements", ()):
            walk(child)
        for col in e["payload"].get("cols", ()) if e["kind"] == "columns" else ():
            for child in col["elements"]:
                walk(child)

    walk(v.normalized)
    return out


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Résumé & Été", "resume-ete"),
        ("  Hello,   World!  ", "hello-world"),
        ("Straße Ångström", "strae-angstrom"),
        ("Ça marche — très bien!", "ca-marche-tres-bien"),
        ("x" * 80, "x" * 64),
        ("x" * 200, "x" * 64),
        ("日本", "section"),
        ("!!!", "section"),
    ],
)
def test_slugify_folds_to_ascii(text: str, slug: str) -> None:
    assert slugify(text) == slug


def test_ids_come_from_label_else_title_with_repeats_suffixed_in_order() -> None:
    doc = el(
        "doc",
        {
            "elements": [
                sec(label="Overview", title="Ignored"),
                sec(title="Café Résumé"),
                sec(label="Overview"),
                el("columns", {"cols": [{"elements": [sec(label="Overview")]}, {"elements": [P]}]}),
                sec(),
                sec(title="日本"),
            ]
        },
    )
    v = validate_element(doc)
    assert v.ok, codes(v)
    assert ids(v) == ["overview", "cafe-resume", "overview-2", "overview-3", "section", "section-2"]


def test_nested_sections_are_numbered_in_document_order() -> None:
    doc = el("doc", {"elements": [sec(label="A", elements=[sec(label="A")]), sec(label="A")]})
    v = validate_element(doc)
    outer = v.normalized["payload"]["elements"]
    assert outer[0]["payload"]["id"] == "a"
    assert outer[0]["payload"]["elements"][0]["payload"]["id"] == "a-2"
    assert outer[1]["payload"]["id"] == "a-3"


def test_explicit_ids_are_kept_and_derived_ids_avoid_them() -> None:
    doc = el("doc", {"elements": [sec(label="Intro"), sec(id="intro", label="Other")]})
    v = validate_element(doc)
    assert ids(v) == ["intro-2", "intro"]


def test_duplicate_explicit_ids_are_an_error() -> None:
    v = validate_element(el("doc", {"elements": [sec(id="a"), sec(id="a")]}))
    assert ("payload.elements[1].payload.id", "duplicate_section_id") in errors(v)


def test_suffixed_ids_stay_within_64_characters() -> None:
    v = validate_element(el("doc", {"elements": [sec(title="y" * 70), sec(title="y" * 70)]}))
    second = ids(v)[1]
    assert second.endswith("-2") and len(second) == 64


def test_section_ref_must_name_an_existing_section() -> None:
    doc = el(
        "doc",
        {
            "elements": [
                sec(label="Results"),
                el("ref", {"section": "result"}),
                el("ref", {"section": "results"}),
            ]
        },
    )
    v = validate_element(doc)
    assert errors(v) == [("payload.elements[1].payload.section", "unknown_section")]
    assert v.findings[0].fix == "did you mean 'results'?"


def test_section_refs_resolve_inside_a_doc_card() -> None:
    v = validate_card(
        {"kind": "doc", "payload": {"elements": [sec(label="A"), el("ref", {"section": "b"})]}}
    )
    assert ("payload.elements[1].payload.section", "unknown_section") in errors(v)


# ---------------------------------------------------------------- audience filter

PUB = ["public"]
INT = ["internal"]


def test_untagged_content_is_for_everyone() -> None:
    doc = validate_element(el("doc", {"elements": [P]})).normalized
    assert filter_audience(doc, "public") == doc


def test_tagged_elements_are_filtered_and_empty_containers_vanish() -> None:
    doc = validate_element(
        el(
            "doc",
            {
                "elements": [
                    el("prose", {"md": "all"}),
                    el(
                        "section",
                        {"title": "secret", "elements": [el("prose", {"md": "i"}, audience=INT)]},
                    ),
                    el(
                        "section",
                        {"title": "mixed", "elements": [el("prose", {"md": "p"}, audience=PUB), P]},
                    ),
                    el("section", {"title": "empty on purpose", "elements": []}),
                ]
            },
        )
    ).normalized
    seen = filter_audience(doc, "public")
    titles = [e["payload"].get("title") for e in seen["payload"]["elements"]]
    assert titles == [None, "mixed", "empty on purpose"]
    assert len(seen["payload"]["elements"][1]["payload"]["elements"]) == 2
    inside = filter_audience(doc, "internal")
    assert [e["payload"].get("title") for e in inside["payload"]["elements"]] == [
        None,
        "secret",
        "mixed",
        "empty on purpose",
    ]
    assert len(inside["payload"]["elements"][2]["payload"]["elements"]) == 1


def test_whole_document_can_vanish() -> None:
    doc = validate_element(
        el("doc", {"elements": [el("prose", {"md": "x"}, audience=INT)]})
    ).normalized
    assert filter_audience(doc, "public") is None
    assert (
        filter_audience(
            validate_element(el("prose", {"md": "x"}, audience=INT)).normalized, "technical"
        )
        is None
    )


def test_columns_lose_empty_columns_and_one_survivor_joins_the_parent() -> None:
    cols = el(
        "columns",
        {
            "ratio": "2:1",
            "cols": [{"elements": [el("prose", {"md": "i"}, audience=INT)]}, {"elements": [P]}],
        },
    )
    doc = validate_element(el("doc", {"elements": [cols]})).normalized
    seen = filter_audience(doc, "public")
    assert seen["payload"]["elements"] == [P]
    three = el(
        "columns",
        {
            "cols": [
                {"elements": [P]},
                {"elements": [P]},
                {"elements": [el("prose", {"md": "i"}, audience=INT)]},
            ]
        },
    )
    seen = filter_audience(validate_element(three).normalized, "public")
    assert len(seen["payload"]["cols"]) == 2 and seen["payload"]["ratio"] == "1:1"


def test_compare_vanishes_only_when_both_sides_empty() -> None:
    hidden = el("prose", {"md": "i"}, audience=INT)
    both = el(
        "compare",
        {"a": {"label": "a", "elements": [hidden]}, "b": {"label": "b", "elements": [hidden]}},
    )
    assert filter_audience(validate_element(both).normalized, "public") is None
    one = el(
        "compare", {"a": {"label": "a", "elements": [hidden]}, "b": {"label": "b", "elements": [P]}}
    )
    seen = filter_audience(validate_element(one).normalized, "public")
    assert seen["payload"]["a"]["elements"] == [] and seen["payload"]["b"]["elements"] == [P]


def test_table_rows_and_gallery_items_honour_audience() -> None:
    table = el(
        "table",
        {"cols": [{"key": "a"}], "rows": [{"a": 1}, {"cells": {"a": 2}, "audience": INT}]},
    )
    t = validate_element(table).normalized
    assert filter_audience(t, "public")["payload"]["rows"] == [{"a": 1}]
    assert len(filter_audience(t, "internal")["payload"]["rows"]) == 2
    only_internal = validate_element(
        el("table", {"cols": [{"key": "a"}], "rows": [{"cells": {"a": 2}, "audience": INT}]})
    ).normalized
    assert filter_audience(only_internal, "public") is None
    gallery = validate_element(
        el(
            "gallery",
            {"items": [{"src": "a", "alt": "a", "audience": INT}, {"src": "b", "alt": "b"}]},
        )
    ).normalized
    assert [i["src"] for i in filter_audience(gallery, "public")["payload"]["items"]] == ["b"]
    hidden = validate_element(
        el("gallery", {"items": [{"src": "a", "alt": "a", "audience": INT}]})
    ).normalized
    assert filter_audience(hidden, "public") is None


def test_filter_does_not_modify_its_input() -> None:
    doc = validate_element(
        el("doc", {"elements": [el("prose", {"md": "i"}, audience=INT), P]})
    ).normalized
    before = json.dumps(doc, sort_keys=True)
    filter_audience(doc, "public")
    assert json.dumps(doc, sort_keys=True) == before


# ---------------------------------------------------------------- spill


def big_table(n: int) -> dict:
    return el(
        "table",
        {"cols": [{"key": "a"}, {"key": "b"}], "rows": [{"a": i, "b": str(i)} for i in range(n)]},
    )


def test_small_tables_stay_inline() -> None:
    v = validate_element(big_table(SPILL_THRESHOLD_ROWS))
    assert "dataRef" not in v.normalized and v.spilled == {}
    assert len(v.normalized["payload"]["rows"]) == SPILL_THRESHOLD_ROWS


def test_large_table_rows_move_behind_a_content_address() -> None:
    v = validate_element(big_table(SPILL_THRESHOLD_ROWS + 1))
    assert v.ok
    ref = v.normalized["dataRef"]
    assert "rows" not in v.normalized["payload"]
    rows = v.spilled[ref]
    assert len(rows) == SPILL_THRESHOLD_ROWS + 1
    canonical = json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert ref == "sha256:" + hashlib.sha256(canonical).hexdigest()
    assert v.as_dict()["spilled"] == {ref: rows}
    again = validate_element(v.normalized)
    assert again.ok and again.normalized == v.normalized and again.spilled == {}


def test_tables_with_audience_rows_stay_inline() -> None:
    t = big_table(SPILL_THRESHOLD_ROWS + 5)
    t["payload"]["rows"].append({"cells": {"a": 1}, "audience": INT})
    v = validate_element(t)
    assert "dataRef" not in v.normalized


def test_large_chart_data_moves_out_wholesale() -> None:
    n = SPILL_THRESHOLD_VALUES // 2 + 1
    chart = el(
        "chart", {"viz": "line", "data": {"unit": "ms", "series": [{"points": list(range(n))}] * 2}}
    )
    v = validate_element(chart)
    assert v.ok
    ref = v.normalized["dataRef"]
    assert "data" not in v.normalized["payload"]
    assert v.spilled[ref]["unit"] == "ms"
    small = el("chart", {"viz": "line", "data": {"series": [{"points": list(range(10))}]}})
    assert "dataRef" not in validate_element(small).normalized


def test_spill_happens_inside_documents_and_equal_data_shares_a_ref() -> None:
    doc = el(
        "doc",
        {"elements": [big_table(SPILL_THRESHOLD_ROWS + 1), big_table(SPILL_THRESHOLD_ROWS + 1)]},
    )
    v = validate_element(doc)
    a, b = v.normalized["payload"]["elements"]
    assert a["dataRef"] == b["dataRef"] and len(v.spilled) == 1


def test_example_report_per_audience() -> None:
    from importlib import resources

    raw = resources.files("layoutkit.examples").joinpath("report.json").read_text()
    doc = validate_element(json.loads(raw)).normalized
    public = filter_audience(doc, "public")
    internal = filter_audience(doc, "internal")
    labels = [e["payload"].get("label") for e in public["payload"]["elements"]]
    assert "Internal notes" not in labels
    assert "Internal notes" in [e["payload"].get("label") for e in internal["payload"]["elements"]]
    gallery = next(e for e in public["payload"]["elements"] if e["kind"] == "gallery")
    assert len(gallery["payload"]["items"]) == 2
    assert validate_element(public).ok


def test_table_links_to_sections_are_checked_softly() -> None:
    table = el(
        "table",
        {
            "cols": [{"key": "a", "type": "link"}],
            "rows": [
                {"a": {"v": "ok", "href": "#results"}},
                {"a": {"v": "bad", "href": "#result"}},
            ],
        },
    )
    v = validate_element(el("doc", {"elements": [sec(label="Results"), table]}))
    assert v.ok
    assert [(f.path, f.code, f.fix) for f in v.findings] == [
        ("payload.elements[1].payload.rows[1].a.href", "unknown_anchor", "did you mean 'results'?")
    ]


def test_visible_to_names_the_audiences_the_filter_keeps_an_element_for() -> None:
    # The viewer's audience switch reads this, so it hides what an export drops.
    section = el(
        "section",
        {
            "title": "S",
            "elements": [
                el("prose", {"md": "a"}, audience=INT),
                el("prose", {"md": "b"}, audience=["technical"]),
            ],
        },
    )
    assert visible_to(section) == {"internal", "technical"}
    assert visible_to(el("section", {"title": "S", "elements": [section]}, audience=INT)) == {
        "internal"
    }
    assert visible_to(P) == {"public", "technical", "internal"}
    gallery = el(
        "gallery", {"items": [{"src": "https://e.com/a.png", "audience": INT}]}, audience=PUB
    )
    assert visible_to(gallery) == frozenset()
    for element in (section, gallery, P):
        for audience in ("public", "technical", "internal"):
            kept = filter_audience(element, audience) is not None
            assert kept is (audience in visible_to(element))
