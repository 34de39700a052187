from __future__ import annotations

import attrs
import pytest

from layoutkit.errors import LayoutError
from layoutkit.layout import (
    BLOCK_GAP,
    CARD_GAP,
    Anchor,
    Batch,
    BatchCard,
    Board,
    Card,
    clamp_aspect,
    place_batch,
)
from layoutkit.service.boards.layout_params import batch_from_params
from tests.refusal import refused

from .conftest import assert_sound, compose, stored, text


def sized(n: int, w: float = 200, h: float = 100) -> list[dict]:
    return [{"kind": "shape", "payload": {"w": w, "h": h}} for _ in range(n)]


def boxes(result):
    return [(p.x, p.y, p.w, p.h) for p in result.placements]


# ---------------------------------------------------------------- batch layouts
def test_column_row_grid_layouts(board):
    col = compose(Board(), cards=sized(3), layout="column")
    assert [p.y for p in col.placements] == [0, 100 + CARD_GAP, 2 * (100 + CARD_GAP)]
    assert {p.x for p in col.placements} == {0}
    row = compose(Board(), cards=sized(3), layout="row")
    assert [p.x for p in row.placements] == [0, 224, 448]
    grid = compose(Board(), cards=sized(5), layout="grid")
    assert [(p.x, p.y) for p in grid.placements] == [
        (0, 0),
        (224, 0),
        (448, 0),
        (0, 124),
        (224, 124),
    ]


def test_shelf_packs_in_compose_order_toward_aspect():
    for aspect in (1.0, 1.6, 3.2):
        r = compose(Board(), cards=sized(24), aspect=aspect)
        w = max(p.x + p.w for p in r.placements)
        h = max(p.y + p.h for p in r.placements)
        assert abs(w / h - aspect) / aspect < 0.35
        ordered = sorted(r.placements, key=lambda p: (p.y, p.x))
        assert [p.index for p in ordered] == list(range(24))


def test_aspect_defaults_and_clamps():
    assert clamp_aspect(None) == clamp_aspect(0) == 1.6
    assert clamp_aspect(0.2) == 1.0
    assert clamp_aspect(9) == 3.2


def test_free_batches_never_overlap_existing_cards():
    b = stored(
        Card(1, "shape", {}, 0, 0, 500, 400), Card(2, "shape", {}, 600, 0, 300, 300, layer="human")
    )
    for _ in range(6):
        r = compose(b, cards=sized(4))
        assert all(p.placed_as == "free" for p in r.placements)
        assert not r.changes.moves
    assert_sound(b)


def test_flow_document_stacks_and_persists():
    b = Board()
    r = compose(b, cards=[text("a"), text("b")], flow="document")
    assert r.flow == "document" and r.flow_changed
    assert r.placements[0].x == r.placements[1].x
    assert r.placements[1].y > r.placements[0].y
    bottom = max(p.y + p.h for p in r.placements)
    r2 = compose(b, cards=[text("c")])
    assert r2.placements[0].placed_as == "flow"
    assert r2.placements[0].y == bottom + BLOCK_GAP
    assert r2.placements[0].x == 0
    assert not r2.flow_changed


def test_at_end_starts_below_the_board_without_changing_its_flow():
    def two() -> Board:
        return stored(Card(1, "shape", {}, 0, 0, 300, 200), Card(2, "shape", {}, 0, 260, 200, 80))

    joined = compose(two(), cards=sized(1))
    # Free placement joins the bottom row, to the right of its last card.
    assert (joined.placements[0].x, joined.placements[0].y) == (200 + BLOCK_GAP, 260)
    b = two()
    batch = attrs.evolve(batch_from_params({"cards": sized(1)}), at_end=True)
    r = place_batch(b, batch)
    assert (r.placements[0].x, r.placements[0].y) == (0, 340 + BLOCK_GAP)
    assert not r.flow_changed and b.flow is None


# ---------------------------------------------------------------- frames
def test_section_frame_defaults_to_two_column_grid_and_children_order_overrides():
    r = compose(
        Board(),
        cards=[
            {
                "kind": "section",
                "ref": "s",
                "payload": {"title": "Plan"},
                "children": ["c", "a", "b"],
            },
            {"kind": "shape", "ref": "a", "payload": {"w": 100, "h": 50}},
            {"kind": "shape", "ref": "b", "payload": {"w": 100, "h": 50}},
            {"kind": "shape", "ref": "c", "payload": {"w": 100, "h": 50}},
        ],
    )
    sec, a, bb, c = r.placements
    assert r.changes.children[sec.key] == (c.key, a.key, bb.key)
    assert (c.y, a.y) == (a.y, c.y) and c.x < a.x  # c then a on row one
    assert bb.y > c.y and bb.x == c.x  # wraps after 2
    assert a.placed_as == "child" and a.container == sec.key


def test_cluster_layout_row_and_grid_cols_and_untitled_has_no_chrome():
    r = compose(
        Board(),
        cards=[
            {
                "kind": "cluster",
                "ref": "k",
                "payload": {"layout": {"mode": "grid", "cols": 2}},
                "children": ["a", "b", "c"],
            },
            *[{"kind": "shape", "ref": r, "payload": {"w": 100, "h": 50}} for r in "abc"],
        ],
    )
    k, a, _, c = r.placements
    assert (k.x, k.y) == (a.x, a.y)  # untitled: no padding or title band
    assert (k.w, k.h) == (224, 124)
    assert c.y > a.y and c.x == a.x


def test_titled_kanban_cluster_is_a_status_column():
    r = compose(
        Board(),
        cards=[
            {
                "kind": "cluster",
                "ref": "k",
                "payload": {"title": "Doing", "role": "kanban"},
                "children": ["a", "b"],
            },
            *[{"kind": "shape", "ref": r, "payload": {"w": 100, "h": 50}} for r in "ab"],
        ],
    )
    _, a, b = r.placements
    assert a.x == b.x and b.y > a.y


def _nested(depth: int) -> list[dict]:
    cards = []
    for d in range(depth):
        kids = [f"f{d + 1}"] if d + 1 < depth else ["leaf"]
        cards.append(
            {"kind": "cluster", "ref": f"f{d}", "payload": {"title": f"L{d}"}, "children": kids}
        )
    cards.append({"kind": "shape", "ref": "leaf", "payload": {}})
    return cards


def test_frames_nest_to_depth_five_and_no_deeper():
    b = Board()
    compose(b, cards=_nested(5))
    assert_sound(b)
    with refused(LayoutError) as e:
        compose(Board(), cards=_nested(6))
    assert e.value.status == 400 and e.value.code == "nesting_too_deep"


def test_depth_counts_the_target_section():
    b = Board()
    compose(b, cards=_nested(4), section="Deep")
    with refused(LayoutError) as e:
        compose(b, cards=_nested(5), section="Deep")
    assert e.value.code == "nesting_too_deep"


def test_batch_structure_errors_carry_index():
    cases = [
        (
            [
                {"kind": "text", "ref": "a", "payload": {}},
                {"kind": "text", "ref": "a", "payload": {}},
            ],
            "duplicate_ref",
            1,
        ),
        ([{"kind": "text", "payload": {}, "children": []}], "children_on_non_frame", 0),
        ([{"kind": "cluster", "payload": {}, "children": ["zz"]}], "unknown_ref", 0),
        (
            [
                {"kind": "cluster", "ref": "k", "payload": {}, "children": ["a"]},
                {
                    "kind": "text",
                    "ref": "a",
                    "payload": {},
                    "anchor": {"ref": "k", "relation": "after"},
                },
            ],
            "anchor_on_child",
            1,
        ),
    ]
    for cards, code, index in cases:
        with refused(LayoutError) as e:
            compose(Board(), cards=cards)
        assert (e.value.status, e.value.code, e.value.body["index"]) == (400, code, index)


# ---------------------------------------------------------------- anchors
def row_board() -> Board:
    return stored(
        Card(1, "shape", {}, 0, 0, 200, 100),
        Card(2, "shape", {}, 224, 0, 200, 100),
        Card(3, "shape", {}, 0, 300, 200, 100),
    )


def test_after_joins_the_row_right_after_the_anchor():
    b = row_board()
    r = compose(b, cards=sized(1, 100, 100), anchor={"cardId": 1, "relation": "after"})
    p = r.placements[0]
    assert (p.x, p.y, p.placed_as) == (224, 0, "after")
    assert r.changes.moves[2][0] >= p.x + p.w  # the row mate moved right
    assert r.changes.moves[2][1] == 0
    assert 3 not in r.changes.moves
    assert_sound(b)


def test_before_takes_the_anchor_spot():
    b = row_board()
    r = compose(b, cards=sized(1, 100, 100), anchor={"cardId": 1, "relation": "before"})
    assert (r.placements[0].x, r.placements[0].y) == (0, 0)
    assert r.changes.moves[1][0] >= 100 and r.changes.moves[1][1] == 0
    assert_sound(b)


def test_under_is_a_support_row_below_at_the_anchor_x():
    b = row_board()
    r = compose(b, cards=sized(2, 80, 80), anchor={"cardId": 2, "relation": "under"})
    a, c = r.placements
    assert (a.x, a.y) == (224, 124) and c.y == a.y and c.x > a.x
    assert_sound(b)


def test_beside_is_the_default_and_finds_free_space_right_of_the_anchor():
    b = row_board()
    r = compose(b, cards=sized(1), anchorCardId=1)
    p = r.placements[0]
    assert p.placed_as == "beside" and p.y == 0 and p.x >= 424
    assert not r.changes.moves
    assert_sound(b)


def test_into_appends_to_a_frame_and_refuses_plain_cards():
    b = Board()
    s = compose(
        b,
        cards=[
            {"kind": "section", "payload": {"title": "S"}, "children": ["a"]},
            {"kind": "shape", "ref": "a", "payload": {}},
        ],
    )
    b.rekey({s.placements[0].key: 10, s.placements[1].key: 11})
    r = compose(b, cards=sized(1), anchor={"cardId": 10, "relation": "into"})
    assert r.placements[0].container == 10 and r.placements[0].placed_as == "into"
    assert r.changes.children[10] == (11, r.placements[0].key)
    with refused(LayoutError) as e:
        compose(b, cards=sized(1), anchor={"cardId": 11, "relation": "into"})
    assert (e.value.status, e.value.code) == (400, "relation_unsupported")


def test_anchor_ref_cycle_is_refused():
    cards = [
        {"kind": "text", "ref": "a", "payload": {}, "anchor": {"ref": "b", "relation": "after"}},
        {"kind": "text", "ref": "b", "payload": {}, "anchor": {"ref": "a", "relation": "after"}},
    ]
    with refused(LayoutError) as e:
        compose(Board(), cards=cards)
    assert (e.value.status, e.value.code) == (400, "relation_unsupported")


def test_card_anchor_to_a_ref_in_the_same_batch():
    r = compose(
        Board(),
        cards=[
            {
                "kind": "shape",
                "ref": "n",
                "payload": {"w": 100, "h": 100},
                "anchor": {"ref": "m", "relation": "under"},
            },
            {"kind": "shape", "ref": "m", "payload": {"w": 100, "h": 100}},
        ],
    )
    n, m = r.placements
    assert n.placed_as == "under" and n.x == m.x and n.y == m.y + m.h + CARD_GAP


def test_multi_card_batch_follows_the_relation_in_order():
    b = row_board()
    r = compose(b, cards=sized(3, 50, 50), anchor={"cardId": 1, "relation": "after"})
    xs = [p.x for p in r.placements]
    assert xs == sorted(xs) and xs[0] == 224
    assert_sound(b)


def test_inside_a_managed_section_relations_become_insertions():
    b = Board()
    r = compose(b, cards=sized(3), section="S")
    sec = r.sections[0].key
    keys = [p.key for p in r.placements]
    r2 = compose(b, cards=sized(1), anchor={"cardId": keys[0], "relation": "under"}, section="S")
    assert r2.placements[0].placed_as == "after"
    assert r2.changes.children[sec] == (keys[0], r2.placements[0].key, keys[1], keys[2])
    r3 = compose(b, cards=sized(1), anchor={"cardId": keys[2], "relation": "before"})
    assert (
        b.cards[sec].children.index(r3.placements[0].key)
        == b.cards[sec].children.index(keys[2]) - 1
    )
    assert_sound(b)


# ---------------------------------------------------------------- sections
def test_section_created_on_demand_then_reused_and_grows():
    b = Board()
    r = compose(b, cards=sized(2), section="Research")
    assert len(r.sections) == 1 and r.sections[0].payload == {"title": "Research"}
    sec = r.sections[0].key
    assert all(p.container == sec and p.placed_as == "section" for p in r.placements)
    h0 = b.cards[sec].h
    r2 = compose(b, cards=sized(4), section="Research")
    assert not r2.sections
    assert r2.changes.moves[sec][3] > h0
    assert_sound(b)


@pytest.mark.parametrize("typed", ["research", "Résearch", "Reserch", "RESEARCH "])
def test_section_near_match_is_a_409_with_did_you_mean(typed):
    b = Board()
    compose(b, cards=sized(1), section="Research")
    with refused(LayoutError) as e:
        compose(b, cards=sized(1), section=typed)
    assert (e.value.status, e.value.code) == (409, "section_near_match")
    assert e.value.body["didYouMean"] == ["Research"]
    r = compose(b, cards=sized(1), section=typed, createSection=True)
    assert r.sections[0].payload["title"] == typed


def test_unrelated_section_name_is_created():
    b = Board()
    compose(b, cards=sized(1), section="Research")
    assert compose(b, cards=sized(1), section="Decisions").sections


def test_section_lands_below_existing_content_of_an_unmanaged_section():
    b = stored(
        Card(5, "section", {"title": "Free", "layout": None}, 0, 0, 600, 400),
        Card(6, "shape", {}, 24, 72, 300, 200, parent=5),
    )
    b.cards[5].children.append(6)
    r = compose(b, cards=sized(1), section="Free")
    assert r.placements[0].y >= 72 + 200 + CARD_GAP
    assert_sound(b)


def test_exclusive_parameters():
    b = row_board()
    with refused(LayoutError) as e:
        compose(b, cards=sized(1), section="A", journey="J")
    assert (e.value.status, e.value.code) == (400, "exclusive_params")
    with refused(LayoutError) as e:
        compose(b, cards=sized(1), section="A", anchorCardId=1)
    assert (e.value.status, e.value.code) == (400, "exclusive_params")
    with refused(LayoutError) as e:
        compose(b, cards=sized(1), section="A", anchor={"cardId": 1, "relation": "after"})
    assert (e.value.status, e.value.code) == (400, "anchor_outside_section")


def test_failed_batch_leaves_the_board_unchanged():
    b = Board()
    compose(b, cards=sized(1), section="Research")
    before = {
        k: (c.geometry, c.parent, list(c.children), dict(c.payload)) for k, c in b.cards.items()
    }
    with refused(LayoutError):
        compose(b, cards=sized(1), journey="Research", **{"pass": 7})
    assert {
        k: (c.geometry, c.parent, list(c.children), dict(c.payload)) for k, c in b.cards.items()
    } == before


# ---------------------------------------------------------------- journeys
def test_journey_latest_next_and_number():
    b = Board()
    r1 = compose(b, cards=sized(2), journey="Checkout")
    p1 = r1.sections[0]
    assert p1.payload == {"title": "Checkout", "journey": "Checkout", "pass": 1}
    assert all(p.placed_as == "journey" for p in r1.placements)
    r = compose(b, cards=sized(1), journey="Checkout")
    assert not r.sections and r.placements[0].container == p1.key
    r2 = compose(b, cards=sized(2), journey="Checkout", **{"pass": "next"})
    p2 = r2.sections[0]
    assert p2.payload["pass"] == 2 and "2" in p2.payload["title"]
    prev = b.cards[p1.key]
    assert p2.x >= prev.x + prev.w and p2.y == prev.y  # beside the previous pass
    r = compose(b, cards=sized(1), journey="Checkout", **{"pass": 1})
    assert r.placements[0].container == p1.key
    r = compose(b, cards=sized(1), journey="Checkout")
    assert r.placements[0].container == p2.key
    with refused(LayoutError) as e:
        compose(b, cards=sized(1), journey="Checkout", **{"pass": 9})
    assert e.value.status == 404 and e.value.body["passes"] == [1, 2]
    assert_sound(b)


def test_next_pass_inherits_the_layout():
    b = Board()
    r1 = compose(b, cards=sized(1), journey="J")
    b.cards[r1.sections[0].key].payload["layout"] = {"mode": "row"}
    r2 = compose(b, cards=sized(3), journey="J", **{"pass": "next"})
    assert r2.sections[0].payload["layout"] == {"mode": "row"}
    assert len({p.y for p in r2.placements}) == 1


def test_plain_section_with_matching_title_is_adopted_as_pass_one():
    b = stored(Card(7, "section", {"title": "checkout"}, 0, 0, 480, 240))
    r = compose(b, cards=sized(1), journey="Checkout")
    assert not r.sections
    assert r.changes.payloads[7] == {"title": "checkout", "journey": "Checkout", "pass": 1}
    assert r.placements[0].container == 7


def test_batch_objects_work_without_params():
    b = row_board()
    batch = Batch(
        (
            BatchCard("shape", {"w": 50, "h": 50}, ref="x"),
            BatchCard("shape", {}, anchor=Anchor("under", ref="x")),
        ),
        anchor=Anchor("after", card_id=2),
        layer="human",
    )
    r = place_batch(b, batch)
    x, y = r.placements
    assert (x.placed_as, y.placed_as) == ("after", "under")
    assert x.x == 448 and y.x == x.x and y.y == x.y + x.h + CARD_GAP
    assert b.cards[x.key].layer == "human"
    assert_sound(b)
