"""Render bench: a 500-element document to HTML, a 1,000-card board to SVG and PNG.

Run: ``python benches/render_bench.py [--reps 5]``. Prints the median, best and
worst wall time per scenario plus output sizes. The inputs are built from
the test gallery's element and card kinds, cycled, so every face and element
renderer is on the path; code listings get distinct sources so the
highlighter's cache does not flatter the figure.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from layoutkit.render import render_board, render_doc  # noqa: E402
from tests.render.gallery import EVERY_CARD, EVERY_ELEMENT  # noqa: E402


def big_doc(n: int = 500) -> dict[str, Any]:
    leaves = [e for e in EVERY_ELEMENT if e["kind"] not in ("section", "columns", "compare", "doc")]
    elements = []
    for i in range(n):
        element = copy.deepcopy(leaves[i % len(leaves)])
        if element["kind"] == "code":
            element["payload"]["source"] += f"\n# listing {i}\n"
        if element["kind"] == "prose":
            element["payload"]["md"] += f"\n\n## Part {i}\n\nParagraph {i} with **bold** text."
        elements.append(element)
    return {
        "kind": "doc",
        "payload": {"title": "Bench", "intro": "Five hundred elements.", "elements": elements},
    }


def big_board(n: int = 1000) -> dict[str, Any]:
    faces = [c for c in EVERY_CARD if c["kind"] not in ("section", "cluster")]
    cards, edges = [], []
    cols = 40
    for i in range(n):
        proto = faces[i % len(faces)]
        w, h = min(proto["w"], 420), min(proto["h"], 320)
        cards.append(
            {
                "id": i + 1,
                "kind": proto["kind"],
                "payload": proto["payload"],
                "x": (i % cols) * 460,
                "y": (i // cols) * 360,
                "w": w,
                "h": h,
                "parent": None,
            }
        )
        if i and i % 3 == 0:
            edges.append({"from": i, "to": i + 1, "label": f"e{i}"})
    return {"board": {"slug": "bench", "title": "Bench board"}, "cards": cards, "edges": edges}


def timed(fn, reps: int) -> tuple[list[float], Any]:
    times, out = [], None
    for _ in range(reps):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return times, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    doc = big_doc()
    board = big_board()
    rows = []
    for name, fn in (
        ("doc 500 elements -> HTML", lambda: render_doc(doc)),
        ("board 1,000 cards -> SVG", lambda: render_board(board)),
        ("board 1,000 cards -> PNG (1600 px)", lambda: render_board(board, format="png")),
    ):
        first, _ = timed(fn, 1)  # cold: fonts, lexers and caches fill here
        times, out = timed(fn, args.reps)
        rows.append((name, first[0], statistics.median(times), min(times), max(times), len(out)))
    print(
        f"{'scenario':<38} {'first ms':>9} {'median ms':>10} {'best ms':>9} {'worst ms':>9} {'output bytes':>13}"
    )
    for name, cold, med, best, worst, size in rows:
        print(
            f"{name:<38} {cold * 1000:>9.1f} {med * 1000:>10.1f} {best * 1000:>9.1f} {worst * 1000:>9.1f} {size:>13,}"
        )


if __name__ == "__main__":
    main()
