"""Element and doc cards: the sizer's height is the height the face draws.

Each card is sized by :func:`layoutkit.layout.sizing.size_card` and drawn by
:func:`layoutkit.render._faces.card_face` in exactly that box; the drawn
content must stay inside the box and leave little empty space at its bottom.
"""

from __future__ import annotations

import math

import pytest

from layoutkit.diagram import lay_out
from layoutkit.layout.sizing import CHIP_H, FINDING_EVIDENCE_MAX, size_card
from layoutkit.render._faces import card_face
from layoutkit.render._palette import tone
from layoutkit.render._scene import Box, Ellipse, Image, Item, Path, Text
from tests.render.gallery import DIAGRAM

ROWS3 = [
    {"label": "alpha", "value": 12},
    {"label": "beta", "value": 30},
    {"label": "gamma", "value": 7},
]
ROWS8 = [{"label": f"row {i}", "value": i * 3 + 1} for i in range(8)]
LONG = "a finding title that is long enough to wrap onto a second line in the card face " * 2
BODY = (
    "The cache key ignores the tenant id, so two tenants can read each other's rows. " * 3
    + "\n\nA second paragraph says how far the damage goes, in more words than one line holds."
)
FULL_FINDING = {
    "sev": "high",
    "tag": "security",
    "status": "confirmed",
    "title": "Cache leaks across tenants",
    "where": "cache/keys.py:40",
    "summary": "Tenant isolation is broken for cached reads.",
    "body": BODY,
    "cause": "The key builder predates multi-tenancy and was never revisited.",
    "fix": "Add the tenant id to every cache key and flush the cache once.",
    "evidence": [
        "repro: tenant B sees tenant A's invoice",
        "log: cache hit for another tenant's key at 12:00 " * 3,
        "test_cache_isolation fails",
    ],
}

CASES: list[tuple[str, dict]] = [
    (
        "stat",
        {
            "items": [
                {"value": 42, "label": "open"},
                {"value": 7, "label": "closed"},
                {"value": 3, "label": "stale"},
            ]
        },
    ),
    ("stat", {"title": "Today", "items": [{"value": 1200, "unit": "ms", "label": "p95"}]}),
    ("chart", {"viz": "bars", "data": {"items": ROWS3}}),
    ("chart", {"viz": "bars", "title": "Eight rows", "data": {"items": ROWS8}}),
    ("chart", {"viz": "bars", "data": {"items": ROWS8, "rank": 3}}),
    (
        "chart",
        {
            "viz": "stat",
            "title": "Uptime",
            "data": {"items": [{"label": "30 days", "value": 99.9, "unit": "%"}]},
        },
    ),
    ("chart", {"viz": "pie", "data": {"items": ROWS3}}),
    ("chart", {"viz": "donut", "title": "Share", "data": {"items": ROWS8}}),
    ("chart", {"viz": "line", "data": {"series": [{"name": "a", "values": [1, 3, 2, 5]}]}}),
    (
        "chart",
        {
            "viz": "compare",
            "data": {
                "items": [
                    {"label": "cold", "before": 10, "after": 6},
                    {"label": "warm", "before": 4, "after": 5},
                ]
            },
        },
    ),
    (
        "chart",
        {
            "viz": "timeline",
            "data": {
                "items": [
                    {"label": "a", "when": "2024-01-01"},
                    {"label": "b", "when": "2024-03-01"},
                ]
            },
        },
    ),
    ("chart", {"viz": "heatmap", "data": {"values": [[1, 2, 3], [4, 5, 6]]}}),
    (
        "meter",
        {
            "items": [
                {"label": "cpu", "value": 40, "max": 100},
                {"label": "mem", "value": 70, "max": 100, "threshold": 80},
            ]
        },
    ),
    ("meter", {"title": "Budget", "items": [{"label": "spend", "value": 3, "max": 10}]}),
    ("list", {"items": ["one", "two", "three"]}),
    ("list", {"style": "number", "items": [f"item number {i}" for i in range(9)]}),
    ("chips", {"items": [{"k": "env", "v": "prod"}, {"k": "owner", "v": "ana"}]}),
    ("chips", {"items": [{"k": f"key{i}", "v": f"a longer value {i}"} for i in range(12)]}),
    ("verdict", {"state": "Ship it", "tone": "good"}),
    ("verdict", {"state": LONG, "text": "details", "tone": "warn"}),
    ("finding", {"sev": "high", "tag": "perf", "title": "Slow query", "where": "db/query.py:12"}),
    ("finding", {"title": LONG, "summary": "s", "body": "b " * 80, "fix": "f"}),
    ("finding", FULL_FINDING),
    ("finding", {"sev": "medium", "status": "suspected", "body": "word " * 300, "evidence": "x"}),
    (
        "finding",
        {"status": "refuted", "title": "Not a bug", "evidence": [f"run {i}" for i in range(7)]},
    ),
    ("finding", {"summary": LONG, "body": "one\n\n\n\ntwo\n\nthree", "cause": LONG}),
    (
        "table",
        {
            "cols": [{"key": "a"}, {"key": "b", "type": "number"}],
            "rows": [{"a": "x", "b": 1}, {"a": "y", "b": 2}],
        },
    ),
    (
        "table",
        {
            "title": "People",
            "cols": [{"key": "n", "label": "Name"}],
            "rows": [{"cells": {"n": f"p{i}"}} for i in range(12)],
        },
    ),
    (
        "timeline",
        {
            "items": [
                {"when": "2024-01-01", "title": "start"},
                {"when": "2024-02-01", "title": "end", "text": "a note"},
            ]
        },
    ),
    ("timeline", {"title": "Plan", "items": [{"title": f"step {i}"} for i in range(6)]}),
    ("prose", {"md": "# Head\n\n" + LONG + "\n\n- a\n- b"}),
    ("gallery", {"items": [{"alt": "a"}, {"alt": "b"}, {"alt": "c"}, {"alt": "d"}]}),
    ("epic", {"title": "Checkout", "phase": "build", "done": 3, "total": 8}),
    ("milestone", {"title": "Beta", "due": "2024-05-01"}),
    ("ref", {"label": "see the spec"}),
    ("code", {"source": "a = 1\nb = 2\nprint(a + b)"}),
    (
        "doc",
        {
            "title": "Prose",
            "elements": [
                {"kind": "prose", "payload": {"md": LONG}},
                {"kind": "figure", "payload": {"alt": "shot"}},
                {"kind": "ref", "payload": {"label": "more"}},
            ],
        },
    ),
    (
        "doc",
        {
            "title": "Report",
            "elements": [
                {"kind": "stat", "payload": {"items": [{"value": 3, "label": "a"}]}},
                {"kind": "chart", "payload": {"viz": "bars", "data": {"items": ROWS3}}},
                {"kind": "list", "payload": {"items": ["x", "y"]}},
            ],
        },
    ),
    (
        "doc",
        {
            "title": "Findings",
            "elements": [
                {"kind": "finding", "payload": FULL_FINDING},
                {"kind": "finding", "payload": {"title": "Second", "body": BODY, "evidence": BODY}},
            ],
        },
    ),
    (
        "doc",
        {
            "kicker": "weekly",
            "title": "Status",
            "intro": "How the week went.",
            "chips": [{"k": "team", "v": "core"}],
            "elements": [
                {"kind": "verdict", "payload": {"state": "On track", "tone": "good"}},
                {"kind": "meter", "payload": {"items": [{"label": "done", "value": 5, "max": 8}]}},
                {
                    "kind": "table",
                    "payload": {"cols": [{"key": "a"}], "rows": [{"a": 1}, {"a": 2}]},
                },
                {"kind": "finding", "payload": {"sev": "low", "title": "Flaky test"}},
            ],
        },
    ),
]


FLOW_LR = {
    "dir": "LR",
    "nodes": [
        {"id": "a", "title": "Start"},
        {"id": "b", "title": "Work"},
        {"id": "c", "title": "End"},
    ],
    "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c", "label": "done"}],
}
FLOW_TD = {
    "dir": "TD",
    "nodes": [{"id": f"n{i}", "title": f"Node {i}"} for i in range(6)],
    "edges": [
        {"from": "n0", "to": "n1"},
        {"from": "n0", "to": "n2"},
        {"from": "n1", "to": "n3"},
        {"from": "n2", "to": "n4"},
        {"from": "n3", "to": "n5"},
        {"from": "n4", "to": "n5"},
    ],
}
CAPTIONED = {**FLOW_LR, "title": "Pipeline", "caption": "How a job moves, from start to *end*."}
DIAGRAMS = {"lr": FLOW_LR, "td": FLOW_TD, "captioned": CAPTIONED}


def laid_diagram(name: str) -> dict:
    return lay_out(DIAGRAMS[name])


def hand_placed(**extra: object) -> dict:
    """A diagram whose geo was placed by hand: its face draws header and footer around it."""
    return {**{k: v for k, v in DIAGRAM.items() if k != "geo"}, "geo": DIAGRAM["geo"], **extra}


def _bottom(item: Item) -> float:
    if isinstance(item, Box | Ellipse | Image):
        return item.y + item.h
    if isinstance(item, Text):
        return item.y + item.height
    if isinstance(item, Path):
        return max(py for _, py in item.points)
    return 0.0


def _extent(item: Item) -> tuple[float, float]:
    if isinstance(item, Box | Ellipse | Image):
        return (item.w, item.h)
    if isinstance(item, Path) and item.points:
        xs, ys = [px for px, _ in item.points], [py for _, py in item.points]
        return (max(xs) - min(xs), max(ys) - min(ys))
    return (0.0, 0.0)


def content_bottom(kind: str, payload: dict) -> tuple[float, float]:
    """(card height, lowest drawn content) of a card drawn at its sized box."""
    w, h = size_card(kind, payload)
    items = card_face(kind, payload, (0.0, 0.0, float(w), float(h)))
    # the first two items are the card chrome (shadow and body)
    return float(h), max((_bottom(i) for i in items[2:]), default=0.0)


@pytest.mark.parametrize(
    ("kind", "payload"), CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(CASES)]
)
def test_face_fills_its_sized_box(kind: str, payload: dict) -> None:
    h, bottom = content_bottom(kind, payload)
    assert bottom <= h + 0.5, f"{kind} content runs {bottom - h:.1f}px past the box"
    # below the card's own bottom padding (docs pad twice as much) little is left empty
    pad = 32.0 if kind == "doc" else 16.0
    slack = h - pad - bottom
    assert slack <= max(24.0, 0.15 * h), f"{kind} leaves {slack:.1f}px empty of {h}"


@pytest.mark.parametrize("kind", ["stat", "meter", "list", "timeline", "chips"])
def test_face_draws_every_item_it_was_sized_for(kind: str) -> None:
    items = {
        "stat": [{"value": i, "label": f"s{i}"} for i in range(3)],
        "meter": [{"label": f"m{i}", "value": i, "max": 9} for i in range(7)],
        "list": [f"entry {i}" for i in range(11)],
        "timeline": [{"title": f"t{i}"} for i in range(9)],
        "chips": [{"k": f"k{i}", "v": "value"} for i in range(15)],
    }[kind]
    payload = {"items": items}
    w, h = size_card(kind, payload)
    drawn = card_face(kind, payload, (0.0, 0.0, float(w), float(h)))
    texts = [i for i in drawn if isinstance(i, Text)]
    assert len(texts) >= len(items)


def _drawn_text(kind: str, payload: dict) -> list[str]:
    w, h = size_card(kind, payload)
    drawn = card_face(kind, payload, (0.0, 0.0, float(w), float(h)))
    return [line for i in drawn if isinstance(i, Text) for line in i.lines]


@pytest.mark.parametrize("kind", ["finding", "doc"])
def test_finding_face_draws_every_field_in_order(kind: str) -> None:
    payload = (
        FULL_FINDING
        if kind == "finding"
        else {"elements": [{"kind": "finding", "payload": FULL_FINDING}]}
    )
    text = " ".join(_drawn_text(kind, payload))
    marks = [
        "HIGH · SECURITY",
        "Cache leaks",
        "cache/keys.py:40",
        "Tenant isolation",
        "The cache key ignores",
        "A second paragraph",
        "Cause: The key builder",
        "Fix: Add the tenant id",
        "repro: tenant B",
        "log: cache hit",
        "test_cache_isolation",
    ]
    at = [text.find(m) for m in marks]
    assert -1 not in at, [m for m, i in zip(marks, at, strict=True) if i < 0]
    assert at == sorted(at)
    assert "confirmed" in text


def test_finding_status_chip_reads_the_status() -> None:
    def chip_stroke(status: str) -> str | None:
        payload = {"title": "t", "status": status}
        w, h = size_card("finding", payload)
        drawn = card_face("finding", payload, (0.0, 0.0, float(w), float(h)))
        boxes = [i for i in drawn[2:] if isinstance(i, Box) and i.h == CHIP_H]
        return boxes[0].stroke if boxes else None

    assert chip_stroke("fixed") == chip_stroke("verified") == tone("good")[0]
    assert chip_stroke("open") == chip_stroke("likely") == tone("warn")[0]
    assert chip_stroke("refuted") == tone("muted")[0]
    assert chip_stroke("fixed") != chip_stroke("open")


def test_finding_evidence_is_a_short_bulleted_list() -> None:
    payload = {"title": "t", "evidence": [f"item {i}" for i in range(9)]}
    lines = _drawn_text("finding", payload)
    assert lines.count("•") == FINDING_EVIDENCE_MAX
    assert f"+{9 - FINDING_EVIDENCE_MAX} more" in lines
    assert _drawn_text("finding", {"evidence": "only one"}).count("•") == 1


def test_finding_fix_stays_on_one_line() -> None:
    lines = _drawn_text("finding", {"title": "t", "fix": LONG})
    fixes = [ln for ln in lines if ln.startswith("Fix: ")]
    assert len(fixes) == 1 and fixes[0].endswith("…")


DIAGRAM_CASES = ["lr", "td", "captioned", "hand", "hand-captioned"]


def _diagram_payload(name: str) -> dict:
    if name == "hand":
        return hand_placed()
    if name == "hand-captioned":
        return hand_placed(caption="Drawn by hand, **captioned** under its footer.")
    return laid_diagram(name)


@pytest.mark.parametrize("name", DIAGRAM_CASES)
def test_diagram_card_fills_its_sized_box(name: str) -> None:
    payload = _diagram_payload(name)
    h, bottom = content_bottom("diagram", payload)
    assert bottom <= h + 0.5, f"diagram content runs {bottom - h:.1f}px past the box"
    # an engine geo keeps its own 16 px margin under the last node
    slack = h - 16.0 - bottom
    assert slack <= 24.0, f"diagram leaves {slack:.1f}px empty of {h}"


@pytest.mark.parametrize("name", DIAGRAM_CASES)
def test_diagram_card_draws_geo_at_scale_one(name: str) -> None:
    payload = _diagram_payload(name)
    w, h = size_card("diagram", payload)
    drawn = card_face("diagram", payload, (0.0, 0.0, float(w), float(h)))
    geo = payload["geo"]
    # the sizer rounds the box up, so the face may draw a fraction of a pixel larger
    sizes = [_extent(i) for i in drawn]
    # the hand-placed geo's note and cylinder are drawn as several parts; check its boxes
    ids = ["web", "api", "worker"] if name.startswith("hand") else list(geo["nodes"])
    for node in (geo["nodes"][i] for i in ids):
        assert any(
            ew == pytest.approx(node["w"], abs=0.25) and eh == pytest.approx(node["h"], abs=0.25)
            for ew, eh in sizes
        ), node


@pytest.mark.parametrize("name", ["lr", "td", "captioned"])
def test_engine_diagram_card_is_chrome_plus_geo(name: str) -> None:
    payload = laid_diagram(name)
    geo = payload["geo"]
    # 48 px band (top padding included) above, 16 px padding on the other sides
    assert size_card("diagram", payload) == (
        math.ceil(geo["width"] + 32),
        math.ceil(geo["height"] + 48 + 16),
    )


@pytest.mark.parametrize(
    "text_",
    ["flowchart LR\nA --> B\nB --> C", "sequenceDiagram\nA->>B: hi\nB-->>A: ok"],
)
def test_imported_text_draws_no_counts_band_and_fits_without_it(text_: str) -> None:
    payload = lay_out({"diagram_text": text_, "title": "Checkout"})
    assert payload["band"] is False
    w, h = size_card("diagram", payload)
    drawn = card_face("diagram", payload, (0.0, 0.0, float(w), float(h)))
    words = " ".join(line for i in drawn if isinstance(i, Text) for line in i.lines)
    assert "DIAGRAM" not in words and "Checkout" in words
    # the band's room is given back: the card is the geo plus its padding
    assert h == math.ceil(payload["geo"]["height"] + 32)


def test_a_sequence_band_names_no_direction() -> None:
    payload = lay_out({"diagram_text": "sequenceDiagram\nA->>B: hi", "band": True})
    w, h = size_card("diagram", payload)
    drawn = card_face("diagram", payload, (0.0, 0.0, float(w), float(h)))
    (band,) = [i for i in drawn if isinstance(i, Text) and "DIAGRAM" in i.lines[0]]
    assert "LR" not in band.lines[0] and "TD" not in band.lines[0]


def test_a_hidden_title_is_not_drawn() -> None:
    payload = lay_out({"diagram_text": "flowchart TD\nA --> B", "title": "Flowchart"})
    shown = lay_out({**payload, "geo": None, "showTitle": False})
    assert any(p["key"] == "title" for p in payload["geo"]["header"]["parts"])
    assert "header" not in shown["geo"] or all(
        p["key"] != "title" for p in shown["geo"]["header"]["parts"]
    )


@pytest.mark.parametrize(
    "text_",
    ["flowchart LR\nA --> B", "stateDiagram-v2\n[*] --> A\nstate A {\n  a --> b\n}"],
)
def test_an_imported_diagram_without_a_title_draws_no_type_name(text_: str) -> None:
    # What compose stores: the type name kept as the title, hidden, and no band.
    payload = lay_out({"diagram_text": text_, "title": "Flowchart", "showTitle": False})
    payload["band"] = False
    w, h = size_card("diagram", payload)
    drawn = card_face("diagram", payload, (0.0, 0.0, float(w), float(h)))
    words = " ".join(line for i in drawn if isinstance(i, Text) for line in i.lines)
    assert "Flowchart" not in words
    # the face is the geo and the padding: no room kept for the hidden title
    assert h == math.ceil(payload["geo"]["height"] + 32)
