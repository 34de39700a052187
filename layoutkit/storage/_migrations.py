"""Versioned schema migrations, applied in order when a store opens.

``MIGRATIONS`` is an ordered list of ``(version, name, function)``. The
``schema_version`` table holds one row per applied version. Opening a store
takes a lock first (a transaction-scoped advisory lock on PostgreSQL, an
immediate write transaction on SQLite) so two processes opening one
database at the same moment apply each migration exactly once; the second
waits and then finds nothing left to do.

Migration 1 creates the tables as ``_schema`` declares them. A later change
to a table is a new migration written as explicit DDL that first inspects
what exists (``sqlalchemy.inspect(conn)``), so it is a no-op on a database
already created from the newer declaration.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from datetime import datetime

from sqlalchemy import Connection, select, text

from layoutkit.storage import _schema as s

Migration = tuple[int, str, Callable[[Connection], None]]


def _initial(conn: Connection) -> None:
    s.metadata.create_all(conn, checkfirst=True)


MIGRATIONS: list[Migration] = [
    (
        1,
        "initial schema: workspaces, projects, boards, cards, edges, questions, links, keys",
        _initial,
    ),
]


def current_version(conn: Connection) -> int:
    """The highest applied migration version (0 on an empty database)."""
    s.schema_version.create(conn, checkfirst=True)
    found = conn.execute(select(s.schema_version.c.version)).scalars().all()
    return max(found, default=0)


def advisory_key(scope: str) -> int:
    """A stable signed 64-bit key for ``pg_advisory_xact_lock`` derived from ``scope``."""
    return zlib.crc32(f"layoutkit-migrate:{scope}".encode()) - 2**31


def apply(
    conn: Connection,
    now: datetime,
    migrations: Sequence[Migration] = MIGRATIONS,
) -> list[int]:
    """Apply every migration newer than the database, in version order.

    Must run inside a transaction that already holds the migration lock.
    Returns the versions applied now (empty when the schema was current).
    Raises ``ValueError`` when two migrations share a version.
    """
    versions = [v for v, _, _ in migrations]
    if len(set(versions)) != len(versions):
        raise ValueError(f"duplicate migration versions in {versions}")
    have = current_version(conn)
    applied: list[int] = []
    for version, _name, step in sorted(migrations, key=lambda m: m[0]):
        if version <= have:
            continue
        step(conn)
        conn.execute(s.schema_version.insert().values(version=version, applied_at=now))
        applied.append(version)
    return applied


def lock_postgres(conn: Connection, scope: str) -> None:
    """Hold the migration advisory lock until the surrounding transaction ends."""
    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": advisory_key(scope)})
