"""Finding the task a param names: a number or one pin, else a reference the
resolver reads (then the operation answers with its verdict instead of acting)."""

from __future__ import annotations

from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.service.road.ids import unknown_task
from layoutkit.service.road.task_pins import task_id_pin
from layoutkit.service.road.workspace import Call
from layoutkit.service.tasks.resolve import resolve_reference
from layoutkit.storage import TaskRecord

# ------------------------------------------------------------------ task ids


def resolve_task_reference(call: Call, text: str) -> dict[str, Any]:
    """The reference resolver's verdict on ``text``, which is not a task id: what
    search's mode resolve answers (:mod:`layoutkit.service.tasks.resolve`)."""
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
