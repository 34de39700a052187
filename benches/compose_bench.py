"""compose_board bench: 10 cards onto stored boards of 1k to 50k cards, as a caller waits.

Run: ``python benches/compose_bench.py [--calls 50] [--sizes 1000,5000,20000,50000]
[--profile]``. SQLite always runs (a file in a temporary directory); PostgreSQL
runs when LAYOUTKIT_TEST_POSTGRES_URL is set (in a workspace of its own, so
runs never meet).

Every figure is what a caller of ``Workspace.call("compose_board", ...)``
waits for: params check, contract check, board lock, the board's model,
placement, writes and commit. Each board is seeded with direct storage
inserts in a grid; the first compose on it builds the board's model from
every stored card ("first call", cold), the timed calls after it find the
model warm and read back only the rows changed since. Three batch shapes:
free shelf placement, a managed section that grows, and an anchor beside an
existing card. Wall time and the process's CPU time are printed side by
side (median and p95 over the calls); the last column is the 50k-card median
over the 1k-card median of the same shape. ``--profile`` prints where the
time of the free shape goes on the largest board.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _timing import seed_board

from layoutkit import Principal, Workspace

BATCH = 10
AGENT = Principal.agent("bench")


def _seed(ws: Workspace, slug: str, size: int) -> float:
    notes = [
        (
            "note",
            {"md": f"Seeded note {i}: a short line of text."},
            ((i % 100) * 240.0, (i // 100) * 140.0, 216.0, 116.0),
        )
        for i in range(size)
    ]
    return seed_board(ws, slug, notes)


def _cards(call_no: int) -> list[dict[str, Any]]:
    return [
        {"kind": "text", "payload": {"md": f"Call {call_no} card {j}: " + "words " * (j % 5)}}
        for j in range(BATCH)
    ]


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _time(
    ws: Workspace, make: Callable[[int], dict[str, Any]], calls: int
) -> tuple[float, list[float], list[float]]:
    """The first call's wall time, then wall and CPU seconds of each timed call."""
    start = time.perf_counter()
    ws.call("compose_board", make(-1), AGENT)
    first = time.perf_counter() - start
    walls, cpus = [], []
    for n in range(calls):
        params = make(n)
        wall, cpu = time.perf_counter(), time.process_time()
        ws.call("compose_board", params, AGENT)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return first, walls, cpus


def _profile(ws: Workspace, make: Callable[[int], dict[str, Any]], calls: int) -> None:
    """Where the time of ``calls`` more composes goes (an extra pass: the profiler's
    own overhead stays out of the timed figures)."""
    prof = cProfile.Profile()
    for n in range(calls):
        params = make(calls + n)
        prof.enable()
        ws.call("compose_board", params, AGENT)
        prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


def run(
    backend: str, url: str, sizes: list[int], calls: int, profile: bool
) -> list[dict[str, Any]]:
    rows = []
    with Workspace.open(url, name=f"bench-{uuid.uuid4().hex[:10]}") as ws:
        for size in sizes:
            slug = f"board-{size}"
            seed = _seed(ws, slug, size)
            print(f"{backend}: seeded {size} cards in {seed * 1000:.0f} ms", flush=True)
            with ws.store.read() as tx:
                board = tx.board_by_slug(ws.workspace_id, slug)
                assert board is not None
                anchor = tx.card_boxes(board.id)[size // 2].id
            shapes: dict[str, Callable[[int], dict[str, Any]]] = {
                "free": lambda n, s=slug: {"board": s, "cards": _cards(n)},
                "section": lambda n, s=slug: {"board": s, "section": "Grows", "cards": _cards(n)},
                "anchor beside": lambda n, s=slug, a=anchor: {
                    "board": s,
                    "cards": _cards(n),
                    "anchorCardId": a,
                },
            }
            for shape, make in shapes.items():
                first, walls, cpus = _time(ws, make, calls)
                rows.append(
                    {
                        "backend": backend,
                        "size": size,
                        "shape": shape,
                        "first": first * 1000,
                        "median": statistics.median(walls) * 1000,
                        "p95": _p95(walls) * 1000,
                        "cpu median": statistics.median(cpus) * 1000,
                        "cpu p95": _p95(cpus) * 1000,
                    }
                )
                if profile and shape == "free" and size == sizes[-1]:
                    print(f"\n{backend}: profile of {calls} free composes on {size} cards")
                    _profile(ws, make, calls)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--sizes", default="1000,5000,20000,50000")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows += run(
            "sqlite", f"sqlite:///{Path(tmp) / 'bench.db'}", sizes, args.calls, args.profile
        )
    pg = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
    if pg:
        rows += run("postgresql", pg, sizes, args.calls, args.profile)
    else:
        print("postgresql: skipped (LAYOUTKIT_TEST_POSTGRES_URL is not set)")
    print()
    print(
        f"compose_board, {BATCH} cards a call, {args.calls} calls per row; "
        "caller waits (Workspace.call), milliseconds"
    )
    head = (
        f"{'backend':<12}{'cards':>7}  {'batch':<15}{'first call':>11}"
        f"{'wall med':>10}{'wall p95':>10}{'cpu med':>9}{'cpu p95':>9}{'vs 1k':>7}"
    )
    print(head)
    smallest = {(r["backend"], r["shape"]): r["median"] for r in rows if r["size"] == sizes[0]}
    for r in rows:
        ratio = r["median"] / smallest[(r["backend"], r["shape"])]
        print(
            f"{r['backend']:<12}{r['size']:>7}  {r['shape']:<15}{r['first']:>11.1f}"
            f"{r['median']:>10.1f}{r['p95']:>10.1f}{r['cpu median']:>9.1f}{r['cpu p95']:>9.1f}"
            f"{ratio:>6.2f}x"
        )


if __name__ == "__main__":
    main()
