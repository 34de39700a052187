from __future__ import annotations

from typing import Any

import pytest

from layoutkit.layout import MAX_FRAME_DEPTH, Board, Card, place_batch
from layoutkit.service.boards.layout_params import batch_from_params


def assert_sound(board: Board) -> None:
    """No two cards overlap unless one contains the other; children lie inside their
    frame; frames nest at most five deep; parent/children links agree."""
    cards = list(board.cards.values())
    for c in cards:
        if c.parent is not None:
            parent = board.cards[c.parent]
            assert c.id in parent.children, (c.id, parent.id)
            assert parent.rect.contains(c.rect), (c, parent)
        for k in c.children:
            assert board.cards[k].parent == c.id
        if c.is_frame:
            assert board.frame_depth(c.id) <= MAX_FRAME_DEPTH
    for a in cards:
        for b in board.overlapping(a.rect):
            if b == a.id:
                continue
            related = b in board.ancestors(a.id) or a.id in board.ancestors(b)
            assert related, (a, board.cards[b])


def compose(board: Board, **params: Any):
    return place_batch(board, batch_from_params(params))


def text(md: str = "hello", **extra: Any) -> dict[str, Any]:
    return {"kind": "text", "payload": {"md": md}, **extra}


@pytest.fixture
def board() -> Board:
    return Board()


def stored(*cards: Card, flow: str | None = None) -> Board:
    return Board(list(cards), flow=flow)
