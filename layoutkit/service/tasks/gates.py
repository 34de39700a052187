"""Gate firing: a checklist item's ``when`` condition happened.

Hand-back items may carry ``when``, a condition in words ("pr merged",
"deployed to staging"). Firing a condition (``fire_gates``) finds the open
items whose ``when`` is that condition (compared without case, accents or
extra spacing) and:

- ticks human and date gates, with the evidence given (they stop blocking);
- stamps ``ripeAt`` on steps and actions, which stay open until someone
  ticks them: an item shows ``waiting`` before its condition fires and
  ``due`` after.

A PR ref that becomes merged fires ``pr merged`` and ``pr <owner>/<repo>#<n>
merged`` on its task by itself.
"""

from __future__ import annotations

from typing import Any

from layoutkit.folding import fold
from layoutkit.service.road.ids import TASK_ID
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.tasks.finding import find_task
from layoutkit.service.tasks.model import BLOCKING_KINDS, CLOSED
from layoutkit.storage import TaskRecord


def fire(call: Call, task: TaskRecord, when: str, evidence: str) -> list[dict[str, Any]]:
    """Fire ``when`` on ``task``'s checklist; what it ticked or stamped."""
    wanted = fold(when)
    now = call.tx.now().isoformat()
    fired = []
    gates = []
    for item in task.gates:
        item = dict(item)
        if not item.get("done") and item.get("when") and fold(item["when"]) == wanted:
            if item.get("kind") in BLOCKING_KINDS:
                item.update(done=True, evidence=evidence, ripeAt=item.get("ripeAt") or now)
                fired.append(
                    {"task": task.id, "id": item.get("id"), "title": item["title"], "ticked": True}
                )
            elif not item.get("ripeAt"):
                item["ripeAt"] = now
                fired.append(
                    {"task": task.id, "id": item.get("id"), "title": item["title"], "ripeAt": now}
                )
        gates.append(item)
    if fired:
        call.tx.update_task(task.id, gates=gates)
        call.tx.record_task_event(
            task.id,
            "task.gates",
            call.principal.label,
            {"when": when, "evidence": evidence, "fired": [f["title"] for f in fired]},
        )
    return fired


@REGISTRY.operation(
    "fire_gates",
    "A when condition happened (a PR merged, a deployment): on one task (id), a project's "
    "live tasks (project) or the workspace's, open checklist items whose when is this "
    "condition fire. Human and date gates are ticked with the evidence; steps and actions "
    "get ripeAt (due from now, open until ticked).",
    {
        "required": ["when"],
        "properties": {
            "when": {"type": "string", "minLength": 1, "maxLength": 300},
            "evidence": {"type": "string", "maxLength": 4000},
            "id": TASK_ID,
            "project": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,79}$"},
        },
        "additionalProperties": False,
    },
    writes=True,
)
def fire_gates(call: Call) -> dict[str, Any]:
    p = call.params
    tx = call.tx
    evidence = p.get("evidence") or f"{p['when']} ({tx.now().date().isoformat()})"
    if "id" in p:
        tasks = [find_task(call, p["id"], operation="fire_gates", lock=True)]
    else:
        project_id = None
        if "project" in p:
            project = tx.project_by_slug(call.workspace_id, p["project"])
            if project is None:
                return {"fired": []}
            project_id = project.id
        tasks = [
            t
            for t in tx.tasks(call.workspace_id, project_id=project_id)
            if t.status not in CLOSED and t.draft is None and t.gates
        ]
    fired = []
    for task in tasks:
        fired += fire(call, task, p["when"], evidence)
    return {"fired": fired}
