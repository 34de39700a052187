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
  same number written as a pin (``service/road/task_pins.py``). Anything else is
  a reference: the operation does not act on it but answers 400
  ``task_reference`` with the resolver's verdict, its candidates and the
  exact call to make (:func:`resolve_task_reference`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.folding import fold
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.ids import TASK_ID
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG_PATTERN
from layoutkit.service.shared.webhook_events import emit
from layoutkit.service.tasks.finding import find_task
from layoutkit.service.tasks.model import (
    CLOSED,
    LIST_LIMIT,
    MAX_LIST_LIMIT,
    STATUSES,
    TASK_FIELDS,
    TYPES,
    brief,
    is_human,
    open_gates,
    refs_view,
    searchable_text,
    task_url,
    task_view,
    text_match,
)
from layoutkit.storage import TaskRecord

#: Params name -> column, where they differ.
_COLUMN = {
    "assigneeId": "assignee_id",
    "sprintId": "sprint_id",
    "milestoneId": "milestone_id",
    "parentId": "parent_id",
    "dueAt": "due_at",
    "nextAction": "next_action",
}

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
    _check_key(call, task, workspace_id)
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
        out["fields"] = _merged_fields(task, p["fields"])
    _ensure_vocabulary(call, task, workspace_id, out)
    return out


def _check_key(call: Call, task: TaskRecord | None, workspace_id: int) -> None:
    """409 ``key_taken`` when the key the params set is another task's."""
    key = call.params.get("key")
    if key is None:
        return
    other = call.tx.task_by_key(workspace_id, key)
    if other is not None and (task is None or other.id != task.id):
        raise ServiceError(409, "key_taken", f"key {key!r} is task {other.id}'s", field="key")


def _merged_fields(task: TaskRecord | None, patch: dict[str, Any]) -> dict[str, Any]:
    """The task's custom fields with ``patch`` applied: a null value removes its key."""
    current = dict(task.fields) if task is not None else {}
    for key, value in patch.items():
        if value is None:
            current.pop(key, None)
        else:
            current[key] = value
    return current


def _ensure_vocabulary(
    call: Call, task: TaskRecord | None, workspace_id: int, out: dict[str, Any]
) -> None:
    """Make the state, labels and field keys the task now uses, in its project."""
    p = call.params
    project_id = out.get("project_id", task.project_id if task is not None else None)
    words = [("state", out.get("state"))] if out.get("state") else []
    words += [("label", label) for label in out.get("labels", ())]
    words += [("field", key) for key in p.get("fields", {}) if p["fields"][key] is not None]
    for kind, word in words:
        call.tx.ensure_task_vocab(workspace_id, kind, word, project_id=project_id)


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


def tell_task(call: Call, event: str, task: TaskRecord, **extra: Any) -> None:
    """Owe the task's workspace's webhooks ``event`` about ``task`` (with ``extra``)."""
    view = task_view(call.tx, task)
    view["url"] = call.workspace.link(view["url"])
    emit(call, event, {"task": view, **extra}, workspace_id=task.workspace_id)


def moved_status(call: Call, task: TaskRecord, status: str, why: str) -> TaskRecord:
    """``task`` moved to ``status``, logged and told to webhooks."""
    moved = call.tx.update_task(task.id, status=status)
    call.tx.record_task_event(
        task.id,
        "task.status",
        call.principal.label,
        {"status": {"from": task.status, "to": status}, "why": why},
    )
    tell_task(call, "task.status_changed", moved, **{"from": task.status, "to": status})
    return moved


#: Checklist kinds that block completion until ticked.
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
        return moved_status(call, task, "in_review", why)
    return moved_status(call, task, "done", why)


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
    if after.status != before.status:
        tell_task(call, "task.status_changed", after, **{"from": before.status, "to": after.status})
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
    task = find_task(call, call.params["id"], operation="get")
    tx = call.tx
    children = tx.tasks(task.workspace_id, parent_id=task.id)
    parent = tx.task(task.parent_id) if task.parent_id is not None else None
    events = tx.task_events(task.id, limit=call.params.get("events", 20))
    return {
        "task": task_view(tx, task),
        "parent": brief(parent) if parent is not None else None,
        "children": [brief(c) for c in sorted(children, key=lambda c: c.id)],
        "refs": refs_view(call.workspace, task, tx.task_refs(task.id)),
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
