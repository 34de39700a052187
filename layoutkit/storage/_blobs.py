"""Content-addressed blobs: uploads, shots, spilled chart data and table rows.

A key is ``"sha256:<64 hex>"`` of the bytes, so putting the same bytes twice
stores them once and a key always names exactly one content.

Two variants behind :class:`BlobStore`:

- :class:`FileBlobStore` keeps one file per blob under ``<db>.blobs/`` next
  to a SQLite file. A put writes a temporary file in the target directory
  and renames it into place, so a reader never sees half a blob. The write
  is not part of the database transaction: when that transaction rolls back
  the file stays. Such an orphan is harmless — nothing references it, and
  a later put of the same bytes finds it already there.
- :class:`TableBlobStore` keeps blobs in the ``blobs`` table (PostgreSQL and
  in-memory SQLite). Used through ``tx.blobs`` it writes on the
  transaction's own connection, so a rollback takes the blob with it.

Derived blobs (a large picture's rendition) are named by the key of the blob they
were made from and a short ``kind`` (``r2048``): made from stored bytes by a fixed
rule, they need no row of their own to say what they belong to. A file store keeps
them under ``<root>/derived/<kind>/``, the table under the key ``<kind>:<64 hex>``,
which no content key has (those start ``sha256:``) and the blob route never serves.
They are a cache: one that is missing is made again.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Protocol, runtime_checkable

from sqlalchemy import Connection, select
from sqlalchemy.dialects import postgresql, sqlite

from layoutkit.storage import _schema as s
from layoutkit.storage._errors import StorageError

_KEY = re.compile(r"^sha256:([0-9a-f]{64})$")
_KIND = re.compile(r"^[a-z][a-z0-9]{0,7}$")


@runtime_checkable
class BlobStore(Protocol):
    """Bytes stored under the hash of their content."""

    def put(self, data: bytes) -> str:
        """Store ``data`` (idempotent) and return its key ``sha256:<hex>``."""
        ...

    def get(self, key: str) -> bytes | None:
        """The bytes stored under ``key``, or None when absent or malformed."""
        ...

    def has(self, key: str) -> bool:
        """Whether ``key`` is stored."""
        ...

    def put_derived(self, key: str, kind: str, data: bytes) -> None:
        """Keep ``data`` as the ``kind`` derived from blob ``key`` (idempotent: what is
        derived from the same bytes by the same rule is the same)."""
        ...

    def get_derived(self, key: str, kind: str) -> bytes | None:
        """The ``kind`` derived from blob ``key``, or None when none is kept."""
        ...


def blob_key(data: bytes) -> str:
    """The content key of ``data``: ``"sha256:"`` followed by 64 hex digits."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _digest(key: str) -> str | None:
    match = _KEY.match(key) if isinstance(key, str) else None
    return match.group(1) if match else None


def _derived(key: str, kind: str) -> str | None:
    """The digest of ``key`` when both it and ``kind`` are well formed, else None."""
    if not (isinstance(kind, str) and _KIND.match(kind) and kind != "sha256"):
        return None
    return _digest(key)


class FileBlobStore:
    """Blobs as files ``<root>/<2 hex>/<64 hex>``, written atomically."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def _path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest

    def put(self, data: bytes) -> str:
        key = blob_key(data)
        self._write(self._path(key[7:]), data)
        return key

    def _write(self, target: Path, data: bytes) -> None:
        if target.exists():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".put-", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            # Same directory, so the rename is atomic; a concurrent put of the
            # same bytes just replaces identical content.
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def get(self, key: str) -> bytes | None:
        digest = _digest(key)
        if digest is None:
            return None
        try:
            return self._path(digest).read_bytes()
        except FileNotFoundError:
            return None

    def has(self, key: str) -> bool:
        digest = _digest(key)
        return digest is not None and self._path(digest).exists()

    def _derived_path(self, digest: str, kind: str) -> Path:
        return self.root / "derived" / kind / digest[:2] / digest

    def put_derived(self, key: str, kind: str, data: bytes) -> None:
        digest = _derived(key, kind)
        if digest is None:
            raise StorageError(f"no derived blob {kind!r} of {key!r}")
        self._write(self._derived_path(digest, kind), data)

    def get_derived(self, key: str, kind: str) -> bytes | None:
        digest = _derived(key, kind)
        if digest is None:
            return None
        try:
            return self._derived_path(digest, kind).read_bytes()
        except FileNotFoundError:
            return None


class TableBlobStore:
    """Blobs as rows of the ``blobs`` table.

    ``connection`` opens a context yielding a connection inside a
    transaction: the store's own short write transaction, or an open
    ``Tx``'s connection so the blob commits and rolls back with it.
    """

    def __init__(
        self,
        connection: Callable[[], AbstractContextManager[Connection]],
        clock: Callable[[], datetime],
        *,
        writable: bool = True,
    ) -> None:
        self._connection = connection
        self._clock = clock
        self._writable = writable

    def put(self, data: bytes) -> str:
        key = blob_key(data)
        self._insert(key, data)
        return key

    def _insert(self, key: str, data: bytes) -> None:
        if not self._writable:
            raise StorageError("this is a read-only transaction; use store.transaction()")
        with self._connection() as conn:
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            stmt = dialect.insert(s.blobs).values(
                key=key, size=len(data), data=bytes(data), created_at=self._clock()
            )
            conn.execute(stmt.on_conflict_do_nothing(index_elements=["key"]))

    def get(self, key: str) -> bytes | None:
        if _digest(key) is None:
            return None
        return self._select(key)

    def _select(self, key: str) -> bytes | None:
        with self._connection() as conn:
            found = conn.execute(select(s.blobs.c.data).where(s.blobs.c.key == key)).scalar()
        return None if found is None else bytes(found)

    def has(self, key: str) -> bool:
        if _digest(key) is None:
            return False
        with self._connection() as conn:
            found = conn.execute(select(s.blobs.c.size).where(s.blobs.c.key == key)).scalar()
        return found is not None

    def put_derived(self, key: str, kind: str, data: bytes) -> None:
        digest = _derived(key, kind)
        if digest is None:
            raise StorageError(f"no derived blob {kind!r} of {key!r}")
        self._insert(f"{kind}:{digest}", data)

    def get_derived(self, key: str, kind: str) -> bytes | None:
        digest = _derived(key, kind)
        return None if digest is None else self._select(f"{kind}:{digest}")
