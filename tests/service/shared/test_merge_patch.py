"""The merge-patch rule that card payload patches and board meta patches share."""

from __future__ import annotations

from layoutkit.service.shared.merge_patch import merge_patch


def test_top_level_keys_replace_whole_null_removes_and_ignored_keys_survive() -> None:
    current = {"title": "A", "layout": {"mode": "grid", "cols": 2}, "gone": 1, "stamp": "s"}
    patch = {"layout": {"mode": "row"}, "gone": None, "missing": None, "new": [1], "stamp": "x"}
    merged = merge_patch(current, patch, ignore={"stamp"})
    assert merged == {"title": "A", "layout": {"mode": "row"}, "new": [1], "stamp": "s"}
    assert merge_patch({"stamp": "s"}, {"stamp": None}, ignore={"stamp"}) == {"stamp": "s"}
    assert current["gone"] == 1 and "new" not in current
