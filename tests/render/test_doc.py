"""Documents to HTML: one rule of the content contract per test."""

from __future__ import annotations

import re

import pytest

from layoutkit.elements import filter_audience
from layoutkit.render import render_doc
from layoutkit.render._charts import compare_delta, delta_text
from tests.render.gallery import DOCS, EVERY_ELEMENT, EVERY_ELEMENT_DOC, el

ELEMENT_KINDS = [
    "chart",
    "chips",
    "code",
    "columns",
    "compare",
    "deploy",
    "diagram",
    "doc",
    "epic",
    "figure",
    "finding",
    "gallery",
    "goal",
    "html",
    "list",
    "media",
    "meter",
    "milestone",
    "mockup",
    "page",
    "prose",
    "ref",
    "release",
    "section",
    "stat",
    "table",
    "timeline",
    "verdict",
]
VIZ = [
    "line",
    "area",
    "bars",
    "scatter",
    "pie",
    "donut",
    "heatmap",
    "stat",
    "matrix",
    "flow",
    "timeline",
    "compare",
]


def doc(*elements: dict, **payload: object) -> dict:
    return {"kind": "doc", "payload": {"title": "T", **payload, "elements": list(elements)}}


def body(html: str) -> str:
    return html.split("<body", 1)[1]


@pytest.mark.parametrize("kind", ELEMENT_KINDS)
def test_every_element_kind_renders(kind: str) -> None:
    samples = [e for e in EVERY_ELEMENT if e["kind"] == kind]
    assert samples, f"gallery lacks {kind}"
    for sample in samples:
        html = body(render_doc(doc(sample)))
        assert f'class="el el-{kind}"' in html
        assert "unknown-kind" not in html


@pytest.mark.parametrize("viz", VIZ)
def test_every_viz_draws_inline_svg(viz: str) -> None:
    charts = [e for e in EVERY_ELEMENT if e["kind"] == "chart" and e["payload"]["viz"] == viz]
    assert charts
    for chart in charts:
        html = body(render_doc(doc(chart)))
        assert '<svg class="chart-svg"' in html
        assert "no data for" not in html


def test_output_is_self_contained() -> None:
    html = render_doc(EVERY_ELEMENT_DOC)
    assert html.startswith("<!DOCTYPE html>")
    assert "<link" not in html
    assert "@import" not in html
    assert not re.search(r"<script[^>]+src=", html)
    assert "fonts.googleapis" not in html


def test_direction_typeset_and_reader_switch() -> None:
    html = render_doc(doc(direction="terminal", typeset="bookish"))
    assert 'class="dir-terminal"' in html and 'data-typeset="bookish"' in html
    assert '<select data-switch="typeset">' in html
    assert "localStorage" in html  # the reader's stored choice is applied on load
    assert 'data-typeset="swiss"' in render_doc(doc(typeset="bookish"), typeset="swiss")
    assert 'data-typeset="house"' in render_doc(doc())
    with pytest.raises(ValueError):
        render_doc(doc(), typeset="comic")


def test_accent_colour_light_dark_pair() -> None:
    html = render_doc(doc(accentColor={"light": "#112233", "dark": "#aabbcc"}))
    assert (
        ":root{--accent:#112233}@media (prefers-color-scheme:dark){:root{--accent:#aabbcc}}" in html
    )
    named = render_doc(doc(accentColor="teal"))
    # A named accent renders as the same pair the contract stores for it.
    assert "--accent:#00796b" in named and "--accent:#4fc3b5" in named
    hashed_a = render_doc(doc(project="alpha"))
    assert re.search(r"--accent:#[0-9a-f]{6}", hashed_a)
    assert hashed_a == render_doc(doc(project="alpha"))


def test_head_kicker_intro_chips_and_accent_phrase() -> None:
    html = render_doc(
        doc(kicker="Weekly", intro="A *short* lede", chips=[{"k": "team", "v": "core"}], accent="T")
    )
    assert '<div class="kicker">Weekly</div>' in html
    assert '<p class="intro">A <em>short</em> lede</p>' in html
    assert '<span class="k">team</span><span class="v">core</span>' in html
    assert '<span class="accent-phrase">T</span>' in html


def test_audience_switch_marks_tagged_elements() -> None:
    html = render_doc(doc(el("prose", md="all"), el("prose", ["internal"], md="secret")))
    assert '<select data-switch="audience">' in html
    assert 'class="el el-prose" data-aud="internal"' in html
    assert "html[data-audience=public] [data-aud]:not([data-aud~=public])" in html


def test_container_audience_is_the_union_of_children() -> None:
    section = el(
        "section",
        title="S",
        elements=[el("prose", ["internal"], md="a"), el("prose", ["technical"], md="b")],
    )
    html = body(render_doc(doc(section)))
    assert 'class="el el-section" data-aud="internal technical"' in html


def test_gallery_items_are_marked_for_the_audiences_they_name() -> None:
    # Items used to be read as empty docs, marked for nobody and hidden by every switch.
    html = body(
        render_doc(
            doc(
                el(
                    "gallery",
                    items=[
                        {"src": "https://e.com/a.png", "alt": "all"},
                        {"src": "https://e.com/b.png", "alt": "int", "audience": ["internal"]},
                    ],
                )
            )
        )
    )
    assert '<figure><span class="site-picture"' in html
    assert '<figure data-aud="internal"><span class="site-picture"' in html
    assert 'data-aud="none"' not in html


def test_audience_export_removes_content_and_empty_containers() -> None:
    d = doc(
        el("prose", md="everyone"),
        el("prose", ["internal"], md="internal note"),
        el("section", title="Tech only", elements=[el("prose", ["technical"], md="deep")]),
        el(
            "columns",
            cols=[
                {"elements": [el("prose", ["internal"], md="x")]},
                {"elements": [el("prose", md="kept col")]},
            ],
        ),
        el(
            "gallery",
            items=[
                {"src": "https://e.com/a.png", "alt": "pub", "audience": ["public"]},
                {"src": "https://e.com/b.png", "alt": "int", "audience": ["internal"]},
            ],
        ),
        el(
            "table",
            cols=[{"key": "a"}],
            rows=[{"cells": {"a": "row-int"}, "audience": ["internal"]}],
        ),
    )
    html = body(render_doc(d, audience="public"))
    assert "everyone" in html and "kept col" in html and 'aria-label="pub"' in html
    for gone in ("internal note", "Tech only", "deep", 'aria-label="int"', "row-int", "<table"):
        assert gone not in html
    assert '<select data-switch="audience">' not in html
    assert "Edition for the public audience" in html
    assert 'class="dir-editorial export"' in render_doc(
        d, audience="public"
    )  # galleries: 2-col grid
    with pytest.raises(ValueError):
        render_doc(d, audience="everyone")


def test_filter_keeps_untagged_and_drops_empty_doc() -> None:
    assert filter_audience(el("prose", ["internal"], md="x"), "public") is None
    kept = filter_audience(el("prose", md="x"), "public")
    assert kept == el("prose", md="x")


def test_print_css() -> None:
    html = render_doc(EVERY_ELEMENT_DOC)
    css = html.split("@media print{", 1)[1]
    assert ".controls" in css and "display:none" in css
    assert "grid-template-columns:1fr 1fr!important" in css  # gallery: 2-column grid of all items
    assert "break-inside:avoid" in css


def test_columns_ratio_and_stacking() -> None:
    html = render_doc(
        doc(
            el(
                "columns",
                ratio="2:1",
                cols=[{"elements": [el("prose", md="a")]}, {"elements": [el("prose", md="b")]}],
            )
        )
    )
    assert "--cols:minmax(0,2fr) minmax(0,1fr)" in html
    assert "@media (max-width:720px){.columns{grid-template-columns:1fr}}" in html


def test_compare_delta_percent_ratio_and_tone() -> None:
    d = compare_delta(120, 48, "lower")
    assert d["tone"] == "good" and round(d["pct"], 1) == -60.0 and round(d["ratio"], 2) == 0.4
    assert compare_delta(10, 12, "lower")["tone"] == "bad"
    assert compare_delta(10, 12, "higher")["tone"] == "good"
    assert compare_delta(5, 5, "higher")["tone"] == "neutral"
    assert delta_text(-60.0, 0.4) == "-60.0% · 0.40×"
    chart = el(
        "chart",
        viz="compare",
        data={
            "better": "higher",
            "items": [{"label": "x", "before": 10, "after": 5, "tone": "good"}],
        },
    )
    html = body(render_doc(doc(chart)))
    assert "-50.0% · 0.50×" in html
    assert "chip-bg tone-good" in html  # the item's tone wins over the direction


def test_compare_bars_share_one_scale_per_unit() -> None:
    chart = el(
        "chart",
        viz="compare",
        data={
            "better": "lower",
            "items": [
                {"label": "a", "before": 100, "after": 50, "unit": "ms"},
                {"label": "b", "before": 2, "after": 1, "unit": "MB"},
            ],
        },
    )
    svg = body(render_doc(doc(chart)))
    bars = re.findall(
        r'<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="13" rx="2" class="(before|after)"',
        svg,
    )
    a_before, a_after, b_before, _b_after = (float(w) for w, _ in bars)
    assert a_before == b_before  # each unit scales to its own largest value
    assert a_after == pytest.approx(a_before / 2, abs=0.2)


def test_finding_status_reading_and_severity_rail() -> None:
    for status, reading in (("fixed", "resolved"), ("likely", "pending"), ("refuted", "refuted")):
        html = body(render_doc(doc(el("finding", sev="high", status=status, title="t"))))
        assert f"reading-{reading}" in html and "sev-high" in html


def test_timeline_time_axis_only_when_every_when_is_a_date() -> None:
    dated = el(
        "timeline",
        axis="time",
        items=[{"when": "2026-01-01", "title": "a"}, {"when": "2026-02-01", "title": "b"}],
    )
    assert '<div class="timeline time">' in render_doc(doc(dated))
    mixed = el("timeline", axis="time", items=[{"when": "2026-01-01"}, {"when": "soon"}])
    assert '<ol class="timeline spine">' in render_doc(doc(mixed))


def test_html_element_in_sandboxed_frame() -> None:
    html = render_doc(doc(el("html", src="<p>hi</p>", width=2400, height=300)))
    assert '<iframe sandbox="allow-scripts"' in html and "allow-same-origin" not in html
    assert '&gt;&lt;p&gt;hi&lt;/p&gt;"' in html  # after the frame's policy
    assert "width:1600px" in html  # 1:1 up to 1600 px
    files = render_doc(doc(el("html", files={"index.html": "<p>index</p>"})))
    assert "&lt;p&gt;index&lt;/p&gt;" in files


def test_table_types_tones_links_views_aggregates() -> None:
    table = next(e for e in EVERY_ELEMENT if e["kind"] == "table")
    html = body(render_doc(doc(table, sources={"src": {"repo": "o/r", "ref": "m"}})))
    assert '<td class="num">1,200.5</td>' in html
    assert '<td class="t-warn num">80</td>' in html
    assert (
        '<a href="https://example.com/api" rel="noopener noreferrer">https://example.com/api</a>'
        in html
    )
    assert '<a href="#details">runbook</a>' in html
    assert html.count('<div class="view">') == 3
    assert 'title="sum">sum 1,280.5</td>' in html
    assert 'title="count">count 3</td>' in html
    assert '<tr class="group"><td colspan="6">gold' in html


def test_gallery_layouts() -> None:
    for layout in ("grid", "bento", "masonry", "carousel"):
        html = body(
            render_doc(
                doc(
                    el(
                        "gallery",
                        layout=layout,
                        items=[{"src": "https://e.com/a.png", "alt": "a", "span": "wide"}],
                    )
                )
            )
        )
        assert f'class="gallery {layout}"' in html
    assert 'class="span-wide"' in body(
        render_doc(
            doc(
                el(
                    "gallery",
                    layout="bento",
                    items=[{"src": "https://e.com/a.png", "span": "wide"}],
                )
            )
        )
    )


def test_section_anchor_ids() -> None:
    html = body(
        render_doc(
            doc(
                el("section", label="Über uns", elements=[el("prose", md="x")]),
                el("section", label="Über uns", elements=[el("prose", md="y")]),
                el("section", id="fixed", elements=[el("prose", md="z")]),
            )
        )
    )
    assert 'id="uber-uns"' in html and 'id="uber-uns-2"' in html and 'id="fixed"' in html


def test_ref_chips() -> None:
    html = body(
        render_doc(
            doc(
                el("ref", section="details", label="Details"),
                el("ref", card=7, mode="preview", target={"title": "Runbook", "summary": "deploy"}),
            )
        )
    )
    assert '<a class="ref-chip" href="#details">Details</a>' in html
    assert '<a class="ref-preview" href="#card-7">' in html


def test_media_kinds() -> None:
    html = body(render_doc(doc(*(e for e in EVERY_ELEMENT if e["kind"] == "media"))))
    assert (
        "<video controls" in html
        and 'type="application/pdf"' in html
        and "<audio controls" in html
        and "download>" in html
    )


def test_every_gallery_doc_renders_deterministically() -> None:
    for name, d in DOCS.items():
        assert render_doc(d) == render_doc(d), name


def test_bare_payload_is_accepted() -> None:
    html = render_doc({"title": "Bare", "elements": [el("prose", md="hello")]})
    assert "<title>Bare</title>" in html and "hello" in html


@pytest.mark.parametrize("name", sorted(DOCS))
def test_normalized_documents_render(name: str) -> None:
    """What the write path stores (validated, normalized) renders without unknown kinds."""
    elements = pytest.importorskip("layoutkit.elements")
    raw = DOCS[name] if "kind" in DOCS[name] else {"kind": "doc", "payload": DOCS[name]}
    normalized = elements.validate_element(raw).normalized
    assert normalized is not None
    html = render_doc(normalized)
    assert 'class="unknown-kind"' not in html
    assert html == render_doc(normalized)


def test_section_ids_win_over_heading_slugs() -> None:
    html = body(
        render_doc(
            doc(
                el("prose", md="# Details"),
                el("section", id="details", title="Details", elements=[el("prose", md="x")]),
                el("ref", section="details"),
            )
        )
    )
    assert '<section class="section" id="details">' in html
    assert '<h1 id="details-2">' in html
    assert '<a class="ref-chip" href="#details">' in html


def test_unresolved_data_ref_is_shown_as_such() -> None:
    chart = {
        "kind": "chart",
        "payload": {"viz": "line", "title": "Big"},
        "dataRef": {"blob": "abc"},
    }
    assert "Big: data kept apart (dataRef)" in body(render_doc(doc(chart)))


def test_pictures_on_other_sites_are_their_alt_text_and_a_link() -> None:
    # Opening a document never makes the reader's browser fetch a third-party site.
    html = body(
        render_doc(
            doc(
                el("prose", md="see ![the chart](https://cdn.example.org/c.png?x=1) here"),
                el("figure", src="https://example.com/a/b.png", alt="Architecture"),
                el("gallery", items=[{"src": "//img.example.net/p.jpg", "alt": "photo"}]),
                el("media", src="https://example.com/shot.png", mime="image/png", alt="shot"),
            )
        )
    )
    assert "<img" not in html
    for alt, href, shown in [
        ("the chart", "https://cdn.example.org/c.png?x=1", "cdn.example.org/c.png"),
        ("Architecture", "https://example.com/a/b.png", "example.com/a/b.png"),
        ("photo", "//img.example.net/p.jpg", "img.example.net/p.jpg"),
        ("shot", "https://example.com/shot.png", "example.com/shot.png"),
    ]:
        assert (
            f'<span class="site-picture" role="img" aria-label="{alt}">{alt} '
            f'<a href="{href.replace("&", "&amp;")}" rel="noopener noreferrer nofollow">{shown}</a>'
        ) in html
