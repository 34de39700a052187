"""What the store raises; the service maps these onto its status codes."""

from __future__ import annotations


class StorageError(Exception):
    """A storage-level refusal (bad URL, nested transaction, write in a read)."""


class NotFoundError(StorageError, LookupError):
    """A row the caller named does not exist."""


class ConflictError(StorageError):
    """A unique name or key is already taken (board slug, request key...)."""
