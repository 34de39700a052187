"""The audit trail: append-only events, optionally about one board."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select

from layoutkit.storage import _schema as s
from layoutkit.storage._records import AuditEventRecord
from layoutkit.storage._sql._base import TxBase, record


@functools.cache
def _insert_event() -> Any:
    # Every write records one: built once.
    return insert(s.audit_events).returning(*s.audit_events.c)


_EVENT_COLUMNS = ("at", "principal", "action", "board_id", "detail")


class EventRows(TxBase):
    def record_event(
        self,
        action: str,
        principal: str,
        *,
        board_id: int | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> AuditEventRecord:
        self._write()
        # Every write records one: through the driver.
        (event,) = self.driver_records(
            _insert_event(),
            {
                "at": self.now(),
                "principal": principal,
                "action": action,
                "board_id": board_id,
                "detail": dict(detail or {}),
            },
            AuditEventRecord,
            _EVENT_COLUMNS,
        )
        return event

    def events(
        self,
        *,
        board_id: int | None = None,
        action: str | None = None,
        since: datetime | None = None,
        limit: int | None = None,
    ) -> list[AuditEventRecord]:
        a = s.audit_events
        query = select(a)
        if board_id is not None:
            query = query.where(a.c.board_id == board_id)
        if action is not None:
            query = query.where(a.c.action == action)
        if since is not None:
            query = query.where(a.c.at >= since)
        # Newest first so ``limit`` keeps the latest, then handed back oldest first.
        query = query.order_by(a.c.id.desc())
        if limit is not None:
            query = query.limit(limit)
        return [record(r, AuditEventRecord) for r in reversed(self.conn.execute(query).all())]
