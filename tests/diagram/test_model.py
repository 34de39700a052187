"""The one walk over what holds nodes in a diagram payload."""

from __future__ import annotations

from layoutkit.diagram.model import containers


def test_containers_walk_groups_depth_first_then_lanes_and_skip_non_objects() -> None:
    payload = {
        "nodes": [{"id": "loose"}],
        "groups": [
            {"id": "outer", "groups": [{"id": "inner", "groups": ["junk"]}]},
            "junk",
            {"id": "next"},
        ],
        "lanes": [
            {"label": "L1", "groups": [{"id": "in-lane"}]},
            None,
            {"label": "L2"},
        ],
    }
    walked = [
        (holder, c.get("id") or c.get("label") or "root") for holder, c in containers(payload)
    ]
    assert walked == [
        ("diagram", "root"),
        ("group", "outer"),
        ("group", "inner"),
        ("group", "next"),
        ("lane", "L1"),
        ("group", "in-lane"),
        ("lane", "L2"),
    ]
