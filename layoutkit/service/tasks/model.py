"""What a task is: its fields and their limits, how it is shown and what search reads of it.

The task family's other modules (finding a task, gates, refs, resolving a
reference, the operations) all read this one; it imports none of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import attrs

from layoutkit.folding import fold
from layoutkit.search_text import task_parts
from layoutkit.service.shared.common import SLUG_PATTERN
from layoutkit.storage import SearchTaskRow, TaskRecord, TaskRefRecord, Tx

if TYPE_CHECKING:
    from layoutkit.service.road.workspace import Workspace

STATUSES = ("backlog", "todo", "in_progress", "in_review", "done", "cancelled")
#: Statuses of work that is over: a closed task is not live.
CLOSED = frozenset({"done", "cancelled"})
TYPES = ("task", "bug", "story", "epic", "todo", "qa", "journey", "meeting")
PRIORITIES = ("urgent", "high", "medium", "low", "")
#: Principal kinds whose stories are human-asked (the type rule of ``human``).
PEOPLE_KINDS = frozenset({"owner", "user"})
MAX_TITLE = 500
MAX_BODY = 100_000
MAX_TEXT = 20_000
LIST_LIMIT = 100
MAX_LIST_LIMIT = 500

PROJECT: dict[str, Any] = {
    "type": ["string", "null"],
    "pattern": SLUG_PATTERN,
    "description": "project slug (null: no project)",
}
_NULLABLE_ID: dict[str, Any] = {"type": ["integer", "null"], "minimum": 1, "maximum": 2**53 - 1}
GATE: dict[str, Any] = {
    "type": "object",
    "required": ["title"],
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": MAX_TITLE},
        "kind": {"enum": ["step", "human", "date", "action"]},
        "who": {"type": "string", "maxLength": 300},
        "at": {"type": "string", "maxLength": 40},
        "evidence": {"type": "string", "maxLength": MAX_TEXT},
        "done": {"type": "boolean"},
        # What a hand-back files with an item (service/tasks/hand_back.py).
        "id": {"type": "string", "maxLength": 20},
        "when": {"type": "string", "maxLength": 300},
        "ask": {"type": "string", "maxLength": 90},
        "why": {"type": "string", "maxLength": MAX_TEXT},
        "verb": {"enum": ["decide", "approve", "review", "test", "answer"]},
        "type": {"enum": ["task", "bug"]},
        "priority": {"enum": list(PRIORITIES)},
        "body": {"type": "string", "maxLength": MAX_TEXT},
        "task": {"type": "integer", "minimum": 1, "maximum": 2**53 - 1},
        "ripeAt": {"type": "string", "maxLength": 40, "description": "when its condition fired"},
        "state": {
            "enum": ["open", "waiting", "due", "done"],
            "description": "shown, never stored: derived from done, when and ripeAt",
        },
    },
    "additionalProperties": False,
}
#: Every field a task write takes, by its name in params.
TASK_FIELDS: dict[str, Any] = {
    "title": {"type": "string", "minLength": 1, "maxLength": MAX_TITLE},
    "body": {"type": "string", "maxLength": MAX_BODY},
    "key": {
        "type": ["string", "null"],
        "pattern": "^[A-Za-z][A-Za-z0-9_-]{0,39}$",
        "description": "a short handle unique in the workspace, e.g. CORE-12",
    },
    "project": PROJECT,
    "state": {"type": ["string", "null"], "minLength": 1, "maxLength": 80},
    "status": {"enum": list(STATUSES)},
    "type": {"enum": list(TYPES), "description": "task type"},
    "priority": {"enum": list(PRIORITIES), "description": "empty: no priority"},
    "assignee": {"type": ["string", "null"], "maxLength": 300},
    "assigneeId": _NULLABLE_ID,
    "sprintId": _NULLABLE_ID,
    "milestoneId": _NULLABLE_ID,
    "parentId": _NULLABLE_ID,
    "dueAt": {
        "type": ["string", "null"],
        "maxLength": 40,
        "description": "ISO date or date-time, e.g. 2026-12-01",
    },
    "estimate": {"type": ["number", "null"], "minimum": 0, "maximum": 1e6},
    "human": {
        "type": ["boolean", "null"],
        "description": "human-level (true) or progress (false); null follows the type rule",
    },
    "labels": {
        "type": "array",
        "maxItems": 50,
        "items": {"type": "string", "minLength": 1, "maxLength": 80},
    },
    "gates": {"type": "array", "maxItems": 100, "items": GATE},
    "nextAction": {"type": "string", "maxLength": MAX_TEXT},
    "outcome": {"type": "string", "maxLength": MAX_TEXT},
    "decisions": {"type": "string", "maxLength": MAX_TEXT},
    "branch": {"type": "string", "maxLength": 300},
    "fields": {
        "type": "object",
        "maxProperties": 100,
        "propertyNames": {"pattern": "^[a-zA-Z][a-zA-Z0-9_-]{0,79}$"},
        "additionalProperties": {"type": ["string", "number", "boolean", "null"]},
        "description": "custom fields by key (null removes one)",
    },
}
#: The text fields search reads besides title and body, as ``field:<name>`` in matchedIn.
TEXT_FIELDS = ("gates", "nextAction", "outcome", "decisions", "branch")

#: A task's draft state: waiting for a person, or turned down (NULL for a task).
PENDING = "pending"
DECLINED = "declined"


# ------------------------------------------------------------------ views


def item_state(item: dict[str, Any]) -> str:
    """A checklist item's state: done once ticked; else due once its ``when`` fired
    (``ripeAt``), waiting while it has a ``when`` that has not, open otherwise."""
    if item.get("done"):
        return "done"
    if item.get("ripeAt"):
        return "due"
    return "waiting" if item.get("when") else "open"


def is_human(task: TaskRecord) -> bool:
    """The task's level: as set, else the type rule (epics, and stories people filed)."""
    if task.human is not None:
        return task.human
    return task.type == "epic" or (task.type == "story" and task.asked_by in PEOPLE_KINDS)


def task_url(task: TaskRecord | SearchTaskRow) -> str:
    return f"/tasks/{task.id}"


def task_view(tx: Tx, task: TaskRecord) -> dict[str, Any]:
    project = tx.project(task.project_id) if task.project_id is not None else None
    return {
        "id": task.id,
        "key": task.key,
        "url": task_url(task),
        "title": task.title,
        "body": task.body,
        "project": project.slug if project else None,
        "state": task.state,
        "status": task.status,
        "type": task.type,
        "priority": task.priority,
        "assignee": task.assignee,
        "assigneeId": task.assignee_id,
        "sprintId": task.sprint_id,
        "milestoneId": task.milestone_id,
        "parentId": task.parent_id,
        "dueAt": task.due_at,
        "estimate": task.estimate,
        "human": is_human(task),
        "humanByRule": task.human is None,
        "labels": list(task.labels),
        "gates": [{**g, "state": item_state(g)} for g in task.gates],
        "nextAction": task.next_action,
        "outcome": task.outcome,
        "decisions": task.decisions,
        "branch": task.branch,
        "fields": dict(task.fields),
        # Only a proposed task says so: pending until a person accepts or declines it.
        **({"draft": task.draft, "source": task.source} if task.draft is not None else {}),
        "createdBy": task.created_by,
        "createdAt": task.created_at.isoformat(),
        "updatedAt": task.updated_at.isoformat(),
    }


def brief(task: TaskRecord) -> dict[str, Any]:
    return {
        "id": task.id,
        "key": task.key,
        "title": task.title,
        "type": task.type,
        "status": task.status,
        "state": task.state,
        "url": task_url(task),
    }


# ------------------------------------------------------------------ search text


def searchable_text(task: TaskRecord, refs: Iterable[TaskRefRecord] = ()) -> dict[str, str]:
    """What search reads of a task, by where it matched (``title``, ``body``,
    ``field:<name>``, ``ref``), folded: the parts of :func:`layoutkit.search_text.task_parts`
    (comments aside: ``list`` reads the task and its refs). Hand-back summaries are not in it."""
    latest = {(r.kind, r.ref): {"kind": r.kind, "ref": r.ref, "meta": r.meta} for r in refs}
    parts = task_parts(attrs.asdict(task, recurse=False), latest.values())
    return {k: fold(v) for k, v in parts.items()}


def text_match(words: list[str], texts: dict[str, str]) -> list[str] | None:
    """Where ``words`` matched when every one of them occurs somewhere, else None."""
    where: list[str] = []
    for word in words:
        found = [name for name, text in texts.items() if word in text]
        if not found:
            return None
        where += [n for n in found if n not in where]
    return where


BLOCKING_KINDS = frozenset({"human", "date"})


def open_gates(task: TaskRecord) -> list[dict[str, Any]]:
    """The human and date gates of ``task`` not ticked yet: they block completion."""
    return [g for g in task.gates if g.get("kind") in BLOCKING_KINDS and not g.get("done")]


def task_file_url(ws: Workspace, task_id: int, ref_id: int) -> str:
    """Where the HTTP adapter serves one version of a task's uploaded file."""
    return ws.link(f"/api/v1/tasks/{task_id}/files/{ref_id}")


def ref_view(ws: Workspace, task: TaskRecord, row: TaskRefRecord, versions: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": row.id,
        "kind": row.kind,
        "ref": row.ref,
        "version": row.version,
        "versions": versions,
        "meta": row.meta,
        "by": row.author,
        "at": row.created_at.isoformat(),
    }
    if row.blob is not None:
        out["size"] = row.size
        out["url"] = task_file_url(ws, task.id, row.id)
    return out


def refs_view(ws: Workspace, task: TaskRecord, rows: list[TaskRefRecord]) -> list[dict[str, Any]]:
    """The newest version of each ref of ``task``, in the order they were first attached."""
    latest: dict[tuple[str, str], TaskRefRecord] = {}
    counts: dict[tuple[str, str], int] = {}
    for row in rows:
        key = (row.kind, row.ref)
        counts[key] = counts.get(key, 0) + 1
        if key not in latest or row.version > latest[key].version:
            latest[key] = row
    return [ref_view(ws, task, row, counts[key]) for key, row in latest.items()]
