"""A project's durable notes for agents, every write a new version of its key."""

from __future__ import annotations

from sqlalchemy import func, insert, select

from layoutkit.storage import _schema as s
from layoutkit.storage._errors import NotFoundError
from layoutkit.storage._records import ProjectMemoryRecord
from layoutkit.storage._sql._base import TxBase, record


class ProjectMemoryRows(TxBase):
    def write_project_memory(
        self, workspace_id: int, project_id: int, key: str, *, text: str, load: str, author: str
    ) -> ProjectMemoryRecord:
        self._write()
        # Writers of one project queue on its row, so each takes the next version
        # in turn (SQLite's write transaction already lets one in at a time).
        lock = select(s.projects.c.id).where(s.projects.c.id == project_id)
        if self.conn.execute(lock.with_for_update() if self._pg else lock).first() is None:
            raise NotFoundError(f"project {project_id}")
        m = s.project_memories
        last = self.conn.execute(
            select(func.max(m.c.version)).where(m.c.project_id == project_id, m.c.key == key)
        ).scalar()
        row = self.conn.execute(
            insert(m)
            .values(
                workspace_id=workspace_id,
                project_id=project_id,
                key=key,
                version=(last or 0) + 1,
                text=text,
                load=load,
                author=author,
                created_at=self.now(),
            )
            .returning(*m.c)
        ).one()
        return record(row, ProjectMemoryRecord)

    def project_memories(self, project_id: int) -> list[ProjectMemoryRecord]:
        m = s.project_memories
        latest: dict[str, ProjectMemoryRecord] = {}
        query = select(m).where(m.c.project_id == project_id).order_by(m.c.key, m.c.version)
        for row in self.conn.execute(query):
            latest[row.key] = record(row, ProjectMemoryRecord)
        return list(latest.values())

    def project_memory_history(self, project_id: int, key: str) -> list[ProjectMemoryRecord]:
        m = s.project_memories
        query = select(m).where(m.c.project_id == project_id, m.c.key == key).order_by(m.c.version)
        return [record(r, ProjectMemoryRecord) for r in self.conn.execute(query)]
