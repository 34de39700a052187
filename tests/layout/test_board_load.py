"""Loading a board in bulk gives exactly the board that card-by-card insertion gives."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.layout import Board, Card, GridIndex

coord = st.integers(-3000, 3000)
size = st.integers(0, 1500)
boxes = st.lists(st.tuples(coord, coord, size, size), min_size=0, max_size=60)


@settings(max_examples=60, deadline=None)
@given(boxes)
def test_bulk_index_equals_one_by_one(rects):
    one = GridIndex()
    for i, (x, y, w, h) in enumerate(rects):
        one.insert(i, float(x), float(y), float(w), float(h))
    bulk = GridIndex()
    bulk.insert_many(
        (i, float(x), float(y), float(w), float(h)) for i, (x, y, w, h) in enumerate(rects)
    )
    assert bulk._boxes == one._boxes
    assert bulk._cells == one._cells
    for x, y, w, h in rects[:5]:
        assert bulk.query(x, y, w + 1, h + 1) == one.query(x, y, w + 1, h + 1)


@settings(max_examples=40, deadline=None)
@given(boxes, st.lists(st.integers(0, 50), min_size=60, max_size=60))
def test_board_load_matches_adding_cards(rects, created):
    def cards() -> list[Card]:
        out = []
        for i, (x, y, w, h) in enumerate(rects):
            kind = "section" if i % 7 == 3 else "shape"
            # Every fifth card names a parent that is not on the board: it becomes top level.
            parent = 10_000 + i if i % 5 == 4 else None
            out.append(Card(i, kind, {}, x, y, w, h, parent=parent, created=created[i]))
        return out

    loaded = Board(cards())
    added = Board()
    for c in cards():
        c.parent = None
        added.add(c)
    assert loaded.index._cells == added.index._cells
    assert loaded.index._boxes == added.index._boxes
    assert loaded.extent() == added.extent()
    assert [s.id for s in loaded.sections()] == [s.id for s in added.sections()]
    assert loaded.next_created() == added.next_created()
    assert all(c.parent is None for c in loaded.cards.values())


def test_duplicate_ids_are_refused_on_load():
    with pytest.raises(ValueError, match="duplicate"):
        Board([Card(1, "shape"), Card(1, "note")])
