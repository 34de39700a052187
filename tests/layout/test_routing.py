"""Wires routed around cards: no wire through a card, ends on the facing sides, labels
on their wire and clear of cards, routes that follow moved cards, and nested frames."""

from __future__ import annotations

import itertools
import random
from typing import Any

import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit.layout import Batch, BatchCard, Board, place_batch
from layoutkit.layout.routing import (
    MARGIN,
    RouteCache,
    WireSpec,
    crossings,
    facing_side,
    route_wires,
)

Box = tuple[float, float, float, float]


def composed(seed: int, sections: int = 4, per: int = 9, loose: int = 24) -> tuple[dict, dict]:
    """Boxes and parents of a board as compose lays it out: sections and loose cards."""
    rng = random.Random(seed)
    board = Board()

    def card(i: int) -> BatchCard:
        size = (rng.choice((200.0, 260.0, 320.0)), rng.choice((90.0, 140.0, 220.0)))
        return BatchCard("note", {"md": str(i)}, size=size)

    for s in range(sections):
        place_batch(board, Batch(cards=tuple(card(i) for i in range(per)), section=f"S{s}"))
    place_batch(board, Batch(cards=tuple(card(i) for i in range(loose))))
    boxes = {k: (c.x, c.y, c.w, c.h) for k, c in board.cards.items()}
    parents = {k: c.parent for k, c in board.cards.items()}
    return boxes, parents


def random_wires(
    boxes: dict, parents: dict, n: int, seed: int, label: bool = True
) -> list[WireSpec]:
    rng = random.Random(seed)
    leaves = sorted((k for k in boxes if k not in set(parents.values())), key=str)
    out = []
    for i in range(n):
        a, b = rng.sample(leaves, 2)
        out.append(WireSpec(a, b, (70.0, 18.0) if label and i % 2 == 0 else None))
    return out


def on_side(point: tuple[float, float], box: Box, side: str) -> bool:
    x, y, w, h = box
    px, py = point
    if side in ("left", "right"):
        edge = x if side == "left" else x + w
        return abs(px - edge) < 1e-6 and y <= py <= y + h
    edge = y if side == "top" else y + h
    return abs(py - edge) < 1e-6 and x <= px <= x + w


def orthogonal(points: tuple) -> bool:
    return all(
        abs(a[0] - b[0]) < 1e-6 or abs(a[1] - b[1]) < 1e-6 for a, b in itertools.pairwise(points)
    )


def test_no_wire_crosses_a_card_on_composed_boards() -> None:
    for seed in range(4):
        boxes, parents = composed(seed)
        wires = random_wires(boxes, parents, 40, seed)
        routes = route_wires(boxes, parents, wires, cache=None)
        assert all(r is not None and r.clear for r in routes)
        assert crossings(routes, wires, boxes, parents) == (0, 0)
        for r, w in zip(routes, wires, strict=True):
            assert r is not None and orthogonal(r.points)
            assert on_side(r.points[0], boxes[w.src], r.src_side)
            assert on_side(r.points[-1], boxes[w.dst], r.dst_side)


def test_the_crossing_count_sees_a_wire_through_a_card() -> None:
    """Control: a straight wire through a card in between is counted."""
    boxes = {1: (0.0, 0.0, 100.0, 100.0), 2: (400.0, 0.0, 100.0, 100.0), 3: (200, 0, 100, 100)}
    wires = [WireSpec(1, 2)]
    straight = route_wires({1: boxes[1], 2: boxes[2]}, {}, wires, cache=None)
    assert straight[0] is not None and len(straight[0].points) == 2
    assert crossings(straight, wires, boxes, {}) == (1, 0)
    around = route_wires(boxes, {}, wires, cache=None)
    assert crossings(around, wires, boxes, {}) == (0, 0)
    assert len(around[0].points) > 2  # it went round card 3


def test_ends_attach_to_the_sides_facing_each_other() -> None:
    a = (0.0, 0.0, 200.0, 100.0)
    cases = {
        "right": (500.0, 30.0, 200.0, 100.0),
        "left": (-600.0, -20.0, 200.0, 100.0),
        "bottom": (50.0, 400.0, 200.0, 100.0),
        "top": (-30.0, -500.0, 200.0, 100.0),
    }
    opposite = {"right": "left", "left": "right", "top": "bottom", "bottom": "top"}
    for side, b in cases.items():
        assert facing_side(a, b) == side
        (route,) = route_wires({1: a, 2: b}, {}, [WireSpec(1, 2)], cache=None)
        assert route is not None
        assert (route.src_side, route.dst_side) == (side, opposite[side])
        assert on_side(route.points[0], a, side)
        assert on_side(route.points[-1], b, opposite[side])
    # Cards that overlap on one axis get a straight wire between their facing sides.
    (route,) = route_wires({1: a, 2: cases["right"]}, {}, [WireSpec(1, 2)], cache=None)
    assert route is not None and len(route.points) == 2


def test_wires_on_one_side_are_spread_in_the_order_of_their_other_ends() -> None:
    boxes = {
        1: (0.0, 0.0, 200.0, 300.0),
        2: (600.0, -400.0, 200.0, 100.0),
        3: (600.0, 100.0, 200.0, 100.0),
        4: (600.0, 600.0, 200.0, 100.0),
    }
    wires = [WireSpec(1, 4), WireSpec(1, 2), WireSpec(1, 3)]
    routes = route_wires(boxes, {}, wires, cache=None)
    starts = [r.points[0] for r in routes if r is not None]
    assert all(p[0] == 200.0 for p in starts)
    ys = {w.dst: p[1] for w, p in zip(wires, starts, strict=True)}
    assert ys[2] < ys[3] < ys[4]


def test_labels_sit_on_their_wire_clear_of_cards() -> None:
    boxes, parents = composed(11)
    wires = random_wires(boxes, parents, 30, 5)
    routes = route_wires(boxes, parents, wires, cache=None)
    assert crossings(routes, wires, boxes, parents) == (0, 0)
    placed = []
    for r, w in zip(routes, wires, strict=True):
        if w.label is None:
            assert r is not None and r.label is None
            continue
        assert r is not None and r.label is not None
        lx, ly, lw, lh = r.label
        assert (lw, lh) == w.label
        centre = shapely.Point(lx + lw / 2, ly + lh / 2)
        if r.leader is None:  # centred on the wire's own path
            assert shapely.LineString(r.points).distance(centre) < 1e-6
        else:  # tied to the wire by a leader that starts on it
            assert shapely.LineString(r.points).distance(shapely.Point(r.leader[0])) < 1e-6
        placed.append(shapely.box(lx, ly, lx + lw, ly + lh))
    # Labels do not cover each other either.
    for a, b in itertools.combinations(placed, 2):
        assert not a.intersection(b).area


def test_a_label_without_room_on_its_wire_goes_beside_it_with_a_leader() -> None:
    # Two cards 24 px apart, flanked by others: the wire between them is 24 px long.
    boxes = {
        1: (0.0, 0.0, 200.0, 100.0),
        2: (224.0, 0.0, 200.0, 100.0),
        3: (0.0, 124.0, 424.0, 100.0),
    }
    wires = [WireSpec(1, 2, (90.0, 18.0))]
    (route,) = route_wires(boxes, {}, wires, cache=None)
    assert route is not None and route.label is not None and route.leader is not None
    assert crossings([route], wires, boxes, {}) == (0, 0)
    (x0, y0), (x1, y1) = route.leader
    assert x0 == x1 or y0 == y1


def test_wires_re_route_when_a_card_moves_into_their_way() -> None:
    boxes = {1: (0.0, 0.0, 200.0, 100.0), 2: (800.0, 0.0, 200.0, 100.0), 3: (400, 400, 100, 100)}
    wires = [WireSpec(1, 2)]
    cache = RouteCache()
    (before,) = route_wires(boxes, {}, wires, cache=cache)
    assert before is not None and len(before.points) == 2
    boxes[3] = (400.0, -20.0, 100.0, 100.0)  # now right across the straight line
    (after,) = route_wires(boxes, {}, wires, cache=cache)
    assert after is not None and after.points != before.points
    assert crossings([after], wires, boxes, {}) == (0, 0)
    # Unchanged boxes: the cached route comes back (a hit, the same points).
    hits = cache.hits
    (again,) = route_wires(boxes, {}, wires, cache=cache)
    assert again == after and cache.hits == hits + 1
    # An end moving moves the route with it.
    boxes[2] = (800.0, 300.0, 200.0, 100.0)
    (moved,) = route_wires(boxes, {}, wires, cache=cache)
    assert moved is not None and moved.points[-1][1] >= 300.0
    assert crossings([moved], wires, boxes, {}) == (0, 0)


def test_a_cached_route_is_not_reused_after_a_card_moves_into_its_region() -> None:
    boxes, parents = composed(3)
    wires = random_wires(boxes, parents, 20, 8, label=False)
    cache = RouteCache()
    routes = route_wires(boxes, parents, wires, cache=cache)
    # Drop a loose card right on the middle of every route in turn.
    leaves = [k for k in boxes if parents.get(k) is None and k not in set(parents.values())]
    mover = next(k for k in leaves if all(k not in (w.src, w.dst) for w in wires))
    for r in routes[:8]:
        assert r is not None
        (ax, ay), (bx, by) = r.points[len(r.points) // 2 - 1], r.points[len(r.points) // 2]
        boxes[mover] = ((ax + bx) / 2 - 10, (ay + by) / 2 - 10, 20.0, 20.0)
        again = route_wires(boxes, parents, wires, cache=cache)
        assert crossings(again, wires, boxes, parents)[0] == 0


def test_a_wire_inside_a_section_crosses_its_own_frame_never_other_cards() -> None:
    boxes = {
        "A": (0.0, 0.0, 600.0, 400.0),  # section holding a1, a2 and the note between
        "a1": (24.0, 72.0, 150.0, 100.0),
        "a2": (400.0, 72.0, 150.0, 100.0),
        "mid": (200.0, 40.0, 170.0, 300.0),
        "B": (900.0, 0.0, 400.0, 300.0),  # another section with one card
        "b1": (924.0, 72.0, 150.0, 100.0),
        "C": (640.0, -200.0, 220.0, 700.0),  # a section standing between A and B
        "c1": (664.0, -128.0, 150.0, 100.0),
    }
    parents = {"a1": "A", "a2": "A", "mid": "A", "b1": "B", "c1": "C"}
    wires = [WireSpec("a1", "a2", (60.0, 18.0)), WireSpec("a2", "b1", (60.0, 18.0))]
    routes = route_wires(boxes, parents, wires, cache=None)
    assert crossings(routes, wires, boxes, parents) == (0, 0)
    inside, across = routes
    assert inside is not None and across is not None
    # The first stays inside its section, round the note; the second leaves A, goes
    # round section C (an obstacle as a whole) and enters B.
    a = shapely.box(0, 0, 600, 400)
    assert a.contains(shapely.LineString(inside.points))
    line = shapely.LineString(across.points)
    assert line.crosses(a) and line.crosses(shapely.box(900, 0, 1300, 300))
    assert not line.intersects(shapely.box(640, -200, 860, 500))


def test_wires_sharing_a_channel_are_spread_apart() -> None:
    # Three wires from the left column to the right column all run down one gap.
    boxes = {i: (0.0, i * 124.0, 200.0, 100.0) for i in range(4)}
    boxes.update({10 + i: (600.0, i * 124.0, 200.0, 100.0) for i in range(4)})
    boxes[99] = (224.0, -400.0, 352.0, 1300.0)  # a wall between the columns
    wires = [WireSpec(0, 13), WireSpec(1, 12), WireSpec(2, 11)]
    routes = route_wires(boxes, {}, wires, cache=None)
    assert crossings(routes, wires, boxes, {}) == (0, 0)
    lines = [shapely.LineString(r.points) for r in routes if r is not None]
    for a, b in itertools.combinations(lines, 2):
        assert a.intersection(b).length < 1e-6  # no stretch shared


@st.composite
def boards(draw: Any) -> tuple[dict, dict, list[WireSpec]]:
    """Cards of random sizes on a jittered grid (none overlapping, some closer than twice
    the margin), perhaps a frame around a block of cells, and random wires between them
    (the frame included)."""
    cols = draw(st.integers(2, 6))
    rows = draw(st.integers(1, 5))
    boxes: dict[Any, Box] = {}
    cell: dict[Any, tuple[int, int]] = {}
    for r in range(rows):
        for c in range(cols):
            if draw(st.booleans()) or len(boxes) < 2:
                w = draw(st.floats(40, 260))
                h = draw(st.floats(30, 180))
                dx = draw(st.floats(0, 290 - w))
                dy = draw(st.floats(0, 200 - h))
                cell[len(boxes)] = (c, r)
                boxes[len(boxes)] = (c * 300.0 + dx, r * 210.0 + dy, w, h)
    parents: dict[Any, Any] = {}
    if draw(st.booleans()):
        c0 = draw(st.integers(0, cols - 1))
        c1 = draw(st.integers(c0, cols - 1))
        r0 = draw(st.integers(0, rows - 1))
        r1 = draw(st.integers(r0, rows - 1))
        # The frame hugs its block of cells: it holds their cards and meets no other.
        boxes["F"] = (
            c0 * 300.0 - 4,
            r0 * 210.0 - 4,
            (c1 - c0 + 1) * 300.0 - 2,
            (r1 - r0 + 1) * 210.0 - 2,
        )
        for k, (c, r) in cell.items():
            if c0 <= c <= c1 and r0 <= r <= r1:
                parents[k] = "F"
    keys = list(boxes)
    pairs = draw(
        st.lists(
            st.tuples(st.sampled_from(keys), st.sampled_from(keys)).filter(lambda p: p[0] != p[1]),
            min_size=1,
            max_size=8,
        )
    )
    label = draw(st.booleans())
    return boxes, parents, [WireSpec(a, b, (50.0, 18.0) if label else None) for a, b in pairs]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_routes_are_orthogonal_attached_and_clear(
    board: tuple[dict, dict, list[WireSpec]],
) -> None:
    boxes, parents, wires = board
    routes = route_wires(boxes, parents, wires, cache=None)
    bad_wires, bad_labels = crossings(routes, wires, boxes, parents)
    assert bad_wires == 0 and bad_labels == 0
    for r, w in zip(routes, wires, strict=True):
        assert r is not None and r.clear and orthogonal(r.points)
        assert on_side(r.points[0], boxes[w.src], r.src_side)
        assert on_side(r.points[-1], boxes[w.dst], r.dst_side)
        # the wire leaves and enters its cards square to the side
        first, last = r.points[1], r.points[-2]
        horizontal = {"left", "right"}
        assert (r.src_side in horizontal) == (abs(first[1] - r.points[0][1]) < 1e-6)
        assert (r.dst_side in horizontal) == (abs(last[1] - r.points[-1][1]) < 1e-6)


def test_margin_is_kept_where_cards_leave_room() -> None:
    boxes = {1: (0.0, 0.0, 100.0, 100.0), 2: (600.0, 0.0, 100.0, 100.0), 3: (250, -50, 100, 300)}
    (route,) = route_wires(boxes, {}, [WireSpec(1, 2)], cache=None)
    assert route is not None
    line = shapely.LineString(route.points)
    assert line.distance(shapely.box(250, -50, 350, 250)) >= MARGIN - 1e-6


def test_a_wire_between_a_frame_and_its_own_card_runs_inside_the_frame() -> None:
    boxes = {"S": (0.0, 0.0, 600.0, 400.0), "c": (300.0, 150.0, 150.0, 100.0)}
    boxes["d"] = (40.0, 80.0, 150.0, 100.0)
    parents = {"c": "S", "d": "S"}
    wires = [WireSpec("S", "c"), WireSpec("d", "S", (40.0, 18.0))]
    routes = route_wires(boxes, parents, wires, cache=None)
    assert crossings(routes, wires, boxes, parents) == (0, 0)
    into, out = routes
    assert into is not None and out is not None
    # Both ends on the frame's side nearest the card, the wire inside the frame.
    assert (into.src_side, into.dst_side) == ("right", "right")
    assert len(into.points) == 2 and into.points[0][0] == 600.0
    assert (out.src_side, out.dst_side) == ("left", "left")
    assert shapely.box(0, 0, 600, 400).covers(shapely.LineString(out.points))


def test_a_card_whose_frame_is_not_drawn_is_still_avoided() -> None:
    """A picture of part of a board may hold a card without its frame."""
    boxes = {1: (0.0, 0.0, 100.0, 100.0), 2: (600.0, 0.0, 100.0, 100.0), 3: (250, -50, 100, 300)}
    wires = [WireSpec(1, 2)]
    routes = route_wires(boxes, {3: "gone"}, wires, cache=None)
    assert crossings(routes, wires, boxes, {}) == (0, 0)
