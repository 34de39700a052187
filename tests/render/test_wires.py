"""Routed wires in board pictures: the SVG draws each wire on its route, no wire or
label crosses a card, a board without wires draws none, and the picture of a small
board with routed wires matches its stored baseline (Pillow PNG; the SVG in Chromium
is compared in test_browser through the same gallery mechanism).

Baseline tolerance as in test_browser: same size, mean absolute channel difference at
most 3.0 and at most 1% of pixels off by more than 40. ``LAYOUTKIT_UPDATE_BASELINES=1``
rewrites ``tests/render/baselines/board-wires-png.png``.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely
from PIL import Image

from layoutkit.layout.routing import WireSpec, crossings, route_wires
from layoutkit.render import render_board
from layoutkit.render._board import _label_size

BASELINES = Path(__file__).resolve().parent / "baselines"


def card(cid: Any, kind: str, x: float, y: float, w: float, h: float, **payload: Any) -> dict:
    return {"id": cid, "kind": kind, "x": x, "y": y, "w": w, "h": h, "payload": payload}


def wires_board() -> dict[str, Any]:
    """A section of three cards with a note in the way, two loose cards, a blocker
    between them, and labelled wires that must go round."""
    cards = [
        card(1, "section", 0, 0, 640, 380, title="Checkout"),
        card(2, "text", 24, 72, 180, 100, md="## Cart"),
        card(3, "note", 230, 72, 170, 280, md="Keeps the basket between visits"),
        card(4, "text", 430, 72, 186, 100, md="## Pay"),
        card(5, "callout", 24, 220, 180, 100, tone="good", title="Receipt", md="Mailed"),
        card(6, "note", 760, 40, 200, 120, md="Fraud check"),
        card(7, "shape", 700, 240, 120, 120, shape="diamond", label="Risk?"),
        card(8, "text", 900, 420, 220, 100, md="## Ledger"),
    ]
    for c in cards[1:5]:
        c["parent"] = 1
    edges = [
        {"from": 2, "to": 4, "label": "pay"},
        {"from": 4, "to": 6, "label": "check"},
        {"from": 4, "to": 5, "label": "receipt", "rel": "flow"},
        {"from": 6, "to": 8, "label": "record"},
        {"from": 7, "to": 2, "rel": "relates"},
    ]
    for c in cards[:1] + cards[5:]:
        c["parent"] = None
    return {"board": {"slug": "wires", "title": "Routed wires"}, "cards": cards, "edges": edges}


def routes_of(board: dict) -> tuple[list, list[WireSpec], dict, dict]:
    boxes = {c["id"]: (c["x"], c["y"], c["w"], c["h"]) for c in board["cards"]}
    parents = {c["id"]: c.get("parent") for c in board["cards"]}
    specs = []
    for e in board["edges"]:
        lab = _label_size(e)
        specs.append(WireSpec(e["from"], e["to"], None if lab is None else lab[1]))
    return route_wires(boxes, parents, specs, cache=None), specs, boxes, parents


def test_the_board_wires_avoid_cards_and_labels_keep_clear() -> None:
    routes, specs, boxes, parents = routes_of(wires_board())
    assert crossings(routes, specs, boxes, parents) == (0, 0)
    assert all(r is not None and r.clear for r in routes)
    assert all(r.label is not None for r, s in zip(routes, specs, strict=True) if s.label)
    # The Cart → Pay wire goes round the note standing between them.
    note = shapely.box(230, 72, 400, 352)
    first = routes[0]
    assert first is not None and len(first.points) > 2
    assert not shapely.LineString(first.points).intersects(note)


def test_the_svg_draws_each_wire_on_its_route() -> None:
    board = wires_board()
    svg = str(render_board(board))
    routes, _, _, _ = routes_of(board)
    # The picture moves the board so its top-left card sits at (40, 104).
    polylines = re.findall(r'<polyline points="([^"]+)" fill="none" stroke="#6b7a90"', svg)
    drawn = [
        tuple(tuple(float(v) for v in p.split(",")) for p in line.split()) for line in polylines
    ]
    for r in routes:
        assert r is not None
        want = tuple((round(x + 40, 1), round(y + 104, 1)) for x, y in r.points)
        assert any(
            len(d) == len(want)
            and all(
                abs(a - b) < 0.11
                for p, q in zip(d, want, strict=True)
                for a, b in zip(p, q, strict=True)
            )
            for d in drawn
        ), want
    for text in ("pay", "check", "receipt", "record"):
        assert f">{text}</tspan>" in svg
    assert svg.count('stroke-dasharray="6 4"') == 1  # rel relates draws dashed


def test_a_board_without_wires_draws_no_wire() -> None:
    board = {**wires_board(), "edges": []}
    svg = str(render_board(board))
    assert 'stroke="#6b7a90"' not in svg


def _compare(png: bytes, name: str) -> None:
    shot = Image.open(io.BytesIO(png)).convert("RGB")
    path = BASELINES / f"{name}.png"
    if os.environ.get("LAYOUTKIT_UPDATE_BASELINES") == "1" or not path.exists():
        shot.save(path)
        if os.environ.get("LAYOUTKIT_UPDATE_BASELINES") != "1":
            pytest.skip(f"baseline {path.name} created; commit it")
        return
    base = Image.open(path).convert("RGB")
    assert shot.size == base.size
    diff = np.abs(np.asarray(shot, dtype=np.int16) - np.asarray(base, dtype=np.int16))
    assert float(diff.mean()) <= 3.0
    assert float((diff.max(axis=2) > 40).mean()) <= 0.01


def test_the_png_of_a_board_with_routed_wires_matches_its_baseline() -> None:
    _compare(bytes(render_board(wires_board(), format="png")), "board-wires-png")


def test_render_board_through_the_workspace_routes_wires_around_cards(ws: Any) -> None:
    from layoutkit import Principal

    agent = Principal.agent("claude")
    ws.call("create", {"kind": "board", "slug": "w"})
    cards = [
        {"kind": "note", "ref": f"n{i}", "payload": {"md": f"Note {i} " + "word " * (i * 5)}}
        for i in range(9)
    ]
    edges = [
        {"from": "n0", "to": "n8", "label": "all the way"},
        {"from": "n2", "to": "n6", "label": "across"},
        {"from": "n1", "to": "n7"},
    ]
    ws.call(
        "compose_board", {"board": "w", "cards": cards, "edges": edges, "layout": "grid"}, agent
    )
    svg = ws.call("render_board", {"board": "w"}, agent)["svg"]
    marks = re.findall(
        r'<rect class="card" data-card-id="[^"]+" data-kind="[^"]+" x="([^"]+)" y="([^"]+)" '
        r'width="([^"]+)" height="([^"]+)"',
        svg,
    )
    assert len(marks) == 9
    drawn = [
        shapely.box(float(x), float(y), float(x) + float(w), float(y) + float(h))
        for x, y, w, h in marks
    ]
    wires = re.findall(
        r'<polyline points="([^"]+)" fill="none" stroke="#6b7a90" stroke-width="1.8"', svg
    )
    assert len(wires) == 3
    for pts in wires:
        line = shapely.LineString([tuple(float(v) for v in p.split(",")) for p in pts.split()])
        # Touching a card's side (where the wire starts and ends) is fine; entering is not.
        assert not any(shapely.relate_pattern(box, line, "T********") for box in drawn)
    assert ">all the way</tspan>" in svg and ">across</tspan>" in svg
