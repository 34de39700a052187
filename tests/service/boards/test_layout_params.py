"""compose_board's camelCase parameters read into the layout engine's Batch."""

from __future__ import annotations

import pytest

from layoutkit.errors import ServiceError
from layoutkit.layout import Anchor, Batch, BatchCard
from layoutkit.service.boards.layout_params import batch_from_params


def test_compose_params_become_a_batch() -> None:
    batch = batch_from_params(
        {
            "cards": [
                {"kind": "cluster", "ref": "c", "children": ["t"], "anchor": {"cardId": 3}},
                {"kind": "text", "payload": {"md": "x"}, "ref": "t", "size": [10, 20]},
            ],
            "layout": "row",
            "aspect": 2,
            "section": "Research",
            "createSection": True,
            "pass": "next",
            "layer": "human",
        }
    )
    assert batch == Batch(
        cards=(
            BatchCard("cluster", {}, ref="c", children=("t",), anchor=Anchor(card_id=3)),
            BatchCard("text", {"md": "x"}, ref="t", size=(10, 20)),
        ),
        layout="row",
        aspect=2,
        section="Research",
        create_section=True,
        pass_="next",
        layer="human",
    )


def test_anchor_card_id_is_a_beside_anchor_and_not_both_spellings() -> None:
    assert batch_from_params({"anchorCardId": 5}).anchor == Anchor("beside", card_id=5)
    assert batch_from_params({"anchor": "card 5"}).anchor is None
    with pytest.raises(ServiceError) as e:
        batch_from_params({"anchor": {"cardId": 1}, "anchorCardId": 1})
    assert (e.value.status, e.value.code) == (400, "exclusive_params")
