"""Request keys: an operation's receipt kept for a day so a retry replays it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, select

from layoutkit.storage import _schema as s
from layoutkit.storage._errors import ConflictError
from layoutkit.storage._records import RequestKeyRecord
from layoutkit.storage._retention import REQUEST_KEY_RETENTION
from layoutkit.storage._sql._base import TxBase, columns, record


class RequestKeyRows(TxBase):
    def request_key(self, principal: str, key: str) -> RequestKeyRecord | None:
        row = self.conn.execute(
            select(s.request_keys).where(
                s.request_keys.c.principal == principal, s.request_keys.c.key == key
            )
        ).first()
        return None if row is None else record(row, RequestKeyRecord)

    def save_request_key(
        self,
        principal: str,
        key: str,
        *,
        operation: str,
        input_hash: str,
        receipt: Mapping[str, Any],
    ) -> RequestKeyRecord:
        self._write()
        saved = RequestKeyRecord(principal, key, operation, input_hash, dict(receipt), self.now())
        stmt = self._insert_ignoring_conflict(s.request_keys).values(**columns(saved))
        if self.conn.execute(stmt.returning(s.request_keys.c.key)).first() is None:
            raise ConflictError(f"request key {key!r} already used")
        return saved

    def purge_request_keys(self, keep: timedelta = REQUEST_KEY_RETENTION) -> int:
        self._write()
        cutoff = self.now() - keep
        return self.conn.execute(
            delete(s.request_keys).where(s.request_keys.c.created_at < cutoff)
        ).rowcount
