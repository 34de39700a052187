"""A scripted "naive agent": it knows the tool list and reads the errors, nothing else.

It corrects a call only by what an error body says in its machine-readable
fields: a ``hint`` patch (JSON Patch on the arguments) when the service knows
the corrected call, else a placeholder value built from ``expectedSchema`` put
at ``path`` (or ``field``).
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

Send = Callable[[dict[str, Any]], Awaitable[tuple[bool, dict[str, Any]]]]


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def _parts(pointer: str) -> list[str | int]:
    return [int(p) if p.isdigit() else _unescape(p) for p in pointer.split("/")[1:]]


def _holder(doc: Any, parts: list[str | int]) -> Any:
    for part in parts[:-1]:
        doc = doc[part]
    return doc


def _put(doc: Any, parts: list[str | int], value: Any) -> None:
    holder = _holder(doc, parts)
    if isinstance(holder, list) and parts[-1] == len(holder):
        holder.append(value)
    else:
        holder[parts[-1]] = value


def apply_patch(doc: dict[str, Any], patch: list[dict[str, Any]]) -> dict[str, Any]:
    """RFC 6902 add, replace, remove and move: what hints use."""
    out = copy.deepcopy(doc)
    for op in patch:
        parts = _parts(op["path"])
        if op["op"] in ("add", "replace"):
            _put(out, parts, op["value"])
        elif op["op"] == "remove":
            del _holder(out, parts)[parts[-1]]
        elif op["op"] == "move":
            source = _parts(op["from"])
            value = _holder(out, source).pop(source[-1])
            _put(out, parts, value)
    return out


def placeholder(schema: dict[str, Any]) -> Any:
    """A value of the shape ``schema`` names (what an agent would invent)."""
    if "const" in schema:
        return schema["const"]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    if schema.get("anyOf"):
        return placeholder(schema["anyOf"][0])
    kind = schema.get("type", "string")
    kind = next((k for k in kind if k != "null"), "string") if isinstance(kind, list) else kind
    props = schema.get("properties", {})
    if kind == "string" and "://" in schema.get("pattern", ""):
        return "https://example.com/"
    simple: dict[str, Any] = {"string": "Example", "number": 1, "integer": 1, "boolean": True}
    if kind in simple:
        return simple[kind]
    if kind == "array":
        return [placeholder(schema.get("items", {}))]
    return {name: placeholder(props.get(name, {})) for name in schema.get("required", ())}


def _pointer(path: str) -> str:
    from layoutkit.service.road.hints import pointer

    return pointer(path)


def correct(arguments: dict[str, Any], error: dict[str, Any]) -> dict[str, Any] | None:
    """The next call after ``error``, from the error's fields alone; None: stuck."""
    hint = error.get("hint") or {}
    if hint.get("patch"):
        return apply_patch(arguments, hint["patch"])
    path = error.get("path") or error.get("field")
    if isinstance(path, str) and path and "expectedSchema" in error:
        value = placeholder(error["expectedSchema"])
        return apply_patch(arguments, [{"op": "add", "path": _pointer(path), "value": value}])
    return None


async def until_accepted(
    send: Send, arguments: dict[str, Any], rounds: int = 12
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Send, read the error, correct, repeat: the accepted arguments and the errors read."""
    errors: list[dict[str, Any]] = []
    for _ in range(rounds):
        ok, body = await send(arguments)
        if ok:
            return arguments, errors
        errors.append(body)
        fixed = correct(arguments, body)
        if fixed is None or fixed == arguments:
            raise AssertionError(f"stuck on {body}")
        arguments = fixed
    raise AssertionError(f"not accepted after {rounds} rounds: {errors[-3:]}")
