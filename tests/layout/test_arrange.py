from __future__ import annotations

import pytest

from layoutkit.errors import LayoutError
from layoutkit.layout import ARRANGE_MODES, Board, Card, Wire, arrange
from tests.refusal import refused

from .conftest import assert_sound, compose, stored


def scattered(n: int = 7) -> Board:
    cards = [
        Card(
            i + 1,
            "shape",
            {},
            (i * 337) % 900,
            (i * 211) % 700 + i * 300,
            100 + 10 * i,
            80,
            created=i,
        )
        for i in range(n)
    ]
    return stored(*cards)


@pytest.mark.parametrize("mode", [m for m in ARRANGE_MODES if m != "compare"])
def test_every_mode_leaves_a_sound_board(mode):
    b = scattered()
    b.wires = [Wire(1, 2), Wire(1, 3), Wire(2, 4)]
    r = arrange(b, mode, scope="all")
    assert_sound(b)
    if mode != "graph":
        assert set(r.arranged) == set(b.cards)


def test_unknown_mode_lists_the_valid_ones():
    with refused(LayoutError) as e:
        arrange(Board(), "spiral")
    assert (e.value.status, e.value.code) == (400, "unknown_mode")
    assert e.value.body["allowed"] == list(ARRANGE_MODES)


@pytest.mark.parametrize("mode", ["journey", "graph"])
def test_tree_modes_cannot_be_saved(mode):
    with refused(LayoutError) as e:
        arrange(scattered(), mode, save=True)
    assert e.value.status == 400


def test_grid_cols_and_gap():
    b = scattered(6)
    arrange(b, "grid", scope="all", cols=2, gap=10, sort="oldest")
    c = b.cards
    assert (
        c[1].y == c[2].y and c[3].y > c[1].y and c[2].x == c[1].x + max(c[1].w, c[3].w, c[5].w) + 10
    )


def test_cols_auto_and_invalid_cols():
    b = scattered(9)
    arrange(b, "grid", scope="all", cols="auto")
    assert_sound(b)
    with refused(LayoutError):
        arrange(b, "grid", cols="many")


def test_scope_ai_leaves_human_cards_alone_when_possible():
    b = stored(
        Card(1, "shape", {}, 0, 0, 100, 100, layer="ai"),
        Card(2, "shape", {}, 0, 500, 100, 100, layer="ai"),
        Card(3, "shape", {}, 2000, 2000, 100, 100, layer="human"),
    )
    r = arrange(b, "row")
    assert set(r.arranged) == {1, 2}
    assert 3 not in r.changes.moves
    assert b.cards[2].y == 0


def test_sort_reading_vs_oldest():
    b = stored(
        Card(1, "shape", {}, 500, 0, 100, 100, created=0),
        Card(2, "shape", {}, 0, 0, 100, 100, created=1),
    )
    assert arrange(b, "row", scope="all").arranged == (2, 1)
    b = stored(
        Card(1, "shape", {}, 500, 0, 100, 100, created=0),
        Card(2, "shape", {}, 0, 0, 100, 100, created=1),
    )
    assert arrange(b, "row", scope="all", sort="oldest").arranged == (1, 2)


def _with_section(name: str = "S", n: int = 4) -> tuple[Board, str]:
    b = Board()
    r = compose(
        b,
        cards=[{"kind": "shape", "payload": {"w": 100 + 20 * i, "h": 60}} for i in range(n)],
        section=name,
    )
    return b, r.sections[0].key


def test_save_with_section_scope_stores_the_layout_and_reflows_later():
    b, sec = _with_section()
    r = arrange(b, "column", scope="section:S", save=True, gap=12)
    assert r.saved == ({"section": sec, "layout": {"mode": "column", "gap": 12.0}},)
    assert b.cards[sec].payload["layout"]["mode"] == "column"
    compose(b, cards=[{"kind": "shape", "payload": {}}], section="S")
    kids = [b.cards[k] for k in b.cards[sec].children]
    assert len({k.x for k in kids}) == 1
    assert_sound(b)


def test_sections_param_names_one_section():
    b, sec = _with_section()
    r = arrange(b, "row", sections_=["S"])
    assert set(r.arranged) == set(b.cards[sec].children)
    with refused(LayoutError):
        arrange(b, "row", sections_=["S", "T"])
    with refused(LayoutError):
        arrange(b, "row", sections_=["S"], scope="all")


def test_unknown_section_scope_is_404_with_did_you_mean():
    b, _ = _with_section("Research")
    with refused(LayoutError) as e:
        arrange(b, "grid", scope="section:research")
    assert e.value.status == 404 and e.value.body["didYouMean"] == ["Research"]


def test_compare_lays_two_sections_side_by_side():
    b, a = _with_section("Before", 3)
    r = compose(
        b,
        cards=[{"kind": "shape", "payload": {"w": 90, "h": 120}} for _ in range(3)],
        section="After",
    )
    bsec = r.sections[0].key
    arrange(b, "compare", sections_=["Before", "After"])
    A, B = b.cards[a], b.cards[bsec]
    assert B.y == A.y and B.x >= A.x + A.w
    left = [b.cards[k].y for k in A.children]
    right = [b.cards[k].y for k in B.children]
    assert left == right  # rows face each other
    assert_sound(b)
    with refused(LayoutError):
        arrange(b, "compare", sections_=["Before"])


def test_journey_is_left_to_right_and_graph_top_down():
    b = scattered(4)
    b.wires = [Wire(1, 2), Wire(1, 3), Wire(3, 4)]
    arrange(b, "journey", scope="all", sort="oldest")
    c = b.cards
    assert c[2].x > c[1].x and c[3].x == c[2].x and c[4].x > c[3].x
    docs = stored(
        *[Card(i, "doc", {}, i * 50, 900 - i * 100, 300, 200, created=i) for i in (1, 2, 3)]
    )
    docs.wires = [Wire(1, 2, "ref"), Wire(1, 3, "ref")]
    arrange(docs, "graph", scope="all", sort="oldest")
    d = docs.cards
    assert d[2].y > d[1].y and d[3].y == d[2].y
    assert_sound(docs)


def test_timeaxis_is_proportional_to_time():
    b = stored(
        Card(1, "shape", {"at": "2024-01-01"}, 0, 0, 50, 50),
        Card(2, "shape", {"at": "2024-01-02"}, 0, 100, 50, 50),
        Card(3, "shape", {"at": "2024-01-11"}, 0, 200, 50, 50),
    )
    arrange(b, "timeaxis", scope="all")
    x = [b.cards[i].x for i in (1, 2, 3)]
    assert x[0] < x[1] < x[2]
    assert (x[2] - x[0]) / (x[1] - x[0]) == pytest.approx(10, rel=0.01)


def test_align_and_distribute():
    b = stored(
        Card(1, "shape", {}, 10, 0, 50, 50),
        Card(2, "shape", {}, 200, 300, 50, 50),
        Card(3, "shape", {}, 90, 600, 50, 50),
    )
    arrange(b, "align-left", scope="all")
    assert {c.x for c in b.cards.values()} == {10}
    b = stored(
        Card(1, "shape", {}, 0, 0, 50, 50),
        Card(2, "shape", {}, 60, 90, 50, 50),
        Card(3, "shape", {}, 400, 10, 50, 50),
    )
    arrange(b, "distribute-h", scope="all")
    xs = sorted(c.x for c in b.cards.values())
    assert xs[1] - xs[0] == xs[2] - xs[1]
    assert_sound(b)
