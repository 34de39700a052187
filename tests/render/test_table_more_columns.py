"""A table card gets the width its columns need, up to a cap; past it cells wrap,
and only columns that do not fit even wrapped are left out, and counted."""

from __future__ import annotations

import html
import re

from layoutkit import render
from layoutkit.layout import table_face
from layoutkit.layout.sizing import ELEMENT_CARD_WIDTH, TABLE_MAX_WIDTH, size_card


def _table(n_cols: int, label: str = "Col") -> dict:
    cols = [{"key": f"c{i}", "label": f"{label} {i}"} for i in range(n_cols)]
    rows = [{f"c{i}": i * 10 + r for i in range(n_cols)} for r in range(3)]
    return {"title": "Wide", "cols": cols, "rows": rows}


def _drawn(p: dict, width: float | None = None) -> list[str]:
    w, h = size_card("table", p, width)
    svg = render.render_card({"id": 1, "kind": "table", "payload": p, "w": w, "h": h})
    assert isinstance(svg, str)
    return [html.unescape(s) for s in re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg)]


def test_a_seven_column_table_gets_the_width_it_needs() -> None:
    p = _table(7, "Quarterly revenue")
    w, _ = size_card("table", p)
    assert ELEMENT_CARD_WIDTH < w <= TABLE_MAX_WIDTH
    drawn = _drawn(p)
    # each header wraps in its column, none is cut
    assert drawn.count("QUARTERLY REVENUE") == 7 and "6" in drawn
    assert not any(s.startswith("+") and "column" in s for s in drawn)


def test_a_narrow_table_keeps_the_element_width() -> None:
    assert size_card("table", _table(2))[0] == ELEMENT_CARD_WIDTH


def test_cells_wrap_before_columns_are_left_out() -> None:
    words = "a long description that needs to wrap over lines"
    cols = [{"key": f"c{i}", "label": f"C{i}"} for i in range(12)]
    p = {"cols": cols, "rows": [{c["key"]: words for c in cols}]}
    w, _ = size_card("table", p)
    assert w == TABLE_MAX_WIDTH
    face = table_face.plan(p, w - 32)
    assert face is not None and len(face.cols) == 12
    assert max(len(cell) for cell in face.rows[0]) > 1


def test_an_author_set_width_is_kept_and_left_out_columns_are_counted() -> None:
    p = _table(12, "Quarterly revenue")
    assert size_card("table", p, 480)[0] == 480
    drawn = _drawn(p, 480)
    hidden = table_face.hidden_columns(p, 448)
    assert hidden > 0
    assert f"+{hidden} columns" in drawn
    assert drawn.count("QUARTERLY") == 12 - hidden


def test_a_table_too_wide_for_the_cap_says_how_many_columns_are_left_out() -> None:
    p = _table(40, "Column")
    w, _ = size_card("table", p)
    assert w == TABLE_MAX_WIDTH
    hidden = table_face.hidden_columns(p, w - 32)
    assert 0 < hidden < 40
    assert f"+{hidden} columns" in _drawn(p)
