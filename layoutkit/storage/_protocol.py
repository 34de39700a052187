"""The one seam between the service and its database: the :class:`Store` protocol."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

from layoutkit.storage._blobs import BlobStore
from layoutkit.storage._sql import Clock, SqlTx

# The transaction API handlers write against. There is one implementation
# (SQL); a second backend would implement the same methods.
Tx = SqlTx


@runtime_checkable
class Store(Protocol):
    """A workspace's durable state: transactions, read snapshots and blobs."""

    dialect: str
    clock: Clock
    blobs: BlobStore

    def transaction(self) -> AbstractContextManager[Tx]:
        """An all-or-nothing write transaction."""
        ...

    def read(self) -> AbstractContextManager[Tx]:
        """A consistent read-only snapshot."""
        ...

    def schema_version(self) -> int:
        """The highest schema migration applied."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...
