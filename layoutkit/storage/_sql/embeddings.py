"""Task vectors of meaning search: which tasks of a window hold a current one,
the vectors themselves, the tasks still to embed, and storing a new vector."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.dialects import postgresql, sqlite

from layoutkit.storage import _schema as s
from layoutkit.storage._records import TaskEmbeddingRecord, TaskEmbeddingStamp, TaskRecord
from layoutkit.storage._sql._base import TxBase, record, utc

#: Task columns a meaning window may be narrowed by (the search facets).
WINDOW_FILTERS = frozenset({"id", "project_id", "type", "state", "status"})


class EmbeddingRows(TxBase):
    def _live_tasks(self, workspace_id: int, filters: Mapping[str, Collection[Any]]) -> Any:
        """The WHERE clause of a workspace's tasks within ``filters`` (drafts left out)."""
        unknown = set(filters) - WINDOW_FILTERS
        if unknown:
            raise ValueError(f"no meaning-window filter {sorted(unknown)}")
        t = s.tasks.c
        clauses = [t.workspace_id == workspace_id, t.draft.is_(None)]
        clauses += [t[name].in_(list(values)) for name, values in filters.items()]
        return and_(*clauses)

    def task_embedding_window(
        self,
        workspace_id: int,
        model: str,
        *,
        filters: Mapping[str, Collection[Any]],
        limit: int,
    ) -> tuple[list[TaskEmbeddingStamp], int]:
        t, e = s.tasks.c, s.task_embeddings.c
        where = self._live_tasks(workspace_id, filters)
        # Currency is decided in the query: no stamp is parsed per row, which on
        # SQLite costs more than the rest of a search.
        current = and_(e.model == model, e.task_updated_at == t.updated_at)
        rows = self.conn.execute(
            select(t.id, current, e.text_hash)
            .select_from(s.tasks.outerjoin(s.task_embeddings, e.task_id == t.id))
            .where(where)
            .order_by(t.updated_at.desc(), t.id.desc())
            .limit(limit)
        ).all()
        stamps = [TaskEmbeddingStamp(row[0], bool(row[1]), row[2]) for row in rows]
        if len(stamps) < limit:
            return stamps, len(stamps)
        total = self.conn.execute(select(func.count()).select_from(s.tasks).where(where)).scalar()
        return stamps, int(total or 0)

    def task_embeddings(self, task_ids: Sequence[int]) -> dict[int, TaskEmbeddingRecord]:
        out: dict[int, TaskEmbeddingRecord] = {}
        e = s.task_embeddings.c
        # Chunked: a window of thousands of ids stays under every driver's
        # parameter cap (SQLite's is 32,766).
        for start in range(0, len(task_ids), 2000):
            chunk = list(task_ids[start : start + 2000])
            for row in self.conn.execute(select(s.task_embeddings).where(e.task_id.in_(chunk))):
                out[row.task_id] = record(row, TaskEmbeddingRecord)
        return out

    def tasks_to_embed(
        self,
        workspace_id: int,
        model: str,
        *,
        limit: int,
        before: tuple[datetime, int] | None = None,
    ) -> list[tuple[TaskRecord, str | None]]:
        t, e = s.tasks.c, s.task_embeddings.c
        query = (
            select(s.tasks, e.model.label("vector_model"), e.text_hash.label("vector_hash"))
            .select_from(s.tasks.outerjoin(s.task_embeddings, e.task_id == t.id))
            .where(
                self._live_tasks(workspace_id, {}),
                or_(
                    e.task_id.is_(None),
                    e.model != model,
                    e.task_updated_at != t.updated_at,
                ),
            )
            .order_by(t.updated_at.desc(), t.id.desc())
            .limit(limit)
        )
        if before is not None:
            at, task_id = before
            query = query.where(or_(t.updated_at < at, and_(t.updated_at == at, t.id < task_id)))
        rows = self.conn.execute(query).all()
        return [
            (
                record(row, TaskRecord),
                row.vector_hash if row.vector_model == model else None,
            )
            for row in rows
        ]

    def put_task_embedding(
        self,
        task_id: int,
        *,
        model: str,
        dim: int,
        text_hash: str,
        task_updated_at: datetime,
        vector: bytes,
    ) -> bool:
        self._write()
        t = s.tasks.c
        task = self.conn.execute(
            select(t.workspace_id, t.updated_at).where(t.id == task_id)
        ).first()
        # A task changed (or gone) since its text was read keeps its old vector:
        # the next round embeds what it holds now.
        if task is None or utc(task.updated_at) != task_updated_at:
            return False
        values = {
            "task_id": task_id,
            "workspace_id": task.workspace_id,
            "model": model,
            "dim": dim,
            "text_hash": text_hash,
            "task_updated_at": task_updated_at,
            "vector": vector,
        }
        # An upsert, not delete-and-insert: two processes may embed the same task
        # at once, and on PostgreSQL a failed insert would abort the transaction.
        stmt = (postgresql if self._pg else sqlite).insert(s.task_embeddings).values(**values)
        self.conn.execute(
            stmt.on_conflict_do_update(
                index_elements=["task_id"],
                set_={k: v for k, v in values.items() if k != "task_id"},
            )
        )
        return True
