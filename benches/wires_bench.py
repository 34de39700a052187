"""Wires bench: routing wires around cards on a 1,000-card board, and what wires cost a
board picture.

Run: ``python benches/wires_bench.py [--reps 5]``. Engine only (``layoutkit.layout``
and ``layoutkit.render`` on in-memory dicts); every figure is wall and CPU time
(``time.process_time`` of this process).

The board is what compose makes of it: 25 sections of 31 cards each (their default
2-column grid) and 200 loose cards shelf-packed beside them, 1,000 cards in all, of
four widths and four heights. Its 300 wires, drawn with a fixed seed: 180 between two
cards of one section, 75 between cards of two different sections or a section and a
loose card, 45 between loose cards; every other wire carries a label.

Scenarios:

- ``route cold``: every wire routed with an empty cache of routes.
- ``route warm``: the same boxes again (a viewer redrawing an unchanged board): each
  route is taken from the cache after checking its region's obstacles.
- ``route after a move``: one card moved by 40 px, then every wire routed (the cache
  keeps the routes whose region did not see the move).
- ``svg``/``png`` with and without wires: ``render_board`` of the whole board, faces
  warm in memory (the wires' share of a redraw).
- ``5,000 cards, no wires``: the render bench's big board drawn as SVG without wires,
  and the time the wire step takes on it (a board without wires skips routing whole).
- ``route cold, 5,000 cards``: that board with a wire from every third card to the
  next and 100 between random cards across the board, routed once with an empty cache.

Quality, counted with shapely: wires whose path passes through a card they should
avoid (target 0), labels that overlap a card (target 0), and routes the router had
to give up on (an end boxed in by overlapping cards; none on a composed board).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _timing import ENGINE, TIMING_HEADER, measure, table  # noqa: E402

from layoutkit.layout import Batch, BatchCard, Board, place_batch  # noqa: E402
from layoutkit.layout.routing import RouteCache, WireSpec, crossings, route_wires  # noqa: E402
from layoutkit.render import render_board  # noqa: E402
from layoutkit.render._board import _label_size, _wires  # noqa: E402

WIDTHS = (200.0, 240.0, 280.0, 320.0)
HEIGHTS = (100.0, 140.0, 180.0, 220.0)


def composed_board(
    sections: int = 25, per: int = 31, loose: int = 200, seed: int = 7
) -> dict[str, Any]:
    """A board as compose lays it out, as ``scrape_board`` returns it (no wires)."""
    rng = random.Random(seed)
    board = Board()

    def card(text: str) -> BatchCard:
        return BatchCard("note", {"md": text}, size=(rng.choice(WIDTHS), rng.choice(HEIGHTS)))

    for s in range(sections):
        place_batch(
            board, Batch(cards=tuple(card(f"S{s} card {i}") for i in range(per)), section=f"S{s}")
        )
    place_batch(board, Batch(cards=tuple(card(f"Loose card {i}") for i in range(loose))))
    cards = [
        {
            "id": n,
            "kind": c.kind,
            "payload": c.payload,
            "x": c.x,
            "y": c.y,
            "w": c.w,
            "h": c.h,
            "parent": None,
        }
        for n, c in enumerate(board.cards.values(), start=1)
    ]
    ids = {c.id: n for n, c in enumerate(board.cards.values(), start=1)}
    for out, c in zip(cards, board.cards.values(), strict=True):
        out["parent"] = ids.get(c.parent) if c.parent is not None else None
    return {"board": {"slug": "wires", "title": "Wires bench"}, "cards": cards, "edges": []}


def wires_for(board: dict[str, Any], n: int = 300, seed: int = 11) -> list[dict[str, Any]]:
    """``n`` wires: 60% inside one section, 25% between sections or a section and a
    loose card, 15% between loose cards; every other one labelled."""
    rng = random.Random(seed)
    by_section: dict[Any, list[int]] = {}
    loose: list[int] = []
    for c in board["cards"]:
        if c["kind"] == "section":
            continue
        if c["parent"] is None:
            loose.append(c["id"])
        else:
            by_section.setdefault(c["parent"], []).append(c["id"])
    groups = list(by_section.values())
    edges = []
    for i in range(n):
        share = i / n
        if share < 0.6:
            a, b = rng.sample(rng.choice(groups), 2)
        elif share < 0.85:
            g1, g2 = rng.sample(groups, 2)
            a, b = rng.choice(g1), rng.choice(g2 + loose)
        else:
            a, b = rng.sample(loose, 2)
        edge: dict[str, Any] = {"from": a, "to": b}
        if i % 2 == 0:
            edge["label"] = f"step {i}"
        edges.append(edge)
    return edges


def specs(board: dict[str, Any]) -> tuple[dict, dict, list[WireSpec]]:
    boxes = {c["id"]: (c["x"], c["y"], c["w"], c["h"]) for c in board["cards"]}
    parents = {c["id"]: c["parent"] for c in board["cards"]}
    wires = []
    for e in board["edges"]:
        lab = _label_size(e)
        wires.append(WireSpec(e["from"], e["to"], None if lab is None else lab[1]))
    return boxes, parents, wires


def big_grid(n: int = 5000, cols: int = 50) -> dict[str, Any]:
    from benches.render_bench import grid_cards

    return {"board": {"slug": "big", "title": "Big"}, "cards": grid_cards(n, cols), "edges": []}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    reps = args.reps

    board = composed_board()
    board["edges"] = wires_for(board)
    boxes, parents, wires = specs(board)
    n_cards = len(board["cards"])
    rows: list[list[str]] = []

    cold = measure(lambda _: route_wires(boxes, parents, wires, cache=RouteCache()), reps)
    rows.append(["route cold", f"{n_cards} cards, {len(wires)} wires", *cold.cells()])
    cache = RouteCache()
    routes = route_wires(boxes, parents, wires, cache=cache)
    warm = measure(lambda _: route_wires(boxes, parents, wires, cache=cache), reps)
    rows.append(["route warm", f"cache {cache.hits} hits", *warm.cells()])
    mover = next(c["id"] for c in board["cards"] if c["kind"] != "section")

    def moved(r: int) -> None:
        x, y, w, h = boxes[mover]
        boxes[mover] = (x + (40.0 if r % 2 == 0 else -40.0), y, w, h)

    before = cache.misses
    after_move = measure(
        lambda r: (moved(r), route_wires(boxes, parents, wires, cache=cache)), reps
    )
    rows.append(
        [
            "route after a move",
            f"{(cache.misses - before) / max(reps + 1, 1):.0f} wires re-routed per move",
            *after_move.cells(),
        ]
    )
    boxes[mover] = next(
        (c["x"], c["y"], c["w"], c["h"]) for c in board["cards"] if c["id"] == mover
    )

    bare = {**board, "edges": []}
    for fmt in ("svg", "png"):
        render_board(bare, format=fmt)  # faces into the cache
        without = measure(lambda _, f=fmt: render_board(bare, format=f), reps)
        with_w = measure(lambda _, f=fmt: render_board(board, format=f), reps)
        rows.append([f"{fmt} without wires", f"{n_cards} cards", *without.cells()])
        rows.append([f"{fmt} with wires", f"{len(wires)} wires, routes warm", *with_w.cells()])

    big = big_grid()
    render_board(big)
    big_svg = measure(lambda _: render_board(big), reps)
    rows.append(["svg 5,000 cards, no wires", "whole render", *big_svg.cells()])
    rects = {c["id"]: (c["x"], c["y"], c["w"], c["h"]) for c in big["cards"]}
    step = measure(lambda _: _wires(big, big["cards"], rects, 0.0, 0.0), reps)
    rows.append(["  of which the wire step", "no wires: skipped", *step.cells(3)])

    # The render bench's 5,000-card board with a wire from every third card to the next
    # and 100 between random cards (long ones, across the board): once, cold.
    rng = random.Random(3)
    big_boxes = rects
    big_wires = [WireSpec(i, i + 1, (40.0, 18.0)) for i in range(3, 5000, 3)]
    big_wires += [WireSpec(rng.randint(1, 5000), rng.randint(1, 5000)) for _ in range(100)]
    big_cold = measure(lambda _: route_wires(big_boxes, {}, big_wires, cache=RouteCache()), 1, 0)
    rows.append(
        ["route cold, 5,000 cards", f"{len(big_wires)} wires (100 long)", *big_cold.cells()]
    )
    big_routes = route_wires(big_boxes, {}, big_wires, cache=None)
    big_bad = crossings(big_routes, big_wires, big_boxes, {})

    table(f"Wires ({ENGINE}, {reps} rounds)", ["scenario", "what", *TIMING_HEADER], rows)

    bad_wires, bad_labels = crossings(routes, wires, boxes, parents)
    gave_up = sum(1 for r in routes if r is not None and not r.clear)
    labelled = sum(1 for w in wires if w.label is not None)
    placed = sum(1 for r, w in zip(routes, wires, strict=True) if w.label and r and r.label)
    leaders = sum(1 for r in routes if r is not None and r.leader is not None)
    bends = [len(r.points) - 2 for r in routes if r is not None]
    table(
        "Route quality",
        ["measure", "value", "target"],
        [
            ["wires crossing a card", str(bad_wires), "0"],
            ["labels overlapping a card", str(bad_labels), "0"],
            [
                "5,000 cards: wires crossing, labels overlapping",
                f"{big_bad[0]}, {big_bad[1]}",
                "0, 0",
            ],
            ["routes given up (end boxed in)", str(gave_up), "0"],
            ["labels placed", f"{placed} of {labelled} ({leaders} beside the wire)", "all"],
            ["bends per wire (median, max)", f"{sorted(bends)[len(bends) // 2]}, {max(bends)}", ""],
        ],
    )


if __name__ == "__main__":
    main()
