"""Table elements on card faces wrap their cells and are sized by the plan they draw.

Issue 19 asks for table cells "wrapped or given the width they need": columns take the
width their cells need, and when the table is wider than the face, the widest columns
give way and their text wraps (up to three lines a cell) instead of being cut. The card
sizer reads the same plan (:mod:`layoutkit.layout.table_face`), so a sized card draws
every row.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit.layout import table_face
from layoutkit.layout.sizing import PAD, size_card
from layoutkit.render._faces import card_face
from layoutkit.render._scene import Text

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=14)
PHRASE = st.lists(WORD, min_size=1, max_size=16).map(" ".join)
NOTE = (
    "Checkout times out for shoppers on slow networks when the payment page loads "
    "its fraud script before the form"
)


def _doc(table: dict) -> dict:
    return {"title": "Review", "elements": [{"kind": "table", "payload": table}]}


def _lines(items: list) -> list[str]:
    return [line for i in items if isinstance(i, Text) for line in i.lines]


def test_a_long_cell_wraps_in_its_column_instead_of_being_cut() -> None:
    table = {
        "cols": [{"key": "id"}, {"key": "note"}, {"key": "cost", "type": "number"}],
        "rows": [{"id": "k1", "note": NOTE, "cost": 1200}, {"id": "k2", "note": "ok", "cost": 5}],
    }
    w, h = size_card("doc", _doc(table))
    drawn = _lines(card_face("doc", _doc(table), (0.0, 0.0, w, h)))
    assert " ".join(NOTE.split()) in " ".join(d.strip() for d in drawn if d)
    assert not any(d.endswith("…") for d in drawn), drawn
    assert not any(re.fullmatch(r"\+\d+ more rows", d) for d in drawn)


def test_a_cell_longer_than_three_lines_ends_in_an_ellipsis() -> None:
    table = {"cols": [{"key": "a"}, {"key": "b"}], "rows": [{"a": "x", "b": NOTE * 6}]}
    face = table_face.plan(table, 300.0)
    assert face is not None
    cell = face.rows[0][1]
    assert len(cell) == table_face.CELL_LINES
    assert cell[-1].endswith("…")
    assert face.row_height(0) == table_face.CELL_LINES * table_face.line_height() + 3


def test_numbers_never_wrap_and_stay_flush_right() -> None:
    table = {
        "cols": [{"key": "n", "label": "Name"}, {"key": "v", "type": "number"}],
        "rows": [{"n": NOTE, "v": 1234567}],
    }
    face = table_face.plan(table, 260.0)
    assert face is not None and face.numeric == (False, True)
    assert len(face.rows[0][1]) == 1 and len(face.rows[0][0]) > 1


@st.composite
def tables(draw: st.DrawFn) -> dict:
    ncols = draw(st.integers(1, 6))
    keys = [f"c{i}" for i in range(ncols)]
    kinds = [draw(st.sampled_from(["text", "number"])) for _ in keys]
    rows = []
    for _ in range(draw(st.integers(0, 10))):
        rows.append(
            {
                k: draw(st.integers(-(10**6), 10**6)) if t == "number" else draw(PHRASE)
                for k, t in zip(keys, kinds, strict=True)
            }
        )
    return {"cols": [{"key": k} for k in keys], "rows": rows}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables())
def test_a_sized_table_card_draws_every_row_and_stays_in_its_box(table: dict) -> None:
    doc = _doc(table)
    w, h = size_card("doc", doc)
    items = card_face("doc", doc, (0.0, 0.0, w, h))
    drawn = _lines(items)
    assert not any(re.fullmatch(r"\+\d+ more rows", d) for d in drawn)
    face = table_face.plan(table, w - 4 * PAD)  # a doc card pads its content by 2 PAD
    assert face is not None
    for row in face.rows:
        for cell in row:
            for line in cell:
                assert line in drawn, f"{line!r} planned but not drawn"
    bottom = max((i.y + i.height for i in items if isinstance(i, Text)), default=0.0)
    assert bottom <= h - 2 * PAD + 1


@given(
    needs=st.lists(st.floats(10, 600), min_size=1, max_size=6),
    w=st.floats(120, 900),
)
def test_only_the_widest_columns_give_way(needs: list[float], w: float) -> None:
    widths = table_face.col_widths(needs, w)
    if sum(needs) <= w:
        assert all(g >= n - 1e-6 for g, n in zip(widths, needs, strict=True))
        assert abs(sum(widths) - w) < 1e-6
        return
    assert abs(sum(widths) - w) < 1e-6
    level = max(widths)
    for g, n in zip(widths, needs, strict=True):
        # a column keeps its need unless it is wider than the level the others share
        assert g == n if n <= level else abs(g - level) < 1e-6
