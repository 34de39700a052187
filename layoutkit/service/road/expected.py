"""A schema shape in words and as a small schema: what a refusal tells the caller to send.

Read by the road's params check and by the families that check values
themselves (the content contract), so every refusal describes its expected
shape the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Resolve = Callable[[Any], dict[str, Any]]
#: Schema keywords an expected shape keeps (bounds are named by the refusal itself).
_SHAPE_KEYS = ("type", "enum", "const", "required", "default", "pattern", "format")


def _plain(node: Any) -> dict[str, Any]:
    return node if isinstance(node, dict) else {}


def shape_schema(node: Any, resolve: Resolve = _plain, depth: int = 0) -> dict[str, Any]:
    """``node`` cut down to what a caller corrects a value by: types, enums, required
    names and the members' own types, one level down."""
    node = resolve(node)
    out = {k: node[k] for k in _SHAPE_KEYS if k in node}
    if "anyOf" in node and depth < 2:
        out["anyOf"] = [shape_schema(sub, resolve, depth + 1) for sub in node["anyOf"]]
    if depth < 2 and isinstance(node.get("properties"), dict):
        out["properties"] = {
            name: shape_schema(sub, resolve, depth + 1) for name, sub in node["properties"].items()
        }
    if depth < 2 and "items" in node:
        out["items"] = shape_schema(node["items"], resolve, depth + 1)
    return out


def describe(node: Any, resolve: Resolve = _plain) -> str:
    """One sentence-part naming the shape of ``node``: 'a string', 'one of ...'."""
    node = resolve(node)
    if "enum" in node:
        return "one of " + ", ".join(repr(v) for v in node["enum"])
    if "const" in node:
        return repr(node["const"])
    if "anyOf" in node:
        return " or ".join(describe(sub, resolve) for sub in node["anyOf"])
    kind = node.get("type", "any JSON value")
    kinds = kind if isinstance(kind, list) else [kind]
    words = " or ".join(("an " if k[0] in "aeiou" else "a ") + k for k in kinds)
    if "object" in kinds and node.get("properties"):
        required = set(node.get("required", ()))
        fields = [f"{n} (required)" if n in required else n for n in node["properties"]]
        words += " with fields " + ", ".join(fields)
    elif "pattern" in node:
        words += f" matching {node['pattern']}"
    elif "array" in kinds and "items" in node:
        words += " of " + describe(node["items"], resolve).removeprefix("a ").removeprefix("an ")
    return words


def _missing(error: Any) -> str | None:
    if not isinstance(error.instance, dict):
        return None
    return next((r for r in error.validator_value if r not in error.instance), None)


def params_guidance(operation: str, error: Any, path: str) -> dict[str, Any]:
    """``expected`` (a sentence), ``expectedSchema`` and ``docs`` for the first finding
    of a params check (a jsonschema ``ValidationError``); ``allowed`` lists the
    names an object takes when the finding is a name it does not."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    out: dict[str, Any] = {"docs": f"op:{operation}"}
    if error.validator == "additionalProperties":
        allowed = list(schema.get("properties", {}))
        out["allowed"] = allowed
        out["expected"] = "no other field; this object takes " + ", ".join(allowed) + "."
        return out
    node = schema
    if error.validator == "required":
        name = _missing(error)
        node = schema.get("properties", {}).get(name, {}) if name else {}
        out["expected"] = f"{path} is required: {describe(node)}."
    else:
        out["expected"] = f"{path or 'params'}: {describe(node)}."
    out["expectedSchema"] = shape_schema(node)
    return out
