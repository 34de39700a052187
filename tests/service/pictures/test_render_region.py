"""render_board's region: only the cards that reach into a window are read and drawn."""

from __future__ import annotations

import re
from typing import Any

import pytest

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.storage import NewCard

AGENT = Principal.agent("claude")


def _seed(ws: Workspace, boxes: list[tuple[float, float, float, float]]) -> list[int]:
    ws.call("create", {"kind": "board", "slug": "big"})
    with ws.store.transaction() as tx:
        board = tx.board_by_slug(ws.workspace_id, "big")
        assert board is not None
        made = tx.insert_cards(
            board.id,
            [
                NewCard("note", {"md": f"note {i}"}, *box, "ai", AGENT.label, sized_by="content")
                for i, box in enumerate(boxes)
            ],
        )
    return [c.id for c in made]


def _drawn(out: dict[str, Any]) -> set[int]:
    return {int(i) for i in re.findall(r'data-card-id="(\d+)"', out["svg"])}


def test_a_region_draws_the_cards_reaching_into_it_at_full_size(ws: Workspace) -> None:
    near, edge, far = _seed(ws, [(0, 0, 200, 100), (950, 950, 200, 100), (5000, 4000, 200, 100)])
    out = ws.call(
        "render_board", {"board": "big", "region": {"x": -20, "y": -20, "w": 1000, "h": 1000}}
    )
    assert _drawn(out) == {near, edge}
    assert out["cards"] == 2
    # The window at full size: its own width and height, no title band.
    assert out["svg"].startswith(
        '<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000"'
    )
    assert out["extent"] == {"x": 0.0, "y": 0.0, "w": 5200.0, "h": 4100.0}
    whole = ws.call("render_board", {"board": "big"})
    assert _drawn(whole) == {near, edge, far} and whole["extent"] == out["extent"]


def test_a_wire_leaving_the_region_brings_its_far_end(ws: Workspace) -> None:
    near, _, far = _seed(ws, [(0, 0, 200, 100), (2000, 0, 200, 100), (5000, 0, 200, 100)])
    ws.call("compose_board", {"board": "big", "edges": [{"from": near, "to": far}]}, AGENT)
    out = ws.call("render_board", {"board": "big", "region": {"x": 0, "y": 0, "w": 800, "h": 600}})
    assert _drawn(out) == {near, far}
    # The wire runs out of the window to the far card's left edge, arrowhead and all.
    assert '<polygon points="5000,50 ' in out["svg"]


def test_a_card_in_a_section_brings_its_frame(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "big"})
    placed = ws.call(
        "compose_board",
        {
            "board": "big",
            "section": "Plan",
            "createSection": True,
            "cards": [{"kind": "text", "payload": {"md": f"step {i}"}} for i in range(6)],
        },
        AGENT,
    )
    section = placed["sections"][0]
    first = placed["cards"][0]
    region = {"x": first["x"], "y": first["y"], "w": 10, "h": 10}
    out = ws.call("render_board", {"board": "big", "region": region})
    assert first["id"] in _drawn(out) and section["id"] in _drawn(out)
    assert "Plan" in out["svg"]


def test_an_empty_region_draws_an_empty_window(ws: Workspace) -> None:
    _seed(ws, [(0, 0, 200, 100)])
    out = ws.call(
        "render_board", {"board": "big", "region": {"x": 9000, "y": 9000, "w": 300, "h": 200}}
    )
    assert out["cards"] == 0 and _drawn(out) == set()
    ws.call("create", {"kind": "board", "slug": "empty"})
    assert ws.call("render_board", {"board": "empty"})["extent"] is None


@pytest.mark.parametrize(
    ("params", "code", "field"),
    [
        (
            {"section": "Plan", "region": {"x": 0, "y": 0, "w": 10, "h": 10}},
            "exclusive_params",
            "region",
        ),
        ({"region": {"x": 0, "y": 0, "w": 0, "h": 10}}, "invalid_params", "region.w"),
        ({"region": {"x": 0, "y": 0, "w": 10, "h": 20001}}, "invalid_params", "region.h"),
        ({"region": {"x": 0, "y": 0, "w": 10}}, "invalid_params", "region.h"),
    ],
)
def test_bad_regions_are_refused(
    ws: Workspace, params: dict[str, Any], code: str, field: str
) -> None:
    _seed(ws, [(0, 0, 200, 100)])
    with pytest.raises(ServiceError) as refused:
        ws.call("render_board", {"board": "big", **params})
    assert (refused.value.status, refused.value.code) == (400, code)
    assert refused.value.body.get("field") == field
