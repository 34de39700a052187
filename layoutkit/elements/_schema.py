"""JSON Schema (Draft 2020-12) for every element and card kind, generated from the field tables.

The schemas describe the content contract to tools that read JSON Schema (MCP
hosts, OpenAPI clients); the contract's validator stays the authority that
answers with findings and paths. So a schema refuses only what the validator
calls an error: unknown members merely warn there, and no object is closed here.

Every object shape (``Spec``) becomes one definition named after it; fields
refer to nested shapes with ``$ref``, which is also how recursive shapes
(groups, mockup trees, elements inside a doc) are written. The two unions,
``element`` and ``card``, are discriminated by ``kind``.
"""

from __future__ import annotations

import copy
import functools
import re
from typing import Any

from layoutkit.elements._cards import BOARD_KINDS, BOARD_VOCABULARY, CARD_ENVELOPE
from layoutkit.elements._core import MISSING
from layoutkit.elements._element import ELEMENT_KINDS, ELEMENTS
from layoutkit.elements._fields import Field, Spec, schema_ref, spec_ref
from layoutkit.elements._kind import AUDIENCE_FIELD, Kind

DIALECT = "https://json-schema.org/draft/2020-12/schema"
_REF = re.compile(r"^#/\$defs/(.+)$")

_DATA_REF = {
    "type": "string",
    "minLength": 1,
    "description": "Chart and table only: bulk data stored apart.",
}


def _field(field: Field) -> dict[str, Any]:
    if field.schema is None:
        raise ValueError(f"field {field.name!r} declares no JSON Schema")
    out = dict(field.schema)
    if field.notes:
        out["description"] = field.notes
    if field.default is not MISSING:
        default = field.default
        out["default"] = default() if callable(default) else default
    return out


def _shape(spec: Spec, summary: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "title": spec.title}
    if summary:
        out["description"] = summary
    out["properties"] = {f.name: _field(f) for f in spec.fields}
    if spec.required:
        out["required"] = list(spec.required)
    return out


def _variants(kinds: dict[str, Kind]) -> list[dict[str, Any]]:
    return [
        {"properties": {"kind": {"const": name}, "payload": spec_ref(kind.spec)}}
        for name, kind in kinds.items()
    ]


def _union(title: str, kinds: dict[str, Kind], vocabulary: tuple[str, ...], envelope: dict) -> dict:
    return {
        "type": "object",
        "title": title,
        "required": ["kind", "payload"],
        "properties": {
            "kind": {"enum": list(vocabulary)},
            "payload": {"type": "object", "description": "Shape depends on the kind."},
            **envelope,
        },
        "oneOf": _variants(kinds),
    }


def _collect(roots: list[tuple[Spec, str]]) -> dict[str, dict[str, Any]]:
    """One definition per shape reachable from ``roots`` (through ``Field.members``)."""
    defs: dict[str, dict[str, Any]] = {}
    owners: dict[str, Spec] = {}
    queue = list(roots)
    while queue:
        spec, summary = queue.pop()
        seen = owners.get(spec.name)
        if seen is spec:
            continue
        if seen is not None:
            raise ValueError(f"two shapes are both named {spec.name!r}; give one a name")
        owners[spec.name] = spec
        defs[spec.name] = _shape(spec, summary)
        queue += [(f.members, "") for f in spec.fields if f.members is not None]
    return defs


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        for value in node.values():
            found |= _refs(value)
        return found
    if isinstance(node, list):
        return set().union(*map(_refs, node)) if node else set()
    return set()


@functools.cache
def _definitions() -> dict[str, dict[str, Any]]:
    kinds = {id(k): k for k in (*ELEMENTS.values(), *BOARD_KINDS.values())}.values()
    defs = _collect(
        [(k.spec, k.summary) for k in kinds]
        + [(f.members, "") for f in CARD_ENVELOPE.fields if f.members is not None]
    )
    for name in ("element", "card"):
        if name in defs:
            raise ValueError(f"a shape is named {name!r}, which names a kind union")
    defs["element"] = _union(
        "element",
        ELEMENTS,
        ELEMENT_KINDS,
        {"audience": _field(AUDIENCE_FIELD), "dataRef": _DATA_REF},
    )
    defs["card"] = _union(
        "card",
        BOARD_KINDS,
        BOARD_VOCABULARY,
        {**{f.name: _field(f) for f in CARD_ENVELOPE.fields}, "dataRef": _DATA_REF},
    )
    for ref in _refs(defs):
        m = _REF.match(ref)
        if m is None or m.group(1) not in defs:
            raise ValueError(f"{ref!r} names no generated definition")
    return defs


def schema_defs() -> dict[str, Any]:
    """Every generated definition by name: one per object shape, plus ``element`` and ``card``.

    Put them under ``$defs`` at the root of the schema that refers to them
    (``#/$defs/<name>``). Each call returns a fresh copy.
    """
    return copy.deepcopy(_definitions())


def element_payload_ref(kind: str) -> dict[str, Any]:
    """A ``$ref`` to the payload shape of element ``kind`` (among ``schema_defs``)."""
    return spec_ref(ELEMENTS[kind].spec)


def card_variants() -> list[dict[str, Any]]:
    """One ``{kind: const, payload: $ref}`` branch per board kind (for a ``oneOf``).

    The card meaning wins where a name is both an element and a card kind.
    """
    return copy.deepcopy(_definitions()["card"]["oneOf"])


def element_schema() -> dict[str, Any]:
    """A standalone schema for one document element ``{kind, payload, audience?, dataRef?}``."""
    return {"$schema": DIALECT, **schema_ref("element"), "$defs": schema_defs()}


def card_schema() -> dict[str, Any]:
    """A standalone schema for one board card ``{kind, payload, ref?, children?, anchor?, ...}``."""
    return {"$schema": DIALECT, **schema_ref("card"), "$defs": schema_defs()}
