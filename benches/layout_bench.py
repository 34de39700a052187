"""Layout engine benchmarks: placement, arrange, and the shelf packer against rectpack.

Run: python benches/layout_bench.py [--quick]

The first tables time the engine alone on in-memory boards ("engine only");
the last times what a caller waits for through ``Workspace.call`` for the
same work on a stored board (load, placement, writes, commit): SQLite, and
PostgreSQL when LAYOUTKIT_TEST_POSTGRES_URL is set. Wall and CPU time side by side.
"""

from __future__ import annotations

import gc
import math
import random
import sys
import time

from _timing import CALLER, ENGINE, TIMING_HEADER, Timing, measure, seed_board, table, workspaces

from layoutkit.layout import (
    Batch,
    BatchCard,
    Board,
    Card,
    arrange,
    place_batch,
    shelf_pack,
    size_card,
)
from layoutkit.layout.modes import Item
from layoutkit.limits import ARRANGE_CARDS
from layoutkit.service.road.workspace import Workspace

TOPICS = [
    "Research",
    "Design",
    "Backlog",
    "Findings",
    "Decisions",
    "Risks",
    "Questions",
    "Metrics",
    "Timeline",
    "Screens",
]
WORDS = [
    "layout",
    "engine",
    "board",
    "card",
    "frame",
    "section",
    "anchor",
    "shelf",
    "pack",
    "flow",
    "reflow",
    "grid",
]


def mixed_card(rng: random.Random) -> BatchCard:
    roll = rng.random()
    if roll < 0.4:
        md = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 60)))
        return BatchCard("text", {"md": md})
    if roll < 0.55:
        return BatchCard(
            "note", {"md": " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 20)))}
        )
    if roll < 0.7:
        return BatchCard(
            "step",
            {"image": "s.png", "natW": rng.choice([1440, 390]), "natH": rng.choice([900, 844])},
        )
    if roll < 0.8:
        return BatchCard(
            "link",
            {"url": "https://example.com", "display": rng.choice(["preview", "phone", "widget"])},
        )
    if roll < 0.9:
        return BatchCard(
            "doc",
            {
                "title": "Report",
                "elements": [
                    {"kind": "prose", "payload": {"md": "Some text " * rng.randint(5, 80)}},
                    {
                        "kind": "table",
                        "payload": {
                            "cols": [{"key": "a"}],
                            "rows": [{"a": 1}] * rng.randint(1, 12),
                        },
                    },
                ],
            },
        )
    return BatchCard(
        "diagram", {"geo": {"width": rng.randint(300, 1200), "height": rng.randint(200, 800)}}
    )


def stored_board(n: int, seed: int = 1) -> Board:
    """A board of n cards laid out as rows of a shelf, like a board grown over time."""
    rng = random.Random(seed)
    cards = []
    x = y = row_h = 0.0
    for i in range(n):
        bc = mixed_card(rng)
        w, h = size_card(bc.kind, bc.payload)
        if x + w > 6000:
            x, y, row_h = 0.0, y + row_h + 24, 0.0
        cards.append(Card(i + 1, bc.kind, bc.payload, x, y, w, h, created=i))
        x += w + 24
        row_h = max(row_h, h)
    return Board(cards)


def timed(fn, *args, **kw):
    """The result, wall seconds and CPU seconds of one call."""
    t, c = time.perf_counter(), time.process_time()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t, time.process_time() - c


def timing(walls: list[float], cpus: list[float]) -> Timing:
    return Timing([w * 1000 for w in walls], [c * 1000 for c in cpus])


def bench_one_big_batch() -> None:
    rng = random.Random(7)
    rows = []
    for n in (100, 1000):
        batch = Batch(tuple(mixed_card(rng) for _ in range(n)))
        board = Board()
        _, t, c = timed(place_batch, board, batch)
        rows.append([str(n), f"{t * 1000:.1f}", f"{c * 1000:.1f}", f"{t / n * 1e6:.0f}"])
    table(
        f"One batch of mixed cards onto an empty board ({ENGINE})",
        ["cards", "wall ms", "cpu ms", "wall us/card"],
        rows,
    )


def bench_batches(sizes: list[int], batches: int) -> None:
    rows = []
    for n, freeze in [(n, f) for n in sizes for f in (False, True)]:
        board, build, _ = timed(stored_board, n)
        if freeze:
            # Long-lived boards out of the cyclic collector: the spikes in the other rows
            # are full GC passes over the board's objects, not layout work.
            gc.collect()
            gc.freeze()
        rng = random.Random(n)
        per, cpu = [], []
        for b in range(batches):
            batch = Batch(tuple(mixed_card(rng) for _ in range(10)))
            result, t, c = timed(place_batch, board, batch)
            per.append(t)
            cpu.append(c)
            board.rekey({p.key: 10_000_000 + b * 100 + p.index for p in result.placements})
        gc.unfreeze()
        tm = timing(per, cpu)
        rows.append(
            [
                str(n),
                "freeze" if freeze else "on",
                f"{build * 1000:.0f}",
                *tm.cells(2),
                f"{max(tm.wall):.2f}",
            ]
        )
    table(
        f"{batches} batches of 10 free cards onto an in-memory board ({ENGINE}; "
        "board build is the one-off index load)",
        ["board", "gc", "build ms", *TIMING_HEADER, "wall max ms"],
        rows,
    )


def bench_board_load(sizes: list[int]) -> None:
    """Board(cards) alone, as update_cards and compose pay it on every call."""
    rows = []
    for n in sizes:
        stored = list(stored_board(n).cards.values())
        per, cpu = [], []
        for _ in range(7):
            cards = [
                Card(c.id, c.kind, c.payload, c.x, c.y, c.w, c.h, created=c.created) for c in stored
            ]
            gc.collect()  # start each load from a clean heap, as a fresh request does
            _, t, c = timed(Board, cards)
            per.append(t)
            cpu.append(c)
        tm = timing(per, cpu)
        rows.append([str(n), *tm.cells(), f"{min(tm.wall):.1f}"])
    table(f"Board(cards) load, 7 runs ({ENGINE})", ["cards", *TIMING_HEADER, "wall min ms"], rows)


def bench_section_batches(n: int, batches: int) -> None:
    board = stored_board(n)
    rng = random.Random(3)
    per, cpu = [], []
    for b in range(batches):
        batch = Batch(tuple(mixed_card(rng) for _ in range(10)), section=TOPICS[b % len(TOPICS)])
        result, t, c = timed(place_batch, board, batch)
        per.append(t)
        cpu.append(c)
        mapping = {s.key: 20_000_000 + b * 100 + 99 for s in result.sections}
        mapping.update({p.key: 20_000_000 + b * 100 + p.index for p in result.placements})
        board.rekey(mapping)
    tm = timing(per, cpu)
    table(
        f"{batches} batches of 10 into 10 growing sections on an in-memory {n}-card board ({ENGINE})",
        [*TIMING_HEADER, "wall max ms"],
        [[*tm.cells(2), f"{max(tm.wall):.2f}"]],
    )


def bench_arrange(n: int) -> None:
    rows = []
    for mode in ("grid", "masonry", "flow", "column"):
        board = stored_board(n, seed=5)
        _, t, c = timed(arrange, board, mode, scope="all")
        rows.append([mode, str(n), f"{t * 1000:.0f}", f"{c * 1000:.0f}"])
    table(
        f"arrange over every card of an in-memory board ({ENGINE})",
        ["mode", "cards", "wall ms", "cpu ms"],
        rows,
    )


def rectpack_block(sizes: list[tuple[float, float]], aspect: float) -> tuple[float, float, float]:
    """rectpack (MaxRects, best short side fit, rotation off) in the smallest bin of the
    target aspect that holds all rectangles; returns the used block's w, h and fill."""
    import rectpack

    area = sum(w * h for w, h in sizes)
    widest = max(w for w, _ in sizes)
    tallest = max(h for _, h in sizes)
    lo, hi = math.sqrt(area / aspect), math.sqrt(area / aspect) * 4
    hi = max(hi, widest / aspect, tallest)
    best = None
    for _ in range(18):
        mid = (lo + hi) / 2
        bh = max(mid, tallest)
        bw = max(bh * aspect, widest)
        packer = rectpack.newPacker(rotation=False)
        for i, (w, h) in enumerate(sizes):
            packer.add_rect(math.ceil(w), math.ceil(h), rid=i)
        packer.add_bin(int(bw) + 1, int(bh) + 1)
        packer.pack()
        rects = packer.rect_list()
        if len(rects) == len(sizes):
            hi = mid
            uw = max(x + w for _, x, y, w, h, _ in rects)
            uh = max(y + h for _, x, y, w, h, _ in rects)
            best = (uw, uh, area / (uw * uh))
        else:
            lo = mid
    assert best is not None
    return best


def bench_packer() -> None:
    rng = random.Random(11)
    rows = []
    for n in (10, 30, 100, 300):
        for aspect in (1.0, 1.6, 3.2):
            sizes = [size_card(c.kind, c.payload) for c in (mixed_card(rng) for _ in range(n))]
            items = [Item(i, w, h) for i, (w, h) in enumerate(sizes)]
            # The shelf keeps 24 px gaps; pack rectpack's boxes with the same gap so the
            # two fill ratios are comparable.
            (_, sw, sh), t, c = timed(shelf_pack, items, 24.0, aspect)
            s_fill = sum(w * h for w, h in sizes) / (sw * sh)
            gapped = [(w + 24, h + 24) for w, h in sizes]
            rw, rh, _ = rectpack_block(gapped, aspect)
            rw, rh = rw - 24, rh - 24
            r_fill = sum(w * h for w, h in sizes) / (rw * rh)
            rows.append(
                [
                    str(n),
                    f"{aspect:.1f}",
                    f"{sw / sh:.2f}",
                    f"{s_fill:.2f}",
                    f"{rw / rh:.2f}",
                    f"{r_fill:.2f}",
                    f"{t * 1000:.2f}",
                    f"{c * 1000:.2f}",
                ]
            )
    table(
        "Shelf packer (compose order kept) vs rectpack MaxRects (free order), mixed card sizes, 24 px gaps",
        [
            "cards",
            "target",
            "shelf aspect",
            "shelf fill",
            "rectpack aspect",
            "rectpack fill",
            "shelf wall ms",
            "shelf cpu ms",
        ],
        rows,
    )


def bench_caller(n: int, rounds: int, n_arrange: int) -> None:
    """The same work as above as a caller waits for it: one ``Workspace.call`` on a stored board."""
    board = stored_board(n)
    cards = [(c.kind, c.payload, (c.x, c.y, c.w, c.h)) for c in board.cards.values()]
    rows = []
    for backend, ws in workspaces():
        seed_board(ws, "big", cards)
        seed_board(ws, "small", cards[:n_arrange])
        rows += [[backend, *row] for row in _caller_rows(ws, n, rounds, n_arrange)]
    table(
        f"The same work through Workspace.call on a stored board ({CALLER}: "
        "params check, load, placement, writes, commit; CPU is this process only)",
        ["backend", "work", "rounds", *TIMING_HEADER],
        rows,
    )


def _as_sent(card: BatchCard) -> dict:
    """A mixed card as a caller sends it: a diagram comes as a small graph to lay out
    (compose refuses a geometry without one), the other kinds as they are."""
    if card.kind != "diagram":
        return {"kind": card.kind, "payload": card.payload}
    nodes = [{"id": f"n{i}", "title": f"Step {i}"} for i in range(4)]
    edges = [{"from": f"n{i}", "to": f"n{i + 1}"} for i in range(3)]
    return {"kind": "diagram", "payload": {"title": "Flow", "nodes": nodes, "edges": edges}}


def _caller_rows(ws: Workspace, n: int, rounds: int, n_arrange: int) -> list[list[str]]:
    rng = random.Random(n)

    def compose(r: int, section: bool = False) -> None:
        cards = [_as_sent(mixed_card(rng)) for _ in range(10)]
        params: dict = {"board": "big", "cards": cards}
        if section:
            params["section"] = TOPICS[r % len(TOPICS)]
        ws.call("compose_board", params)

    def arrange_grid(_: int) -> None:
        ws.call("arrange", {"board": "small", "mode": "grid", "scope": "all"})

    few = max(3, rounds // 4)
    return [
        [
            f"compose_board: 10 free cards onto a {n}-card board",
            str(rounds),
            *measure(compose, rounds).cells(),
        ],
        [
            f"compose_board: 10 cards into 10 growing sections, {n}-card board",
            str(rounds),
            *measure(lambda r: compose(r, True), rounds).cells(),
        ],
        [
            f"arrange grid, every card of a {n_arrange}-card board",
            str(few),
            *measure(arrange_grid, few).cells(),
        ],
    ]


def main() -> None:
    quick = "--quick" in sys.argv
    # Load the font tables once so the first timed call does not pay for it.
    place_batch(Board(), Batch((BatchCard("text", {"md": "warm up"}),)))
    bench_one_big_batch()
    bench_board_load([5000] if quick else [5000, 20000])
    bench_batches([1000, 5000] if quick else [1000, 5000, 20000], 100)
    bench_section_batches(5000, 50 if quick else 100)
    # arrange refuses more cards than the arrangeCards limit: the full run times it at the cap.
    bench_arrange(2000 if quick else ARRANGE_CARDS)
    bench_packer()
    bench_caller(2000 if quick else 5000, 10 if quick else 20, 1000 if quick else ARRANGE_CARDS)


if __name__ == "__main__":
    main()
