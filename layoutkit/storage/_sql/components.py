"""A workspace's reusable groups of cards (kind ``component``), versioned by name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, insert, select

from layoutkit.storage import _schema as s
from layoutkit.storage._errors import NotFoundError
from layoutkit.storage._records import ComponentRecord
from layoutkit.storage._sql._base import TxBase, record


class ComponentRows(TxBase):
    def write_component(
        self,
        workspace_id: int,
        name: str,
        *,
        definition: Mapping[str, Any],
        description: str | None,
        author: str,
    ) -> ComponentRecord:
        self._write()
        # Writers of one workspace queue on its row, so each takes the next version.
        lock = select(s.workspaces.c.id).where(s.workspaces.c.id == workspace_id)
        if self.conn.execute(lock.with_for_update() if self._pg else lock).first() is None:
            raise NotFoundError(f"workspace {workspace_id}")
        c = s.components
        last = self.conn.execute(
            select(func.max(c.c.version)).where(c.c.workspace_id == workspace_id, c.c.name == name)
        ).scalar()
        row = self.conn.execute(
            insert(c)
            .values(
                workspace_id=workspace_id,
                name=name,
                version=(last or 0) + 1,
                description=description,
                definition=dict(definition),
                author=author,
                created_at=self.now(),
            )
            .returning(*c.c)
        ).one()
        return record(row, ComponentRecord)

    def components(self, workspace_id: int) -> list[ComponentRecord]:
        c = s.components
        latest: dict[str, ComponentRecord] = {}
        query = select(c).where(c.c.workspace_id == workspace_id).order_by(c.c.name, c.c.version)
        for row in self.conn.execute(query):
            latest[row.name] = record(row, ComponentRecord)
        return list(latest.values())

    def component(self, workspace_id: int, name: str) -> ComponentRecord | None:
        c = s.components
        row = self.conn.execute(
            select(c)
            .where(c.c.workspace_id == workspace_id, c.c.name == name)
            .order_by(c.c.version.desc())
            .limit(1)
        ).first()
        return None if row is None else record(row, ComponentRecord)
