"""What the store raises; the service maps these onto its status codes."""

from __future__ import annotations


class StorageError(Exception):
    """A storage-level refusal (bad URL, nested transaction, write in a read)."""


class NotFoundError(StorageError, LookupError):
    """A row the caller named does not exist."""


class ConflictError(StorageError):
    """A unique name or key is already taken (board slug, request key...)."""


class BusyError(StorageError):
    """A lock was not granted in time (SQLite busy, PostgreSQL lock timeout,
    serialization failure or deadlock); the transaction wrote nothing."""
