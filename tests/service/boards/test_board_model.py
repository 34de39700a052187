"""A stored card as the layout engine's card: the one place that reads a record into the model."""

from __future__ import annotations

import pytest

from layoutkit.service.boards.board_model import layout_card
from layoutkit.storage import CardBox


def box(kind: str, sized_by: str | None) -> CardBox:
    return CardBox(
        id=7,
        ordinal=3,
        kind=kind,
        x=10.0,
        y=20.0,
        w=300.0,
        h=200.0,
        layer="ai",
        version=1,
        parent_id=2,
        children=[8, 9],
        author="agent",
        sized_by=sized_by,
    )


@pytest.mark.parametrize(
    ("kind", "stored", "sized_by"),
    [
        ("section", None, "frame"),
        ("cluster", None, "frame"),
        ("note", None, "content"),
        ("note", "person", "person"),
    ],
)
def test_a_record_becomes_a_card_with_its_geometry_links_and_sizing(
    kind: str, stored: str | None, sized_by: str
) -> None:
    card = layout_card(box(kind, stored), {"title": "T"})
    assert (card.id, card.kind, card.payload) == (7, kind, {"title": "T"})
    assert (card.x, card.y, card.w, card.h) == (10.0, 20.0, 300.0, 200.0)
    assert (card.parent, card.children, card.layer, card.created) == (2, [8, 9], "ai", 3)
    assert card.sized_by == sized_by


def test_an_unlinked_card_leaves_parent_and_children_to_the_caller() -> None:
    card = layout_card(box("section", None), {}, linked=False)
    assert (card.parent, card.children) == (None, [])
