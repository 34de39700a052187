from __future__ import annotations

import pytest

from layoutkit.errors import LayoutError
from layoutkit.layout import (
    Board,
    Card,
    CardPatch,
    apply_patches,
    chrome,
    reflow,
    remove_cards,
    size_card,
)
from tests.refusal import refused

from .conftest import assert_sound, compose, stored


def section_board() -> Board:
    """Section 10 (managed grid) holding 11 and 12, with 20 just right of it."""
    b = Board()
    r = compose(
        b,
        cards=[
            {"kind": "section", "ref": "s", "payload": {"title": "S"}, "children": ["a", "c"]},
            {"kind": "text", "ref": "a", "payload": {"md": "short"}},
            {"kind": "text", "ref": "c", "payload": {"md": "other"}},
        ],
    )
    b.rekey({r.placements[0].key: 10, r.placements[1].key: 11, r.placements[2].key: 12})
    s = b.cards[10]
    b.add(Card(20, "shape", {}, s.x + s.w + 24, s.y, 100, 100, created=99))
    b.add(Card(21, "shape", {}, s.x, s.y + s.h + 24, 100, 100, created=100))
    return b


def test_payload_patch_resizes_and_the_frame_grows_and_pushes_neighbours():
    b = section_board()
    h0 = b.cards[10].h
    md = "long text " * 80
    ch = apply_patches(b, [CardPatch(11, payload={"md": md})])
    assert ch.moves[11][2:] == size_card("text", {"md": md})
    assert ch.moves[10][3] > h0  # frame grew
    assert 21 in ch.moves and ch.moves[21][1] > b.cards[10].y  # pushed down, not across
    assert_sound(b)


def test_patch_setting_h_or_person_sized_card_keeps_its_size():
    b = section_board()
    w, _ = b.cards[11].w, b.cards[11].h
    ch = apply_patches(b, [CardPatch(11, payload={"md": "long text " * 80}, h=90)])
    assert ch.moves[11][3] == 90
    b.cards[12].sized_by = "person"
    before = b.cards[12].geometry
    apply_patches(b, [CardPatch(12, payload={"md": "long text " * 80})])
    assert b.cards[12].geometry[2:] == before[2:]
    assert w > 0


def test_person_resize_marks_card_person_sized():
    b = section_board()
    ch = apply_patches(b, [CardPatch(20, w=300, h=300)], by_person=True)
    assert ch.sized_by == {20: "person"}
    assert_sound(b)


def test_moving_a_card_into_a_frame_makes_it_a_member():
    b = section_board()
    s = b.cards[10]
    ch = apply_patches(b, [CardPatch(20, x=s.x + 30, y=s.y + s.h - 80)])
    assert ch.parents[20] == 10
    assert 20 in b.cards[10].children
    assert_sound(b)


def test_ancestors_grow_in_turn():
    b = Board()
    r = compose(
        b,
        cards=[
            {
                "kind": "section",
                "ref": "o",
                "payload": {"title": "Outer", "layout": None},
                "children": ["i"],
            },
            {"kind": "cluster", "ref": "i", "payload": {"title": "Inner"}, "children": ["t"]},
            {"kind": "text", "ref": "t", "payload": {"md": "x"}},
        ],
    )
    o, i, t = (p.key for p in r.placements)
    before = (b.cards[o].h, b.cards[i].h)
    apply_patches(b, [CardPatch(t, payload={"md": "y " * 400})])
    assert b.cards[i].h > before[1] and b.cards[o].h > before[0]
    assert_sound(b)


def test_remove_reflows_the_managed_frame():
    b = section_board()
    w0 = b.cards[10].w
    ch = remove_cards(b, [11])
    assert ch.removed == (11,)
    assert ch.children[10] == (12,)
    assert b.cards[10].w <= w0
    assert_sound(b)


def test_removing_a_frame_keeps_its_children_in_place():
    b = section_board()
    at = b.cards[11].geometry
    remove_cards(b, [10])
    assert b.cards[11].parent is None and b.cards[11].geometry == at
    assert_sound(b)


def test_unknown_card_is_404_and_board_unchanged():
    b = section_board()
    before = {k: c.geometry for k, c in b.cards.items()}
    with refused(LayoutError) as e:
        apply_patches(b, [CardPatch(11, payload={"md": "x " * 300}), CardPatch(999, x=1)])
    assert e.value.status == 404
    assert {k: c.geometry for k, c in b.cards.items()} == before


def test_reflow_after_restore_pushes_away_overlaps():
    b = stored(Card(1, "shape", {}, 0, 0, 200, 200))
    b.add(Card(2, "shape", {}, 100, 100, 200, 200))
    ch = reflow(b, [2])
    assert 1 in ch.moves
    assert_sound(b)


def _cluster_board(payload: dict) -> tuple[Board, str]:
    b = Board()
    r = compose(
        b,
        cards=[
            {"kind": "cluster", "ref": "f", "payload": payload, "children": ["a", "b"]},
            {"kind": "text", "ref": "a", "payload": {"md": "first card"}},
            {"kind": "text", "ref": "b", "payload": {"md": "second card " * 20}},
        ],
    )
    return b, r.placements[0].key


@pytest.mark.parametrize(
    "payload",
    [{"title": "C"}, {}, {"title": "C", "layout": {"mode": "grid", "cols": 1}}],
    ids=["titled", "untitled", "grid"],
)
def test_shrinking_a_frame_clamps_it_to_its_content(payload):
    b, f = _cluster_board(payload)
    before = {k: c.geometry for k, c in b.cards.items()}
    ch = apply_patches(b, [CardPatch(f, w=100, h=50)])
    # The frame keeps holding its children where they were; it is no smaller than before.
    assert b.cards[f].geometry == before[f]
    assert all(b.cards[k].geometry == before[k] for k in b.cards[f].children)
    assert f not in ch.moves
    assert_sound(b)


def test_shrinking_an_unmanaged_section_keeps_children_inside_and_grows_the_parent():
    b = Board()
    r = compose(
        b,
        cards=[
            {"kind": "section", "ref": "o", "payload": {"title": "Outer"}, "children": ["i"]},
            {
                "kind": "section",
                "ref": "i",
                "payload": {"title": "Inner", "layout": None},
                "children": ["t", "u"],
            },
            {"kind": "text", "ref": "t", "payload": {"md": "x"}},
            {"kind": "text", "ref": "u", "payload": {"md": "y " * 100}},
        ],
    )
    o, i = r.placements[0].key, r.placements[1].key
    b.add(Card(99, "shape", {}, b.cards[o].x + b.cards[o].w + 24, b.cards[o].y, 80, 80))
    need = b.cards[i].geometry
    # Shrink in height only, and grow in width: the width is kept, the height clamps back.
    apply_patches(b, [CardPatch(i, w=need[2] + 200, h=10)])
    assert b.cards[i].geometry == (need[0], need[1], need[2] + 200, need[3])
    assert b.cards[o].w >= need[2] + 200
    assert b.cards[99].x >= b.cards[o].x + b.cards[o].w  # the neighbour made room
    assert_sound(b)


def test_shrinking_an_empty_frame_keeps_room_for_its_chrome():
    b = Board()
    r = compose(b, cards=[{"kind": "section", "payload": {"title": "Empty", "layout": None}}])
    s = r.placements[0].key
    apply_patches(b, [CardPatch(s, w=5, h=5)])
    pad, band = chrome(b.cards[s])
    assert b.cards[s].w >= 2 * pad and b.cards[s].h >= band + 2 * pad
    assert_sound(b)


def test_growing_a_frame_by_hand_is_kept():
    b, f = _cluster_board({"title": "C", "layout": None})
    x, y, w, h = b.cards[f].geometry
    apply_patches(b, [CardPatch(f, w=w + 300, h=h + 100)], by_person=True)
    assert b.cards[f].geometry == (x, y, w + 300, h + 100)
    assert_sound(b)
