"""PDF bench: boards and documents as PDF pages beside the SVG, PNG and HTML of the same
inputs (the anchors), engine only.

Run: ``python benches/pdf_bench.py [--reps 3]``. The inputs are render_bench's: boards
of every card kind in a grid (distinct text on each card), a document of 500 elements of
every element kind. Each scenario prints its first call (the cache of drawn faces
emptied) and the median, best and worst of the repetitions, wall and CPU milliseconds,
the output's size, and the ratio of its median to its anchor's median measured in the
same run: the board's SVG for a board, the document's HTML for a document. A tiled PDF
of the 500-card board is 117 A4 pages; the 1,000-card board tiled would pass the
200-page cap (exportPages) and is printed fitted only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from render_bench import big_doc, grid_cards, timed

from layoutkit.render import board_pdf, doc_pdf, render_board, render_doc


def _board(n: int, cols: int) -> dict[str, Any]:
    cards = grid_cards(n, cols)
    edges = [{"from": i, "to": i + 1, "label": f"e{i}"} for i in range(3, n, 3)]
    return {"board": {"slug": "bench", "title": "Bench board"}, "cards": cards, "edges": edges}


def _bytes(fn: Any) -> Any:
    """``fn`` whose answer is measured by its bytes (a Printed's PDF)."""
    return lambda: getattr(fn(), "pdf", None) or fn()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    reps = args.reps
    doc = big_doc()
    middle = _board(500, 20)
    large = _board(1000, 40)
    groups = [
        (
            timed("anchor", "doc 500 elements -> HTML", lambda: render_doc(doc), reps),
            [timed("pdf", "doc 500 elements -> PDF", _bytes(lambda: doc_pdf(doc)), reps)],
        ),
        (
            timed("anchor", "board 500 cards -> SVG", lambda: render_board(middle), reps),
            [
                timed(
                    "png",
                    "board 500 cards -> PNG",
                    lambda: render_board(middle, format="png"),
                    reps,
                ),
                timed("pdf", "board 500 -> PDF fit", _bytes(lambda: board_pdf(middle)), reps),
                timed(
                    "pdf",
                    "board 500 -> PDF tile",
                    _bytes(lambda: board_pdf(middle, pages="tile")),
                    reps,
                ),
            ],
        ),
        (
            timed("anchor", "board 1,000 cards -> SVG", lambda: render_board(large), reps),
            [timed("pdf", "board 1,000 -> PDF fit", _bytes(lambda: board_pdf(large)), reps)],
        ),
    ]
    print(
        f"engine only, {reps} reps after a first call with no face drawn; wall and cpu in ms; "
        "ratio = median wall / the anchor's median wall above it (same run)."
    )
    print(
        f"{'who':<8}{'scenario':<28}{'first wall':>11}{'wall med':>9}{'wall min':>9}"
        f"{'wall max':>9}{'cpu med':>8}{'bytes':>12}{'ratio':>7}"
    )
    for anchor, rows in groups:
        base = statistics.median(anchor[3])
        for label, name, (first, _), walls, cpus, size in [anchor, *rows]:
            med = statistics.median(walls)
            print(
                f"{label:<8}{name:<28}{first * 1000:>11.1f}{med * 1000:>9.1f}"
                f"{min(walls) * 1000:>9.1f}{max(walls) * 1000:>9.1f}"
                f"{statistics.median(cpus) * 1000:>8.1f}{size:>12,}{med / base:>7.2f}"
            )


if __name__ == "__main__":
    main()
