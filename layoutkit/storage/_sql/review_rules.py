"""Review rule files of the workspace and project layers, every write a new version."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, func, insert, select

from layoutkit.storage import _schema as s
from layoutkit.storage._errors import NotFoundError
from layoutkit.storage._records import ReviewRuleRecord
from layoutkit.storage._sql._base import TxBase, record


def _scope(project_id: int | None) -> str:
    return "workspace" if project_id is None else f"project:{project_id}"


class ReviewRuleRows(TxBase):
    def _rule_rows(
        self, workspace_id: int, project_id: int | None, rule_id: str | None = None
    ) -> Sequence[Row[Any]]:
        r = s.review_rules
        query = select(r).where(r.c.workspace_id == workspace_id, r.c.scope == _scope(project_id))
        if rule_id is not None:
            query = query.where(r.c.rule_id == rule_id)
        return self.conn.execute(query.order_by(r.c.id)).all()

    def review_rules(
        self, workspace_id: int, project_id: int | None = None
    ) -> list[ReviewRuleRecord]:
        latest: dict[str, ReviewRuleRecord] = {}
        # Rows come oldest first: a rule keeps the place its first version took,
        # and each later version replaces the one before.
        for row in self._rule_rows(workspace_id, project_id):
            latest[row.rule_id] = record(row, ReviewRuleRecord)
        return [rec for rec in latest.values() if rec.source is not None]

    def review_rule_history(
        self, workspace_id: int, rule_id: str, project_id: int | None = None
    ) -> list[ReviewRuleRecord]:
        return [
            record(r, ReviewRuleRecord) for r in self._rule_rows(workspace_id, project_id, rule_id)
        ]

    def write_review_rule(
        self,
        workspace_id: int,
        rule_id: str,
        source: str | None,
        *,
        author: str,
        project_id: int | None = None,
    ) -> ReviewRuleRecord:
        self._write()
        # Writers of one layer queue on its owner's row, so each takes the next
        # version in turn (SQLite's write transaction already lets one in at a time).
        owner = s.workspaces if project_id is None else s.projects
        key = workspace_id if project_id is None else project_id
        lock = select(owner.c.id).where(owner.c.id == key)
        if self.conn.execute(lock.with_for_update() if self._pg else lock).first() is None:
            raise NotFoundError(f"{'workspace' if project_id is None else 'project'} {key}")
        r = s.review_rules
        scope = _scope(project_id)
        last = self.conn.execute(
            select(func.max(r.c.version)).where(
                r.c.workspace_id == workspace_id, r.c.scope == scope, r.c.rule_id == rule_id
            )
        ).scalar()
        row = self.conn.execute(
            insert(r)
            .values(
                workspace_id=workspace_id,
                project_id=project_id,
                scope=scope,
                rule_id=rule_id,
                version=(last or 0) + 1,
                source=source,
                author=author,
                created_at=self.now(),
            )
            .returning(*r.c)
        ).one()
        return record(row, ReviewRuleRecord)
