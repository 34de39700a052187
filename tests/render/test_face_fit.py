"""Element and doc cards: the sizer's height is the height the face draws.

Each card is sized by :func:`layoutkit.layout.sizing.size_card` and drawn by
:func:`layoutkit.render._faces.card_face` in exactly that box; the drawn
content must stay inside the box and leave little empty space at its bottom.
"""

from __future__ import annotations

import pytest

from layoutkit.layout.sizing import size_card
from layoutkit.render._faces import card_face
from layoutkit.render._scene import Box, Ellipse, Image, Item, Path, Text

ROWS3 = [
    {"label": "alpha", "value": 12},
    {"label": "beta", "value": 30},
    {"label": "gamma", "value": 7},
]
ROWS8 = [{"label": f"row {i}", "value": i * 3 + 1} for i in range(8)]
LONG = "a finding title that is long enough to wrap onto a second line in the card face " * 2

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


def _bottom(item: Item) -> float:
    if isinstance(item, Box | Ellipse | Image):
        return item.y + item.h
    if isinstance(item, Text):
        return item.y + item.height
    if isinstance(item, Path):
        return max(py for _, py in item.points)
    return 0.0


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
