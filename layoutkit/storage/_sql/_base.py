"""What every resource family of the SQL transaction shares: the connection, the clock,
the read-only guard and the conversion of rows into records."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

import attrs
import cattrs
from sqlalchemy import Connection, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import ClauseElement

from layoutkit.formatting import an
from layoutkit.storage._blobs import BlobStore, FileBlobStore, TableBlobStore
from layoutkit.storage._errors import StorageError
from layoutkit.storage.protocols import Clock

R = TypeVar("R")


def utc_now() -> datetime:
    return datetime.now(UTC)


def utc(value: datetime | None) -> datetime | None:
    # SQLite hands back naive datetimes; we only ever write UTC.
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


# Rows become records by field name; the only conversion a column needs is the
# UTC stamp on times. Extra columns (token hashes, card_seq) are left behind.
# The database already typed every value, so plain values pass through as
# they are and errors are not gathered field by field: both would only cost
# time on reads of thousands of rows.
_rows = cattrs.Converter(detailed_validation=False)
_rows.register_structure_hook(datetime, lambda value, _: utc(value))
for _plain in (str, int, float, bool):
    _rows.register_structure_hook(_plain, lambda value, _: value)


def record(row: Any, cls: type[R], **extra: Any) -> R:
    """The record ``cls`` built from a result row's columns (plus ``extra`` fields)."""
    # The row's own mapping is read by name without a copy unless fields are added.
    return _rows.structure({**row._mapping, **extra} if extra else row._mapping, cls)


def columns(value: Any, **extra: Any) -> dict[str, Any]:
    """The column values of an insert: ``value``'s fields (a ``New...`` input) plus ``extra``."""
    # Not recursive: JSON fields are plain values already and may be large.
    return {**attrs.asdict(value, recurse=False), **extra}


#: Statements every write or request sends are built once (``functools.cache`` on a
#: module function, values as ``bindparam``) rather than per call: building one,
#: and computing the key SQLAlchemy finds its compiled form by, cost up to five
#: times what sending it to SQLite did (0.28 of 0.05 ms for a board by its slug).
#: SQLAlchemy keeps that key on the statement object, so a kept statement pays once.


#: A bind ``:name`` (not a ``::type`` cast) of SQL written for SQLite's named style.
_NAMED_BIND = re.compile(r"(?<![:\w]):(\w+)")


@attrs.frozen
class DriverSql:
    """One statement as each driver takes it, sent by :meth:`TxBase.driver_rows`:
    SQLite's named binds (``:name``) and psycopg's (``%(name)s``), with the values the
    statement itself fixes (a Core statement's literals)."""

    sqlite: str
    postgresql: str
    fixed: Mapping[str, Any] = attrs.field(factory=dict)

    @classmethod
    def named(cls, sql: str) -> DriverSql:
        """SQL written with ``:name`` binds, for both drivers."""
        return cls(sql, _NAMED_BIND.sub(r"%(\1)s", sql.replace("%", "%%")))

    @classmethod
    def core(cls, sqlite_stmt: ClauseElement, pg_stmt: ClauseElement) -> DriverSql:
        """Core statements compiled once for each driver (no expanding binds: a list
        travels as one value, JSON on SQLite and an array on PostgreSQL)."""
        lite = sqlite_stmt.compile(dialect=sqlite.dialect(paramstyle="named"))
        pg = pg_stmt.compile(dialect=postgresql.dialect(paramstyle="pyformat"))
        fixed = {k: v for k, v in {**lite.params, **pg.params}.items() if v is not None}
        return cls(str(lite), str(pg), fixed)


def token_hash(token: str) -> str:
    # Tokens carry 256 random bits, so a plain digest is enough: there is no
    # dictionary to attack, and lookups stay a single indexed equality.
    return hashlib.sha256(token.encode()).hexdigest()


def check_fields(fields: Mapping[str, Any], allowed: frozenset[str], what: str) -> None:
    unknown = set(fields) - allowed
    if unknown:
        raise ValueError(
            f"cannot change {sorted(unknown)} of {an(what)}; allowed: {sorted(allowed)}"
        )


class StoreHandle(Protocol):
    """What a transaction reads of the store it runs on.

    :class:`~layoutkit.storage._sql.store.SqlStore` is one; a bare connection that
    rebuilds the search index during a migration passes a stand-in. Named here, below
    the store, so the row families need not import the store that composes them.
    """

    dialect: str
    clock: Clock
    blobs: BlobStore


class TxBase:
    """One open transaction (or read snapshot) on a connection of a store.

    Each resource family is a mixin of this class; ``SqlTx`` composes them.
    ``conn`` is the open SQLAlchemy connection every family reads and writes on.
    """

    def __init__(
        self,
        store: StoreHandle,
        conn: Connection | None,
        *,
        writable: bool,
        driver: Any = None,
        connect: Callable[[], Connection] | None = None,
    ) -> None:
        self.store = store
        # A SQLite read opens its transaction on the driver's connection and makes the
        # SQLAlchemy connection only when a read asks for it (``connect``): a search reads
        # through the driver alone, and SQLAlchemy's connection, transaction and events
        # cost it more than its smaller reads (see SqlStore._sqlite_read).
        self._conn = conn
        self._connect = connect
        self._driver: Any = driver if conn is None else conn.connection.driver_connection
        self.writable = writable
        self._pg = store.dialect == "postgresql"
        self._blobs: BlobStore | None = None
        self.ended: list[Callable[[bool], None]] = []
        # Rows whose search documents this transaction must rewrite (_sql/search.py).
        self._search_dirty: set[tuple[str, str]] = set()

    @property
    def conn(self) -> Connection:
        """The open SQLAlchemy connection every family reads and writes on."""
        conn = self._conn
        if conn is None:
            assert self._connect is not None
            conn = self._conn = self._connect()
        return conn

    def on_end(self, callback: Callable[[bool], None]) -> None:
        """Call ``callback(committed)`` once this transaction has ended."""
        self.ended.append(callback)

    def _touch_search(self, kind: str, subject: int | str) -> None:
        """Mark one source row (``task``, ``board``, ``card``, ``annotation``, or the
        ``tags`` of a workspace id) for its search document to be rewritten before
        this transaction commits (``_sql/search.py``)."""
        self._search_dirty.add((kind, str(subject)))

    def now(self) -> datetime:
        """The store clock's current time (UTC)."""
        return self.store.clock()

    def _write(self) -> None:
        if not self.writable:
            raise StorageError("this is a read-only transaction; use store.transaction()")

    def driver_rows(self, sql: DriverSql, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """The rows of ``sql`` as plain tuples, sent straight to the driver on this
        transaction's connection: for the reads of a search, where SQLAlchemy's
        statement handling and result rows cost more than the database took to
        answer. Values come as the driver gives them (JSON as text on SQLite)."""
        driver = self._driver
        query = sql.postgresql if self._pg else sql.sqlite
        values = {**sql.fixed, **params} if sql.fixed else params
        try:
            return driver.execute(query, values).fetchall()
        except self.conn.dialect.loaded_dbapi.Error as err:
            # As SQLAlchemy raises it, so the store's busy and error mapping holds.
            raise DBAPIError.instance(
                query, values, err, self.conn.dialect.loaded_dbapi.Error
            ) from err

    def driver_executemany(self, sql: DriverSql, rows: Sequence[Any]) -> None:
        """``sql`` once for each of ``rows`` through the driver's executemany (see
        :meth:`driver_rows`)."""
        query = sql.postgresql if self._pg else sql.sqlite
        try:
            self._driver.cursor().executemany(query, rows)
        except self.conn.dialect.loaded_dbapi.Error as err:
            raise DBAPIError.instance(
                query, rows, err, self.conn.dialect.loaded_dbapi.Error
            ) from err

    def driver_list(self, values: Iterable[Any]) -> Any:
        """``values`` as the one bind a :class:`DriverSql` list takes: JSON text for
        SQLite's ``json_each``, a list (an array) for PostgreSQL's ``any``."""
        distinct = list(dict.fromkeys(values))
        return distinct if self._pg else json.dumps(distinct)

    def _insert_ignoring_conflict(self, table: Table) -> Any:
        # ON CONFLICT DO NOTHING instead of catching IntegrityError: on
        # PostgreSQL a failed statement aborts the whole transaction.
        dialect = postgresql if self._pg else sqlite
        return dialect.insert(table).on_conflict_do_nothing()

    @property
    def blobs(self) -> BlobStore:
        """The blob store bound to this transaction (table blobs roll back with it)."""
        if self._blobs is None:
            if isinstance(self.store.blobs, FileBlobStore):
                self._blobs = self.store.blobs
            else:
                self._blobs = TableBlobStore(
                    lambda: nullcontext(self.conn), self.store.clock, writable=self.writable
                )
        return self._blobs
