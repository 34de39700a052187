"""One suite, every backend: in-memory SQLite, a SQLite file and PostgreSQL.

PostgreSQL runs when LAYOUTKIT_TEST_POSTGRES_URL is set. Each test gets a
fresh schema with a random name, dropped afterwards, so runs never see each
other's tables (nor tables a crashed earlier run left behind).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import pytest
from alembic.autogenerate import compare_metadata
from alembic.operations import Operations
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, create_engine, inspect, text

from layoutkit.storage import SqlStore, open_store
from layoutkit.storage import _schema as s

PG_URL = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
PG_SKIP = "PostgreSQL tests need LAYOUTKIT_TEST_POSTGRES_URL (e.g. postgresql://postgres@127.0.0.1:5432/test)"

BACKENDS = ["memory", "sqlite_file", pytest.param("postgres", marks=pytest.mark.postgres)]
DURABLE_BACKENDS = ["sqlite_file", pytest.param("postgres", marks=pytest.mark.postgres)]


class FakeClock:
    """A settable UTC clock for retention tests."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2025, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@attrs.frozen
class Location:
    """Where a test's database lives; open as many stores on it as needed."""

    backend: str
    url: str | None
    schema: str | None = None

    def open(self, clock: FakeClock | None = None) -> SqlStore:
        return open_store(self.url, schema=self.schema, clock=clock)


def drop_schema(schema: str) -> None:
    assert PG_URL is not None
    engine = create_engine(PG_URL.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as conn:
        conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    engine.dispose()


def _location(backend: str, tmp_path: Path) -> Iterator[Location]:
    if backend == "memory":
        yield Location(backend, None)
    elif backend == "sqlite_file":
        yield Location(backend, f"sqlite:///{tmp_path / 'store.db'}")
    else:
        if not PG_URL:
            pytest.skip(PG_SKIP)
        schema = f"lk_test_{uuid.uuid4().hex[:12]}"
        try:
            yield Location(backend, PG_URL, schema)
        finally:
            drop_schema(schema)


@pytest.fixture(params=BACKENDS)
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Location]:
    yield from _location(request.param, tmp_path)


@pytest.fixture(params=DURABLE_BACKENDS)
def durable_location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Location]:
    """A database several processes can share (not the in-memory one)."""
    yield from _location(request.param, tmp_path)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(location: Location, clock: FakeClock) -> Iterator[SqlStore]:
    opened = location.open(clock)
    try:
        yield opened
    finally:
        opened.close()


def schema_drift(conn: Connection) -> list[Any]:
    """How the database's schema differs from ``_schema`` (empty when they agree).

    The full-text structures of search (FTS5 and its shadow tables, the GIN
    expression index) have no SQLAlchemy form; migration 0014 alone declares them.
    """

    def declared(obj: Any, name: str | None, type_: str, reflected: bool, other: Any) -> bool:
        return not (name or "").startswith(s.FULL_TEXT_OBJECTS)

    context = MigrationContext.configure(conn, opts={"include_object": declared})
    return list(compare_metadata(context, s.metadata))


def undo_comments(conn: Connection) -> None:
    """Take annotations back to before revision 0021: no kind nor attention column, card
    columns NOT NULL (rebuilt on SQLite; nothing references annotations, so nothing cascades)."""
    if not inspect(conn).has_table("annotations"):
        return  # rewound further already (before revision 0010)
    ops = Operations(MigrationContext.configure(conn))
    ops.drop_index("ix_annotations_board_kind", "annotations")
    with ops.batch_alter_table("annotations") as batch:
        for name in ("card_id", "card_version", "filed_version"):
            batch.alter_column(name, existing_type=s.annotations.c[name].type, nullable=False)
        batch.drop_column("attention")
        batch.drop_column("kind")


def undo_since_0016(conn: Connection) -> None:
    """Take a database at head back to revision 0015: no webhooks (0016), workspaces
    that cannot be archived (0017), no project memory (0018), components (0019) nor
    presence (0020) nor comment threads (0021) nor PostgreSQL's index of task titles (0022)."""
    conn.execute(text(f"DROP INDEX IF EXISTS {s.TASK_TITLE_INDEX}"))
    undo_comments(conn)
    s.board_presence.drop(conn)
    s.components.drop(conn)
    s.project_memories.drop(conn)
    s.webhook_deliveries.drop(conn)
    s.webhooks.drop(conn)
    # In place on both backends (SQLite 3.35+): rebuilding workspaces would cascade.
    conn.execute(text("ALTER TABLE workspaces DROP COLUMN archived_at"))


def undo_token_homes(conn: Connection) -> None:
    """Take a database at head back to how it was before revision 0015: no invitations,
    tokens without a home (and nothing of the revisions after it). For tests that rewind
    to an older revision and upgrade."""
    undo_since_0016(conn)
    s.invitations.drop(conn)
    ops = Operations(MigrationContext.configure(conn))
    ops.drop_index("ix_api_tokens_home", "api_tokens")
    # Rebuilt on SQLite (altered in place on PostgreSQL): call it with no memberships a
    # cascade would empty, and with no triggers naming a table that is gone.
    with ops.batch_alter_table("api_tokens") as batch:
        batch.drop_constraint("fk_api_tokens_home", type_="foreignkey")
        batch.drop_column("home_workspace_id")
