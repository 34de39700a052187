"""Storage bench: 10 cards onto a 5,000-card board, including the commit.

Run: ``python benches/storage_bench.py [--rounds N]``. SQLite always runs
(a file in a temporary directory); PostgreSQL runs when
LAYOUTKIT_TEST_POSTGRES_URL is set (in a scratch schema dropped afterwards).

Per backend it prints the time to insert the 5,000-card board, then the
median and p95 of one transaction that locks the board, reads its cards
(full records, or payload-free boxes) and inserts 10 cards: the storage
alone. Then what a caller waits for with the same write, 10 cards onto a
5,000-card board through ``Workspace.call("compose_board")`` (the
transaction plus params check, board load, placement). Wall and CPU time
side by side; CPU is this process only (a PostgreSQL server's work shows
in wall time).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

from _timing import CALLER, ENGINE, TIMING_HEADER, Timing, measure, seed_board, table, workspaces
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


def bench(store: SqlStore, rounds: int) -> list[tuple[str, Timing, int]]:
    """Rows of (scenario, timing, rounds)."""
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        board = tx.create_board(ws.id, f"bench-{uuid.uuid4().hex[:6]}")

    def insert_board(_: int) -> None:
        with store.transaction() as tx:
            tx.insert_cards(board.id, [_card(i) for i in range(BOARD_CARDS)])

    rows = [("insert 5,000-card board", measure(insert_board, 1, warmup=0), 1)]
    reads: list[tuple[str, Callable[[SqlTx, int], int]]] = [
        ("lock + read cards + insert 10 + commit", _read_full),
        ("lock + read boxes + insert 10 + commit", _read_boxes),
    ]
    for label, read in reads:

        def write(r: int, read: Callable[[SqlTx, int], int] = read) -> None:
            with store.transaction() as tx:
                tx.lock_board(board.id)
                assert read(tx, board.id) >= BOARD_CARDS
                tx.insert_cards(
                    board.id, [_card(BOARD_CARDS + r * BATCH + k) for k in range(BATCH)]
                )

        rows.append((label, measure(write, rounds, warmup=0), rounds))
    return rows


def caller(rounds: int) -> list[list[str]]:
    """10 cards onto a 5,000-card board as a caller sends them: one compose_board call."""
    board = [("note", c.payload, (c.x, c.y, c.w, c.h)) for c in map(_card, range(BOARD_CARDS))]
    rows = []
    for backend, ws in workspaces():
        seed_board(ws, "big", board)

        def compose(r: int, ws=ws) -> None:
            cards = [
                {"kind": "note", "payload": {"md": f"Round {r} note {k}"}} for k in range(BATCH)
            ]
            ws.call("compose_board", {"board": "big", "cards": cards})

        timing = measure(compose, rounds)
        rows.append(
            [backend, "compose_board: 10 notes onto the board", *timing.cells(), str(rounds)]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    results: list[tuple[str, str, Timing, int]] = []
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
    table(
        f"{ENGINE}: the storage alone (SqlStore transactions, no operation around them)",
        ["backend", "scenario", *TIMING_HEADER, "rounds"],
        [
            [backend, label, *timing.cells(), str(rounds)]
            for backend, label, timing, rounds in results
        ],
    )
    table(
        f"The same write through Workspace.call on a seeded 5,000-card board ({CALLER}; "
        "CPU is this process only)",
        ["backend", "work", *TIMING_HEADER, "rounds"],
        caller(args.rounds),
    )


if __name__ == "__main__":
    main()
