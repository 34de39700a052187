"""Drafts: tasks an agent proposes and a person accepts or declines.

``propose_tasks`` files a batch of drafts with its ``source``. Each draft is
checked against the workspace's open tasks (and the drafts before it in the
batch) and carries its verdict: ``duplicate`` (an open task has the same
title, compared without case or accents: nothing is filed), ``similar`` (a
close title: filed, naming the task it resembles) or ``new``. Drafts name
their parent by ``parentId`` (a task) or ``parentKey`` (the ``key`` of another
draft of the batch).

A draft stays out of ``list`` until a person accepts it (``accept_tasks``);
accepting a child accepts its pending parent first. Declining a parent
(``decline_tasks``) declines its pending children with it. Only people (the
owner and users) accept or decline.
"""

from __future__ import annotations

import difflib
from typing import Any

import attrs

from layoutkit.errors import ServiceError
from layoutkit.folding import fold
from layoutkit.service.road.ids import TASK_ID
from layoutkit.service.road.registry import PEOPLE, REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.tasks.finding import find_task
from layoutkit.service.tasks.hand_back import hand_back_refs
from layoutkit.service.tasks.model import CLOSED, DECLINED, PENDING, TASK_FIELDS
from layoutkit.service.tasks.task_refs import REF_LIST
from layoutkit.service.tasks.tasks import new_task
from layoutkit.storage import TaskRecord

MAX_DRAFTS = 100
#: How close two titles must be (difflib's ratio, folded) for a draft to be similar.
SIMILAR = 0.8

_DRAFT_FIELDS = {k: v for k, v in TASK_FIELDS.items() if k not in ("key", "parentId")}
DRAFT: dict[str, Any] = {
    "type": "object",
    "required": ["title"],
    "properties": {
        **_DRAFT_FIELDS,
        "key": {
            "type": "string",
            "minLength": 1,
            "maxLength": 80,
            "description": "the draft's handle in this batch (for parentKey)",
        },
        "parentKey": {"type": "string", "minLength": 1, "maxLength": 80},
        "parentId": {"type": "integer", "minimum": 1, "maximum": 2**53 - 1},
        "refs": REF_LIST,
    },
    "additionalProperties": False,
}
SOURCE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "maxLength": 80},
        "ref": {"type": "string", "maxLength": 1000},
        "url": {"type": "string", "maxLength": 2000},
        "meta": {
            "type": "object",
            "properties": {"title": {"type": "string", "maxLength": 500}},
            "description": "what the source says about itself",
        },
    },
    "additionalProperties": False,
}


def _verdict(
    title: str, open_tasks: list[tuple[str, int, str]]
) -> tuple[str, dict[str, Any] | None]:
    folded = fold(title)
    best: tuple[float, int, str] | None = None
    for other, task_id, shown in open_tasks:
        if other == folded:
            return "duplicate", {"id": task_id, "title": shown}
        ratio = difflib.SequenceMatcher(None, folded, other).ratio()
        if ratio >= SIMILAR and (best is None or ratio > best[0]):
            best = (ratio, task_id, shown)
    if best is not None:
        return "similar", {"id": best[1], "title": best[2]}
    return "new", None


@REGISTRY.operation(
    "propose_tasks",
    "Propose tasks as drafts for a person to accept: drafts (task fields, key?, "
    "parentKey? naming another draft's key, parentId?, refs?) and source {kind?, ref?, url?, "
    "meta?}. Each is checked against open tasks and carries its verdict: duplicate (same "
    "title as an open task: not filed), similar (filed, naming the close task) or new. "
    "Drafts stay out of lists until accepted (accept_tasks) or declined (decline_tasks).",
    {
        "required": ["drafts"],
        "properties": {
            "drafts": {"type": "array", "minItems": 1, "maxItems": MAX_DRAFTS, "items": DRAFT},
            "source": SOURCE,
        },
        "additionalProperties": False,
    },
    writes=True,
)
def propose_tasks(call: Call) -> dict[str, Any]:
    tx = call.tx
    drafts = call.params["drafts"]
    source = call.params.get("source") or {}
    keys = [d.get("key") for d in drafts if "key" in d]
    if len(keys) != len(set(keys)):
        raise ServiceError(400, "invalid_params", "draft keys repeat", field="drafts")
    open_tasks = [
        (fold(t.title), t.id, t.title)
        for t in tx.tasks(call.workspace_id)
        if t.status not in CLOSED and t.draft != DECLINED
    ]
    by_key: dict[str, int] = {}
    results: list[dict[str, Any] | None] = [None] * len(drafts)
    waiting = list(range(len(drafts)))
    # Parents are filed before their children, whatever the batch's order.
    while waiting:
        ready = [i for i in waiting if drafts[i].get("parentKey") in (None, *by_key)]
        if not ready:
            i = waiting[0]
            raise ServiceError(
                400,
                "unknown_parent_key",
                f"drafts[{i}].parentKey {drafts[i]['parentKey']!r} names no draft of the batch",
                field=f"drafts[{i}].parentKey",
                index=i,
            )
        for i in ready:
            waiting.remove(i)
            results[i] = _file(call, i, drafts[i], source, open_tasks, by_key)
    return {"drafts": results, "source": source}


def _file(
    call: Call,
    i: int,
    draft: dict[str, Any],
    source: dict[str, Any],
    open_tasks: list[tuple[str, int, str]],
    by_key: dict[str, int],
) -> dict[str, Any]:
    out: dict[str, Any] = {"index": i, **({"key": draft["key"]} if "key" in draft else {})}
    verdict, of = _verdict(draft["title"], open_tasks)
    out["verdict"] = verdict
    if of is not None:
        out["of"] = of
    if verdict == "duplicate":
        if "key" in draft:
            # Children of a duplicate hang under the open task it duplicates.
            by_key[draft["key"]] = of["id"] if of is not None else 0
        return out
    fields = {k: v for k, v in draft.items() if k in _DRAFT_FIELDS}
    parent = by_key.get(draft["parentKey"]) if "parentKey" in draft else draft.get("parentId")
    if parent:
        held = call.tx.task(parent)
        if held is not None and held.draft == DECLINED:
            # A person said no to the parent: nothing is proposed under it.
            raise ServiceError(
                409,
                "parent_declined",
                f"task {parent} is a declined draft; propose under another parent",
                field=f"drafts[{i}].parentId",
                index=i,
            )
        fields["parentId"] = parent
    try:
        made = new_task(attrs.evolve(call, params={"kind": "task", **fields}))
    except ServiceError as exc:
        exc.body.setdefault("index", i)
        raise
    task_id = made["task"]["id"]
    task = call.tx.update_task(task_id, draft=PENDING, source=source or None)
    call.tx.record_task_event(task_id, "task.proposed", call.principal.label, {"source": source})
    hand_back_refs(call, task, draft.get("refs", []))
    open_tasks.append((fold(task.title), task.id, task.title))
    if "key" in draft:
        by_key[draft["key"]] = task_id
    out["id"] = task_id
    return out


def _draft(call: Call, value: Any, operation: str) -> TaskRecord:
    task = find_task(call, value, operation=operation, field="ids", lock=True)
    if task.draft is None:
        raise ServiceError(409, "not_a_draft", f"task {task.id} is not a draft", id=task.id)
    return task


_IDS: dict[str, Any] = {
    "required": ["ids"],
    "properties": {
        "ids": {"type": "array", "minItems": 1, "maxItems": MAX_DRAFTS, "items": TASK_ID},
    },
    "additionalProperties": False,
}


@REGISTRY.operation(
    "accept_tasks",
    "Accept drafts (ids): each becomes a task in the normal lists. Accepting a child "
    "accepts its pending parent first. For people only.",
    _IDS,
    writes=True,
    principals=PEOPLE,
)
def accept_tasks(call: Call) -> dict[str, Any]:
    tx = call.tx
    accepted: list[int] = []
    for value in call.params["ids"]:
        task = _draft(call, value, "accept_tasks")
        chain = [task]
        parent = tx.task(task.parent_id) if task.parent_id is not None else None
        while parent is not None and parent.draft == PENDING and parent not in chain:
            chain.append(parent)
            parent = tx.task(parent.parent_id) if parent.parent_id is not None else None
        for member in reversed(chain):
            if member.id in accepted:
                continue
            tx.update_task(member.id, draft=None)
            tx.record_task_event(member.id, "task.accepted", call.principal.label, {})
            accepted.append(member.id)
    return {"accepted": accepted}


@REGISTRY.operation(
    "decline_tasks",
    "Decline drafts (ids): they stay out of the lists for good. Declining a parent "
    "declines its pending children with it. For people only.",
    _IDS,
    writes=True,
    principals=PEOPLE,
)
def decline_tasks(call: Call) -> dict[str, Any]:
    tx = call.tx
    declined: list[int] = []
    for value in call.params["ids"]:
        stack = [_draft(call, value, "decline_tasks")]
        while stack:
            task = stack.pop()
            if task.id in declined:
                continue
            if task.draft == PENDING:
                tx.update_task(task.id, draft=DECLINED)
                tx.record_task_event(task.id, "task.declined", call.principal.label, {})
                declined.append(task.id)
            stack += [
                c for c in tx.tasks(task.workspace_id, parent_id=task.id) if c.draft == PENDING
            ]
    return {"declined": declined}
