"""Two processes writing to one board at once never lose a write.

Each writer does what a compose does: lock the board, read what is there,
place a card below the lowest one, bump a counter in the board's meta and
commit. Without the board lock both would read the same state and one
write would be lost or two cards would overlap.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from pathlib import Path

import pytest

from layoutkit.storage import NewCard
from tests.conftest import POSTGRES_URL
from tests.storage.conftest import Location

ROUNDS = 25
HEIGHT = 10.0


def _writer(location: Location, worker: int, start: mp.synchronize.Event, out: mp.Queue) -> None:
    try:
        store = location.open()
        start.wait(30)
        for i in range(ROUNDS):
            with store.transaction() as tx:
                board = tx.board_by_slug(tx.ensure_workspace().id, "shared")
                assert board is not None
                board = tx.lock_board(board.id)
                bottom = max((b.y + b.h for b in tx.card_boxes(board.id)), default=0.0)
                tx.insert_cards(
                    board.id,
                    [
                        NewCard(
                            "note",
                            {"worker": worker, "round": i},
                            0,
                            bottom,
                            100,
                            HEIGHT,
                            "ai",
                            f"agent:w{worker}",
                        )
                    ],
                )
                tx.update_board(board.id, meta={"writes": board.meta.get("writes", 0) + 1})
        store.close()
        out.put("ok")
    except BaseException as exc:
        out.put(repr(exc))


def test_two_processes_writing_one_board(durable_location: Location) -> None:
    store = durable_location.open()
    try:
        with store.transaction() as tx:
            board = tx.create_board(tx.ensure_workspace().id, "shared")
        ctx = mp.get_context("spawn")
        start, out = ctx.Event(), ctx.Queue()
        procs = [
            ctx.Process(target=_writer, args=(durable_location, w, start, out)) for w in range(2)
        ]
        for p in procs:
            p.start()
        start.set()
        results = [out.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
        assert results == ["ok", "ok"]
        with store.read() as tx:
            cards = tx.cards(board.id)
            meta = tx.board(board.id).meta  # type: ignore[union-attr]
        assert len(cards) == 2 * ROUNDS
        assert meta == {"writes": 2 * ROUNDS}
        assert sorted((c.payload["worker"], c.payload["round"]) for c in cards) == sorted(
            (w, i) for w in range(2) for i in range(ROUNDS)
        )
        # Stacked without gaps or overlaps: every card starts where the previous ended.
        assert sorted(c.y for c in cards) == [HEIGHT * k for k in range(2 * ROUNDS)]
        assert sorted(c.ordinal for c in cards) == list(range(1, 2 * ROUNDS + 1))
        # Both writers really interleaved (otherwise the test proves little).
        by_y = [c.payload["worker"] for c in sorted(cards, key=lambda c: c.y)]
        assert len(set(by_y[: ROUNDS + 1])) == 2
    finally:
        store.close()


def test_writers_on_one_sqlite_file_queue_on_the_lock_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stores on one file (as server processes are) take turns at writing; a writer
    that waits past the busy timeout gives up with BusyError, and the lock frees
    as soon as the holder's transaction ends."""
    from layoutkit.storage import BusyError, open_store
    from layoutkit.storage._sql import store as sql_store

    monkeypatch.setattr(sql_store, "SQLITE_BUSY_TIMEOUT_S", 0.3)
    url = f"sqlite:///{tmp_path / 'w.db'}"
    first, second = open_store(url), open_store(url)
    try:
        with first.transaction() as tx:
            tx.ensure_workspace("held")
            assert (tmp_path / "w.db.lock").exists()
            started = time.monotonic()
            with pytest.raises(BusyError), second.transaction() as blocked:
                # Not reached: opening the transaction waits for the lock and gives up.
                blocked.ensure_workspace("never")
            assert time.monotonic() - started >= 0.3
        with second.transaction() as tx:
            assert tx.workspace_by_name("held") is not None
            assert tx.workspace_by_name("never") is None
    finally:
        first.close()
        second.close()


def test_a_begin_the_database_holds_off_past_the_busy_timeout_is_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer outside the store's file lock (another program on the file) holds
    the database: the store's BEGIN IMMEDIATE, sent straight to the driver, gives
    up with BusyError, and the next transaction after it goes through."""
    import sqlite3

    from layoutkit.storage import BusyError, open_store
    from layoutkit.storage._sql import store as sql_store

    monkeypatch.setattr(sql_store, "SQLITE_BUSY_TIMEOUT_S", 0.2)
    store = open_store(f"sqlite:///{tmp_path / 'w.db'}")
    other = sqlite3.connect(tmp_path / "w.db", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(BusyError), store.transaction() as tx:
            tx.ensure_workspace("never")  # not reached: the BEGIN gives up
        other.execute("ROLLBACK")
        with store.transaction() as tx:
            assert tx.ensure_workspace("now").name == "now"
    finally:
        other.close()
        store.close()


@pytest.mark.skipif(not POSTGRES_URL, reason="LAYOUTKIT_TEST_POSTGRES_URL is not set")
def test_a_pooled_postgres_connection_the_server_dropped_is_replaced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Connections idle past the threshold are pinged at checkout; one the server
    ended (a restart, a proxy's idle cut) is replaced before a statement fails."""
    import psycopg

    from layoutkit.storage import open_store
    from layoutkit.storage._sql import store as sql_store

    assert POSTGRES_URL is not None
    monkeypatch.setattr(sql_store, "PING_AFTER_IDLE_S", 0.0)
    store = open_store(POSTGRES_URL, pool_size=1)
    try:
        with store.read() as tx:
            pid = tx.conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with store.read() as tx:
            assert tx.conn.exec_driver_sql("SELECT pg_backend_pid()").scalar() != pid
    finally:
        store.close()
