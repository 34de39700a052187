"""Layout engine benchmarks: placement, arrange, and the shelf packer against rectpack.

Run: python benches/layout_bench.py [--quick]
"""

from __future__ import annotations

import gc
import math
import random
import statistics
import sys
import time

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
    t = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


def bench_one_big_batch() -> None:
    rng = random.Random(7)
    rows = []
    for n in (100, 1000):
        batch = Batch(tuple(mixed_card(rng) for _ in range(n)))
        board = Board()
        _, t = timed(place_batch, board, batch)
        rows.append([str(n), f"{t * 1000:.1f}", f"{t / n * 1e6:.0f}"])
    table("One batch of mixed cards onto an empty board", ["cards", "ms", "us/card"], rows)


def bench_batches(sizes: list[int], batches: int) -> None:
    rows = []
    for n, freeze in [(n, f) for n in sizes for f in (False, True)]:
        board, build = timed(stored_board, n)
        if freeze:
            # Long-lived boards out of the cyclic collector: the spikes in the other rows
            # are full GC passes over the board's objects, not layout work.
            gc.collect()
            gc.freeze()
        rng = random.Random(n)
        per = []
        for b in range(batches):
            batch = Batch(tuple(mixed_card(rng) for _ in range(10)))
            result, t = timed(place_batch, board, batch)
            per.append(t)
            board.rekey({p.key: 10_000_000 + b * 100 + p.index for p in result.placements})
        gc.unfreeze()
        per.sort()
        rows.append(
            [
                str(n),
                "freeze" if freeze else "on",
                f"{build * 1000:.0f}",
                f"{statistics.median(per) * 1000:.2f}",
                f"{per[int(len(per) * 0.95) - 1] * 1000:.2f}",
                f"{max(per) * 1000:.2f}",
            ]
        )
    table(
        f"{batches} batches of 10 free cards onto a stored board (board build is the one-off index load)",
        ["board", "gc", "build ms", "median ms", "p95 ms", "max ms"],
        rows,
    )


def bench_board_load(sizes: list[int]) -> None:
    """Board(cards) alone, as update_cards and compose pay it on every call."""
    rows = []
    for n in sizes:
        stored = list(stored_board(n).cards.values())
        per = []
        for _ in range(7):
            cards = [
                Card(c.id, c.kind, c.payload, c.x, c.y, c.w, c.h, created=c.created) for c in stored
            ]
            gc.collect()  # start each load from a clean heap, as a fresh request does
            _, t = timed(Board, cards)
            per.append(t)
        rows.append([str(n), f"{statistics.median(per) * 1000:.1f}", f"{min(per) * 1000:.1f}"])
    table("Board(cards) load (7 runs)", ["cards", "median ms", "min ms"], rows)


def bench_section_batches(n: int, batches: int) -> None:
    board = stored_board(n)
    rng = random.Random(3)
    per = []
    for b in range(batches):
        batch = Batch(tuple(mixed_card(rng) for _ in range(10)), section=TOPICS[b % len(TOPICS)])
        result, t = timed(place_batch, board, batch)
        per.append(t)
        mapping = {s.key: 20_000_000 + b * 100 + 99 for s in result.sections}
        mapping.update({p.key: 20_000_000 + b * 100 + p.index for p in result.placements})
        board.rekey(mapping)
    per.sort()
    table(
        f"{batches} batches of 10 into 10 growing sections on a {n}-card board",
        ["median ms", "p95 ms", "max ms"],
        [
            [
                f"{statistics.median(per) * 1000:.2f}",
                f"{per[int(len(per) * 0.95) - 1] * 1000:.2f}",
                f"{max(per) * 1000:.2f}",
            ]
        ],
    )


def bench_arrange(n: int) -> None:
    rows = []
    for mode in ("grid", "masonry", "flow", "column"):
        board = stored_board(n, seed=5)
        _, t = timed(arrange, board, mode, scope="all")
        rows.append([mode, str(n), f"{t * 1000:.0f}"])
    table("arrange over every card of the board", ["mode", "cards", "ms"], rows)


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
            _, sw, sh = shelf_pack(items, 24.0, aspect)
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
                ]
            )
    table(
        "Shelf packer (compose order kept) vs rectpack MaxRects (free order), mixed card sizes, 24 px gaps",
        ["cards", "target", "shelf aspect", "shelf fill", "rectpack aspect", "rectpack fill"],
        rows,
    )


def main() -> None:
    quick = "--quick" in sys.argv
    # Load the font tables once so the first timed call does not pay for it.
    place_batch(Board(), Batch((BatchCard("text", {"md": "warm up"}),)))
    bench_one_big_batch()
    bench_board_load([5000] if quick else [5000, 20000])
    bench_batches([1000, 5000] if quick else [1000, 5000, 20000], 100)
    bench_section_batches(5000, 50 if quick else 100)
    bench_arrange(2000 if quick else 10000)
    bench_packer()


if __name__ == "__main__":
    main()
