"""A diagram that never went through the write path (no ``geo``) is laid out, not left blank.

Every render entry point is checked: the doc HTML, a doc card's face, a
diagram card alone and a whole board.
"""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit import diagram
from layoutkit.render import render_board, render_card, render_doc

NODES = {
    "title": "Checkout",
    "nodes": [{"id": "cart", "title": "Cart"}, {"id": "pay", "title": "Payment"}],
    "edges": [{"from": "cart", "to": "pay"}],
}
TEXT = {"title": "Checkout", "diagram_text": "graph LR\n  cart[Cart] --> pay[Payment]"}


def _doc(payload: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "doc", "payload": {"title": "D", "elements": [_element(payload)]}}


def _element(payload: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "diagram", "payload": payload}


def _card(kind: str, payload: dict[str, Any], card_id: int = 1) -> dict[str, Any]:
    return {"id": card_id, "kind": kind, "payload": payload, "x": 0, "y": 0, "w": 720, "h": 480}


def _drawn(svg: str) -> bool:
    return ">Cart<" in svg and ">Payment<" in svg and "layout pending" not in svg


@pytest.mark.parametrize("payload", [NODES, TEXT], ids=["nodes", "diagram_text"])
def test_every_entry_point_draws_the_nodes(payload: dict[str, Any]) -> None:
    assert _drawn(render_doc(_doc(payload)))
    assert _drawn(str(render_card(_card("diagram", payload))))
    assert _drawn(str(render_card(_card("doc", _doc(payload)["payload"]))))
    board = {"board": {"slug": "b"}, "cards": [_card("diagram", payload)], "edges": []}
    assert _drawn(str(render_board(board)))


def test_a_geo_less_diagram_draws_like_its_laid_out_self() -> None:
    assert render_doc(_doc(NODES)) == render_doc(_doc(diagram.lay_out(NODES)))


def test_an_empty_diagram_still_draws_its_chrome() -> None:
    assert ">Only a title<" in render_doc(_doc({"title": "Only a title"}))
