"""Layout options and fixed node sizes passed per call to ``lay_out``."""

from __future__ import annotations

import itertools

from layoutkit.diagram import LayoutOptions, lay_out

CHAIN = {
    "title": "Chain",
    "dir": "TD",
    "nodes": [{"id": v, "title": v.upper()} for v in "abcd"],
    "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}, {"from": "c", "to": "d"}],
}


def _layer_gaps(out: dict) -> list[float]:
    """Free space between consecutive nodes of the chain (top of one minus bottom of the other)."""
    nodes = out["geo"]["nodes"]
    boxes = [nodes[v] for v in "abcd"]
    return [b["y"] - (a["y"] + a["h"]) for a, b in itertools.pairwise(boxes)]


def test_default_options_give_the_same_geometry_as_no_options() -> None:
    assert lay_out(CHAIN, options=LayoutOptions())["geo"] == lay_out(CHAIN)["geo"]


def test_a_larger_layer_gap_gives_larger_gaps_between_layers() -> None:
    narrow = _layer_gaps(lay_out(CHAIN, options=LayoutOptions(layer_gap=36)))
    wide = _layer_gaps(lay_out(CHAIN, options=LayoutOptions(layer_gap=96)))
    assert all(w >= n + 60 - 0.01 for n, w in zip(narrow, wide, strict=True))
    assert min(wide) >= 96 - 0.01


def test_options_are_per_call() -> None:
    before = lay_out(CHAIN)["geo"]
    wide = lay_out(CHAIN, options=LayoutOptions(layer_gap=120, node_gap=90))["geo"]
    after = lay_out(CHAIN)["geo"]
    assert after == before
    assert wide["height"] > before["height"]
    again = lay_out(CHAIN, options=LayoutOptions(layer_gap=120, node_gap=90))["geo"]
    assert again == wide


def test_node_sizes_fix_the_boxes_they_name() -> None:
    out = lay_out(CHAIN, node_sizes={"a": (200, 80), "c": (30, 20)})
    nodes = out["geo"]["nodes"]
    assert (nodes["a"]["w"], nodes["a"]["h"]) == (200, 80)
    assert (nodes["c"]["w"], nodes["c"]["h"]) == (30, 20)
    measured = lay_out(CHAIN)["geo"]["nodes"]["b"]
    assert (nodes["b"]["w"], nodes["b"]["h"]) == (measured["w"], measured["h"])


def test_node_sizes_reach_the_members_of_a_group_laid_out_as_a_block() -> None:
    payload = {
        "dir": "TD",
        "nodes": [{"id": "top"}],
        "groups": [
            {
                "id": "g",
                "title": "Block",
                "dir": "LR",
                "nodes": [{"id": "x"}, {"id": "y"}],
            }
        ],
        "edges": [{"from": "x", "to": "y"}, {"from": "top", "to": "g"}],
    }
    nodes = lay_out(payload, node_sizes={"x": (150, 70)})["geo"]["nodes"]
    assert (nodes["x"]["w"], nodes["x"]["h"]) == (150, 70)
