"""Alembic migrations: run on open, once, in order, safe to race, and they build `_schema`."""

from __future__ import annotations

import multiprocessing as mp
import shutil
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Engine, create_engine, inspect, text

from layoutkit.storage import (
    ConflictError,
    SqlStore,
    StorageError,
    TaskTitleQuery,
    _migrations,
    open_store,
)
from layoutkit.storage import _schema as s
from tests.storage.conftest import PG_SKIP, PG_URL, Location, drop_schema, schema_drift

HEAD = _migrations.head()


def _versions(store: SqlStore) -> list[str]:
    with store.read() as tx:
        return list(tx.conn.execute(text("SELECT version_num FROM alembic_version")).scalars())


def test_open_applies_every_migration_once(location: Location) -> None:
    first = location.open()
    try:
        assert first.schema_version() == HEAD
        with first.read() as tx:
            names = set(inspect(tx.conn).get_table_names())
        assert set(s.metadata.tables) <= names
        assert _versions(first) == [HEAD]
    finally:
        if location.backend != "memory":
            first.close()
    if location.backend == "memory":
        first.close()
        return
    again = location.open()
    try:
        with again.transaction() as tx:
            assert _migrations.upgrade(tx.conn) == []
        assert _versions(again) == [HEAD]
    finally:
        again.close()


def test_the_migrations_build_exactly_the_declared_schema(store: SqlStore) -> None:
    # _schema is what the queries are written against; the revisions are what
    # databases get. Any drift between the two shows up here.
    with store.read() as tx:
        assert schema_drift(tx.conn) == []


def test_shipped_files_name_their_revisions_and_the_highest_is_the_head() -> None:
    # Opening a database at the head skips Alembic on the strength of the file
    # names alone: each must carry its revision, and its parent the one before.
    revisions = {r.revision: r for r in _migrations.scripts().walk_revisions()}
    files = sorted(p for p in (_migrations.SCRIPTS / "versions").glob("*.py"))
    assert [p.name[:4] for p in files] == sorted(revisions)
    for path in files:
        rev = revisions[path.name[:4]]
        assert rev.module.__file__ is not None and Path(rev.module.__file__).name == path.name
        if rev.revision != _migrations.BASELINE:
            assert rev.down_revision == f"{int(rev.revision) - 1:04d}"
    assert _migrations.shipped_head() == HEAD


def test_a_database_at_the_head_opens_without_alembic(tmp_path: Path) -> None:
    import subprocess
    import sys

    url = f"sqlite:///{tmp_path / 'at-head.db'}"
    open_store(url).close()
    probe = (
        "import sys; from layoutkit.storage import open_store; "
        f"open_store({url!r}).close(); "
        "print('alembic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_revisions_form_one_line_from_the_baseline() -> None:
    chain = [r.revision for r in _migrations.scripts().walk_revisions()][::-1]
    assert chain[0] == _migrations.BASELINE
    assert chain[-1] == HEAD
    assert _migrations.scripts().get_heads() == [HEAD]


LATER = {
    "0901_notes.py": """
import sqlalchemy as sa
from alembic import op

revision = "0901"
down_revision = "{head}"


def upgrade() -> None:
    op.create_table("extra_notes", sa.Column("id", sa.Integer, primary_key=True), sa.Column("body", sa.Text))
""",
    "0902_tone.py": """
import sqlalchemy as sa
from alembic import op

revision = "0902"
down_revision = "0901"


def upgrade() -> None:
    with op.batch_alter_table("extra_notes") as batch:
        batch.add_column(sa.Column("tone", sa.Text))
        batch.alter_column("body", existing_type=sa.Text, nullable=False)
""",
}


def _later_scripts(tmp_path: Path, files: dict[str, str]) -> Path:
    location = tmp_path / "migrations"
    shutil.copytree(_migrations.SCRIPTS, location, ignore=shutil.ignore_patterns("__pycache__"))
    for name, body in files.items():
        (location / "versions" / name).write_text(body.replace("{head}", HEAD))
    return location


def test_later_revisions_run_in_order_once(store: SqlStore, tmp_path: Path) -> None:
    location = _later_scripts(tmp_path, LATER)
    with store.transaction() as tx:
        assert _migrations.upgrade(tx.conn, location) == ["0901", "0902"]
        assert _migrations.upgrade(tx.conn, location) == []
        columns = {c["name"]: c for c in inspect(tx.conn).get_columns("extra_notes")}
    assert set(columns) == {"id", "body", "tone"}
    # The NOT NULL change needs a table rebuild on SQLite: batch mode did it.
    assert columns["body"]["nullable"] is False
    assert store.schema_version() == "0902"


def test_two_revisions_with_one_parent_are_refused(store: SqlStore, tmp_path: Path) -> None:
    fork = LATER["0901_notes.py"].replace('"0901"', '"0911"')
    location = _later_scripts(tmp_path, {"0901_notes.py": LATER["0901_notes.py"], "0911.py": fork})
    with pytest.raises(StorageError, match="head"), store.transaction() as tx:
        _migrations.upgrade(tx.conn, location)


def test_a_database_newer_than_the_code_is_refused(
    store: SqlStore, tmp_path: Path, location: Location
) -> None:
    with store.transaction() as tx:
        _migrations.upgrade(tx.conn, _later_scripts(tmp_path, LATER))
    if location.backend == "memory":
        with pytest.raises(StorageError, match="0902"), store.transaction() as tx:
            _migrations.upgrade(tx.conn)
        return
    store.close()
    with pytest.raises(StorageError, match="0902"):
        location.open()


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
    assert results == [HEAD, HEAD]
    store = durable_location.open()
    try:
        assert _versions(store) == [HEAD]
    finally:
        store.close()


def test_a_schema_named_in_the_url_options_is_the_one_used() -> None:
    # A URL may name its schema as libpq does (options=-csearch_path=...); the store's
    # own connection options must add to it, not replace it (tests and deployments
    # that keep tables apart this way would otherwise write to the public schema).
    if not PG_URL:
        pytest.skip(PG_SKIP)
    schema = f"lk_opt_{uuid.uuid4().hex[:10]}"
    engine = create_engine(PG_URL.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    sep = "&" if "?" in PG_URL else "?"
    store = open_store(f"{PG_URL}{sep}options=-csearch_path%3D{schema}")
    try:
        with store.read() as tx:
            shown = tx.conn.execute(text("SHOW search_path")).scalar_one()
            timeout = tx.conn.execute(text("SHOW lock_timeout")).scalar_one()
        assert shown == schema
        assert timeout != "0"  # the store's own option is still set
    finally:
        store.close()
        drop_schema(schema)


def _at_revision(location: Location, revision: str) -> Engine:
    """An engine on ``location``'s database, brought to ``revision`` and no further."""
    assert location.url is not None
    url = location.url.replace("postgresql://", "postgresql+psycopg://", 1)
    if location.schema is None:
        engine = create_engine(url)
    else:
        with create_engine(url).begin() as conn:
            conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{location.schema}"'))
        engine = create_engine(url, connect_args={"options": f"-csearch_path={location.schema}"})
    with engine.begin() as conn:
        command.upgrade(_migrations._config(_migrations.SCRIPTS, conn), revision)
    return engine


def test_0015_gives_each_token_a_home_and_keeps_every_membership(
    durable_location: Location,
) -> None:
    engine = _at_revision(durable_location, "0014")
    t0, t1, t2 = (datetime(2025, 1, day, tzinfo=UTC) for day in (1, 2, 3))
    with engine.begin() as conn:

        def row(sql: str, **values: object) -> int:
            return int(conn.execute(text(sql + " RETURNING id"), values).scalar_one())

        ws = [
            row("INSERT INTO workspaces (name, meta, created_at) VALUES (:n, '{}', :t)", n=n, t=t0)
            for n in ("one", "two", "three")
        ]

        def token(kind: str, memberships: list[tuple[int, str, datetime]]) -> int:
            made = row(
                "INSERT INTO api_tokens (kind, name, token_hash, created_at) "
                "VALUES (:k, :k, :h, :t)",
                k=kind,
                h=uuid.uuid4().hex,
                t=t0,
            )
            for where, role, at in memberships:
                conn.execute(
                    text(
                        "INSERT INTO memberships (workspace_id, token_id, role, created_at) "
                        "VALUES (:w, :t, :r, :at)"
                    ),
                    {"w": ws[where], "t": made, "r": role, "at": at},
                )
            return made

        # Older than memberships (0012): a member of every workspace from one instant.
        old_owner = token("owner", [(0, "owner", t0), (1, "owner", t0), (2, "owner", t0)])
        old_mixed = token("agent", [(0, "member", t0), (1, "owner", t0), (2, "member", t0)])
        # Minted in "three", made an owner of "one" later.
        minted = token("user", [(2, "member", t1), (0, "owner", t2)])
        loose = token("service", [])
        before = conn.execute(text("SELECT count(*) FROM memberships")).scalar_one()
    engine.dispose()
    store = durable_location.open()
    try:
        with store.read() as tx:
            homes = {t.id: t.home_workspace_id for t in tx.api_tokens()}
            assert len(tx.memberships()) == before == 8
    finally:
        store.close()
    assert homes == {old_owner: ws[0], old_mixed: ws[1], minted: ws[2], loose: None}


def test_0017_leaves_every_workspace_in_use_and_lets_one_be_archived_and_renamed(
    durable_location: Location,
) -> None:
    engine = _at_revision(durable_location, "0016")
    with engine.begin() as conn:
        for name in ("one", "two"):
            conn.execute(
                text("INSERT INTO workspaces (name, meta, created_at) VALUES (:n, '{}', :t)"),
                {"n": name, "t": datetime(2025, 1, 1, tzinfo=UTC)},
            )
    engine.dispose()
    store = durable_location.open()
    try:
        with store.transaction() as tx:
            one, two = tx.workspaces()
            assert (one.archived_at, two.archived_at) == (None, None)
            assert tx.set_workspace_archived(one.id, True).archived_at is not None
            with pytest.raises(ConflictError):
                tx.rename_workspace(two.id, "one")
            assert tx.rename_workspace(two.id, "three").name == "three"
        with store.read() as tx:
            assert [(w.name, w.archived_at is not None) for w in tx.workspaces()] == [
                ("one", True),
                ("three", False),
            ]
    finally:
        store.close()


def test_in_memory_stores_start_as_copies_of_one_migrated_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from layoutkit.storage._sql import store as store_module

    open_store().close()  # the process's first in-memory store made the copy
    ran: list[object] = []
    monkeypatch.setattr(store_module, "_migrate", lambda *a: ran.append(a))
    first, second = open_store(), open_store()
    try:
        assert ran == []
        assert first.schema_version() == second.schema_version() == HEAD
        with first.read() as tx:
            assert schema_drift(tx.conn) == []
        with first.transaction() as tx:
            tx.conn.execute(text("CREATE TABLE scratch (x INTEGER)"))
        with second.read() as tx:
            assert not inspect(tx.conn).has_table("scratch")  # each is a database of its own
    finally:
        first.close()
        second.close()


def _objects(path: Path) -> list[tuple[str, ...]]:
    """Every schema object of the SQLite file at ``path``: type, name, table, clauses."""
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT type, name, tbl_name, sql FROM sqlite_master"))
            # A table a batch revision rebuilt lists its constraints in an order that
            # differs from run to run: the clauses are compared, not their order.
            return sorted(
                (*map(str, r[:3]), *sorted(x.strip().rstrip(",") for x in str(r[3]).splitlines()))
                for r in rows
            )
    finally:
        engine.dispose()


def test_a_new_sqlite_file_is_a_copy_of_the_migrated_template_and_equals_a_migrated_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from layoutkit.storage._sql import store as store_module

    copied = open_store(f"sqlite:///{tmp_path / 'copied.db'}")
    with monkeypatch.context() as m:
        m.setattr(store_module, "_seed_new_file", lambda path: None)
        migrated = open_store(f"sqlite:///{tmp_path / 'migrated.db'}")
    try:
        for store in (copied, migrated):
            assert _versions(store) == [HEAD]
            with store.read() as tx:
                assert schema_drift(tx.conn) == []
                assert tx.conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
                assert tx.conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        with copied.transaction() as tx:
            tx.ensure_workspace("w")
    finally:
        copied.close()
        migrated.close()
    assert _objects(tmp_path / "copied.db") == _objects(tmp_path / "migrated.db")
    # No temporary file is left beside the database.
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_sqlite_file_with_a_leftover_journal_is_migrated_not_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from layoutkit.storage._sql import store as store_module

    # A WAL left by a removed database must never be replayed onto a copied file.
    (tmp_path / "left.db-wal").write_bytes(b"")
    monkeypatch.setattr(store_module, "_migrated_template", lambda: pytest.fail("copied"))
    store = open_store(f"sqlite:///{tmp_path / 'left.db'}")
    try:
        assert _versions(store) == [HEAD]
    finally:
        store.close()


def test_0022_indexes_the_task_titles_a_database_holds_on_postgresql_alone(
    location: Location,
) -> None:
    store = location.open()
    try:
        with store.transaction() as tx:
            ws = tx.ensure_workspace("w").id
            for title in ("Fix billing history in Ilntamtam", "Billing history export"):
                tx.insert_task(ws, title=title, body="history", created_by="ana", asked_by="user")
        query = TaskTitleQuery(terms=(("ilntamtam",), ("history",)))
        with store.transaction() as tx:
            before = tx.task_titles(ws, query, limit=5)
            tx.conn.execute(text(f"DROP INDEX IF EXISTS {s.TASK_TITLE_INDEX}"))
            tx.conn.execute(text("UPDATE alembic_version SET version_num = '0021'"))
        with store.transaction() as tx:
            assert _migrations.upgrade(tx.conn) == ["0022"]
        with store.read() as tx:
            made = tx.conn.execute(
                text(
                    "SELECT indexdef FROM pg_indexes "
                    "WHERE schemaname = current_schema() AND indexname = :name"
                    if location.backend == "postgres"
                    else "SELECT sql FROM sqlite_master WHERE name = :name"
                ),
                {"name": s.TASK_TITLE_INDEX},
            ).scalars()
            after = tx.task_titles(ws, query, limit=5)
        assert [r.title for r in before] == ["Fix billing history in Ilntamtam"]
        assert after == before
        if location.backend == "postgres":
            (definition,) = made
            assert "USING gin (to_tsvector('simple'::regconfig, title))" in definition
            assert definition.endswith("WHERE ((kind)::text = 'task'::text)")
        else:
            assert list(made) == []
    finally:
        store.close()
