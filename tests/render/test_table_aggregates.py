"""A table's footer writes its sums and averages the way the column writes its cells."""

from __future__ import annotations

import pytest

from layoutkit import render
from layoutkit.formatting import number_format, number_in
from layoutkit.layout import table_face


@pytest.mark.parametrize(
    ("cells", "how", "foot"),
    [
        (["€1,200.50", "€3", None], "sum", "€1,203.50"),
        (["12%", "13%"], "avg", "12.5%"),
        (["12%", "14%"], "avg", "13%"),
        (["3.5 ms", "4 ms"], "sum", "7.5 ms"),
        ([1, 2.5], "sum", "3.5"),
        ([1200, 80.5], "sum", "1,280.5"),
        (["12%", "€3"], "sum", "15"),
        (["12%", "n/a", "x"], "count", "3"),
        (["a", "b"], "sum", "—"),
    ],
)
def test_the_footer_uses_the_columns_number_format(cells: list, how: str, foot: str) -> None:
    rows = [{"v": c} for c in cells]
    assert table_face.aggregate(rows, "v", how) == foot


def test_a_text_number_keeps_its_affixes() -> None:
    assert number_in("€1,200.50") == 1200.5 and number_in("3.5 ms") == 3.5
    assert number_in("v2 beta") is None and number_in(True) is None
    assert number_format(["$4.00", "$5.25"])(9.25) == "$9.25"


def test_the_html_footer_and_the_face_footer_agree() -> None:
    p = {
        "cols": [{"key": "cost", "label": "Cost", "type": "number"}],
        "rows": [{"cost": "€1,200.50"}, {"cost": "€3"}],
        "aggregates": {"cost": "sum"},
    }
    doc = render.render_doc(
        {"kind": "doc", "payload": {"elements": [{"kind": "table", "payload": p}]}}
    )
    assert "sum €1,203.50" in doc
    face = table_face.plan(p, 400)
    assert face is not None and face.foot == ("sum €1,203.50",)
