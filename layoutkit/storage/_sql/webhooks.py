"""Outbound webhooks and their outbox of deliveries."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, delete, insert, or_, select, update

from layoutkit.storage import _schema as s
from layoutkit.storage._errors import NotFoundError
from layoutkit.storage._records import WebhookDeliveryRecord, WebhookRecord
from layoutkit.storage._sql._base import TxBase, check_fields, record

_WEBHOOK_FIELDS = frozenset({"url", "events", "secret", "active"})


@functools.cache
def _webhooks(by_active: bool) -> Any:
    # Every board write asks for the workspace's active hooks: built once.
    w = s.webhooks.c
    query = select(s.webhooks).where(w.workspace_id == bindparam("ws"))
    if by_active:
        query = query.where(w.active == bindparam("active"))
    return query.order_by(w.id)


class WebhookRows(TxBase):
    def create_webhook(
        self, workspace_id: int, *, url: str, events: Sequence[str], secret: str, created_by: str
    ) -> WebhookRecord:
        self._write()
        now = self.now()
        row = self.conn.execute(
            insert(s.webhooks)
            .values(
                workspace_id=workspace_id,
                url=url,
                events=list(events),
                secret=secret,
                active=True,
                created_by=created_by,
                created_at=now,
                updated_at=now,
            )
            .returning(*s.webhooks.c)
        ).one()
        return record(row, WebhookRecord)

    def webhook(self, webhook_id: int) -> WebhookRecord | None:
        row = self.conn.execute(select(s.webhooks).where(s.webhooks.c.id == webhook_id)).first()
        return None if row is None else record(row, WebhookRecord)

    def webhooks(self, workspace_id: int, *, active: bool | None = None) -> list[WebhookRecord]:
        params = {"ws": workspace_id, "active": active}
        return self.driver_records(_webhooks(active is not None), params, WebhookRecord)

    def update_webhook(self, webhook_id: int, **fields: Any) -> WebhookRecord:
        check_fields(fields, _WEBHOOK_FIELDS, "webhook")
        self._write()
        row = self.conn.execute(
            update(s.webhooks)
            .where(s.webhooks.c.id == webhook_id)
            .values(**fields, updated_at=self.now())
            .returning(*s.webhooks.c)
        ).first()
        if row is None:
            raise NotFoundError(f"no webhook {webhook_id}")
        return record(row, WebhookRecord)

    def delete_webhook(self, webhook_id: int) -> bool:
        self._write()
        # Explicitly, not by the cascade alone: SQLite enforces foreign keys only
        # when the connection turned them on.
        self.conn.execute(
            delete(s.webhook_deliveries).where(s.webhook_deliveries.c.webhook_id == webhook_id)
        )
        result = self.conn.execute(delete(s.webhooks).where(s.webhooks.c.id == webhook_id))
        return result.rowcount > 0

    def queue_webhook_delivery(
        self,
        webhook_id: int,
        event: str,
        data: Mapping[str, Any],
        *,
        due: datetime,
        coalesce_key: str | None = None,
        redelivery_of: int | None = None,
    ) -> WebhookDeliveryRecord:
        self._write()
        d = s.webhook_deliveries
        now = self.now()
        if coalesce_key is not None:
            # A delivery with this key that no process has tried nor claimed yet
            # takes the newer data and keeps its due time: one delivery per window.
            row = self.conn.execute(
                update(d)
                .where(
                    d.c.webhook_id == webhook_id,
                    d.c.coalesce_key == coalesce_key,
                    d.c.status == "pending",
                    d.c.attempts == 0,
                    d.c.lease_until.is_(None),
                )
                .values(data=dict(data), occurred_at=now)
                .returning(*d.c)
            ).first()
            if row is not None:
                return record(row, WebhookDeliveryRecord)
        row = self.conn.execute(
            insert(d)
            .values(
                webhook_id=webhook_id,
                event=event,
                occurred_at=now,
                data=dict(data),
                coalesce_key=coalesce_key,
                status="pending",
                attempts=0,
                next_attempt_at=due,
                redelivery_of=redelivery_of,
                created_at=now,
            )
            .returning(*d.c)
        ).one()
        return record(row, WebhookDeliveryRecord)

    def webhook_delivery(self, delivery_id: int) -> WebhookDeliveryRecord | None:
        d = s.webhook_deliveries
        row = self.conn.execute(select(d).where(d.c.id == delivery_id)).first()
        return None if row is None else record(row, WebhookDeliveryRecord)

    def webhook_deliveries(
        self,
        webhook_id: int,
        *,
        status: str | None = None,
        before: int | None = None,
        limit: int = 50,
    ) -> list[WebhookDeliveryRecord]:
        d = s.webhook_deliveries
        query = select(d).where(d.c.webhook_id == webhook_id)
        if status is not None:
            query = query.where(d.c.status == status)
        if before is not None:
            query = query.where(d.c.id < before)
        rows = self.conn.execute(query.order_by(d.c.id.desc()).limit(limit))
        return [record(r, WebhookDeliveryRecord) for r in rows]

    def _claimable(self, *, early: bool = False) -> Any:
        d, w = s.webhook_deliveries, s.webhooks
        now = self.now()
        return and_(
            d.c.status == "pending",
            # Early, a delivery never tried may go before its window closes; one
            # waiting out a retry's backoff still waits.
            d.c.attempts == 0 if early else d.c.next_attempt_at <= now,
            or_(d.c.lease_until.is_(None), d.c.lease_until <= now),
            # An inactive webhook's deliveries wait for it to be switched on again.
            d.c.webhook_id.in_(select(w.c.id).where(w.c.active.is_(True))),
        )

    def due_webhook_deliveries(
        self, limit: int = 20, *, workspace_id: int | None = None
    ) -> list[int]:
        d, w = s.webhook_deliveries, s.webhooks
        query = select(d.c.id).where(self._claimable())
        if workspace_id is not None:
            mine = select(w.c.id).where(w.c.workspace_id == workspace_id)
            query = query.where(d.c.webhook_id.in_(mine))
        query = query.order_by(d.c.next_attempt_at).limit(limit)
        return [r.id for r in self.conn.execute(query)]

    def claim_webhook_delivery(
        self, delivery_id: int, lease: timedelta, *, early: bool = False
    ) -> WebhookDeliveryRecord | None:
        self._write()
        d = s.webhook_deliveries
        # The condition is checked again by the UPDATE itself: of two processes
        # after one row, the second finds it leased (PostgreSQL re-reads the row
        # once the first commits; SQLite runs one writer at a time).
        row = self.conn.execute(
            update(d)
            .where(d.c.id == delivery_id, self._claimable(early=early))
            .values(lease_until=self.now() + lease)
            .returning(*d.c)
        ).first()
        return None if row is None else record(row, WebhookDeliveryRecord)

    def finish_webhook_attempt(
        self,
        delivery_id: int,
        *,
        status: str,
        next_attempt_at: datetime | None,
        response_status: int | None,
        response_excerpt: str | None,
        error: str | None,
    ) -> WebhookDeliveryRecord:
        self._write()
        d = s.webhook_deliveries
        row = self.conn.execute(
            update(d)
            .where(d.c.id == delivery_id)
            .values(
                status=status,
                attempts=d.c.attempts + 1,
                next_attempt_at=next_attempt_at,
                lease_until=None,
                last_attempt_at=self.now(),
                response_status=response_status,
                response_excerpt=response_excerpt,
                error=error,
            )
            .returning(*d.c)
        ).first()
        if row is None:
            raise NotFoundError(f"no webhook delivery {delivery_id}")
        return record(row, WebhookDeliveryRecord)
