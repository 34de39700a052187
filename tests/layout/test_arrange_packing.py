"""Grid and masonry pack their columns at the card gap, keep a heading with the cards
after it, and waste bounded area.

The area bound (K): after arranging, the box around the arranged cards, each card
counted with one gap around it, is at most K times the sum of those cards' areas.
Measured two ways (see docs/wires-and-arrange.md). Random boards: 8 to 80 cards of one
family (three widths, heights within -20%/+25% of one base) pack with a median of 1.16
to 1.34 depending on the mode (the 1.3 the issue asks for, as a typical value) and at
worst 1.60 in 4,000 layouts. A hypothesis search steered towards the worst case
(``target``) finds 2.03 (grid, cols auto: its rows are as tall as their tallest card)
and, for fewer than 8 cards, 1.94 (a short last row is a large share of a small
block). Boards mixing notes with headings, docs and frames reach 3.0 under the same
search (flow and masonry with cols auto; random boards stay under 2.2). We hold
K = 2.1 for cards of one family in every packing mode and K = 3.1 for mixed boards in
the modes that choose the block's shape (flow, masonry with cols auto); with explicit
cols the caller chose the shape. Every mode is checked for overlaps.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import Principal, Workspace
from layoutkit.layout import Board, Card, arrange, modes
from layoutkit.layout.frames import CARD_GAP

GAP = CARD_GAP
K_SIMILAR = 2.1
K_MIXED = 3.1
AGENT = Principal.agent("claude")


def note(i: int, w: float, h: float, **payload: Any) -> Card:
    return Card(i, "note", payload, 0.0, i * 1000.0, w, h, created=i)


def heading(i: int) -> Card:
    return Card(i, "text", {"md": "# Part", "role": "heading"}, 0.0, i * 1000.0, 560, 48, created=i)


def top_xs(board: Board, keys: list[int]) -> list[float]:
    return sorted({board.cards[k].x for k in keys})


def test_a_wide_card_does_not_push_the_columns_apart() -> None:
    """The issue's case: one 2,000 px card among notes left the columns ~2,000 px apart."""
    for mode in ("masonry", "grid"):
        for cols in (3, "auto"):
            cards = [note(i, 240, 120 + (i % 3) * 40) for i in range(1, 13)]
            cards.insert(4, note(99, 2000, 600))
            b = Board(cards)
            arrange(b, mode, scope="all", cols=cols, sort="oldest")
            xs = top_xs(b, [c.id for c in cards if c.id != 99])
            steps = {round(b - a, 6) for a, b in itertools.pairwise(xs)}
            assert steps <= {240 + GAP}, (mode, cols, xs)
            assert len(xs) >= 2


def test_grid_columns_keep_their_own_widths_at_the_gap() -> None:
    cards = [note(i, (200, 300, 260)[i % 3], 100) for i in range(6)]
    b = Board(cards)
    arrange(b, "grid", scope="all", cols=3, sort="oldest")
    c = b.cards
    # column 0 holds cards 0 and 3 (200 wide), column 1 cards 1 and 4 (300 wide)
    assert c[1].x == c[0].x + 200 + GAP
    assert c[2].x == c[1].x + 300 + GAP


def test_a_heading_starts_a_grid_row_and_its_cards_follow_it() -> None:
    cards = [note(1, 240, 100), note(2, 240, 100), heading(3), note(4, 240, 100)]
    cards += [note(5, 240, 100)]
    b = Board(cards)
    arrange(b, "grid", scope="all", cols=3, sort="oldest")
    c = b.cards
    assert c[3].x == c[1].x and c[3].y > c[1].y  # not left at the end of row one
    # A heading wider than the columns spans the row; its cards start right under it.
    assert (c[4].x, c[4].y) == (c[3].x, c[3].y + c[3].h + GAP)
    # A narrow heading starts its row too, and its first card follows on that row.
    narrow = Card(3, "text", {"md": "# Part", "role": "heading"}, 0.0, 3000.0, 240, 48, created=3)
    b = Board([note(1, 240, 100), note(2, 240, 100), narrow, note(4, 240, 100)])
    arrange(b, "grid", scope="all", cols=3, sort="oldest")
    c = b.cards
    assert c[3].x == c[1].x and c[3].y > c[1].y
    assert c[4].y == c[3].y and c[4].x == c[3].x + 240 + GAP


def test_a_heading_takes_the_next_card_into_its_masonry_column() -> None:
    cards = [note(i, 240, 100 + 50 * i) for i in range(1, 5)]
    cards += [heading(5), note(6, 240, 90), note(7, 240, 90)]
    b = Board(cards)
    arrange(b, "masonry", scope="all", cols=3, sort="oldest")
    c = b.cards
    assert c[6].x == c[5].x
    assert c[6].y == c[5].y + c[5].h + GAP


def _ratio(items: list[modes.Item], pos: list[tuple[float, float]]) -> float:
    w = max(p[0] + it.w for p, it in zip(pos, items, strict=True))
    h = max(p[1] + it.h for p, it in zip(pos, items, strict=True))
    area = sum((it.w + GAP) * (it.h + GAP) for it in items)
    return (w + GAP) * (h + GAP) / area


def _no_overlap(items: list[modes.Item], pos: list[tuple[float, float]]) -> None:
    for (a, pa), (b, pb) in itertools.combinations(zip(items, pos, strict=True), 2):
        assert (
            pa[0] + a.w <= pb[0] + 1e-6
            or pb[0] + b.w <= pa[0] + 1e-6
            or pa[1] + a.h <= pb[1] + 1e-6
            or pb[1] + b.h <= pa[1] + 1e-6
        )


@st.composite
def similar(draw: Any) -> list[modes.Item]:
    base = draw(st.sampled_from([100, 160, 240, 320]))
    n = draw(st.integers(1, 60))
    return [
        modes.Item(
            i,
            float(draw(st.sampled_from([240, 280, 320]))),
            float(draw(st.integers(int(base * 0.8), int(base * 1.25)))),
            kind="note",
        )
        for i in range(n)
    ]


@st.composite
def mixed(draw: Any) -> list[modes.Item]:
    out = []
    for i in range(draw(st.integers(2, 60))):
        kind = draw(st.sampled_from(["note"] * 6 + ["heading", "doc", "doc", "frame"]))
        if kind == "note":
            w, h = draw(st.sampled_from([200, 240, 280, 320, 360])), draw(st.integers(80, 400))
        elif kind == "heading":
            out.append(modes.Item(i, 560.0, 48.0, kind="text", payload={"role": "heading"}))
            continue
        elif kind == "doc":
            w, h = draw(st.integers(500, 900)), draw(st.integers(300, 900))
        else:
            w, h = draw(st.integers(500, 2200)), draw(st.integers(400, 1400))
        out.append(modes.Item(i, float(w), float(h), kind="note"))
    return out


SIMILAR_MODES = [("flow", None), ("grid", 0), ("masonry", 0), ("grid", 3), ("masonry", 3)]


@settings(max_examples=150, deadline=None)
@given(similar())
def test_similar_cards_waste_little_area(items: list[modes.Item]) -> None:
    for mode, cols in SIMILAR_MODES:
        pos, _, _ = modes.lay_out(mode, items, modes.Opts(gap=GAP, cols=cols))
        _no_overlap(items, pos)
        assert _ratio(items, pos) <= K_SIMILAR, (mode, cols)


@settings(max_examples=150, deadline=None)
@given(mixed())
def test_mixed_cards_stay_within_the_measured_bound(items: list[modes.Item]) -> None:
    for mode, cols in SIMILAR_MODES:
        pos, _, _ = modes.lay_out(mode, items, modes.Opts(gap=GAP, cols=cols))
        _no_overlap(items, pos)
        if mode == "flow" or (mode == "masonry" and cols == 0):
            assert _ratio(items, pos) <= K_MIXED, (mode, cols)


def test_cols_auto_aims_at_the_default_aspect() -> None:
    items = [modes.Item(i, 240.0, 160.0) for i in range(40)]
    for mode in ("grid", "masonry"):
        _, w, h = modes.lay_out(mode, items, modes.Opts(gap=GAP, cols=0))
        assert 1.2 <= w / h <= 2.1, mode


def test_arrange_masonry_through_the_workspace_packs_notes_beside_a_big_section(
    ws: Workspace,
) -> None:
    ws.call("create", {"kind": "board", "slug": "m"})
    docs = [
        {
            "kind": "doc",
            "payload": {
                "title": f"Doc {i}",
                "elements": [{"kind": "prose", "payload": {"md": "Body " * 200}}],
            },
        }
        for i in range(4)
    ]
    ws.call("compose_board", {"board": "m", "section": "Research", "cards": docs}, AGENT)
    notes = [{"kind": "note", "payload": {"md": f"note {i}"}} for i in range(9)]
    ws.call("compose_board", {"board": "m", "cards": notes}, AGENT)
    out = ws.call("arrange", {"board": "m", "mode": "masonry", "cols": "auto"}, AGENT)
    boxes = {c["id"]: c for c in out["cards"]}
    kinds = {c["id"]: c["kind"] for c in ws.call("scrape_board", {"board": "m"})["cards"]}
    section = next(b for i, b in boxes.items() if kinds[i] == "section")
    note_boxes = [b for i, b in boxes.items() if kinds[i] == "note"]
    assert section["w"] > 1000
    xs = sorted({b["x"] for b in note_boxes})
    widest = max(b["w"] for b in note_boxes)
    # Columns of notes sit at the gap, not a section's width apart.
    assert all(b - a <= widest + GAP + 1e-6 for a, b in itertools.pairwise(xs))
