"""Review runs: a plan made once, then the sight rule's state as sheets are served."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select, update

from layoutkit.storage import _schema as s
from layoutkit.storage._errors import NotFoundError
from layoutkit.storage._records import ReviewRunRecord
from layoutkit.storage._sql._base import TxBase, record

_RUN_FIELDS = frozenset({"state", "misses", "served"})


class ReviewRunRows(TxBase):
    def insert_review_run(
        self,
        run_id: str,
        workspace_id: int,
        project_id: int | None,
        *,
        rubric: str,
        sight: str,
        plan: dict[str, Any],
        author: str,
    ) -> ReviewRunRecord:
        self._write()
        now = self.now()
        values = {
            "id": run_id,
            "workspace_id": workspace_id,
            "project_id": project_id,
            "state": "planned",
            "rubric": rubric,
            "sight": sight,
            "misses": 0,
            "served": [],
            "plan": plan,
            "author": author,
            "created_at": now,
            "updated_at": now,
        }
        self.conn.execute(insert(s.review_runs).values(**values))
        return ReviewRunRecord(**values)

    def review_run(
        self, workspace_id: int, run_id: str, *, lock: bool = False
    ) -> ReviewRunRecord | None:
        r = s.review_runs.c
        query = select(s.review_runs).where(r.id == run_id, r.workspace_id == workspace_id)
        if lock and self._pg:
            query = query.with_for_update()
        row = self.conn.execute(query).first()
        return None if row is None else record(row, ReviewRunRecord)

    def update_review_run(self, run_id: str, **fields: Any) -> ReviewRunRecord:
        self._write()
        unknown = set(fields) - _RUN_FIELDS
        if unknown:
            raise ValueError(f"not review run fields: {sorted(unknown)}")
        r = s.review_runs.c
        done = self.conn.execute(
            update(s.review_runs).where(r.id == run_id).values(**fields, updated_at=self.now())
        )
        if done.rowcount == 0:
            raise NotFoundError(f"no review run {run_id}")
        row = self.conn.execute(select(s.review_runs).where(r.id == run_id)).one()
        return record(row, ReviewRunRecord)

    def verified_runs(
        self, workspace_id: int, project_id: int | None, rubric: str
    ) -> list[ReviewRunRecord]:
        r = s.review_runs.c
        project = r.project_id.is_(None) if project_id is None else r.project_id == project_id
        query = select(s.review_runs).where(
            r.workspace_id == workspace_id, project, r.rubric == rubric, r.state == "verified"
        )
        return [
            record(row, ReviewRunRecord) for row in self.conn.execute(query.order_by(r.created_at))
        ]

    def recent_review_runs(
        self, workspace_id: int, project_id: int | None, limit: int = 20
    ) -> list[ReviewRunRecord]:
        r = s.review_runs.c
        project = r.project_id.is_(None) if project_id is None else r.project_id == project_id
        query = (
            select(s.review_runs)
            .where(r.workspace_id == workspace_id, project)
            .order_by(r.created_at.desc(), r.id.desc())
            .limit(limit)
        )
        return [record(row, ReviewRunRecord) for row in self.conn.execute(query)]
