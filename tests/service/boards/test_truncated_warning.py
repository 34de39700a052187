"""A card whose face leaves content out says so in the compose receipt."""

from __future__ import annotations

from layoutkit import Workspace


def _table(n_cols: int) -> dict:
    cols = [{"key": f"c{i}", "label": f"Col {i}"} for i in range(n_cols)]
    return {"title": "Wide", "cols": cols, "rows": [{c["key"]: 1 for c in cols}]}


def test_a_table_with_left_out_columns_warns_truncated(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "wide"})
    cards = [
        {"kind": "table", "ref": "wide-table", "payload": _table(9)},
        {"kind": "table", "ref": "narrow-table", "payload": _table(3)},
    ]
    out = ws.call("compose_board", {"board": "wide", "cards": cards})
    truncated = [w for w in out["warnings"] if w["code"] == "truncated"]
    assert len(truncated) == 1
    (warning,) = truncated
    assert warning["card"] == "wide-table" and warning["index"] == 0
    assert "'wide-table'" in warning["message"] and "6 of its 9 columns" in warning["message"]
    assert "+3 columns" in warning["message"]
