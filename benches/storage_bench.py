"""Storage bench: 10 cards onto a 5,000-card board, including the commit.

Run: ``python benches/storage_bench.py [--rounds N]``. SQLite always runs
(a file in a temporary directory); PostgreSQL runs when
LAYOUTKIT_TEST_POSTGRES_URL is set (in a scratch schema dropped afterwards).

Per backend it prints the time to insert the 5,000-card board, then the
median and p95 of one transaction that locks the board, reads its cards
(full records, or payload-free boxes) and inserts 10 cards.
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

from sqlalchemy import create_engine, text

from layoutkit.storage import NewCard, SqlStore, SqlTx, open_store

BOARD_CARDS = 5000
BATCH = 10


def _card(i: int) -> NewCard:
    return NewCard(
        "note",
        {"title": f"Card {i}", "text": "A short paragraph of note text. " * 3, "tone": "info"},
        (i % 50) * 220.0,
        (i // 50) * 120.0,
        200.0,
        100.0,
        "ai",
        "agent:bench",
    )


def _read_full(tx: SqlTx, board_id: int) -> int:
    return len(tx.cards(board_id))


def _read_boxes(tx: SqlTx, board_id: int) -> int:
    return len(tx.card_boxes(board_id))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench(store: SqlStore, rounds: int) -> list[tuple[str, float, float, float]]:
    """Rows of (scenario, first-or-median ms, p95 ms, rounds)."""
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        board = tx.create_board(ws.id, f"bench-{uuid.uuid4().hex[:6]}")
    started = time.perf_counter()
    with store.transaction() as tx:
        tx.insert_cards(board.id, [_card(i) for i in range(BOARD_CARDS)])
    rows = [("insert 5,000-card board", (time.perf_counter() - started) * 1000, float("nan"), 1)]
    reads: list[tuple[str, Callable[[SqlTx, int], int]]] = [
        ("lock + read cards + insert 10 + commit", _read_full),
        ("lock + read boxes + insert 10 + commit", _read_boxes),
    ]
    for label, read in reads:
        timings = []
        for r in range(rounds):
            started = time.perf_counter()
            with store.transaction() as tx:
                tx.lock_board(board.id)
                assert read(tx, board.id) >= BOARD_CARDS
                tx.insert_cards(
                    board.id, [_card(BOARD_CARDS + r * BATCH + k) for k in range(BATCH)]
                )
            timings.append((time.perf_counter() - started) * 1000)
        rows.append((label, statistics.median(timings), _percentile(timings, 0.95), rounds))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    results: list[tuple[str, str, float, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'bench.db'}")
        try:
            results += [("sqlite-file", *row) for row in bench(store, args.rounds)]
        finally:
            store.close()
    pg_url = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
    if pg_url:
        schema = f"lk_bench_{uuid.uuid4().hex[:10]}"
        store = open_store(pg_url, schema=schema)
        try:
            results += [("postgresql", *row) for row in bench(store, args.rounds)]
        finally:
            store.close()
            engine = create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://", 1))
            with engine.begin() as conn:
                conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            engine.dispose()
    else:
        print("(PostgreSQL skipped: set LAYOUTKIT_TEST_POSTGRES_URL to include it)")
    print(f"{'backend':<12} {'scenario':<42} {'median ms':>10} {'p95 ms':>8} {'rounds':>7}")
    for backend, label, median, p95, rounds in results:
        p95_text = "-" if p95 != p95 else f"{p95:8.1f}"
        print(f"{backend:<12} {label:<42} {median:>10.1f} {p95_text:>8} {int(rounds):>7}")


if __name__ == "__main__":
    main()
