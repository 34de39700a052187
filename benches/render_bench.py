"""Render bench: documents to HTML, boards to SVG and PNG, engine only and as a caller waits.

Run: ``python benches/render_bench.py [--reps 5]``. Every scenario prints its
first call's wall and CPU time, then the median, best and worst wall time of
the repetitions and their median CPU time (``time.process_time`` of this
process): CPU below wall means waiting (I/O, the database server, or other
work on the machine taking the cores); CPU near wall means this process's own
work.

Two kinds of figure, labelled in the table:

- ``engine``: ``layoutkit.render`` called on dicts already in memory.
- ``caller``: ``Workspace.call("render_board", ...)`` on a board stored in
  SQLite (a file in a temporary directory) and in PostgreSQL when
  LAYOUTKIT_TEST_POSTGRES_URL is set (in a workspace of its own): the whole
  call a caller waits for, read of the board included.

The inputs are built from the test gallery's element and card kinds, cycled,
each card's text made distinct (its number), so every face and element
renderer is on the path and no cache keyed by content is flattered by
identical cards; code listings get distinct sources for the same reason. The
first call of each scenario is printed on its own ("first"): it runs with this
process's cache of drawn faces emptied, and fonts and lexers fill there on the
first scenario. The stored 5,000-card board is drawn as SVG three ways, each
prepared untimed before every call: "never drawn" (no face in memory or stored:
every face is drawn), "new process" (the faces an earlier drawing stored in
the database, none in memory: what a server process that never drew the board
does), "after an edit" (one note edited: the board drawn again by the same
process, as a viewer polling ``board_stamp`` redraws it). Faces a drawing
stores are written after the reply, in a background job; the bench waits for
it, untimed, before the next call. PNG sizes are of the decoded bytes.

"viewer opens" is what the board viewer waits for when it opens a stored
50,000-card board (``--viewer``): ``render_board`` of the window around a
1,600 x 1,000 screen, which reads and draws only the cards reaching into it.
"""

from __future__ import annotations

import argparse
import base64
import copy
import gc
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _timing import seed_board  # noqa: E402
from sqlalchemy import delete, select  # noqa: E402

from layoutkit import Workspace  # noqa: E402
from layoutkit.render import render_board, render_doc  # noqa: E402
from layoutkit.render._glance import FACES, GLANCES  # noqa: E402
from layoutkit.service.pictures.warm_pictures import WarmPictures  # noqa: E402
from layoutkit.storage._schema import card_faces, cards  # noqa: E402
from tests.render.gallery import EVERY_CARD, EVERY_ELEMENT  # noqa: E402

# Frames, and compare cards (they point at other cards by id), are left out of the grid.
_GRID_SKIP = ("section", "cluster", "compare")
_TEXT_KEYS = ("md", "title", "label", "text", "name", "description")


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


def _distinct(payload: dict[str, Any], i: int) -> dict[str, Any]:
    """A copy of ``payload`` whose first text field carries the card's number."""
    out = copy.deepcopy(payload)
    for key in _TEXT_KEYS:
        if isinstance(out.get(key), str) and out[key]:
            out[key] = f"{out[key]} #{i}"
            break
    return out


def grid_cards(n: int, cols: int = 50) -> list[dict[str, Any]]:
    """``n`` cards of every face kind in rows of ``cols``: id, kind, payload, x, y, w, h."""
    faces = [c for c in EVERY_CARD if c["kind"] not in _GRID_SKIP]
    cards = []
    for i in range(n):
        proto = faces[i % len(faces)]
        cards.append(
            {
                "id": i + 1,
                "kind": proto["kind"],
                "payload": _distinct(proto["payload"], i),
                "x": (i % cols) * 460.0,
                "y": (i // cols) * 360.0,
                "w": float(min(proto["w"], 420)),
                "h": float(min(proto["h"], 320)),
                "parent": None,
            }
        )
    return cards


def big_board(n: int = 1000, cols: int = 40) -> dict[str, Any]:
    cards = grid_cards(n, cols)
    edges = [{"from": i, "to": i + 1, "label": f"e{i}"} for i in range(3, n, 3)]
    return {"board": {"slug": "bench", "title": "Bench board"}, "cards": cards, "edges": edges}


def seed(ws: Workspace, slug: str, cards: list[dict[str, Any]]) -> float:
    """The cards stored on a new board by direct inserts; returns the seconds it took."""
    boxes = [(c["kind"], c["payload"], (c["x"], c["y"], c["w"], c["h"])) for c in cards]
    return seed_board(ws, slug, boxes)


Row = tuple[str, str, tuple[float, float], list[float], list[float], int]


def timed(
    label: str,
    name: str,
    fn: Callable[[], Any],
    reps: int,
    edit: Callable[[int], None] | None = None,
    after: Callable[[], None] | None = None,
) -> Row:
    """One call with the cache of faces empty, then ``reps`` timed calls: wall and CPU
    seconds of each. ``edit(rep)``, untimed, prepares each call (the first has rep -1);
    ``after()``, untimed, follows each (background work the call left)."""
    FACES.clear()
    if edit is not None:
        edit(-1)
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    first = (time.perf_counter() - start, time.process_time() - cpu)
    if after is not None:
        after()
    walls, cpus = [], []
    for rep in range(reps):
        if edit is not None:
            edit(rep)
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - w0)
        if after is not None:
            after()
    if isinstance(out, dict):
        out = out.get("svg") or base64.b64decode(out.get("png") or "")
    return label, name, first, walls, cpus, len(out)


def _edited(payload: dict[str, Any], rep: int) -> dict[str, Any]:
    return {**payload, "md": f"Edited between two pictures, round {rep}"}


def caller_rows(backend: str, url: str, count: int, reps: int) -> list[Row]:
    rows = []
    with Workspace.open(url, name=f"bench-{uuid.uuid4().hex[:10]}") as ws:
        # The cards are built inside the call so that none stays in memory while timed.
        took = seed(ws, "big", grid_cards(count))
        print(f"{backend}: seeded {count} cards in {took * 1000:.0f} ms", file=sys.stderr)
        with ws.store.read() as tx:
            board = tx.board_by_slug(ws.workspace_id, "big")
            assert board is not None
            note = next(c for c in tx.cards(board.id) if c.kind == "note")

        def edit(rep: int) -> None:
            if rep >= 0:
                with ws.store.transaction() as tx:
                    tx.update_cards([{"id": note.id, "payload": _edited(note.payload, rep)}])

        def forget(rep: int) -> None:
            # No process drew the board yet: no face in memory, none stored.
            FACES.clear()
            mine = select(cards.c.id).where(cards.c.board_id == board.id)
            with ws.store.transaction() as tx:
                tx.conn.execute(delete(card_faces).where(card_faces.c.card_id.in_(mine)))

        def new_process(rep: int) -> None:
            # A process that never drew the board, after another one did.
            FACES.clear()

        def svg() -> Any:
            return ws.call("render_board", {"board": "big", "format": "svg"})

        n = f"{count:,}"
        who = f"caller/{backend}"
        drain = ws.drawing.drain
        rows.append(timed(who, f"{n} -> SVG, never drawn", svg, reps, forget, drain))
        rows.append(timed(who, f"{n} -> SVG, new process", svg, reps, new_process, drain))
        rows.append(timed(who, f"{n} -> SVG, after an edit", svg, reps, edit, drain))
        png = {"board": "big", "format": "png"}

        def png_new_process(rep: int) -> None:
            # A process that never drew the board: no glance in memory, no warm read.
            GLANCES.clear()
            ws.extension(WarmPictures).clear()

        def draw_png() -> Any:
            return ws.call("render_board", png)

        rows.append(timed(who, f"{n} -> PNG, new process", draw_png, reps, png_new_process))
        rows.append(timed(who, f"{n} -> PNG, after an edit", draw_png, reps, edit))
    return rows


#: The window the board viewer asks for on a 1,600 x 1,000 screen: the view and half
#: a view around it, clipped at the board's top-left corner.
VIEWER_WINDOW = {"x": -24, "y": -24, "w": 2424, "h": 1524}


def viewer_rows(backend: str, url: str, count: int, reps: int) -> list[Row]:
    """What the viewer waits for when it opens a stored board of ``count`` cards."""
    with Workspace.open(url, name=f"bench-{uuid.uuid4().hex[:10]}") as ws:
        took = seed(ws, "huge", grid_cards(count))
        print(f"{backend}: seeded {count} cards in {took * 1000:.0f} ms", file=sys.stderr)
        region = {"board": "huge", "format": "svg", "region": VIEWER_WINDOW}
        return [
            timed(
                f"caller/{backend}",
                f"viewer opens {count:,}",
                lambda: ws.call("render_board", region),
                reps,
            )
        ]


def engine_rows(cards: int, reps: int) -> list[Row]:
    doc = big_doc()
    board = big_board()
    large = {
        "board": {"slug": "big", "title": "big"},
        "cards": grid_cards(cards),
        "edges": [],
    }
    n = f"{cards:,}"
    note = next(c for c in large["cards"] if c["kind"] == "note")

    def edit(rep: int) -> None:
        note["payload"] = _edited(note["payload"], rep)

    rows = [
        timed("engine", "doc 500 elements -> HTML", lambda: render_doc(doc), reps),
        timed("engine", "board 1,000 cards -> SVG", lambda: render_board(board), reps),
        timed(
            "engine",
            "board 1,000 cards -> PNG",
            lambda: render_board(board, format="png"),
            reps,
        ),
        timed("engine", f"board {n} cards -> SVG", lambda: render_board(large), reps, edit),
        timed(
            "engine",
            f"board {n} cards -> PNG",
            lambda: render_board(large, format="png"),
            reps,
            edit,
        ),
    ]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--cards", type=int, default=5000, help="cards of the stored board")
    parser.add_argument(
        "--viewer", type=int, default=50000, help="cards of the board the viewer opens"
    )
    args = parser.parse_args()
    rows = engine_rows(args.cards, args.reps)
    # A server holds no board in memory between calls: the engine's inputs are gone
    # (locals of engine_rows) before the caller runs, so its collections do not walk them.
    gc.collect()
    with tempfile.TemporaryDirectory() as tmp:
        rows += caller_rows("sqlite", f"sqlite:///{Path(tmp) / 'bench.db'}", args.cards, args.reps)
        rows += viewer_rows("sqlite", f"sqlite:///{Path(tmp) / 'bench.db'}", args.viewer, args.reps)
    pg = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
    if pg:
        rows += caller_rows("postgresql", pg, args.cards, args.reps)
        rows += viewer_rows("postgresql", pg, args.viewer, args.reps)
    else:
        print("postgresql: skipped (LAYOUTKIT_TEST_POSTGRES_URL is not set)", file=sys.stderr)
    print(
        "engine = layoutkit.render on dicts in memory (engine only); caller = "
        "Workspace.call('render_board') on a stored board (what a caller waits for).\n"
        f"first = this process has drawn no face; then {args.reps} reps. Stored boards: never drawn = "
        "no face in memory nor stored; new process = faces stored by an earlier drawing, none in "
        "memory; after an edit = one note edited before each call. wall = elapsed ms; cpu = this process's CPU ms (process_time)."
    )
    print(
        f"{'who':<18}{'scenario':<28}{'first wall':>11}{'first cpu':>10}"
        f"{'wall med':>9}{'wall min':>9}{'wall max':>9}{'cpu med':>8}{'output bytes':>14}"
    )
    for label, name, (first, first_cpu), walls, cpus, size in rows:
        print(
            f"{label:<18}{name:<28}{first * 1000:>11.1f}{first_cpu * 1000:>10.1f}"
            f"{statistics.median(walls) * 1000:>9.1f}{min(walls) * 1000:>9.1f}"
            f"{max(walls) * 1000:>9.1f}{statistics.median(cpus) * 1000:>8.1f}{size:>14,}"
        )


if __name__ == "__main__":
    main()
