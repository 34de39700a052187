"""Task ids in params: their schema, and where an operation's params hold them.

A task id may name a task of another workspace (``<workspace>/<n>``, a task URL
with the workspace in its path). The road reads every task id a call carries
before any handler runs, so it must know where they are: the registry finds
them once, when an operation is declared, by walking its params schema for
:data:`TASK_ID`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from layoutkit.errors import ServiceError

#: One step of a path into params: a property name, or ``*`` for every item of an array.
PathStep = str
TaskIdPath = tuple[PathStep, ...]
EVERY_ITEM = "*"

TASK_ID: dict[str, Any] = {
    "type": ["integer", "string"],
    "minimum": 1,
    "maximum": 2**53 - 1,
    "minLength": 1,
    "maxLength": 300,
    "description": "task id: its number (also #12, tk-12 or the task's URL), or "
    "<workspace>/<number> for another workspace's task; a title or key is answered with "
    "the resolver's verdict and the call to make",
}


def is_task_id(schema: Any) -> bool:
    """Whether ``schema`` is the task id schema (or a copy with other words in it)."""
    return isinstance(schema, dict) and all(
        schema.get(k) == v for k, v in TASK_ID.items() if k != "description"
    )


def task_id_paths(schema: dict[str, Any]) -> tuple[TaskIdPath, ...]:
    """The paths in params where ``schema`` takes a task id, e.g. ``("id",)`` or
    ``("ids", "*")``; properties of nested objects and array items are followed."""
    return tuple(_walk(schema, ()))


def _walk(schema: Any, at: TaskIdPath) -> Iterator[TaskIdPath]:
    if not isinstance(schema, dict):
        return
    if is_task_id(schema):
        yield at
        return
    for name, sub in schema.get("properties", {}).items():
        yield from _walk(sub, (*at, name))
    if isinstance(schema.get("items"), dict):
        yield from _walk(schema["items"], (*at, EVERY_ITEM))
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, ()):
            yield from _walk(sub, at)


def values_at(params: Any, path: TaskIdPath) -> Iterator[tuple[str, Any]]:
    """``(field path as errors name it, value)`` for each value ``path`` reaches."""
    yield from _values(params, path, "")


def _values(value: Any, path: TaskIdPath, shown: str) -> Iterator[tuple[str, Any]]:
    if not path:
        yield shown, value
        return
    step, rest = path[0], path[1:]
    if step == EVERY_ITEM:
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield from _values(item, rest, f"{shown}[{i}]")
    elif isinstance(value, dict) and step in value:
        yield from _values(value[step], rest, f"{shown}.{step}" if shown else step)


def unknown_task(value: int | str, field: str) -> ServiceError:
    """The one answer for a task that is not here, wherever else it may be: a caller
    learns nothing of other workspaces' names or ids from it."""
    return ServiceError(404, "unknown_task", f"no task {value}", field=field, id=value)
