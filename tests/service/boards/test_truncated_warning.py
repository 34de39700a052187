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


def test_a_patch_that_makes_a_face_cut_content_says_so(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "grow"})
    cards = [{"kind": "table", "ref": "t", "payload": _table(3)}]
    made = ws.call("compose_board", {"board": "grow", "cards": cards})
    card = made["cards"][0]["id"]
    assert [w for w in made["warnings"] if w["code"] == "truncated"] == []
    # A move changes nothing on the face: nothing to say.
    moved = ws.call("update_cards", {"board": "grow", "patch": [{"id": card, "x": 900}]})
    assert moved["warnings"] == []
    wider = ws.call(
        "update_cards", {"board": "grow", "patch": [{"id": card, "payload": _table(60)}]}
    )
    (warning,) = [w for w in wider["warnings"] if w["code"] == "truncated"]
    assert (warning["index"], warning["cardId"]) == (0, card)
    assert "of 60 columns" in warning["message"]
