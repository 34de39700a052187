"""A card whose face leaves content out says so in the compose receipt."""

from __future__ import annotations

from layoutkit import Workspace
from layoutkit.layout import table_face


def _table(n_cols: int) -> dict:
    cols = [{"key": f"c{i}", "label": f"Col {i}"} for i in range(n_cols)]
    return {"title": "Wide", "cols": cols, "rows": [{c["key"]: 1 for c in cols}]}


def test_a_table_with_left_out_columns_warns_truncated(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "wide"})
    cards = [
        {"kind": "table", "ref": "wide-table", "payload": _table(60)},
        {"kind": "table", "ref": "narrow-table", "payload": _table(3)},
    ]
    out = ws.call("compose_board", {"board": "wide", "cards": cards})
    truncated = [w for w in out["warnings"] if w["code"] == "truncated"]
    assert len(truncated) == 1
    (warning,) = truncated
    assert warning["card"] == "wide-table" and warning["index"] == 0
    hidden = table_face.hidden_columns(cards[0]["payload"], out["cards"][0]["w"] - 32)
    assert "'wide-table'" in warning["message"] and f"{hidden} of 60 columns" in warning["message"]
    assert f"+{hidden} columns" in warning["message"]
