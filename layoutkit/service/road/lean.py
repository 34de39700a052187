"""The lean input schema an MCP host is shown: the contract's shapes named, not inlined.

A tool list is read by every conversation before it does anything, so each
tool shows its params with the content contract's card and element payloads
left out: ``kind`` stays an enum and ``payload`` says in one line where its
shape lives (the ``docs`` topic and the ``layoutkit://schema/card/<kind>`` or
``layoutkit://schema/element/<kind>`` resource).
What the road checks is untouched (``Operation.validator``), and so is
``Operation.params_schema``, which the OpenAPI document and the docs tool keep
in full for HTTP clients and generated code.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import attrs

from layoutkit import elements

if TYPE_CHECKING:
    from layoutkit.service.road.registry import Operation

_REF = "#/$defs/"
#: Bounds and formats an agent learns from the road's answer when it crosses one (the
#: answer names the path and the bound); shown on every field they cost a quarter of
#: the list. Ids are integers of at least 1, slugs are lower-case words: the
#: descriptions say so where it matters.
_NOISE = frozenset(
    {
        "maxLength",
        "maxItems",
        "minLength",
        "minItems",
        "uniqueItems",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "$defs",
    }
)


def payload_note(kinds: str) -> str:
    """The one line a lean ``payload`` carries: where the shape of a ``kinds`` kind is read."""
    # Two card kinds share a name with an element kind of another shape: their topics differ.
    topics = (
        "docs topic <kind> (card-section, card-compare)"
        if kinds == "card"
        else ("docs topic <kind>")
    )
    return f"Shape depends on kind: {topics}, resource layoutkit://schema/{kinds}/<kind>."


def _union(name: str) -> dict[str, Any]:
    full = elements.schema_defs()[name]
    kinds = "card" if name == "card" else "element"
    return {
        "type": "object",
        "required": full["required"],
        "properties": {
            "kind": full["properties"]["kind"],
            "payload": {"type": "object", "description": payload_note(kinds)},
        },
        "description": f"a {kinds} {{kind, payload, ...}}; docs topic envelope names the rest",
    }


def _payload_ref(name: str) -> dict[str, Any] | None:
    # Payload definitions are named <kind>-card for cards, <kind>-payload for elements.
    family = "card" if name.endswith("-card") else "element"
    kind = name.removesuffix("-payload").removesuffix("-card")
    if kind == name:
        return None
    return {
        "type": "object",
        "description": f"Its shape: docs topic {kind}, resource layoutkit://schema/{family}/{kind}.",
    }


def _from_ref(ref: str, walk: _Walk) -> dict[str, Any]:
    name = ref.removeprefix(_REF)
    if name in ("card", "element"):
        return _union(name)
    found = _payload_ref(name)
    if found is not None or name in walk.open or name not in walk.defs:
        return found or {"type": "object"}
    # A small shared shape (an anchor, an edge): shown leaned where it is used.
    return _lean(walk.defs[name], attrs.evolve(walk, open=walk.open | {name}, top=False))


def _is_kind_union(variants: Any) -> bool:
    return isinstance(variants, list) and all(
        isinstance(v, dict) and "const" in v.get("properties", {}).get("kind", {}) for v in variants
    )


@attrs.frozen
class _Walk:
    defs: dict[str, Any]
    #: The definitions being expanded (a shape that holds itself stops there).
    open: frozenset[str] = frozenset()
    #: At the params object itself, whose closed set of names hosts do use.
    top: bool = True


def _lean_dict(node: dict[str, Any], walk: _Walk) -> dict[str, Any]:
    if isinstance(node.get("$ref"), str):
        return {**_from_ref(node["$ref"], walk), **_kept(node)}
    inner = attrs.evolve(walk, top=False)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _NOISE or (key == "additionalProperties" and not walk.top):
            continue
        if key == "oneOf" and _is_kind_union(value):
            # kind is an enum beside it; the payload shape is named, not inlined.
            kinds = "card" if "ref" in node.get("properties", {}) else "element"
            payload = out.setdefault("properties", {}).setdefault("payload", {"type": "object"})
            payload["description"] = payload_note(kinds)
            continue
        out[key] = _props(value, inner) if key == "properties" else _lean(value, inner)
    return out


def _kept(node: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in node.items() if k in ("title", "description")}


def _props(props: dict[str, Any], walk: _Walk) -> dict[str, Any]:
    return {name: _lean(spec, walk) for name, spec in props.items()}


def _lean(node: Any, walk: _Walk) -> Any:
    if isinstance(node, dict):
        return _lean_dict(node, walk)
    if isinstance(node, list):
        return [_lean(v, walk) for v in node]
    return node


def lean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as a tool list shows it: contract shapes named, size bounds left out.

    It accepts every value ``schema`` accepts (it only drops constraints), so a
    host checking arguments against it refuses nothing the road would take.
    """
    return _lean(copy.deepcopy(schema), _Walk(schema.get("$defs", {})))


_CACHE: dict[int, tuple[Operation, dict[str, Any]]] = {}


def tool_schema(op: Operation) -> dict[str, Any]:
    """The lean input schema of ``op``'s tool (computed once per operation)."""
    found = _CACHE.get(id(op))
    if found is None or found[0] is not op:
        found = _CACHE[id(op)] = (op, lean_schema(op.params_schema))
    return found[1]
