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
from sqlalchemy import Connection, Table, bindparam, func, literal_column, select
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
    """The record ``cls`` built from a result row's columns, or a mapping of them
    (plus ``extra`` fields)."""
    # The row's own mapping is read by name without a copy unless fields are added.
    columns = getattr(row, "_mapping", row)
    return _rows.structure({**columns, **extra} if extra else columns, cls)


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


@attrs.frozen
class JsonRows:
    """PostgreSQL's INSERT of ``columns`` into ``table`` that takes every row from one
    JSON array of objects (``jsonb_populate_recordset``, each value read as the
    column's own type), then ``conflict`` (an ``ON CONFLICT`` clause) and
    ``returning`` (the columns of a ``RETURNING``, handed back by the call that
    sent it). ``then``, a statement that reads the inserted rows as ``new``, runs
    in the same statement (a data-modifying ``WITH``; needs ``returning``).

    :meth:`TxBase.driver_insert` and :meth:`TxBase.driver_executemany` send a batch
    this way on PostgreSQL: one statement with one value, where psycopg's executemany
    converted every value of every row in Python and sent each row on its own (10
    cards: 0.29 -> 0.11 ms of client CPU). The rows' values travel as JSON: the
    database reads a number back as the same float, a time with its offset as the
    same instant; a batch JSON cannot carry exactly (a float that is not finite, a
    value of another type than str, int, float, bool, None, dict, list or
    datetime) goes by executemany as before.
    """

    table: str
    columns: tuple[str, ...]
    conflict: str = ""
    returning: tuple[str, ...] = ()
    then: str = ""

    @property
    def sql(self) -> str:
        names = ", ".join(self.columns)
        source = f"jsonb_populate_recordset(NULL::{self.table}, %(rows)s::jsonb)"
        tail = f" {self.conflict}" if self.conflict else ""
        insert = f"INSERT INTO {self.table} ({names}) SELECT {names} FROM {source}{tail}"
        returned = ", ".join(self.returning)
        if self.then:
            return f"WITH new AS ({insert} RETURNING *), kept AS ({self.then}) SELECT {returned} FROM new"
        return f"{insert} RETURNING {returned}" if returned else insert


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} does not travel as JSON exactly")


def json_rows(rows: Sequence[Mapping[str, Any]]) -> str | None:
    """``rows`` as the one JSON array a :class:`JsonRows` takes, or None when a value
    would not come back exactly (see there)."""
    try:
        return json.dumps(rows, default=_json_value, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return None


def in_list(column: Any, pg: bool) -> Any:
    """``column`` among the values of the bind ``values``, one value whatever their
    number (:meth:`TxBase.driver_list`), so the statement is compiled once."""
    if pg:
        return column == func.any(bindparam("values"))
    json_each = func.json_each(bindparam("values"))
    return column.in_(select(literal_column("value")).select_from(json_each))


#: Statements compiled for :meth:`TxBase.driver_execute`, by (id, dialect, columns);
#: the statement is kept beside its compiled form, so its id names it while cached.
_PREPARED: dict[tuple[int, str, tuple[str, ...]], tuple[ClauseElement, Prepared]] = {}


class Prepared:
    """A Core statement compiled once for one dialect, with the bind and result
    processing of its values (the type conversions SQLAlchemy applies), for
    :meth:`TxBase.driver_execute`: the statements a compose sends on every call,
    where SQLAlchemy's per-execution handling cost more than the database took.

    Statements with expanding binds (``in_`` a list) are refused: their SQL
    depends on the values.
    """

    __slots__ = (
        "_binds",
        "_dialect",
        "_fixed",
        "_names",
        "_results",
        "_types",
        "columns",
        "positional",
        "sql",
    )

    def __init__(
        self, stmt: ClauseElement, dialect: Any, column_keys: Sequence[str] | None = None
    ) -> None:
        compiled = stmt.compile(
            dialect=dialect, column_keys=list(column_keys) if column_keys else None
        )
        binds = compiled.binds
        if any(b.expanding for b in binds.values()):
            raise ValueError("a prepared statement takes no expanding binds")
        if compiled.insert_prefetch or compiled.update_prefetch:
            # SQLAlchemy fills those columns' Python defaults in; the driver would not.
            raise ValueError("a prepared statement names every column that has a default")
        self.sql = str(compiled)
        self.positional = bool(compiled.positional)
        names = tuple(compiled.positiontup or ()) if self.positional else tuple(binds)
        self._names = tuple((name, binds[name].key) for name in names)
        # Values the statement fixes itself (``rev + 1``), keyed as the caller's are.
        self._fixed = {b.key: b.value for b in binds.values() if not b.required}
        self._binds = tuple(
            binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names
        )
        self._types = [c.type.dialect_impl(dialect) for c in stmt.exported_columns]
        self._dialect = dialect
        #: The names of the columns a row holds, in order.
        self.columns = tuple(c.key for c in stmt.exported_columns)
        # Known at the first result: a type's conversion may depend on the column
        # type the database reports (psycopg's numerics).
        self._results: tuple[Callable[[Any], Any] | None, ...] | None = None

    def bind(self, params: Mapping[str, Any]) -> Any:
        """``params`` (by bind key) as the driver takes them: processed and in order."""
        values = {**self._fixed, **params} if self._fixed else params
        out = [
            value if process is None else process(value)
            for (_, key), process in zip(self._names, self._binds, strict=True)
            for value in (values[key],)
        ]
        if self.positional:
            return out
        return {name: value for (name, _), value in zip(self._names, out, strict=True)}

    def rows(self, cursor: Any) -> list[tuple[Any, ...]]:
        """The rows of a driver ``cursor`` this statement ran on, each column
        converted as SQLAlchemy's result would."""
        if self._results is None:
            self._results = tuple(
                kind.result_processor(self._dialect, column[1])
                for kind, column in zip(self._types, cursor.description, strict=True)
            )
        found = cursor.fetchall()
        if not any(self._results):
            return [tuple(raw) for raw in found]
        return [
            tuple(
                value if process is None or value is None else process(value)
                for value, process in zip(raw, self._results, strict=True)
            )
            for raw in found
        ]


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
        # One driver cursor for every statement of the transaction sent through the
        # driver (made at the first): psycopg makes a cursor, with its own copy of the
        # connection's adapters, for each ``connection.execute``, a third of what the
        # driver spent on a one-row statement (31 -> 21 µs).
        self._cursor: Any = None
        self.writable = writable
        self._pg = store.dialect == "postgresql"
        self._blobs: BlobStore | None = None
        self.ended: list[Callable[[bool], None]] = []
        # Rows whose search documents this transaction must rewrite (_sql/search.py).
        self._search_dirty: set[tuple[str, str]] = set()
        # Search documents it wrote, deleted or rewrote: a SQLite connection that wrote
        # many is not kept (SqlStore._open).
        self.search_docs_written = 0

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
        query = sql.postgresql if self._pg else sql.sqlite
        values = {**sql.fixed, **params} if sql.fixed else params
        return self._driver_call(query, values, lambda c, q, v: c.execute(q, v).fetchall())

    def prepared(self, stmt: ClauseElement, column_keys: Sequence[str] = ()) -> Prepared:
        """``stmt`` compiled for this connection's dialect, once per process: pass
        only statements built once (``functools.cache``), as the cache keeps them."""
        dialect = self._dialect
        key = (id(stmt), dialect.name, tuple(column_keys))
        hit = _PREPARED.get(key)
        if hit is None or hit[0] is not stmt:
            hit = (stmt, Prepared(stmt, dialect, column_keys))
            _PREPARED[key] = hit
        return hit[1]

    def driver_execute(
        self, stmt: ClauseElement, params: Mapping[str, Any], column_keys: Sequence[str] = ()
    ) -> list[tuple[Any, ...]]:
        """The rows of ``stmt`` (none for a statement without a result or RETURNING),
        sent through the driver with the values and rows converted as SQLAlchemy
        converts them (see :class:`Prepared`). An INSERT names its ``column_keys``."""
        prepared = self.prepared(stmt, column_keys)
        cursor = self._driver_call(
            prepared.sql, prepared.bind(params), lambda c, q, v: c.execute(q, v)
        )
        # Whether rows come back is the statement's own (its columns or RETURNING):
        # psycopg builds the cursor's description anew on every read of it.
        if not prepared.columns:
            return []
        return prepared.rows(cursor)

    def driver_mappings(
        self, stmt: ClauseElement, params: Mapping[str, Any], column_keys: Sequence[str] = ()
    ) -> list[dict[str, Any]]:
        """The rows of ``stmt`` (see :meth:`driver_execute`) by column name."""
        names = self.prepared(stmt, column_keys).columns
        return [
            dict(zip(names, row, strict=True))
            for row in self.driver_execute(stmt, params, column_keys)
        ]

    def driver_records(
        self,
        stmt: ClauseElement,
        params: Mapping[str, Any],
        cls: type[R],
        column_keys: Sequence[str] = (),
    ) -> list[R]:
        """The rows of ``stmt`` (see :meth:`driver_execute`) as records ``cls``."""
        return [record(found, cls) for found in self.driver_mappings(stmt, params, column_keys)]

    def driver_insert(
        self,
        stmt: ClauseElement,
        rows: Sequence[Mapping[str, Any]],
        column_keys: Sequence[str],
        batch: JsonRows | None = None,
    ) -> list[tuple[Any, ...]] | None:
        """``stmt`` (an INSERT of ``column_keys``) once per row through the driver's
        executemany, the values converted as SQLAlchemy converts them; on PostgreSQL
        ``batch``, the same insert, takes them all at once (see :class:`JsonRows`) and
        its RETURNING rows are handed back (None when the rows went one by one)."""
        if batch is not None and self._pg:
            returned = self._json_batch(batch, rows)
            if returned is not None:
                return returned
        prepared = self.prepared(stmt, column_keys)
        self._driver_call(
            prepared.sql,
            [prepared.bind(row) for row in rows],
            lambda c, q, v: c.executemany(q, v),
        )
        return None

    def _driver_call(self, query: str, values: Any, send: Callable[[Any, str, Any], Any]) -> Any:
        """``send(cursor, query, values)`` on this transaction's driver cursor."""
        error = self._dialect.loaded_dbapi.Error
        try:
            cursor = self._cursor
            if cursor is None:
                cursor = self._cursor = self._driver.cursor()
            return send(cursor, query, values)
        except error as err:
            # As SQLAlchemy raises it, so the store's busy and error mapping holds.
            raise DBAPIError.instance(query, values, err, error) from err

    @property
    def _dialect(self) -> Any:
        # The engine's when the connection is not made yet (a SQLite read makes it
        # only when asked, see conn): the same dialect, without making it.
        if self._conn is not None:
            return self._conn.dialect
        return self.store.engine.dialect  # type: ignore[attr-defined]

    def driver_executemany(
        self, sql: DriverSql, rows: Sequence[Any], batch: JsonRows | None = None
    ) -> None:
        """``sql`` once for each of ``rows`` through the driver's executemany (see
        :meth:`driver_rows`); on PostgreSQL ``batch``, the same insert, takes them all
        at once (see :class:`JsonRows`), each row's values in its ``columns`` order."""
        if batch is not None and self._pg:
            as_objects = [dict(zip(batch.columns, row, strict=True)) for row in rows]
            if self._json_batch(batch, as_objects) is not None:
                return
        query = sql.postgresql if self._pg else sql.sqlite
        self._driver_call(query, rows, lambda c, q, v: c.executemany(q, v))

    def _json_batch(
        self, batch: JsonRows, rows: Sequence[Mapping[str, Any]]
    ) -> list[tuple[Any, ...]] | None:
        """Send ``rows`` as one JSON array through ``batch`` (PostgreSQL): the rows of its
        RETURNING; None when the rows do not travel as JSON exactly (see json_rows)."""
        doc = json_rows(rows) if rows else None
        if doc is None:
            return None
        cursor = self._driver_call(batch.sql, {"rows": doc}, lambda c, q, v: c.execute(q, v))
        return cursor.fetchall() if batch.returning else []

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
