"""compose_board bench: 10 cards onto a 5,000-card board, including the commit.

Run: ``python benches/compose_bench.py [--rounds N]``. SQLite always runs (a
file in a temporary directory); PostgreSQL runs when
LAYOUTKIT_TEST_POSTGRES_URL is set (in a workspace of its own, so runs never
meet). The 5,000-card board is seeded with direct storage inserts in a grid;
each timed round is one full ``Workspace.call("compose_board", ...)``: params
check, contract check, load of the board, placement, writes and commit.

Per backend it prints the seed time and the median and p95 over the rounds
of three batch shapes: free shelf placement, a managed section that grows,
and an anchor beside an existing card.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from layoutkit import Principal, Workspace
from layoutkit.storage import NewCard

BOARD_CARDS = 5000
BATCH = 10
AGENT = Principal.agent("bench")


def _seed(ws: Workspace, slug: str) -> float:
    start = time.perf_counter()
    ws.call("create", {"kind": "board", "slug": slug})
    with ws.store.transaction() as tx:
        board = tx.board_by_slug(ws.workspace_id, slug)
        assert board is not None
        tx.insert_cards(
            board.id,
            [
                NewCard(
                    "note",
                    {"md": f"Seeded note {i}: a short line of text."},
                    (i % 50) * 240.0,
                    (i // 50) * 140.0,
                    216.0,
                    116.0,
                    "ai",
                    AGENT.label,
                    sized_by="content",
                )
                for i in range(BOARD_CARDS)
            ],
        )
    return time.perf_counter() - start


def _cards(round_no: int) -> list[dict[str, Any]]:
    return [
        {"kind": "text", "payload": {"md": f"Round {round_no} card {j}: " + "words " * (j % 5)}}
        for j in range(BATCH)
    ]


def _time(rounds: int, make: Callable[[int], dict[str, Any]], ws: Workspace) -> list[float]:
    ws.call("compose_board", make(-1), AGENT)  # warm-up: imports, caches, first section
    out = []
    for r in range(rounds):
        params = make(r)
        start = time.perf_counter()
        ws.call("compose_board", params, AGENT)
        out.append(time.perf_counter() - start)
    return out


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def run(name: str, url: str, rounds: int) -> list[tuple[str, str, float, float, int]]:
    rows = []
    with Workspace.open(url, name=f"bench-{uuid.uuid4().hex[:10]}") as ws:
        seed = _seed(ws, "big")
        print(f"{name}: seeded {BOARD_CARDS} cards in {seed * 1000:.0f} ms")
        anchor = ws.call("scrape_board", {"board": "big"})["cards"][BOARD_CARDS // 2]["id"]
        shapes: dict[str, Callable[[int], dict[str, Any]]] = {
            "free": lambda r: {"board": "big", "cards": _cards(r)},
            "section": lambda r: {"board": "big", "section": "Grows", "cards": _cards(r)},
            "anchor beside": lambda r: {"board": "big", "cards": _cards(r), "anchorCardId": anchor},
        }
        for shape, make in shapes.items():
            times = _time(rounds, make, ws)
            with ws.store.read() as tx:
                board = tx.board_by_slug(ws.workspace_id, "big")
                assert board is not None
                total = tx.count_cards(board.id)
            rows.append((name, shape, statistics.median(times) * 1000, _p95(times) * 1000, total))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows += run("sqlite", f"sqlite:///{Path(tmp) / 'bench.db'}", args.rounds)
    pg = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
    if pg:
        rows += run("postgresql", pg, args.rounds)
    else:
        print("postgresql: skipped (LAYOUTKIT_TEST_POSTGRES_URL is not set)")
    print()
    print(f"compose_board, {BATCH} cards onto a {BOARD_CARDS}-card board, {args.rounds} rounds")
    print(f"{'backend':<12}{'batch':<16}{'median ms':>12}{'p95 ms':>10}{'cards after':>13}")
    for backend, shape, median, p95, total in rows:
        print(f"{backend:<12}{shape:<16}{median:>12.1f}{p95:>10.1f}{total:>13}")


if __name__ == "__main__":
    main()
