"""Tasks through the generic verbs: ``create``, ``update``, ``list`` and ``get`` with kind task.

A task carries the fields a patch sets (state, status, type, priority,
assignee, assigneeId, sprintId, milestoneId, parentId, dueAt, estimate,
project, human) plus its key, title, body and the text fields search reads
(gates with their evidence, nextAction, outcome, decisions, branch) and
custom ``fields``. Every write appends to the task's event log.

Rules decided here:

- ``human`` follows the type rule unless it is set: epics are human-level,
  and so are stories a person (the owner or a user) filed; anything else
  rolls up as progress. Sending ``human: null`` hands it back to the rule.
- States, labels and custom field keys are workspace vocabulary, made on
  first use in the task's project (or the workspace without one); sprints
  and milestones are named by id and must exist (``create`` kind sprint or
  milestone), 422 otherwise.
- ``list`` with ``f.text`` keeps the tasks whose searchable text (the same
  fields search reads: :func:`searchable_text`) holds every word of it,
  compared folded (case and accents never matter) and never corrected.
- A task is named by its number, or ``<workspace>/<number>`` for one in
  another workspace of this store; ``#12``, ``tk-12`` and a task URL are the
  same number written as a pin (``service/task_pins.py``). Anything else is
  a reference: the operation does not act on it but answers 400
  ``task_reference`` with the resolver's verdict, its candidates and the
  exact call to make (:func:`resolve_task_reference`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

import attrs

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.folding import fold
from layoutkit.search_text import task_parts
from layoutkit.service._common import ID, SLUG_PATTERN
from layoutkit.service.generic import kind_handler
from layoutkit.service.ids import TASK_ID, unknown_task
from layoutkit.service.task_pins import task_id_pin
from layoutkit.service.workspace import Call
from layoutkit.storage import TaskRecord, TaskRefRecord, Tx

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
        # What a hand-back files with an item (service/hand_back.py).
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
#: Params name -> column, where they differ.
_COLUMN = {
    "assigneeId": "assignee_id",
    "sprintId": "sprint_id",
    "milestoneId": "milestone_id",
    "parentId": "parent_id",
    "dueAt": "due_at",
    "nextAction": "next_action",
}
#: The text fields search reads besides title and body, as ``field:<name>`` in matchedIn.
TEXT_FIELDS = ("gates", "nextAction", "outcome", "decisions", "branch")


# ------------------------------------------------------------------ task ids


def resolve_task_reference(call: Call, text: str) -> dict[str, Any]:
    """The reference resolver's verdict on ``text``, which is not a task id: what
    search's mode resolve answers (:mod:`layoutkit.service.resolve`)."""
    from layoutkit.service.resolve import resolve_reference

    return resolve_reference(call, text)


def find_task(
    call: Call, value: int | str, *, operation: str, field: str = "id", lock: bool = False
) -> TaskRecord:
    """The task ``value`` names in the call's workspace: a number, or a text that is
    one pin (``#12``, ``tk-12``, ``<workspace>/<number>``, a task URL).

    The road has already moved the call into the workspace an id names (or
    refused it), so a workspace here that is not the call's own names no task.
    404 ``unknown_task`` when no such task is here; a reference (a title, a
    key, anything else) is answered 400 ``task_reference`` with the
    resolver's verdict, its candidates and the exact call to make: this
    operation with the id filled in when the verdict is exact or confident,
    else the resolver's own next call.
    """
    pin = task_id_pin(value)
    if pin is None:
        raise _reference_refusal(call, str(value).strip(), operation, field)
    if pin.workspace is not None and pin.workspace != call.workspace_name:
        raise unknown_task(value, field)
    task = call.tx.task(pin.number, lock=lock)
    if task is None or task.workspace_id != call.workspace_id:
        raise unknown_task(pin.number, field)
    return task


def _reference_refusal(call: Call, text: str, operation: str, field: str) -> ServiceError:
    try:
        verdict = resolve_task_reference(call, text)
    except ServiceError as refusal:
        # The palette refused a tag or group; it is this field that carried it.
        refusal.body["field"] = field
        return refusal
    candidates = verdict["candidates"]
    if verdict["verdict"] in ("exact", "confident"):
        next_call = {"operation": operation, "params": {**call.params, field: candidates[0]["id"]}}
    else:
        next_call = verdict["next"]
    return ServiceError(
        400,
        "task_reference",
        f"{field} is a reference, not a task id: the resolver says {verdict['verdict']}",
        field=field,
        verdict=verdict["verdict"],
        interpreted=verdict["interpreted"],
        candidates=candidates,
        missing=verdict["missing"],
        outside=verdict["outside"],
        next=next_call,
    )


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


def task_url(task: TaskRecord) -> str:
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


def _brief(task: TaskRecord) -> dict[str, Any]:
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


# ------------------------------------------------------------------ writes


def _check_due(value: str | None) -> None:
    if value is None:
        return
    try:
        if len(value) == 10:
            date.fromisoformat(value)
        else:
            datetime.fromisoformat(value)
    except ValueError as exc:
        raise ServiceError(
            400, "invalid_params", f"dueAt {value!r} is not an ISO date", field="dueAt"
        ) from exc


def _project_id(call: Call, slug: str | None, *, create: bool) -> int | None:
    if slug is None:
        return None
    project = call.tx.project_by_slug(call.workspace_id, slug)
    if project is not None:
        return project.id
    if not create:
        raise ServiceError(
            422,
            "unknown_project",
            f"no project {slug!r} in this workspace",
            field="project",
            didYouMean=did_you_mean(slug, [p.slug for p in call.tx.projects(call.workspace_id)]),
        )
    return call.tx.create_project(call.workspace_id, slug).id


def _check_vocab_id(call: Call, workspace_id: int, kind: str, item_id: int | None) -> None:
    if item_id is None:
        return
    item = call.tx.task_vocab_item(item_id)
    if item is None or item.workspace_id != workspace_id or item.kind != kind:
        raise ServiceError(
            422,
            f"unknown_{kind}",
            f"no {kind} {item_id}; create it first (create kind {kind})",
            field=f"{kind}Id",
        )


def _check_parent(call: Call, task: TaskRecord | None, workspace_id: int, parent: int) -> None:
    tx = call.tx
    seen: set[int] = set()
    current: int | None = parent
    while current is not None and current not in seen:
        if task is not None and current == task.id:
            raise ServiceError(
                400, "parent_cycle", "a task cannot sit under itself", field="parentId"
            )
        seen.add(current)
        row = tx.task(current)
        if row is None or row.workspace_id != workspace_id:
            raise ServiceError(404, "unknown_task", f"no task {current}", field="parentId")
        current = row.parent_id


def _columns(call: Call, task: TaskRecord | None, workspace_id: int) -> dict[str, Any]:
    """The columns the params set, checked; vocabulary the task uses is made here."""
    p = call.params
    out: dict[str, Any] = {}
    for name in TASK_FIELDS:
        if name in p and name not in ("project", "fields"):
            out[_COLUMN.get(name, name)] = p[name]
    if "key" in p and p["key"] is not None:
        other = call.tx.task_by_key(workspace_id, p["key"])
        if other is not None and (task is None or other.id != task.id):
            raise ServiceError(
                409, "key_taken", f"key {p['key']!r} is task {other.id}'s", field="key"
            )
    if "project" in p:
        # A new task's project is made on first use, as a board's is; moving a task
        # names an existing one.
        out["project_id"] = _project_id(call, p["project"], create=task is None)
    for column in ("title", "body", "next_action", "outcome", "decisions", "branch"):
        if column in out and out[column] is None:
            out[column] = ""
    _check_due(p.get("dueAt"))
    _check_vocab_id(call, workspace_id, "sprint", p.get("sprintId"))
    _check_vocab_id(call, workspace_id, "milestone", p.get("milestoneId"))
    if p.get("parentId") is not None:
        _check_parent(call, task, workspace_id, p["parentId"])
    if "labels" in p:
        out["labels"] = list(dict.fromkeys(p["labels"]))
    if "gates" in p:
        # An item's state is derived each time it is shown, never kept.
        out["gates"] = [{k: v for k, v in g.items() if k != "state"} for g in p["gates"]]
    if "fields" in p:
        current = dict(task.fields) if task is not None else {}
        for key, value in p["fields"].items():
            if value is None:
                current.pop(key, None)
            else:
                current[key] = value
        out["fields"] = current
    project_id = out.get("project_id", task.project_id if task is not None else None)
    words = [("state", out.get("state"))] if out.get("state") else []
    words += [("label", label) for label in out.get("labels", ())]
    words += [("field", key) for key in p.get("fields", {}) if p["fields"][key] is not None]
    for kind, word in words:
        call.tx.ensure_task_vocab(workspace_id, kind, word, project_id=project_id)
    return out


def _changes(before: TaskRecord, after: TaskRecord, columns: Iterable[str]) -> dict[str, Any]:
    names = {v: k for k, v in _COLUMN.items()}
    out = {}
    for column in columns:
        old, new = getattr(before, column), getattr(after, column)
        if old != new:
            out[names.get(column, "project" if column == "project_id" else column)] = {
                "from": old,
                "to": new,
            }
    return out


#: Checklist kinds that block completion until ticked.
BLOCKING_KINDS = frozenset({"human", "date"})


def open_gates(task: TaskRecord) -> list[dict[str, Any]]:
    """The human and date gates of ``task`` not ticked yet: they block completion."""
    return [g for g in task.gates if g.get("kind") in BLOCKING_KINDS and not g.get("done")]


def complete_task(call: Call, task: TaskRecord, why: str) -> TaskRecord:
    """Move ``task`` to done (a merged PR, say), unless it is closed already or an open
    human or date gate holds it (then it waits in review, and the log says why)."""
    if task.status in CLOSED:
        return task
    gates = open_gates(task)
    if gates:
        call.tx.record_task_event(
            task.id,
            "task.status",
            call.principal.label,
            {"blocked": [g["title"] for g in gates], "why": why},
        )
        if task.status == "in_review":
            return task
        moved = call.tx.update_task(task.id, status="in_review")
        call.tx.record_task_event(
            task.id,
            "task.status",
            call.principal.label,
            {"status": {"from": task.status, "to": "in_review"}, "why": why},
        )
        return moved
    done = call.tx.update_task(task.id, status="done")
    call.tx.record_task_event(
        task.id,
        "task.status",
        call.principal.label,
        {"status": {"from": task.status, "to": "done"}, "why": why},
    )
    return done


@kind_handler(
    "create",
    "task",
    TASK_FIELDS,
    required=("title",),
    writes=True,
)
def create_task(call: Call) -> dict[str, Any]:
    return new_task(call)


def new_task(call: Call) -> dict[str, Any]:
    """What ``create`` kind task does with ``call.params``, for operations that file
    tasks of their own (spot, propose_tasks): ``{task, url}``."""
    columns = _columns(call, None, call.workspace_id)
    title = columns.pop("title")
    task = call.tx.insert_task(
        call.workspace_id,
        title=title,
        created_by=call.principal.label,
        asked_by=call.principal.kind,
        **columns,
    )
    call.tx.record_task_event(
        task.id,
        "task.create",
        call.principal.label,
        {k: v for k, v in call.params.items() if k not in ("kind", "requestKey", "body")},
    )
    return {"task": task_view(call.tx, task), "url": task_url(task)}


@kind_handler(
    "update",
    "task",
    {"id": TASK_ID, **TASK_FIELDS},
    required=("id",),
    writes=True,
)
def update_task(call: Call) -> dict[str, Any]:
    return change_task(call)


def change_task(call: Call) -> dict[str, Any]:
    """What ``update`` kind task does with ``call.params`` (bulk_update_tasks runs it per
    task): ``{task, changed}``."""
    before = find_task(call, call.params["id"], operation="update", lock=True)
    columns = _columns(call, before, before.workspace_id)
    if not columns:
        return {"task": task_view(call.tx, before), "changed": []}
    after = call.tx.update_task(before.id, **columns)
    if "project_id" in columns and after.project_id != before.project_id:
        after = remap_vocabulary(call, after, keep=frozenset(columns))
        _move_subtree(call, after)
    changed = _changes(before, after, columns)
    if changed:
        call.tx.record_task_event(after.id, "task.update", call.principal.label, changed)
    return {"task": task_view(call.tx, after), "changed": sorted(changed)}


def remap_vocabulary(
    call: Call, task: TaskRecord, keep: frozenset[str] = frozenset()
) -> TaskRecord:
    """The vocabulary of a task that moved project, found again in its new one by key:
    its state, labels and field keys, and its project's sprint and milestone (a
    workspace-wide one stays). Keys the new project lacks are made there; columns
    in ``keep`` were set by the caller and are left as they are."""
    tx = call.tx
    ws, project_id = task.workspace_id, task.project_id
    words = [("state", task.state)] if task.state else []
    words += [("label", label) for label in task.labels]
    words += [("field", key) for key in task.fields]
    for kind, word in words:
        tx.ensure_task_vocab(ws, kind, word, project_id=project_id)
    changes: dict[str, Any] = {}
    for kind, column in (("sprint", "sprint_id"), ("milestone", "milestone_id")):
        item_id = getattr(task, column)
        item = tx.task_vocab_item(item_id) if item_id is not None and column not in keep else None
        if item is None or item.project_id is None or item.project_id == project_id:
            continue
        target, _ = tx.ensure_task_vocab(ws, kind, item.key, project_id=project_id, name=item.name)
        changes[column] = target.id
    return tx.update_task(task.id, **changes) if changes else task


def _move_subtree(call: Call, root: TaskRecord) -> None:
    """Children follow their parent into its project: a subtree is never split."""
    tx = call.tx
    stack = [root.id]
    seen = {root.id}
    while stack:
        for child in tx.tasks(root.workspace_id, parent_id=stack.pop()):
            if child.id in seen:
                continue
            seen.add(child.id)
            if child.project_id != root.project_id:
                moved = tx.update_task(child.id, project_id=root.project_id)
                remap_vocabulary(call, moved)
                tx.record_task_event(
                    child.id,
                    "task.update",
                    call.principal.label,
                    {"project": {"from": child.project_id, "to": root.project_id}},
                )
            stack.append(child.id)


# ------------------------------------------------------------------ reads


@kind_handler(
    "get",
    "task",
    {
        "id": TASK_ID,
        "events": {
            "type": "integer",
            "minimum": 0,
            "maximum": 500,
            "description": "how many of the newest events to include (default 20)",
        },
    },
    required=("id",),
)
def get_task(call: Call) -> dict[str, Any]:
    from layoutkit.service.task_refs import refs_view

    task = find_task(call, call.params["id"], operation="get")
    tx = call.tx
    children = tx.tasks(task.workspace_id, parent_id=task.id)
    parent = tx.task(task.parent_id) if task.parent_id is not None else None
    events = tx.task_events(task.id, limit=call.params.get("events", 20))
    return {
        "task": task_view(tx, task),
        "parent": _brief(parent) if parent is not None else None,
        "children": [_brief(c) for c in sorted(children, key=lambda c: c.id)],
        "refs": refs_view(task, tx.task_refs(task.id)),
        "events": [
            {"at": e.at.isoformat(), "by": e.principal, "action": e.action, "detail": e.detail}
            for e in events
        ],
    }


_FILTER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {
            "type": "string",
            "minLength": 1,
            "maxLength": 500,
            "description": "every word must occur in what search reads of the task (no "
            "typo correction)",
        },
        "project": {"type": "string", "pattern": SLUG_PATTERN},
        "status": {
            "anyOf": [
                {"enum": list(STATUSES)},
                {"type": "array", "items": {"enum": list(STATUSES)}, "maxItems": 6},
            ]
        },
        "type": {
            "anyOf": [
                {"enum": list(TYPES)},
                {"type": "array", "items": {"enum": list(TYPES)}, "maxItems": 8},
            ]
        },
        "state": {"type": "string", "maxLength": 80},
        "assignee": {"type": "string", "maxLength": 300},
        "label": {"type": "string", "maxLength": 80},
        "parentId": ID,
        "human": {"type": "boolean"},
        "live": {"type": "boolean", "description": "true: only tasks not done or cancelled"},
        "draft": {
            "type": "boolean",
            "description": "true: only drafts waiting for a person (left out otherwise)",
        },
    },
    "additionalProperties": False,
}


@kind_handler(
    "list",
    "task",
    {
        "f": _FILTER,
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIST_LIMIT},
    },
)
def list_tasks(call: Call) -> dict[str, Any]:
    f = call.params.get("f", {})
    tx = call.tx
    limit = call.params.get("limit", LIST_LIMIT)
    project_id = None
    if "project" in f:
        project = tx.project_by_slug(call.workspace_id, f["project"])
        if project is None:
            return {"tasks": [], "total": 0}
        project_id = project.id
    tasks = tx.tasks(call.workspace_id, project_id=project_id, parent_id=f.get("parentId"))
    wanted = {
        name: ({f[name]} if isinstance(f[name], str) else set(f[name]))
        for name in ("status", "type")
        if name in f
    }
    kept = [
        t
        for t in tasks
        if all(getattr(t, name) in values for name, values in wanted.items())
        and ("state" not in f or t.state == f["state"])
        and ("assignee" not in f or t.assignee == f["assignee"])
        and ("label" not in f or f["label"] in t.labels)
        and ("human" not in f or is_human(t) == f["human"])
        and (not f.get("live") or t.status not in CLOSED)
        # Drafts stay out of normal lists until a person accepts them.
        and (t.draft == "pending" if f.get("draft") else t.draft is None)
    ]
    matched: dict[int, list[str]] = {}
    if "text" in f:
        words = fold(f["text"]).split()
        refs = tx.refs_of_tasks([t.id for t in kept])
        for t in kept:
            where = text_match(words, searchable_text(t, refs[t.id]))
            if where is not None:
                matched[t.id] = where
        kept = [t for t in kept if t.id in matched]
    rows = []
    for t in kept[:limit]:
        row = task_view(tx, t)
        if t.id in matched:
            row["matchedIn"] = matched[t.id]
        rows.append(row)
    return {"tasks": rows, "total": len(kept)}


# ------------------------------------------------------------------ vocabulary

_VOCAB_KEY: dict[str, Any] = {
    "type": "string",
    "pattern": "^[a-zA-Z0-9][a-zA-Z0-9_ .-]{0,119}$",
    "description": "the word's key (unique per kind in its project or the workspace)",
}


def _vocab_view(item: Any) -> dict[str, Any]:
    return {"id": item.id, "kind": item.kind, "key": item.key, "name": item.name}


def _register_vocabulary(kind: str, creatable: bool) -> None:
    if creatable:

        @kind_handler(
            "create",
            kind,
            {
                "key": _VOCAB_KEY,
                "name": {"type": "string", "minLength": 1, "maxLength": 300},
                "project": {"type": "string", "pattern": SLUG_PATTERN},
            },
            required=("key",),
            writes=True,
        )
        def create_word(call: Call) -> dict[str, Any]:
            p = call.params
            project_id = _project_id(call, p.get("project"), create=True)
            item, made = call.tx.ensure_task_vocab(
                call.workspace_id, kind, p["key"], project_id=project_id, name=p.get("name")
            )
            return {kind: _vocab_view(item), "created": made}

    @kind_handler("list", kind, {"project": {"type": "string", "pattern": SLUG_PATTERN}})
    def list_words(call: Call) -> dict[str, Any]:
        project_id = None
        if "project" in call.params:
            project = call.tx.project_by_slug(call.workspace_id, call.params["project"])
            if project is None:
                return {"items": []}
            project_id = project.id
        items = call.tx.task_vocab(call.workspace_id, kind, project_id)
        return {"items": [_vocab_view(i) for i in items]}


for _kind, _creatable in (
    ("field", True),
    ("sprint", True),
    ("milestone", True),
    # Views and rules are named the way the other words are: a transfer carries them
    # and matches them by key, so people and agents can make and list them.
    ("view", True),
    ("rule", True),
    ("state", False),
    ("label", False),
):
    _register_vocabulary(_kind, _creatable)
