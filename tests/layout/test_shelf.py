"""The shelf packer: compose order kept as a reading order, no overlap, the target aspect
approached, and much less wasted area than plain shelf rows."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.layout import shelf_pack, size_card
from layoutkit.layout.modes import _EPS, Item, _shelf_rows, _unbounded, shelf_rows

GAP = 24.0


def assert_reading_order(items: list[Item], pos: list[tuple[float, float]]) -> None:
    """Each card either continues to the right of the one before it, not lower than
    its top (next sub-column, or next card on a line), or starts below it (next card in
    a sub-column, or a new row); a card at the left edge below the first row starts
    either a new row under everything before it or a new line in the first sub-column."""
    for i in range(1, len(items)):
        (px, py), (qx, qy) = pos[i - 1], pos[i]
        right = qx >= px + items[i - 1].w - 1e-6 and qy <= py + 1e-6
        below = qy >= py + items[i - 1].h - 1e-6
        assert right or below, (i, pos[i - 1], pos[i])
    rows = sorted({y for (x, y) in pos if x == 0})
    for top in rows:
        first = min(i for i, (x, y) in enumerate(pos) if x == 0 and y == top)
        earlier_bottom = max((pos[k][1] + items[k].h for k in range(first)), default=0.0)
        new_row = top >= earlier_bottom - 1e-6
        under = first > 0 and pos[first - 1][0] == 0 and top > pos[first - 1][1]
        assert new_row or under, (first, top)


def assert_no_overlap(items: list[Item], pos: list[tuple[float, float]]) -> None:
    for i, ((ax, ay), a) in enumerate(zip(pos, items, strict=True)):
        for (bx, by), b in zip(pos[i + 1 :], items[i + 1 :], strict=True):
            apart = (
                ax + a.w + GAP <= bx + 1e-6
                or bx + b.w + GAP <= ax + 1e-6
                or ay + a.h + GAP <= by + 1e-6
                or by + b.h + GAP <= ay + 1e-6
            )
            assert apart, (a, (ax, ay), b, (bx, by))


def mixed_sizes(n: int, seed: int) -> list[Item]:
    """Card sizes like a real board: notes, text, screens, documents, diagrams."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        roll = rng.random()
        if roll < 0.45:
            kind, payload = "text", {"md": "word " * rng.randint(3, 60)}
        elif roll < 0.65:
            kind, payload = "note", {"md": "idea " * rng.randint(2, 20)}
        elif roll < 0.8:
            kind = "step"
            payload = {"image": "s.png", "natW": rng.choice([1440, 390]), "natH": 844}
        else:
            kind = "diagram"
            payload = {"geo": {"width": rng.randint(300, 1200), "height": rng.randint(200, 800)}}
        out.append(Item(i, *size_card(kind, payload)))
    return out


def fill(items: list[Item], w: float, h: float) -> float:
    return sum(it.w * it.h for it in items) / (w * h)


def test_mixed_cards_fill_most_of_the_block():
    # Plain shelf rows left 60-70 % of these blocks empty under short cards.
    for n, seed in ((12, 1), (30, 2), (100, 3)):
        items = mixed_sizes(n, seed)
        for aspect in (1.0, 1.6, 3.2):
            pos, w, h = shelf_pack(items, GAP, aspect)
            assert fill(items, w, h) >= 0.6, (n, aspect, fill(items, w, h))
            assert abs(w / h - aspect) / aspect < 0.3, (n, aspect, w / h)
            assert_reading_order(items, pos)
            assert_no_overlap(items, pos)


def test_short_cards_stack_beside_a_tall_one():
    tall = Item("tall", 300, 600)
    notes = [Item(i, 200, 100) for i in range(4)]
    pos, w, h = shelf_rows([tall, *notes], GAP, 600)
    # One row: the notes form a sub-column right of the tall card instead of a new row.
    assert (w, h) == (524, 600)
    assert pos == [(0, 0), (324, 0), (324, 124), (324, 248), (324, 372)]


def test_a_tall_card_later_in_the_row_lets_earlier_cards_stack():
    notes = [Item(i, 200, 100) for i in range(3)]
    pos, w, h = shelf_rows([*notes, Item("tall", 300, 400)], GAP, 600)
    assert (w, h) == (524, 400)
    assert pos == [(0, 0), (0, 124), (0, 248), (224, 0)]


def test_narrow_cards_share_a_line_inside_a_wide_sub_column():
    items = [Item("tall", 300, 500), Item("wide", 500, 200), Item(1, 200, 100), Item(2, 200, 100)]
    pos, w, h = shelf_rows(items, GAP, 900)
    assert pos == [(0, 0), (324, 0), (324, 224), (548, 224)]
    assert (w, h) == (824, 500)


sizes = st.lists(st.tuples(st.integers(20, 900), st.integers(20, 900)), min_size=1, max_size=40)


@settings(max_examples=80, deadline=None)
@given(sizes, st.sampled_from([1.0, 1.6, 3.2]))
def test_any_sizes_pack_without_overlap_in_reading_order(wh, aspect):
    items = [Item(i, float(w), float(h)) for i, (w, h) in enumerate(wh)]
    pos, w, h = shelf_pack(items, GAP, aspect)
    assert len(pos) == len(items)
    assert_no_overlap(items, pos)
    assert_reading_order(items, pos)
    assert w == max(x + it.w for (x, _), it in zip(pos, items, strict=True))
    assert h == max(y + it.h for (_, y), it in zip(pos, items, strict=True))
    assert min(x for x, _ in pos) == 0 and min(y for _, y in pos) == 0
    assert shelf_pack(items, GAP, aspect) == (pos, w, h)


@settings(max_examples=150, deadline=None)
@given(sizes, st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_a_width_inside_a_packings_bounds_packs_exactly_alike(wh, first, second):
    """shelf_pack reuses a packing for every width inside its bounds: each such width
    must take the same branches, so its packing is the very same."""
    ws = [float(w) for w, _ in wh]
    hs = [float(h) for _, h in wh]
    widest, total = max(ws), sum(ws) + GAP * (len(ws) - 1)
    limit = widest + (total - widest) * first
    bounds = _unbounded()
    packed = _shelf_rows(ws, hs, GAP, limit, bounds)
    lo_e, hi_e, lo, hi = bounds
    assert lo_e <= limit + _EPS < hi_e and lo <= limit < hi
    # A width between the edges the packing compared against, inside both ranges.
    low = max(lo_e - _EPS, lo, widest)
    high = min(hi_e - _EPS, hi, total + 1.0)
    other = low + (high - low) * second
    if lo_e <= other + _EPS < hi_e and lo <= other < hi:
        assert _shelf_rows(ws, hs, GAP, other, _unbounded()) == packed
