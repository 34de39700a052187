"""``bulk_update_tasks``: one patch on up to 200 tasks, all or nothing.

Every task is changed as ``update`` changes one, inside the one transaction
the road opens, so a refusal for any task (an unknown id, a field it
refuses) leaves every task as it was. Setting ``project`` moves each task's
subtree whole into that project (which must exist: 422 otherwise) and finds
its state, labels, field keys, sprint and milestone again there by key,
making the keys the project lacks.
"""

from __future__ import annotations

from typing import Any

import attrs

from layoutkit.errors import ServiceError
from layoutkit.service.road.ids import TASK_ID
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.tasks.model import TASK_FIELDS
from layoutkit.service.tasks.tasks import change_task

MAX_BULK = 200
#: The fields a bulk patch sets: those the spec shows in patches.
PATCH_FIELDS = (
    "state",
    "status",
    "type",
    "priority",
    "assignee",
    "assigneeId",
    "sprintId",
    "milestoneId",
    "parentId",
    "dueAt",
    "estimate",
    "project",
    "human",
    "labels",
)


@REGISTRY.operation(
    "bulk_update_tasks",
    f"Apply one patch to up to {MAX_BULK} tasks in one transaction, all or nothing. "
    "Setting project moves each task's subtree whole into that existing project (422 for "
    "an unknown one); state, labels, fields, sprint and milestone are found there again "
    "by key, and missing keys are made.",
    {
        "required": ["ids", "patch"],
        "properties": {
            "ids": {"type": "array", "minItems": 1, "maxItems": MAX_BULK, "items": TASK_ID},
            "patch": {
                "type": "object",
                "minProperties": 1,
                "properties": {k: TASK_FIELDS[k] for k in PATCH_FIELDS},
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    },
    writes=True,
)
def bulk_update_tasks(call: Call) -> dict[str, Any]:
    patch = call.params["patch"]
    target = patch.get("project")
    # Checked before any task changes, so the refusal is the same for every id.
    if target is not None and call.tx.project_by_slug(call.workspace_id, target) is None:
        raise ServiceError(
            422,
            "unknown_project",
            f"no project {target!r} in this workspace",
            field="patch.project",
        )
    seen: set[Any] = set()
    out = []
    for i, task_id in enumerate(call.params["ids"]):
        if task_id in seen:
            continue
        seen.add(task_id)
        try:
            done = change_task(attrs.evolve(call, params={"kind": "task", "id": task_id, **patch}))
        except ServiceError as exc:
            # The whole batch rolls back; the refusal says which id it was.
            exc.body.setdefault("index", i)
            exc.body["id"] = task_id
            raise
        out.append({"id": done["task"]["id"], "changed": done["changed"]})
    return {"tasks": out, "count": len(out)}
