"""A table with more columns than its face holds says how many it leaves out."""

from __future__ import annotations

import html
import re

from layoutkit import render
from layoutkit.layout import table_face
from layoutkit.layout.sizing import size_card


def _table(n_cols: int) -> dict:
    cols = [{"key": f"c{i}", "label": f"Col {i}"} for i in range(n_cols)]
    rows = [{f"c{i}": i * 10 + r for i in range(n_cols)} for r in range(3)]
    return {"title": "Wide", "cols": cols, "rows": rows}


def _drawn(p: dict) -> list[str]:
    w, h = size_card("table", p)
    svg = render.render_card({"id": 1, "kind": "table", "payload": p, "w": w, "h": h})
    assert isinstance(svg, str)
    return [html.unescape(s) for s in re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg)]


def test_a_seven_column_table_says_plus_one_column() -> None:
    drawn = _drawn(_table(7))
    assert "+1 column" in drawn
    assert "COL 5" in drawn and "COL 6" not in drawn


def test_the_count_of_left_out_columns_is_on_the_face() -> None:
    drawn = _drawn(_table(table_face.MAX_COLS + 4))
    assert "+4 columns" in drawn


def test_a_table_that_fits_says_nothing() -> None:
    drawn = _drawn(_table(table_face.MAX_COLS))
    assert not any(s.startswith("+") and "column" in s for s in drawn)
    p = _table(7)
    assert size_card("table", p)[1] > size_card("table", _table(6))[1]
