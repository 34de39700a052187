"""All-or-nothing transactions, read snapshots and their guard rails."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from layoutkit.storage import (
    FileBlobStore,
    NewCard,
    NewEdge,
    NewQuestion,
    NotFoundError,
    SqlStore,
    StorageError,
)
from layoutkit.storage import _schema as s
from layoutkit.storage._sql._base import DriverSql
from tests.storage.conftest import Location


class Fault(Exception):
    """Raised inside a transaction to prove it rolls back."""


def card(i: int) -> NewCard:
    return NewCard("note", {"text": str(i)}, 0, 40 * i, 200, 30, "ai", "agent:claude")


def test_fault_between_writes_leaves_nothing(store: SqlStore) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        keep = tx.create_board(ws.id, "keep")
        (anchor,) = tx.insert_cards(keep.id, [card(0)])
    with pytest.raises(Fault), store.transaction() as tx:
        board = tx.create_board(ws.id, "doomed", tags=["x"])
        cards = tx.insert_cards(board.id, [card(i) for i in range(5)])
        tx.insert_cards(keep.id, [card(1)])
        tx.update_cards([{"id": anchor.id, "x": 999}])
        tx.update_board(keep.id, meta={"composed": True})
        tx.insert_edges(board.id, [NewEdge(cards[0].id, cards[1].id)])
        tx.insert_questions(board.id, [NewQuestion("Which?")])
        tx.save_request_key("agent:claude", "k", operation="op", input_hash="h", receipt={})
        tx.record_event("compose", "agent:claude", board_id=board.id)
        tx.create_share_link(board.id)
        raise Fault("injected between writes")
    with store.read() as tx:
        assert tx.board_by_slug(ws.id, "doomed") is None
        assert tx.board_slugs(ws.id) == ["keep"]
        assert tx.cards(keep.id) == [anchor]
        assert tx.board(keep.id).meta == {}  # type: ignore[union-attr]
        assert tx.request_key("agent:claude", "k") is None
        assert tx.events() == []
        assert tx.tags(ws.id) == []


def test_commit_makes_writes_visible_to_other_connections(durable_location: Location) -> None:
    writer = durable_location.open()
    reader = durable_location.open()
    try:
        with writer.transaction() as tx:
            board = tx.create_board(tx.ensure_workspace().id, "b")
        with writer.transaction() as tx:
            tx.insert_cards(board.id, [card(1)])
            with reader.read() as other:
                assert other.count_cards(board.id) == 0
        with reader.read() as other:
            assert other.count_cards(board.id) == 1
    finally:
        writer.close()
        reader.close()


def test_a_read_reads_one_snapshot_through_the_driver_and_sqlalchemy(
    durable_location: Location,
) -> None:
    # A SQLite read begins on the driver and makes its SQLAlchemy connection only when
    # a read asks for it: that connection is in the snapshot the driver's reads began.
    writer = durable_location.open()
    reader = durable_location.open()
    try:
        with writer.transaction() as tx:
            board = tx.create_board(tx.ensure_workspace().id, "b")
        count = DriverSql.named("SELECT count(*) FROM cards WHERE board_id = :b")
        for _ in range(3 * 5):  # past the pool's size: every connection goes back
            with reader.read() as other:
                assert other.driver_rows(count, {"b": board.id}) == [(0,)]
                with writer.transaction() as tx:
                    tx.insert_cards(board.id, [card(1)])
                assert other.count_cards(board.id) == 0
                assert other.driver_rows(count, {"b": board.id}) == [(0,)]
            with writer.transaction() as tx:
                tx.conn.execute(s.cards.delete())
            with pytest.raises(Fault), reader.read() as other:
                assert other.driver_rows(count, {"b": board.id}) == [(0,)]
                raise Fault
        with reader.read() as other:
            assert other.count_cards(board.id) == 0
    finally:
        writer.close()
        reader.close()


def test_read_snapshot_refuses_writes(store: SqlStore) -> None:
    with store.transaction() as tx:
        board = tx.create_board(tx.ensure_workspace().id, "b")
    with store.read() as tx:
        assert tx.writable is False
        with pytest.raises(StorageError, match="read-only"):
            tx.insert_cards(board.id, [card(0)])
        with pytest.raises(StorageError):
            tx.lock_board(board.id)
        with pytest.raises(StorageError):
            tx.ensure_workspace("new")
        if not isinstance(store.blobs, FileBlobStore):
            with pytest.raises(StorageError):
                tx.blobs.put(b"x")


def test_transactions_do_not_nest(store: SqlStore) -> None:
    with store.transaction() as tx:
        board = tx.create_board(tx.ensure_workspace().id, "b")
        with pytest.raises(StorageError, match="already open"):
            store.read().__enter__()
        tx.insert_cards(board.id, [card(0)])
    with store.read() as tx:
        assert tx.count_cards(board.id) == 1


def test_lock_board_returns_the_fresh_board(store: SqlStore) -> None:
    with store.transaction() as tx:
        board = tx.create_board(tx.ensure_workspace().id, "b", meta={"n": 1})
        tx.update_board(board.id, meta={"n": 2})
        assert tx.lock_board(board.id).meta == {"n": 2}
        with pytest.raises(NotFoundError):
            tx.lock_board(board.id + 1000)


def test_threads_share_one_store(store: SqlStore) -> None:
    with store.transaction() as tx:
        board = tx.create_board(tx.ensure_workspace().id, "b")
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        try:
            for i in range(10):
                with store.transaction() as tx:
                    locked = tx.lock_board(board.id)
                    tx.update_board(board.id, meta={"n": locked.meta.get("n", 0) + 1})
                    tx.insert_cards(board.id, [card(worker * 100 + i)])
        except BaseException as exc:  # reported below, so a thread failure fails the test
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    with store.read() as tx:
        assert tx.count_cards(board.id) == 30
        assert tx.board(board.id).meta == {"n": 30}  # type: ignore[union-attr]
        assert sorted(c.ordinal for c in tx.cards(board.id)) == list(range(1, 31))


def test_a_closed_store_refuses_transactions_and_waits_for_the_one_under_way() -> None:
    from layoutkit.storage import open_store

    store = open_store("sqlite://")
    inside, release = threading.Event(), threading.Event()
    seen: list[int] = []

    def reading() -> None:
        with store.read() as tx:
            inside.set()
            assert release.wait(30)
            # The in-memory database's one connection is still open under this read.
            seen.append(len(tx.workspaces()))

    reader = threading.Thread(target=reading)
    reader.start()
    assert inside.wait(30)
    closer = threading.Thread(target=store.close)
    closer.start()
    closer.join(0.2)
    assert closer.is_alive()  # it waits for the read under way
    release.set()
    reader.join(30)
    closer.join(30)
    assert seen == [0] and not closer.is_alive()
    # A request thread that comes late hears an error, never a closed connection.
    with pytest.raises(StorageError, match="closed"), store.read() as tx:
        tx.workspaces()


def test_a_sqlite_file_connection_keeps_the_page_cache_search_reads_from(tmp_path: Path) -> None:
    # The search index's pages stay in the connection between reads (and writes).
    from layoutkit.storage import open_store
    from layoutkit.storage._sql.store import SQLITE_PAGE_CACHE_KIB

    store = open_store(f"sqlite:///{tmp_path / 'cache.db'}")
    try:
        with store.read() as tx:
            assert tx.conn.exec_driver_sql("PRAGMA cache_size").scalar() == -SQLITE_PAGE_CACHE_KIB
        with store.transaction() as tx:
            assert tx.conn.exec_driver_sql("PRAGMA cache_size").scalar() == -SQLITE_PAGE_CACHE_KIB
    finally:
        store.close()


def test_a_sqlite_connection_that_wrote_many_search_documents_is_not_pooled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # FTS5 keeps what a bulk write grew for the connection's life and pays for it on
    # every later read: such a connection is closed, a small write's is kept.
    from layoutkit.storage import open_store
    from layoutkit.storage._sql import store as store_module

    monkeypatch.setattr(store_module, "SQLITE_FRESH_CONNECTION_DOCS", 3)
    store = open_store(f"sqlite:///{tmp_path / 'fresh.db'}")
    try:

        def driver() -> object:
            with store.read() as tx:
                return tx.conn.connection.driver_connection

        with store.transaction() as tx:
            ws = tx.ensure_workspace("w").id
            tx.insert_task(ws, title="pear", created_by="ana", asked_by="user")
        kept = driver()
        with store.transaction() as tx:
            assert tx.conn.connection.driver_connection is kept
            for title in ("plum", "fig", "kiwi"):
                tx.insert_task(ws, title=title, created_by="ana", asked_by="user")
        assert driver() is not kept
        with store.read() as tx:
            assert tx.search_index(ws, [[("p", True)]], groups=["tasks"], per_group=5)
    finally:
        store.close()
