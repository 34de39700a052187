"""The SQL store: SQLite (file or in-memory) and PostgreSQL on SQLAlchemy Core.

Concurrency model:

- SQLite file: WAL journal, so readers never block the writer. A write
  transaction starts with ``BEGIN IMMEDIATE``, taking the database's single
  write lock up front. Writers queue before that: this process's threads on
  a lock of the store, other processes' on ``<file>.lock`` (see
  :class:`_FileWriteLock`), both bounded by the busy timeout, so none fails
  halfway. That exclusivity is what serialises writers to a board, so
  ``lock_board`` only re-reads the row. A read snapshot begins (``BEGIN
  DEFERRED``) on a pooled connection through the driver and makes its
  SQLAlchemy connection only when a read asks for ``tx.conn``
  (:meth:`SqlStore._sqlite_read`).
- In-memory SQLite: one shared connection for the store's whole life; a
  process-local lock lets one transaction use it at a time.
- PostgreSQL: a pooled psycopg 3 engine; write transactions run at READ
  COMMITTED and ``lock_board`` takes ``SELECT ... FOR UPDATE`` on the board
  row, so every read after the lock sees the other writers' commits. Read
  transactions run at REPEATABLE READ for one consistent snapshot, or in
  autocommit (``read(snapshot=False)``) for a one-row lookup.

Transactions do not nest: opening a second one on the same thread while one
is open raises :class:`StorageError` (pass the open ``tx`` along instead).
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.exc import TimeoutError as SATimeoutError
from sqlalchemy.pool import StaticPool

from layoutkit.storage import _migrations
from layoutkit.storage._blobs import BlobStore, FileBlobStore, TableBlobStore
from layoutkit.storage._errors import BusyError, StorageError
from layoutkit.storage._sql._base import utc_now
from layoutkit.storage._sql.access import AccessRows
from layoutkit.storage._sql.annotations import AnnotationRows
from layoutkit.storage._sql.boards import BoardRows
from layoutkit.storage._sql.cards import CardRows
from layoutkit.storage._sql.components import ComponentRows
from layoutkit.storage._sql.embeddings import EmbeddingRows
from layoutkit.storage._sql.events import EventRows
from layoutkit.storage._sql.presence import PresenceRows
from layoutkit.storage._sql.project_memory import ProjectMemoryRows
from layoutkit.storage._sql.questions import QuestionRows
from layoutkit.storage._sql.request_keys import RequestKeyRows
from layoutkit.storage._sql.review_rules import ReviewRuleRows
from layoutkit.storage._sql.review_runs import ReviewRunRows
from layoutkit.storage._sql.search import SearchRows
from layoutkit.storage._sql.tasks import TaskRows
from layoutkit.storage._sql.transfer import TransferRows
from layoutkit.storage._sql.wake import Waker
from layoutkit.storage._sql.webhooks import WebhookRows
from layoutkit.storage._sql.work import WorkRows
from layoutkit.storage._sql.workspaces import WorkspaceRows
from layoutkit.storage.protocols import Clock

try:
    import fcntl
except ImportError:  # Windows: SQLite's own busy handler queues the writers there
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

SQLITE_BUSY_TIMEOUT_S = 30.0
PG_LOCK_TIMEOUT_S = 30.0
#: PostgreSQL states of a lock not granted: lock_not_available (lock_timeout),
#: serialization_failure, deadlock_detected.
_PG_BUSY = frozenset({"55P03", "40001", "40P01"})


@contextmanager
def _busy_as_busy_error() -> Iterator[None]:
    """Turn the drivers' "waited too long for a lock" errors into :class:`BusyError`."""
    try:
        yield
    except DBAPIError as exc:
        orig = exc.orig
        message = str(orig).lower()
        code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
        if code in _PG_BUSY or "database is locked" in message or "database is busy" in message:
            raise BusyError(str(orig)) from exc
        raise
    except SATimeoutError as exc:  # no pooled connection came free in time
        raise BusyError(str(exc)) from exc


class SqlTx(
    WorkspaceRows,
    BoardRows,
    CardRows,
    QuestionRows,
    AccessRows,
    RequestKeyRows,
    EventRows,
    ReviewRuleRows,
    ReviewRunRows,
    AnnotationRows,
    TaskRows,
    EmbeddingRows,
    WorkRows,
    TransferRows,
    SearchRows,
    WebhookRows,
    ProjectMemoryRows,
    ComponentRows,
    PresenceRows,
):
    """One open transaction (or read snapshot) of a :class:`SqlStore`: the
    :class:`~layoutkit.storage.Tx` protocol on SQL, one mixin per resource family.

    Every method reads or writes on the same connection; nothing is visible
    to others until the ``with store.transaction()`` block exits normally,
    and nothing is kept when it raises. Write methods raise
    :class:`StorageError` inside ``store.read()``. A new family of tables
    gets its own mixin module beside these.
    """


class SqlStore:
    """A workspace store on one SQL database. Create it with :func:`open_store`."""

    def __init__(
        self,
        engine: Engine,
        *,
        url: str | None,
        clock: Clock,
        blobs_dir: Path | None,
        schema: str | None = None,
    ) -> None:
        self.engine = engine
        self.url = url
        self.clock = clock
        self.schema = schema
        self.dialect = engine.dialect.name
        self.memory = self.dialect == "sqlite" and blobs_dir is None
        # The in-memory database is one connection; only one transaction may
        # use it at a time.
        self._guard: threading.RLock | None = threading.RLock() if self.memory else None
        # Set by close(): a transaction opened afterwards is refused, never run on a
        # disposed engine (a thread still serving a request when a server stops).
        self._closed = False
        # SQLite lets one writer in at a time and makes the others poll with
        # growing sleeps; queueing this process's writers on a lock instead
        # keeps their wait short and fair (other processes still poll).
        self._writer: threading.Lock | None = (
            threading.Lock() if self.dialect == "sqlite" and not self.memory else None
        )
        # ...and the other processes' writers on the same file, on a lock beside it.
        self._file_lock = (
            _FileWriteLock(blobs_dir.with_name(blobs_dir.name.removesuffix(".blobs") + ".lock"))
            if self._writer is not None and blobs_dir is not None and fcntl is not None
            else None
        )
        self._local = threading.local()
        self.blobs: BlobStore = (
            FileBlobStore(blobs_dir)
            if blobs_dir is not None
            else TableBlobStore(self._short_write, clock)
        )

    @functools.cached_property
    def waker(self) -> Waker:
        """This process's wake-ups of waiting ``wait_for_work`` calls on this store."""
        return Waker(self)

    def __repr__(self) -> str:
        return f"SqlStore({self.dialect}, {'memory' if self.memory else self.url!r})"

    @contextmanager
    def _open(self, *, writable: bool, snapshot: bool = True) -> Iterator[SqlTx]:
        if getattr(self._local, "open", False):
            raise StorageError("a transaction is already open on this thread; pass its tx along")
        self._local.open = True
        try:
            if self.dialect == "sqlite" and not writable:
                with self._sqlite_read() as tx:
                    yield tx
                return
            writer = self._writer if writable else None
            across = self._file_lock if writable else None
            with (
                _busy_as_busy_error(),
                self._guard or nullcontext(),
                writer or nullcontext(),
                across.held() if across is not None else nullcontext(),
                self._connect() as conn,
            ):
                if self.dialect == "sqlite":
                    conn.execution_options(layoutkit_begin="IMMEDIATE" if writable else "DEFERRED")
                elif not writable:
                    # Without a snapshot each statement reads the latest commits,
                    # and no BEGIN and ROLLBACK travel to the server.
                    level = "REPEATABLE READ" if snapshot else "AUTOCOMMIT"
                    conn.execution_options(isolation_level=level)
                conn.begin()
                tx = SqlTx(self, conn, writable=writable)
                committed = False
                try:
                    try:
                        yield tx
                    except BaseException:
                        conn.rollback()
                        raise
                    if writable:
                        # The search index moves with the rows it reads, in this transaction.
                        tx.flush_search_index()
                        conn.commit()
                        committed = True
                    else:
                        conn.rollback()
                finally:
                    # Before the connection goes back (and, on SQLite, inside the
                    # write lock): the next writer mostly finds what these
                    # callbacks keep, a warm board model, already in place.
                    _ended(tx, committed)
                    if (
                        self.dialect == "sqlite"
                        and not self.memory
                        and tx.search_docs_written >= SQLITE_FRESH_CONNECTION_DOCS
                    ):
                        # FTS5 keeps the table of pending terms a bulk write grew
                        # (a rebuild: hundreds of thousands of slots) for the
                        # connection's life and clears all of it at the start of
                        # every later read of the index: 0.04 ms more on each
                        # search (20k tasks). The pool makes a new connection.
                        conn.invalidate()
        finally:
            self._local.open = False

    @contextmanager
    def _sqlite_read(self) -> Iterator[SqlTx]:
        """A read snapshot on SQLite: ``BEGIN DEFERRED`` sent on a pooled connection by
        the driver, the SQLAlchemy connection made only when a read asks for
        ``tx.conn``. Reads that go to the driver alone (a search's) skip making that
        connection, its transaction and their events, which cost twice what the pool,
        BEGIN and ROLLBACK did (a read of one row: 0.045 -> 0.024 ms)."""
        with _busy_as_busy_error(), self._guard or nullcontext():
            if self._closed and self.memory:
                raise StorageError("the store is closed")
            pooled: Any = self.engine.raw_connection()
            made: list[Connection] = []

            def connect() -> Connection:
                # On the open driver transaction: _on_begin sends no second BEGIN.
                made.append(Connection(self.engine, pooled))
                return made[0]

            try:
                driver = pooled.driver_connection
                _begin(driver, "DEFERRED")
                tx = SqlTx(self, None, writable=False, driver=driver, connect=connect)
                try:
                    yield tx
                finally:
                    try:
                        driver.rollback()
                    finally:
                        _ended(tx, False)
            finally:
                if made:
                    made[0].close()
                else:
                    pooled.close()

    def transaction(self) -> AbstractContextManager[SqlTx]:
        """A write transaction: ``with store.transaction() as tx: ...``.

        Commits when the block ends normally; rolls everything back when it
        raises. Raises :class:`StorageError` when one is already open on this thread.
        """
        return self._open(writable=True)

    def read(self, *, snapshot: bool = True) -> AbstractContextManager[SqlTx]:
        """A read-only snapshot with the same ``tx`` read methods; never writes.

        ``snapshot=False`` lets each statement see the latest commits on its
        own: for a read of one row (a token check), it saves PostgreSQL the
        round trips of opening and closing a transaction.
        """
        return self._open(writable=False, snapshot=snapshot)

    @contextmanager
    def _short_write(self) -> Iterator[Connection]:
        with self.transaction() as tx:
            yield tx.conn

    def schema_version(self) -> str:
        """The schema revision the database is at (an Alembic revision id)."""
        with self.read() as tx:
            found = _migrations.current(tx.conn)
        assert found is not None, "open_store migrates before handing the store out"
        return found

    def _connect(self) -> Any:
        # Checked under the in-memory database's guard (taken just before), which
        # close() takes too: its one connection is never closed under a statement,
        # nor used once closed. A file or server database simply connects again.
        if self._closed and self.memory:
            raise StorageError("the store is closed")
        return self.engine.connect()

    def close(self) -> None:
        """Release every pooled connection. An in-memory database is gone afterwards:
        transactions opened on it are refused with StorageError."""
        with self._guard or nullcontext():
            self._closed = True
            self.engine.dispose()
        if self._file_lock is not None:
            self._file_lock.close()


class _FileWriteLock:
    """One write at a time across every process on one SQLite file, handed over
    by the kernel.

    SQLite's own busy handler makes a blocked writer sleep 1, 2, 5, 10, 15, 20,
    25... ms between tries, so with several server processes a write often
    sleeps long past the moment the lock came free. Writers take this lock on
    a file beside the database first (``flock``, waited for in the kernel);
    BEGIN IMMEDIATE then finds the database free. A process that dies holding
    it loses it with its file descriptor.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._fd: int | None = None
        self._guard = threading.Lock()

    def _file(self) -> int:
        with self._guard:
            if self._fd is None:
                self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
            return self._fd

    @contextmanager
    def held(self) -> Iterator[None]:
        fd = self._file()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._wait(fd)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _wait(self, fd: int) -> None:
        """Wait in the kernel, which hands the lock over the moment it is free, but
        no longer than the busy timeout: a helper thread blocks in flock, and one
        that gets the lock after its caller gave up lets it go at once."""
        state = {"got": False, "gave_up": False}
        handed = threading.Condition()

        def block() -> None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                with handed:
                    if state["gave_up"]:
                        fcntl.flock(fd, fcntl.LOCK_UN)
                        return
                    state["got"] = True
                    handed.notify()
            except OSError:
                return  # the store closed its lock file while this waited

        threading.Thread(target=block, name="layoutkit-write-lock", daemon=True).start()
        with handed:
            if not handed.wait_for(lambda: state["got"], SQLITE_BUSY_TIMEOUT_S):
                state["gave_up"] = True
                raise BusyError(f"another process held {self._path.name} too long")

    def close(self) -> None:
        with self._guard:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


def _ended(tx: SqlTx, committed: bool) -> None:
    """Run the transaction's end callbacks, each whatever the others do."""
    for callback in tx.ended:
        try:
            callback(committed)
        except Exception:
            # The transaction's outcome stands; a cache that failed to keep
            # something only loses that.
            log.exception("a transaction-end callback failed")


#: Most KiB of database pages each pooled SQLite file connection keeps in memory: the
#: pool keeps five connections, 80 MiB at most when every one has read that much
#: (16 MiB did as well as 32 on a 20k-task search index).
SQLITE_PAGE_CACHE_KIB = 16 * 1024
#: Search documents a write transaction may write before its SQLite connection is
#: closed rather than pooled again (see SqlStore._open).
SQLITE_FRESH_CONNECTION_DOCS = 500


def _sqlite_events(engine: Engine, *, wal: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Hand transaction control to us (the driver's implicit BEGIN cannot
        # do BEGIN IMMEDIATE), then set per-connection pragmas.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        if wal:
            cur.execute("PRAGMA journal_mode=WAL")
            # Durable at every checkpoint and safe against corruption in WAL
            # mode; skips an fsync per commit.
            cur.execute("PRAGMA synchronous=NORMAL")
            # SQLite's default page cache (2 MiB) held too little of a 20k-task search
            # index: each search read its pages again through the OS, a tenth of a
            # two-word search's CPU (0.76 -> 0.67 ms). Pages are cached as read, so a
            # connection that reads little holds little.
            cur.execute(f"PRAGMA cache_size={-SQLITE_PAGE_CACHE_KIB}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        driver: Any = conn.connection.driver_connection
        if driver.in_transaction:
            # A read the store began on the driver (SqlStore._sqlite_read), whose
            # SQLAlchemy connection was made afterwards: already in its snapshot.
            return
        _begin(driver, conn.get_execution_options().get("layoutkit_begin", "DEFERRED"))


def _begin(driver: sqlite3.Connection, mode: str) -> None:
    """``BEGIN mode`` straight to the driver: every transaction begins here, and
    SQLAlchemy's statement handling cost more than the BEGIN. Its errors are raised as
    SQLAlchemy raises them, so a busy database still reads as BusyError."""
    try:
        driver.execute(f"BEGIN {mode}")
    except sqlite3.Error as err:
        raise DBAPIError.instance(f"BEGIN {mode}", (), err, sqlite3.Error) from err


def _migrate(engine: Engine, schema: str | None) -> None:
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn.execution_options(layoutkit_begin="IMMEDIATE")
        with conn.begin():
            if engine.dialect.name == "postgresql":
                _migrations.lock_postgres(conn, schema or "public")
                if schema is not None:
                    conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
            _migrations.upgrade(conn)


def open_store(
    url: str | None = None,
    *,
    clock: Clock | None = None,
    schema: str | None = None,
    pool_size: int = 5,
) -> SqlStore:
    """Open (creating and migrating as needed) the store at ``url``.

    - ``None``, ``"sqlite://"`` or ``"sqlite:///:memory:"``: a private
      in-memory SQLite that lives as long as the store.
    - ``"sqlite:///path.db"``: a SQLite file in WAL mode; blobs go to
      ``path.db.blobs/``. A file that does not exist yet starts as a copy of
      the process's migrated empty database (:func:`_seed_new_file`).
    - ``"postgresql://..."`` (or ``postgresql+psycopg://``): PostgreSQL via
      psycopg 3 with a connection pool of ``pool_size``; ``schema`` puts
      every table in that schema (created if missing).

    ``clock`` returns the current UTC time (tests inject one). Raises
    :class:`StorageError` for an unsupported URL.
    """
    if url is None or url in ("sqlite://", "sqlite:///:memory:"):
        engine, blobs_dir, url, schema = _memory_engine(), None, None, None
    else:
        parsed = make_url(url)
        backend = parsed.get_backend_name()
        if backend == "sqlite":
            engine, blobs_dir = _sqlite_file_engine(parsed, url)
            schema = None  # a SQLite file has no schemas
            _seed_new_file(Path(str(parsed.database)))
        elif backend in ("postgresql", "postgres"):
            engine, blobs_dir = _postgres_engine(parsed, schema, pool_size), None
        else:
            raise StorageError(
                f"no storage backend for {url!r}; use sqlite:///path.db or postgresql://..."
            )
        _migrate(engine, schema)
    return SqlStore(engine, url=url, clock=clock or utc_now, blobs_dir=blobs_dir, schema=schema)


#: A new database of this process, migrated and still empty, as the bytes of its file.
_template: bytes | None = None
_template_guard = threading.Lock()


def _migrated_template() -> bytes:
    """The bytes of a new SQLite database at the head revision, made once a process
    (by running every revision on an in-memory database) and kept."""
    global _template
    with _template_guard:
        if _template is None:
            engine = create_engine("sqlite://", poolclass=StaticPool)
            _sqlite_events(engine, wal=False)
            try:
                _migrate(engine, None)
                with engine.connect() as conn:
                    raw = conn.connection.dbapi_connection
                    assert isinstance(raw, sqlite3.Connection)
                    _template = raw.serialize()
            finally:
                engine.dispose()
        return _template


def _memory_engine() -> Engine:
    """The engine of a new private in-memory database, at the head revision.

    It starts as a copy of the process's migrated template (SQLite's deserialize),
    which gives the same schema about a hundred times faster than running every
    revision again: test suites and embedders open many of these.
    """
    engine = create_engine(
        "sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False}
    )
    _sqlite_events(engine, wal=False)
    with engine.connect() as conn:
        raw = conn.connection.dbapi_connection
        assert isinstance(raw, sqlite3.Connection)
        raw.deserialize(_migrated_template())
    return engine


def _seed_new_file(path: Path) -> None:
    """Start a SQLite file that does not exist yet as a copy of the migrated template.

    Running the revisions on a new file costs a few hundred milliseconds (every
    DDL statement its own page writes); the template's bytes are a whole database
    file already. They are written beside the target and linked into place, which
    fails if the file appeared meanwhile: two processes creating one database at
    once leave one whole copy, and the loser opens it like any existing file.
    Leftover journal or WAL files of a removed database take the ordinary path, so
    SQLite never replays them onto the copy.
    """
    if any(path.with_name(path.name + end).exists() for end in ("", "-wal", "-journal")):
        return
    template = _migrated_template()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(template)
            out.flush()
            os.fsync(out.fileno())
        # FileExistsError: another process made it first. Any other OSError (no hard
        # links on this file system): the revisions make the file as before.
        with suppress(OSError):
            os.link(tmp, path)
    finally:
        os.unlink(tmp)


def _sqlite_file_engine(parsed: URL, url: str) -> tuple[Engine, Path]:
    """The engine of a SQLite file and the directory its blobs go to."""
    if parsed.get_driver_name() not in ("pysqlite", ""):
        raise StorageError(f"unsupported SQLite driver in {url!r}; use sqlite:///path.db")
    if not parsed.database:
        raise StorageError(f"no database file in {url!r}")
    path = Path(parsed.database)
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        parsed.set(drivername="sqlite+pysqlite"),
        connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_S},
    )
    _sqlite_events(engine, wal=True)
    return engine, path.with_name(path.name + ".blobs")


def _postgres_engine(parsed: URL, schema: str | None, pool_size: int) -> Engine:
    # Wait for a row lock as long as SQLite waits for its write lock, then
    # give up (503 busy) rather than hold a worker forever. Set once per
    # connection, as a startup option: no round trip per transaction.
    options = [f"-c lock_timeout={int(PG_LOCK_TIMEOUT_S * 1000)}"]
    # No JIT compiling: the store's statements read a handful of rows, and a cost
    # estimate made without statistics (a workspace's new rows) passed the JIT
    # threshold now and then, costing 100-700 ms of compiling for a 1 ms read.
    options.append("-c jit=off")
    # Options the URL carries (``?options=-csearch_path%3D...``) are kept: the
    # connect argument below would otherwise replace them, and a URL that names
    # a schema this way would quietly read and write the public one.
    given = parsed.query.get("options")
    if given:
        options[:0] = list(given) if isinstance(given, tuple) else [given]
        parsed = parsed.difference_update_query(["options"])
    if schema is not None:
        if not schema.replace("_", "").isalnum():
            raise StorageError(f"schema name {schema!r} must be letters, digits and _")
        options.append(f"-c search_path={schema}")
    connect_args: dict[str, Any] = {"options": " ".join(options)}
    engine = create_engine(
        parsed.set(drivername="postgresql+psycopg"),
        pool_size=pool_size,
        max_overflow=pool_size * 2,
        connect_args=connect_args,
    )
    _ping_idle_connections(engine)
    return engine


#: A pooled connection idle longer than this is checked before use (seconds).
PING_AFTER_IDLE_S = 1.0


def _ping_idle_connections(engine: Engine) -> None:
    """Check a pooled connection before use only when it sat idle.

    A connection the server dropped (a restart, a proxy's idle cut) is found
    by a ping and replaced before any statement runs. SQLAlchemy's
    ``pool_pre_ping`` pings on every checkout: two extra round trips for each
    API request, about 8% of a busy server's requests. A connection handed
    back within the last second was alive a moment ago; one idle longer is
    pinged as before.
    """

    @event.listens_for(engine, "checkin")
    def _checked_in(dbapi_conn: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_conn: Any, record: Any, proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_S:
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
        except Exception as exc:
            # The pool drops this connection and checks out another.
            raise DisconnectionError(str(exc)) from exc
