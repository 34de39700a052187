"""Workspaces and the projects that file their boards."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from sqlalchemy import bindparam, delete, select, update

from layoutkit.storage import _schema as s
from layoutkit.storage._errors import ConflictError, NotFoundError
from layoutkit.storage._records import ProjectRecord, WorkspaceRecord
from layoutkit.storage._sql._base import TxBase, check_fields, record

_PROJECT_FIELDS = frozenset({"slug", "name", "meta", "archived"})


@functools.cache
def _workspace_by_id() -> Any:
    # Every write reads its workspace (an archived one takes none): built once.
    return select(s.workspaces).where(s.workspaces.c.id == bindparam("id"))


class WorkspaceRows(TxBase):
    def create_workspace(self, name: str, meta: Mapping[str, Any] | None = None) -> WorkspaceRecord:
        self._write()
        stmt = self._insert_ignoring_conflict(s.workspaces).values(
            name=name, meta=dict(meta or {}), created_at=self.now()
        )
        row = self.conn.execute(stmt.returning(*s.workspaces.c)).first()
        if row is None:
            raise ConflictError(f"workspace {name!r} exists")
        return record(row, WorkspaceRecord)

    def ensure_workspace(self, name: str = "default") -> WorkspaceRecord:
        found = self.workspace_by_name(name)
        if found is not None:
            return found
        self._write()
        # Two writers may both miss it; the loser's insert is a no-op and it
        # reads the winner's row.
        stmt = self._insert_ignoring_conflict(s.workspaces).values(
            name=name, meta={}, created_at=self.now()
        )
        self.conn.execute(stmt)
        found = self.workspace_by_name(name)
        assert found is not None
        return found

    def workspace(self, workspace_id: int) -> WorkspaceRecord | None:
        found = self.driver_records(_workspace_by_id(), {"id": workspace_id}, WorkspaceRecord)
        return found[0] if found else None

    def workspace_by_name(self, name: str) -> WorkspaceRecord | None:
        row = self.conn.execute(select(s.workspaces).where(s.workspaces.c.name == name)).first()
        return None if row is None else record(row, WorkspaceRecord)

    def workspaces(self) -> list[WorkspaceRecord]:
        rows = self.conn.execute(select(s.workspaces).order_by(s.workspaces.c.id))
        return [record(r, WorkspaceRecord) for r in rows]

    def rename_workspace(self, workspace_id: int, name: str) -> WorkspaceRecord:
        self._write()
        w = s.workspaces.c
        if self.conn.execute(select(w.id).where(w.name == name, w.id != workspace_id)).first():
            raise ConflictError(f"workspace {name!r} exists")
        # The unique index still stops a rename racing another to the same name.
        row = self.conn.execute(
            update(s.workspaces)
            .where(w.id == workspace_id)
            .values(name=name)
            .returning(*s.workspaces.c)
        ).first()
        if row is None:
            raise NotFoundError(f"no workspace {workspace_id}")
        return record(row, WorkspaceRecord)

    def set_workspace_archived(self, workspace_id: int, archived: bool) -> WorkspaceRecord:
        self._write()
        w = s.workspaces.c
        row = self.conn.execute(
            update(s.workspaces)
            .where(w.id == workspace_id)
            .values(archived_at=self.now() if archived else None)
            .returning(*s.workspaces.c)
        ).first()
        if row is None:
            raise NotFoundError(f"no workspace {workspace_id}")
        return record(row, WorkspaceRecord)

    def set_workspace_meta_item(
        self, workspace_id: int, key: str, item: str, value: Any
    ) -> WorkspaceRecord:
        self._write()
        w = s.workspaces.c
        lock = select(w.meta).where(w.id == workspace_id)
        row = self.conn.execute(lock.with_for_update() if self._pg else lock).first()
        if row is None:
            raise NotFoundError(f"no workspace {workspace_id}")
        meta = dict(row.meta or {})
        items = {k: v for k, v in (meta.get(key) or {}).items() if k != item}
        if value is not None:
            items[item] = value
        if items:
            meta[key] = items
        else:
            meta.pop(key, None)
        written = self.conn.execute(
            update(s.workspaces)
            .where(w.id == workspace_id)
            .values(meta=meta)
            .returning(*s.workspaces.c)
        ).first()
        assert written is not None
        return record(written, WorkspaceRecord)

    def create_project(
        self,
        workspace_id: int,
        slug: str,
        *,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> ProjectRecord:
        self._write()
        now = self.now()
        stmt = self._insert_ignoring_conflict(s.projects).values(
            workspace_id=workspace_id,
            slug=slug,
            name=name,
            meta=dict(meta or {}),
            archived=False,
            created_at=now,
            updated_at=now,
        )
        row = self.conn.execute(stmt.returning(*s.projects.c)).first()
        if row is None:
            raise ConflictError(f"project {slug!r} exists")
        return record(row, ProjectRecord)

    def project(self, project_id: int) -> ProjectRecord | None:
        row = self.conn.execute(select(s.projects).where(s.projects.c.id == project_id)).first()
        return None if row is None else record(row, ProjectRecord)

    def project_by_slug(self, workspace_id: int, slug: str) -> ProjectRecord | None:
        row = self.conn.execute(
            select(s.projects).where(
                s.projects.c.workspace_id == workspace_id, s.projects.c.slug == slug
            )
        ).first()
        return None if row is None else record(row, ProjectRecord)

    def projects(self, workspace_id: int) -> list[ProjectRecord]:
        rows = self.conn.execute(
            select(s.projects)
            .where(s.projects.c.workspace_id == workspace_id)
            .order_by(s.projects.c.slug)
        )
        return [record(r, ProjectRecord) for r in rows]

    def update_project(self, project_id: int, **fields: Any) -> ProjectRecord:
        self._write()
        check_fields(fields, _PROJECT_FIELDS, "project")
        if "slug" in fields:
            current = self.project(project_id)
            if current is None:
                raise NotFoundError(f"project {project_id}")
            other = self.project_by_slug(current.workspace_id, fields["slug"])
            if other is not None and other.id != project_id:
                raise ConflictError(f"project {fields['slug']!r} exists")
        row = self.conn.execute(
            update(s.projects)
            .where(s.projects.c.id == project_id)
            .values(**fields, updated_at=self.now())
            .returning(*s.projects.c)
        ).first()
        if row is None:
            raise NotFoundError(f"project {project_id}")
        return record(row, ProjectRecord)

    def delete_project(self, project_id: int) -> bool:
        self._write()
        result = self.conn.execute(delete(s.projects).where(s.projects.c.id == project_id))
        return result.rowcount > 0
