"""A card pinned smaller than its content draws a marker for what it left out, and
reports the same cut as data (``render.face_cuts``)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from layoutkit import render

PINNED: dict[str, tuple[dict[str, Any], str]] = {
    "checklist": ({"title": "Todo", "items": [{"text": f"item {i}"} for i in range(30)]}, "more"),
    "list": ({"items": [f"item {i}" for i in range(40)]}, "more"),
    "timeline": (
        {
            "items": [
                {"when": f"2026-03-{i + 1:02d}", "title": f"t{i}", "text": "d"} for i in range(20)
            ]
        },
        "more",
    ),
    "table": ({"cols": [{"key": "a"}], "rows": [{"a": i} for i in range(40)]}, "more rows"),
    "doc": ({"elements": [{"kind": "prose", "payload": {"md": "Short."}}] * 30}, "…"),
    "text": ({"md": "\n\n".join(f"Paragraph {i}." for i in range(40))}, "more lines"),
}


@pytest.mark.parametrize("kind", sorted(PINNED))
def test_a_pinned_face_marks_and_reports_its_cut(kind: str) -> None:
    payload, marker = PINNED[kind]
    cuts = render.face_cuts(kind, payload, 320, 220)
    assert cuts and all(marker in c.marker or c.marker == "…" for c in cuts)
    svg = render.render_card({"id": 1, "kind": kind, "payload": payload, "w": 320, "h": 220})
    assert isinstance(svg, str)
    drawn = [html.unescape(s) for s in re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg)]
    assert any(c.marker in line for c in cuts for line in drawn)
    assert render.face_cuts(kind, payload, 320, 20000) == []
