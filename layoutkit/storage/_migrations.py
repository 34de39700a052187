"""Schema migrations: Alembic revisions under ``migrations/versions``, run when a store opens.

Opening a store takes a lock first (a transaction-scoped advisory lock on
PostgreSQL, an immediate write transaction on SQLite) and upgrades to the
head revision inside that transaction, so two processes opening one database
at the same moment apply each revision exactly once; the second waits and
then finds nothing left to do.

A schema change is a new revision file next to the others (``down_revision``
names the one before; batch operations so SQLite can follow) plus the same
change in ``_schema``; a test checks the two agree. Databases made by release
0.1.0 carry a ``schema_version`` table instead of Alembic's: they are stamped
at the baseline revision, which is that release's schema, and upgraded from there.
"""

from __future__ import annotations

import zlib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, inspect, text

from layoutkit.storage._errors import StorageError
from layoutkit.storage._sql.rebuild import rebuild_on_connection

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

# Alembic is imported only where a revision is read or run: a store whose
# database is already at the shipped head opens without it (about 0.1 s of a
# server's start).

SCRIPTS = Path(__file__).with_name("migrations")
#: The revision a database of release 0.1.0 (``schema_version`` 1) is at.
BASELINE = "0001"
_LEGACY_TABLE = "schema_version"


def _config(location: Path, conn: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(location))
    config.attributes["connection"] = conn
    return config


@cache
def scripts(location: Path = SCRIPTS) -> ScriptDirectory:
    """The revision scripts at ``location`` (read once per process)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config(location))


def head(location: Path = SCRIPTS) -> str:
    """The newest revision at ``location``; raises :class:`StorageError` for a fork."""
    from alembic.util import CommandError

    try:
        found = scripts(location).get_current_head()
    except CommandError as exc:  # two revisions claim the same parent
        raise StorageError(str(exc)) from exc
    if found is None:
        raise StorageError("no migration revisions are shipped with layoutkit")
    return found


def current(conn: Connection) -> str | None:
    """The revision the database is at (None when Alembic never ran on it)."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


@cache
def shipped_head() -> str:
    """The head of the revisions shipped with layoutkit, read off their file names.

    Each shipped revision file is ``NNNN_what.py`` with revision ``NNNN`` and
    the one before as its parent (a test holds them to it), so the highest
    number is the head: no Alembic import, no parse of every script.
    """
    return max(p.name[:4] for p in (SCRIPTS / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))


#: The revision that makes the search index; upgrading through it fills the index.
SEARCH_INDEX = "0014"


def upgrade(conn: Connection, location: Path = SCRIPTS) -> list[str]:
    """Bring the database to the head revision, oldest step first.

    Must run inside a transaction that already holds the migration lock.
    Returns the revisions applied now (empty when the schema was current).
    Raises :class:`StorageError` for a database newer than this code.
    ``location`` is another revision directory, for tests of later revisions.
    """
    at = current(conn)
    if location == SCRIPTS and at == shipped_head():
        return []
    from alembic import command
    from alembic.script.revision import RevisionError

    _adopt_release_0_1(conn, location)
    at = current(conn)
    if at == head(location):
        return []
    try:
        pending = [s.revision for s in scripts(location).iterate_revisions("head", at)]
    except RevisionError as exc:
        raise StorageError(f"database schema revision {at!r} is unknown to this layoutkit") from exc
    command.upgrade(_config(location, conn), "head")
    applied = pending[::-1]
    if SEARCH_INDEX in applied:
        # Filled here, by the live code on the schema at head, not inside the revision:
        # the index reads tasks, boards and cards, whose tables later revisions change.
        rebuild_on_connection(conn)
    return applied


def _adopt_release_0_1(conn: Connection, location: Path) -> None:
    tables = set(inspect(conn).get_table_names())
    if _LEGACY_TABLE not in tables or "alembic_version" in tables:
        return
    from alembic import command

    version = conn.execute(text(f"SELECT max(version) FROM {_LEGACY_TABLE}")).scalar()
    if version != 1:
        raise StorageError(f"schema_version {version} was not made by a known layoutkit release")
    command.stamp(_config(location, conn), BASELINE)
    conn.execute(text(f"DROP TABLE {_LEGACY_TABLE}"))


def advisory_key(scope: str) -> int:
    """A stable signed 64-bit key for ``pg_advisory_xact_lock`` derived from ``scope``."""
    return zlib.crc32(f"layoutkit-migrate:{scope}".encode()) - 2**31


def lock_postgres(conn: Connection, scope: str) -> None:
    """Hold the migration advisory lock until the surrounding transaction ends."""
    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": advisory_key(scope)})
