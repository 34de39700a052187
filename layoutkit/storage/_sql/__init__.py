"""The SQL backend of the store, one module per resource family (see ``store``)."""

from layoutkit.storage._retention import CARD_RETENTION, REQUEST_KEY_RETENTION
from layoutkit.storage._sql.store import SqlStore, SqlTx, open_store

__all__ = ["CARD_RETENTION", "REQUEST_KEY_RETENTION", "SqlStore", "SqlTx", "open_store"]
