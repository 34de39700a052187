"""A stat strip never cuts a headline number: the card widens to its tiles, and tiles that
would pass the widest strip (or a document's fixed width) wrap onto further rows."""

from __future__ import annotations

import html
import re

import pytest

from layoutkit import render
from layoutkit.layout import stat_face
from layoutkit.layout.sizing import element_height, size_card

_SPAN = re.compile(r"<tspan[^>]*>([^<]*)</tspan>")


def _strip(n: int) -> dict:
    values = ["18,432,117", "31.7%", "3.41 s", "€ 1,204,880", "99.95%", "12,345 req/s"]
    deltas = ["+12.5%", "-3.4 pts", "+0.2 s", None, "+0.01%", "-8%"]
    items = [{"label": f"Headline {i}", "value": values[i], "delta": deltas[i]} for i in range(n)]
    return {"title": "This week", "items": items}


def _drawn(kind: str, payload: dict, w: float, h: float) -> list[str]:
    svg = render.render_card({"id": 1, "kind": kind, "payload": payload, "w": w, "h": h})
    assert isinstance(svg, str)
    return [html.unescape(s) for s in _SPAN.findall(svg)]


@pytest.mark.parametrize("n", [4, 6])
def test_every_value_is_drawn_whole_at_the_default_width(n: int) -> None:
    p = _strip(n)
    w, h = size_card("stat", p)
    drawn = _drawn("stat", p, w, h)
    assert not any(s.endswith("…") for s in drawn)
    for item in p["items"]:
        assert item["value"] in drawn
        if item["delta"]:
            assert item["delta"] in drawn


def test_a_strip_too_wide_for_one_row_wraps_its_tiles() -> None:
    p = _strip(6)
    p["items"] += [{"label": f"More {i}", "value": "123,456,789.5 EUR"} for i in range(4)]
    w, h = size_card("stat", p)
    assert w <= stat_face.MAX_WIDTH + 32
    assert stat_face.rows(stat_face.items(p), w - 32) >= 2
    drawn = _drawn("stat", p, w, h)
    assert drawn.count("123,456,789.5 EUR") == 4 and not any(s.endswith("…") for s in drawn)


def test_a_stat_in_a_document_wraps_instead_of_cutting() -> None:
    p = _strip(4)
    cw = 400.0
    assert element_height("stat", p, cw) > element_height("stat", _strip(1), cw)
    doc = {"title": "", "elements": [{"kind": "stat", "payload": p}]}
    w, h = size_card("doc", doc)
    drawn = _drawn("doc", doc, w, h)
    for item in p["items"]:
        assert item["value"] in drawn
