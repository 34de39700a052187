"""``spot``: file one follow-up task, under a bound task or the project's rolling epic.

A spot is a child task. Its parent is ``parentId`` when given, else the
project's rolling follow-up epic (made on first use: an epic titled
"Follow-ups" whose ``fields.rolling`` says so; a task without a project has
the workspace's). ``fromStep`` moves one step of the parent's checklist
(named by its item id or its exact title) onto the child: the step leaves the
checklist and the child carries it (its title, unless one is sent).
"""

from __future__ import annotations

from typing import Any

import attrs

from layoutkit.errors import ServiceError
from layoutkit.service.road.ids import TASK_ID
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.tasks.finding import find_task
from layoutkit.service.tasks.hand_back import hand_back_refs
from layoutkit.service.tasks.model import TASK_FIELDS, task_url
from layoutkit.service.tasks.task_refs import REF_LIST
from layoutkit.service.tasks.tasks import new_task
from layoutkit.storage import TaskRecord

ROLLING = "follow-ups"
ROLLING_TITLE = "Follow-ups"
_FIELDS = {k: v for k, v in TASK_FIELDS.items() if k != "parentId"}


def _rolling_epic(call: Call, project: str | None) -> TaskRecord:
    tx = call.tx
    project_id = None
    if project is not None:
        record = tx.project_by_slug(call.workspace_id, project)
        project_id = record.id if record is not None else None
    if project_id is not None or project is None:
        for task in tx.tasks(call.workspace_id, project_id=project_id):
            if (
                task.type == "epic"
                and task.fields.get("rolling") == ROLLING
                and task.project_id == project_id
            ):
                return task
    made = new_task(
        attrs.evolve(
            call,
            params={
                "kind": "task",
                "title": ROLLING_TITLE,
                "type": "epic",
                "fields": {"rolling": ROLLING},
                **({"project": project} if project is not None else {}),
            },
        )
    )
    epic = tx.task(made["task"]["id"])
    assert epic is not None
    return epic


@REGISTRY.operation(
    "spot",
    "File one follow-up task: the task fields (title, body, type, priority, ...), "
    "parentId (the bound task; omitted, the project's rolling follow-up epic, made on "
    "first use), fromStep (a step of parentId by item id or exact title: it leaves the "
    "checklist and the new task carries it) and refs. One spot per call; returns the new "
    "task and its url.",
    {
        "properties": {
            **_FIELDS,
            "parentId": TASK_ID,
            "fromStep": {"type": "string", "minLength": 1, "maxLength": 500},
            "refs": REF_LIST,
        },
        "additionalProperties": False,
    },
    writes=True,
)
def spot(call: Call) -> dict[str, Any]:
    p = call.params
    tx = call.tx
    if "fromStep" in p and "parentId" not in p:
        raise ServiceError(
            400,
            "invalid_params",
            "fromStep names a step of parentId: send parentId",
            field="fromStep",
        )
    if "parentId" in p:
        parent = find_task(call, p["parentId"], operation="spot", field="parentId", lock=True)
    else:
        parent = _rolling_epic(call, p.get("project"))
    step = None
    if "fromStep" in p:
        steps = [g for g in parent.gates if g.get("kind", "step") == "step"]
        step = next((g for g in steps if g.get("id") == p["fromStep"]), None) or next(
            (g for g in steps if g.get("title") == p["fromStep"]), None
        )
        if step is None:
            raise ServiceError(
                400,
                "unknown_step",
                f"task {parent.id} has no step {p['fromStep']!r}",
                field="fromStep",
                steps=[g.get("title") for g in steps],
            )
    title = p.get("title") or (step["title"] if step is not None else None)
    if title is None:
        raise ServiceError(400, "invalid_params", "a spot needs a title", field="title")
    fields = {k: v for k, v in p.items() if k in _FIELDS and k != "title"}
    if parent.project_id is not None and "project" not in fields:
        project = tx.project(parent.project_id)
        fields["project"] = project.slug if project is not None else None
    child = new_task(
        attrs.evolve(
            call,
            params={"kind": "task", "title": title, "parentId": parent.id, **fields},
        )
    )["task"]
    if step is not None:
        gates = [g for g in parent.gates if g is not step]
        tx.update_task(parent.id, gates=gates)
        tx.record_task_event(
            parent.id,
            "task.spot",
            call.principal.label,
            {"step": step.get("id"), "title": step["title"], "carriedBy": child["id"]},
        )
        tx.record_task_event(
            child["id"], "task.spot", call.principal.label, {"from": parent.id, "step": step}
        )
    record = tx.task(child["id"])
    assert record is not None
    refs = hand_back_refs(call, record, p.get("refs", []))
    return {
        "task": child,
        "url": task_url(record),
        "parent": {"id": parent.id, "title": parent.title},
        "refs": [{"kind": r.kind, "ref": r.ref, "version": r.version} for r in refs],
    }
