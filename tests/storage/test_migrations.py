"""Versioned migrations: ordered, recorded, idempotent, safe to race."""

from __future__ import annotations

import multiprocessing as mp
from datetime import UTC, datetime

import pytest
from sqlalchemy import Connection, inspect, select, text

from layoutkit.storage import SqlStore, _migrations
from layoutkit.storage import _schema as s
from tests.storage.conftest import Location

NOW = datetime(2025, 1, 1, tzinfo=UTC)


def test_open_applies_every_migration_once(location: Location) -> None:
    first = location.open()
    try:
        assert first.schema_version() == _migrations.MIGRATIONS[-1][0]
        with first.read() as tx:
            names = set(inspect(tx.conn).get_table_names())
            rows = tx.conn.execute(select(s.schema_version.c.version)).scalars().all()
        assert set(s.metadata.tables) <= names
        assert rows == [v for v, _, _ in _migrations.MIGRATIONS]
    finally:
        if location.backend != "memory":
            first.close()
    if location.backend == "memory":
        first.close()
        return
    again = location.open()
    try:
        with again.transaction() as tx:
            assert _migrations.apply(tx.conn, NOW) == []
            rows = tx.conn.execute(select(s.schema_version.c.version)).scalars().all()
        assert rows == [v for v, _, _ in _migrations.MIGRATIONS]
    finally:
        again.close()


def _add_notes_table(conn: Connection) -> None:
    if "extra_notes" not in inspect(conn).get_table_names():
        conn.execute(text("CREATE TABLE extra_notes (id INTEGER PRIMARY KEY, body TEXT)"))


def _add_notes_column(conn: Connection) -> None:
    columns = {c["name"] for c in inspect(conn).get_columns("extra_notes")}
    if "tone" not in columns:
        conn.execute(text("ALTER TABLE extra_notes ADD COLUMN tone TEXT"))


def test_later_migrations_run_in_version_order(store: SqlStore) -> None:
    later = [
        *_migrations.MIGRATIONS,
        (3, "tone", _add_notes_column),
        (2, "notes", _add_notes_table),
    ]
    with store.transaction() as tx:
        assert _migrations.apply(tx.conn, NOW, later) == [2, 3]
        assert _migrations.apply(tx.conn, NOW, later) == []
        columns = {c["name"] for c in inspect(tx.conn).get_columns("extra_notes")}
    assert columns == {"id", "body", "tone"}
    assert store.schema_version() == 3


def test_duplicate_versions_are_refused(store: SqlStore) -> None:
    twice = [*_migrations.MIGRATIONS, (2, "a", _add_notes_table), (2, "b", _add_notes_table)]
    with pytest.raises(ValueError, match="duplicate"), store.transaction() as tx:
        _migrations.apply(tx.conn, NOW, twice)


def test_reopening_keeps_data(durable_location: Location) -> None:
    store = durable_location.open()
    with store.transaction() as tx:
        tx.create_board(tx.ensure_workspace().id, "kept")
    store.close()
    store = durable_location.open()
    try:
        with store.read() as tx:
            assert tx.board_slugs(tx.ensure_workspace().id) == ["kept"]
    finally:
        store.close()


def _open_and_report(location: Location, start: mp.synchronize.Event, out: mp.Queue) -> None:
    start.wait(30)
    try:
        store = location.open()
        out.put(store.schema_version())
        store.close()
    except BaseException as exc:
        out.put(repr(exc))


def test_two_processes_opening_at_once(durable_location: Location) -> None:
    ctx = mp.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=_open_and_report, args=(durable_location, start, out)) for _ in range(2)
    ]
    for p in procs:
        p.start()
    start.set()
    results = [out.get(timeout=90) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        if p.is_alive():
            p.kill()
    latest = _migrations.MIGRATIONS[-1][0]
    assert results == [latest, latest]
    store = durable_location.open()
    try:
        with store.read() as tx:
            rows = tx.conn.execute(select(s.schema_version.c.version)).scalars().all()
        assert rows == [v for v, _, _ in _migrations.MIGRATIONS]
    finally:
        store.close()
