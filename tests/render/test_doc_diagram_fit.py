"""A diagram inside a doc card keeps its titles and column types inside their boxes.

A service node is drawn with the service glyph before its title, so its box holds
the glyph too; an entity row gives the column's name and type the width each needs.
"""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit.layout.sizing import size_card
from layoutkit.layout.text import text_width
from layoutkit.render._face_diagram import with_geo
from layoutkit.render._faces import card_face
from layoutkit.render._scene import Box, Path, Text

NODES: list[dict[str, Any]] = [
    {"id": "web", "title": "Storefront"},
    {"id": "api", "type": "service", "title": "Checkout API"},
    {
        "id": "db",
        "type": "entity",
        "title": "orders",
        "columns": [
            {"name": "id", "type": "uuid", "pk": True},
            {"name": "total", "type": "numeric(12,2)"},
            {"name": "cust", "type": "varchar(255)", "fk": True},
        ],
    },
    {"id": "pay", "title": "Payment provider webhook handler"},
    {"id": "mail", "title": "Order confirmation mailer"},
]
EDGES = [
    {"from": "web", "to": "api"},
    {"from": "api", "to": "db"},
    {"from": "api", "to": "pay"},
    {"from": "pay", "to": "mail"},
]


def _extent(t: Text) -> list[tuple[float, float, float, str]]:
    out = []
    for i, line in enumerate(t.lines):
        w = text_width(line, t.size, t.font)
        left = t.x - (w if t.anchor == "end" else w / 2 if t.anchor == "middle" else 0)
        out.append((left, left + w, t.y + i * t.lh + t.lh / 2, line))
    return out


def _frames(items: list, card_w: float) -> list[tuple[float, float, float, float]]:
    out = []
    for b in items:
        if isinstance(b, Box):
            out.append((b.x, b.y, b.w, b.h))
        elif isinstance(b, Path) and b.closed:
            xs, ys = [p[0] for p in b.points], [p[1] for p in b.points]
            out.append((min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))
    return [f for f in out if f[2] < card_w - 60]  # node boxes, not the card's chrome


@pytest.mark.parametrize("direction", ["LR", "TD"])
@pytest.mark.parametrize("shape", ["rect", "round", "hexagon", "parallelogram"])
def test_node_text_stays_inside_its_box_in_a_doc(direction: str, shape: str) -> None:
    nodes = [{**n, "shape": shape} if n["id"] == "api" else n for n in NODES]
    diagram = with_geo({"title": "Checkout", "dir": direction, "nodes": nodes, "edges": EDGES})
    doc = {"title": "Architecture", "elements": [{"kind": "diagram", "payload": diagram}]}
    w, h = size_card("doc", doc)
    items = card_face("doc", doc, (0.0, 0.0, float(w), float(h)))
    frames = _frames(items, float(w))
    shown = []
    for t in (i for i in items if isinstance(i, Text)):
        for left, right, mid, line in _extent(t):
            shown.append(line)
            assert "…" not in line, line
            holders = [f for f in frames if f[0] <= (left + right) / 2 <= f[0] + f[2]]
            holders = [f for f in holders if f[1] <= mid <= f[1] + f[3]]
            if not holders:
                continue
            fx, _, fw, _ = min(holders, key=lambda f: f[2] * f[3])
            assert fx - 0.3 <= left and right <= fx + fw + 0.3, (line, left, right, fx, fx + fw)
    text = " ".join(shown)
    assert "Checkout API" in text and "numeric(12,2)" in text and "varchar(255)" in text
