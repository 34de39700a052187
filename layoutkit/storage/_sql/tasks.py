"""The task engine's rows: tasks, their vocabulary, their versioned refs and their events."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    func,
    insert,
    literal,
    literal_column,
    or_,
    select,
    true,
    update,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.selectable import Join

from layoutkit.search_text import COMMENT_ACTION
from layoutkit.storage import _schema as s
from layoutkit.storage._errors import NotFoundError
from layoutkit.storage._records import (
    TaskEventRecord,
    TaskRecord,
    TaskRefRecord,
    TaskTitleQuery,
    TaskTitleRow,
    TaskVocabRecord,
)
from layoutkit.storage._sql._base import TxBase, check_fields, in_list, record, utc

#: Columns a task write may set (the service maps spec names onto these).
TASK_COLUMNS = frozenset(
    {
        "project_id",
        "key",
        "title",
        "body",
        "state",
        "status",
        "type",
        "priority",
        "assignee",
        "assignee_id",
        "sprint_id",
        "milestone_id",
        "parent_id",
        "due_at",
        "estimate",
        "human",
        "labels",
        "gates",
        "next_action",
        "outcome",
        "decisions",
        "branch",
        "fields",
        "draft",
        "source",
    }
)
#: What a task row holds when a write leaves a column out.
_TASK_DEFAULTS: dict[str, Any] = {
    "project_id": None,
    "key": None,
    "body": "",
    "state": None,
    "status": "backlog",
    "type": "task",
    "priority": "",
    "assignee": None,
    "assignee_id": None,
    "sprint_id": None,
    "milestone_id": None,
    "parent_id": None,
    "due_at": None,
    "estimate": None,
    "human": None,
    "labels": [],
    "gates": [],
    "next_action": "",
    "outcome": "",
    "decisions": "",
    "branch": "",
    "fields": {},
    "draft": None,
    "source": None,
}
VOCAB_KINDS = frozenset({"state", "label", "field", "sprint", "milestone", "view", "rule"})


def vocab_scope(project_id: int | None) -> str:
    return "workspace" if project_id is None else f"project:{project_id}"


#: The columns :meth:`TaskRows.task_titles` reads, in :class:`TaskTitleRow`'s order.
_TITLE_COLUMNS = (
    s.tasks.c.id,
    s.tasks.c.workspace_id,
    s.tasks.c.project_id,
    s.tasks.c.key,
    s.tasks.c.title,
    s.tasks.c.type,
    s.tasks.c.status,
    s.tasks.c.state,
    s.tasks.c.parent_id,
    s.tasks.c.draft,
    s.tasks.c.updated_at,
)


@functools.cache
def _task_by_key(driver: str) -> tuple[Any, Any, tuple[Any, ...]]:
    """PostgreSQL's LATERAL read of each task whose id the common table ``driver`` holds
    (see :meth:`TaskRows.task_titles`), its columns, and those a row of titles shows.
    Built once per driver name: making the subquery's columns (a proxy and its events
    per column) and the statement around it was a fifth of a resolve's CPU."""
    t = s.tasks.c
    task = (
        select(*_TITLE_COLUMNS, t.assignee, t.created_by)
        .where(t.id == literal_column(f"{driver}.id"))
        .offset(0)
        .lateral("task")
    )
    c = task.c
    return task, c, tuple(c[col.name] for col in _TITLE_COLUMNS)


def _title_row(row: Any) -> TaskTitleRow:
    """A row of :data:`_TITLE_COLUMNS` as its record. Built by position: cattrs'
    structuring, which only passes these values on, cost as much as reading them
    (a resolve reads up to a few hundred rows)."""
    return TaskTitleRow(*row[:10], updated_at=utc(row[10]))


@functools.cache
def _titles_by_id(pg: bool) -> Any:
    return select(*_TITLE_COLUMNS).where(in_list(s.tasks.c.id, pg))


@functools.cache
def _child_counts(pg: bool) -> Any:
    t = s.tasks.c
    return (
        select(t.parent_id, func.count())
        .where(in_list(t.parent_id, pg), t.draft.is_(None))
        .group_by(t.parent_id)
    )


class TaskRows(TxBase):
    # ------------------------------------------------------------------ tasks

    def insert_task(
        self, workspace_id: int, *, title: str, created_by: str, asked_by: str, **values: Any
    ) -> TaskRecord:
        self._write()
        check_fields(values, TASK_COLUMNS, "task")
        now = self.now()
        row = self.conn.execute(
            insert(s.tasks)
            .values(
                **{**_TASK_DEFAULTS, **values},
                workspace_id=workspace_id,
                title=title,
                created_by=created_by,
                asked_by=asked_by,
                created_at=now,
                updated_at=now,
            )
            .returning(*s.tasks.c)
        ).one()
        self._touch_search("task", row.id)
        return record(row, TaskRecord)

    def task(self, task_id: int, *, lock: bool = False) -> TaskRecord | None:
        query = select(s.tasks).where(s.tasks.c.id == task_id)
        if lock and self._pg:
            query = query.with_for_update()
        row = self.conn.execute(query).first()
        return None if row is None else record(row, TaskRecord)

    def task_by_key(self, workspace_id: int, key: str) -> TaskRecord | None:
        t = s.tasks.c
        row = self.conn.execute(
            select(s.tasks).where(t.workspace_id == workspace_id, t.key == key)
        ).first()
        return None if row is None else record(row, TaskRecord)

    def update_task(self, task_id: int, **fields: Any) -> TaskRecord:
        self._write()
        check_fields(fields, TASK_COLUMNS, "task")
        t = s.tasks.c
        row = self.conn.execute(
            update(s.tasks)
            .where(t.id == task_id)
            .values(**fields, updated_at=self.now())
            .returning(*s.tasks.c)
        ).first()
        if row is None:
            raise NotFoundError(f"no task {task_id}")
        self._touch_search("task", task_id)
        return record(row, TaskRecord)

    def tasks(
        self,
        workspace_id: int,
        *,
        project_id: int | None = None,
        parent_id: int | None = None,
        ids: Sequence[int] | None = None,
        limit: int | None = None,
    ) -> list[TaskRecord]:
        """The workspace's tasks, most recently updated first, filtered."""
        t = s.tasks.c
        if ids is not None:
            # By primary key: filtered on the workspace in SQL, SQLite would walk the
            # workspace's whole (workspace, updated) index to find a handful of ids.
            query = select(s.tasks).where(
                t.id.in_(list(ids)), (t.workspace_id + 0) == workspace_id, t.deleted_at.is_(None)
            )
        else:
            query = select(s.tasks).where(t.workspace_id == workspace_id, t.deleted_at.is_(None))
        if project_id is not None:
            query = query.where(t.project_id == project_id)
        if parent_id is not None:
            query = query.where(t.parent_id == parent_id)
        query = query.order_by(t.updated_at.desc(), t.id.desc())
        if limit is not None:
            query = query.limit(limit)
        return [record(r, TaskRecord) for r in self.conn.execute(query)]

    def task_titles(
        self, workspace_id: int, query: TaskTitleQuery, *, limit: int, ordered: bool = True
    ) -> list[TaskTitleRow]:
        t = s.tasks.c
        matched = self._task_title_matches(  # type: ignore[attr-defined]
            workspace_id, query.terms, match=query.match, drafts=query.drafts
        )
        c: Any = t
        # The tasks the rows are read from: the title match's, else on PostgreSQL an
        # under's descendants, read down from it (the same blindness as below: it
        # read every task of the workspace, once per descendant, 400-700 ms).
        # SQLite reads the descendants once and keeps them; PostgreSQL's matches
        # walk up their own parent chains (see _title_facets).
        driver, under = matched, "up" if self._pg else "down"
        if matched is None and self._pg and query.under is not None:
            driver, under = self._descendants(query.under), "held"
        if driver is None:
            select_rows = select(*_TITLE_COLUMNS).where(*self._title_facets(workspace_id, query, t))
        elif self._pg:
            # Each matching title's task by its key alone, in a LATERAL subquery the
            # planner may neither pull up nor push the facets into (OFFSET 0): given
            # the workspace or a facet to use, with no statistics yet for a
            # workspace's new tasks, it read every task of the workspace (by its
            # index) for each match, 80-300 ms at 100k tasks, minutes for a common word.
            task, c, columns = _task_by_key(driver.name)
            select_rows = (
                select(*columns)
                .select_from(driver.join(task, true()))
                .where(*self._title_facets(workspace_id, query, c, under=under))
            )
        else:
            select_rows = select(*_TITLE_COLUMNS).where(
                *self._title_facets(workspace_id, query, t, under=under)
            )
            select_rows = select_rows.select_from(
                _MatchFirst(matched, s.tasks, matched.c.id == t.id)
            )
        order: list[Any] = []
        if matched is not None and query.match == "any":
            # The titles holding the most terms rank best in the index.
            order.append(matched.c.score.desc())
        # The shortest titles holding the words are the nearest to them.
        order += [func.length(c.title), c.updated_at.desc(), c.id.desc()]
        if ordered:
            select_rows = select_rows.order_by(*order)
        rows = self.conn.execute(select_rows.limit(limit))
        return [_title_row(r) for r in rows]

    def task_titles_by_id(self, task_ids: Sequence[int]) -> dict[int, TaskTitleRow]:
        if not task_ids:
            return {}
        found = self.driver_execute(
            _titles_by_id(self._pg), {"values": self.driver_list(sorted(set(task_ids)))}
        )
        return {row[0]: _title_row(row) for row in found}

    def _title_facets(
        self, workspace_id: int, query: TaskTitleQuery, t: Any, *, under: str = "down"
    ) -> list[ColumnElement[bool]]:
        """The conditions ``query``'s facets make on the task columns ``t``. ``under``
        says how a row is found under the task: ``down``, among its descendants;
        ``up``, by the row's own parent chain (the few rows a title match found);
        ``held``, not at all (the rows are its descendants)."""
        where: list[ColumnElement[bool]] = [t.workspace_id == workspace_id]
        if not query.drafts:
            where.append(t.draft.is_(None))
        if query.types is not None:
            where.append(t.type.in_(query.types))
        if query.statuses is not None:
            where.append(t.status.in_(query.statuses))
        if query.state is not None:
            where.append(func.lower(t.state) == query.state.lower())
        if query.project_id is not None:
            where.append(t.project_id == query.project_id)
        if query.ids is not None:
            where.append(t.id.in_(query.ids))
        if query.assignees or query.creators:
            where.append(or_(t.assignee.in_(query.assignees), t.created_by.in_(query.creators)))
        if query.under is not None and under != "held":
            if under == "up":
                # The matching tasks each walk up their own parent chain (a
                # primary-key read per level): the epic's descendants, read down from
                # it beside the match, were a merge join over every task on
                # PostgreSQL, whose planner takes a recursive step for ten times the
                # rows it starts from (100-200 ms at 100k tasks).
                where.append(literal(query.under).in_(select(_ancestors(t.parent_id).c.id)))
            else:
                where.append(t.id.in_(select(self._descendants(query.under).c.id)))
        return where

    def _descendants(self, root: int) -> Any:
        t = s.tasks.c
        below = select(t.id).where(t.parent_id == root).cte("below", recursive=True)
        child = s.tasks.alias("child")
        if self._pg:
            # Each level's children by the parent index, in a LATERAL subquery: the
            # planner takes a recursive step for ten times the rows it starts from
            # and, with no statistics for new tasks, merge-joined every task.
            children = select(child.c.id).where(child.c.parent_id == below.c.id).offset(0).lateral()
            return below.union(select(children.c.id).select_from(below.join(children, true())))
        # An explicit join: inside PostgreSQL's LATERAL read a WHERE-only join read as a
        # cartesian product to SQLAlchemy's FROM linter (a warning, the same SQL plan).
        step = select(child.c.id).select_from(child.join(below, child.c.parent_id == below.c.id))
        return below.union(step)

    def task_child_counts(self, task_ids: Sequence[int]) -> dict[int, int]:
        if not task_ids:
            return {}
        rows = self.driver_execute(
            _child_counts(self._pg), {"values": self.driver_list(sorted(set(task_ids)))}
        )
        counts = dict.fromkeys(task_ids, 0)
        counts.update({parent: count for parent, count in rows})
        return counts

    # ------------------------------------------------------------ vocabulary

    def task_vocab(
        self, workspace_id: int, kind: str, project_id: int | None = None
    ) -> list[TaskVocabRecord]:
        v = s.task_vocab.c
        query = (
            select(s.task_vocab)
            .where(
                v.workspace_id == workspace_id,
                v.scope == vocab_scope(project_id),
                v.kind == kind,
            )
            .order_by(v.position, v.id)
        )
        return [record(r, TaskVocabRecord) for r in self.conn.execute(query)]

    def task_vocab_item(self, item_id: int) -> TaskVocabRecord | None:
        row = self.conn.execute(select(s.task_vocab).where(s.task_vocab.c.id == item_id)).first()
        return None if row is None else record(row, TaskVocabRecord)

    def ensure_task_vocab(
        self,
        workspace_id: int,
        kind: str,
        key: str,
        *,
        project_id: int | None = None,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> tuple[TaskVocabRecord, bool]:
        """The vocabulary row of ``key`` in its scope, created when missing
        (race-safe); the flag says whether this call created it."""
        self._write()
        if kind not in VOCAB_KINDS:
            raise ValueError(f"not a vocabulary kind: {kind!r}")
        v = s.task_vocab.c
        scope = vocab_scope(project_id)
        position = self.conn.execute(
            select(func.count())
            .select_from(s.task_vocab)
            .where(v.workspace_id == workspace_id, v.scope == scope, v.kind == kind)
        ).scalar_one()
        # RETURNING rather than rowcount: psycopg reports -1 for this statement.
        made = self.conn.execute(
            self._insert_ignoring_conflict(s.task_vocab)
            .values(
                workspace_id=workspace_id,
                project_id=project_id,
                scope=scope,
                kind=kind,
                key=key,
                name=name or key,
                meta=dict(meta or {}),
                position=position,
                created_at=self.now(),
            )
            .returning(v.id)
        ).first()
        row = self.conn.execute(
            select(s.task_vocab).where(
                v.workspace_id == workspace_id, v.scope == scope, v.kind == kind, v.key == key
            )
        ).one()
        return record(row, TaskVocabRecord), made is not None

    # ------------------------------------------------------------------ refs

    def task_refs(self, task_id: int) -> list[TaskRefRecord]:
        """Every version of every ref of the task, in the order they were attached."""
        r = s.task_refs.c
        query = select(s.task_refs).where(r.task_id == task_id).order_by(r.id)
        return [record(row, TaskRefRecord) for row in self.conn.execute(query)]

    def refs_of_tasks(self, task_ids: Sequence[int]) -> dict[int, list[TaskRefRecord]]:
        """:meth:`task_refs` of several tasks in one query, by task id."""
        out: dict[int, list[TaskRefRecord]] = {i: [] for i in task_ids}
        if not out:
            return out
        r = s.task_refs.c
        query = select(s.task_refs).where(r.task_id.in_(list(out))).order_by(r.id)
        for row in self.conn.execute(query):
            ref = record(row, TaskRefRecord)
            out[ref.task_id].append(ref)
        return out

    def add_task_ref_version(
        self,
        task_id: int,
        kind: str,
        ref: str,
        *,
        meta: Mapping[str, Any],
        author: str,
        blob: str | None = None,
        size: int | None = None,
    ) -> TaskRefRecord:
        """The next version of ``(kind, ref)`` on the task (1 for a new ref). Writers
        of one task are serialised by the caller locking the task row."""
        self._write()
        r = s.task_refs.c
        latest = self.conn.execute(
            select(func.max(r.version)).where(r.task_id == task_id, r.kind == kind, r.ref == ref)
        ).scalar_one()
        now = self.now()
        row = self.conn.execute(
            insert(s.task_refs)
            .values(
                task_id=task_id,
                kind=kind,
                ref=ref,
                version=(latest or 0) + 1,
                meta=dict(meta),
                blob=blob,
                size=size,
                author=author,
                created_at=now,
                updated_at=now,
            )
            .returning(*s.task_refs.c)
        ).one()
        self._touch_search("task", task_id)
        return record(row, TaskRefRecord)

    def set_task_ref_meta(self, ref_id: int, meta: Mapping[str, Any]) -> TaskRefRecord:
        self._write()
        r = s.task_refs.c
        row = self.conn.execute(
            update(s.task_refs)
            .where(r.id == ref_id)
            .values(meta=dict(meta), updated_at=self.now())
            .returning(*s.task_refs.c)
        ).first()
        if row is None:
            raise NotFoundError(f"no task ref {ref_id}")
        self._touch_search("task", row.task_id)
        return record(row, TaskRefRecord)

    # ---------------------------------------------------------------- events

    def record_task_event(
        self, task_id: int, action: str, principal: str, detail: Mapping[str, Any] | None = None
    ) -> TaskEventRecord:
        self._write()
        row = self.conn.execute(
            insert(s.task_events)
            .values(
                task_id=task_id,
                at=self.now(),
                principal=principal,
                action=action,
                detail=dict(detail or {}),
            )
            .returning(*s.task_events.c)
        ).one()
        if action == COMMENT_ACTION:
            # A comment is searchable task content (search rule 2).
            self._touch_search("task", task_id)
        return record(row, TaskEventRecord)

    def task_comments(self, task_ids: Sequence[int]) -> dict[int, list[str]]:
        """What was said in the comments of each task, oldest first, by task id."""
        out: dict[int, list[str]] = {i: [] for i in task_ids}
        if not out:
            return out
        e = s.task_events.c
        rows = self.conn.execute(
            select(e.task_id, e.detail)
            .where(e.task_id.in_(list(out)), e.action == COMMENT_ACTION)
            .order_by(e.id)
        )
        for row in rows:
            said = (row.detail or {}).get("text")
            if isinstance(said, str):
                out[row.task_id].append(said)
        return out

    def task_events(self, task_id: int, *, limit: int | None = None) -> list[TaskEventRecord]:
        """The task's events oldest first; ``limit`` keeps the newest ones."""
        e = s.task_events.c
        query = select(s.task_events).where(e.task_id == task_id).order_by(e.id.desc())
        if limit is not None:
            query = query.limit(limit)
        return [record(row, TaskEventRecord) for row in reversed(self.conn.execute(query).all())]


def _ancestors(parent: Any) -> Any:
    """The ids up the parent chain from ``parent`` (a task's parent column, read
    per row: a CTE nested in the row's condition, not the statement's)."""
    step = s.tasks.alias("step")
    up = select(parent.label("id")).correlate(parent.table).cte("up", recursive=True, nesting=True)
    return up.union(select(step.c.parent_id).select_from(step.join(up, step.c.id == up.c.id)))


class _MatchFirst(Join):
    """A join whose left side SQLite keeps as the outer loop (``CROSS JOIN``): the
    title match, then each task by its key. With a plain join SQLite put the tasks
    between the match and its documents, reached by the workspace's (or a facet's)
    index, and read every task of the workspace once per matching title: 3 s for 55
    titles, minutes for a common word, at 100k tasks. (PostgreSQL joins a LATERAL
    subquery instead, see :meth:`TaskRows.task_titles`.)"""

    inherit_cache = True


@compiles(_MatchFirst, "sqlite")
def _match_first_on_sqlite(join: _MatchFirst, compiler: Any, **kw: Any) -> str:
    kw.pop("asfrom", None)
    return (
        join.left._compiler_dispatch(compiler, asfrom=True, **kw)
        + " CROSS JOIN "
        + join.right._compiler_dispatch(compiler, asfrom=True, **kw)
        + " ON "
        + join.onclause._compiler_dispatch(compiler, **kw)
    )
