"""Every array a caller may send is bounded: each array in each params schema has maxItems.

The walk covers every registered operation: the schema it checks
(``op.validator.schema``), the one hosts are shown (``op.params_schema``, which
for compose_board, push_doc and validate holds the content contract's payload
shapes under ``$defs``), the per-kind ``variants`` of a generic verb and the
kinds' own operations (``op.kinds``), nested arrays included. An array without
a cap is a request that may hold a worker as long as its sender likes, so a
new one fails here unless it carries ``maxItems`` or is listed in ALLOWED with
the reason it needs none.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import layoutkit
from layoutkit import ServiceError, Workspace
from layoutkit.limits import ARRANGE_CARDS, LIST_ITEMS
from layoutkit.service import REGISTRY
from layoutkit.service.road.registry import Operation, ParamsValidator

#: Keywords whose value is one subschema.
_ONE = (
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)
#: Keywords whose value is a list of subschemas.
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
#: Keywords whose value maps names to subschemas.
_NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")

#: (operation or operation[kind], where: "checked", "shown" or "variant", JSON
#: pointer of the array schema) -> why it needs no maxItems. Keep it short.
ALLOWED: dict[tuple[str, str, str], str] = {}


def _is_array(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return (
        kind == "array"
        or (isinstance(kind, list) and "array" in kind)
        or "items" in schema
        or "prefixItems" in schema
    )


def unbounded(schema: Any, pointer: str = "") -> Iterator[str]:
    """JSON pointers of the array schemas in ``schema`` that carry no maxItems."""
    if not isinstance(schema, dict):
        return
    if _is_array(schema) and "maxItems" not in schema:
        yield pointer or "/"
    for key in _ONE:
        if isinstance(schema.get(key), dict):
            yield from unbounded(schema[key], f"{pointer}/{key}")
    for key in _MANY:
        for i, sub in enumerate(schema.get(key) or ()):
            yield from unbounded(sub, f"{pointer}/{key}/{i}")
    for key in _NAMED:
        for name, sub in (schema.get(key) or {}).items():
            yield from unbounded(sub, f"{pointer}/{key}/{name}")


def schemas(op: Operation, name: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    yield name, "checked", op.validator.schema
    yield name, "shown", op.params_schema
    for variant in op.variants:
        yield name, "variant", variant
    for kind, sub in (op.kinds or {}).items():
        yield from schemas(sub, f"{name}[{kind}]")


def every_schema() -> Iterator[tuple[str, str, dict[str, Any]]]:
    assert layoutkit.__file__  # importing layoutkit registers every operation
    for op in REGISTRY:
        yield from schemas(op, op.name)


def test_the_walk_sees_every_kind_of_place_an_array_hides() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "array", "items": {"type": "string"}},
            "b": {"anyOf": [{"type": "string"}, {"type": ["string", "array"]}]},
            "c": {"type": "array", "maxItems": 3, "items": {"items": {"type": "integer"}}},
            "items": {"type": "string"},  # a property named items is not an array
        },
        "$defs": {"d": {"type": "object", "additionalProperties": {"prefixItems": []}}},
    }
    assert sorted(unbounded(schema)) == [
        "/$defs/d/additionalProperties",
        "/properties/a",
        "/properties/b/anyOf/1",
        "/properties/c/items",
    ]


def test_the_walk_reaches_the_kinds_and_the_contract() -> None:
    seen = {(name, where) for name, where, _ in every_schema()}
    assert {("create[board]", "checked"), ("get", "variant"), ("compose_board", "shown")} <= seen
    assert "$defs" in dict(((n, w), s) for n, w, s in every_schema())[("compose_board", "shown")]


def test_every_array_param_has_max_items() -> None:
    found = {
        (name, where, pointer)
        for name, where, schema in every_schema()
        for pointer in unbounded(schema)
    }
    missing = sorted(found - set(ALLOWED))
    assert not missing, "arrays without maxItems:\n" + "\n".join(map(str, missing))
    stale = sorted(set(ALLOWED) - found)
    assert not stale, f"allowed but bounded or gone: {stale}"


# ---------------------------------------------------------------- the check at the caps


def test_an_array_over_its_cap_is_refused_without_checking_its_items() -> None:
    validator = ParamsValidator(
        {"type": "array", "maxItems": 2, "uniqueItems": True, "items": {"type": "integer"}}
    )
    # Each item is the wrong type and a repeat: had they been checked, each would say so.
    errors = list(validator.iter_errors(["x"] * 100_000))
    assert [(e.validator, e.message) for e in errors] == [("maxItems", "100000 items; at most 2")]
    assert sorted(e.validator for e in validator.iter_errors(["x", "x"])) == [
        "type",
        "type",
        "uniqueItems",
    ]


@pytest.mark.parametrize(
    ("params", "path", "message"),
    [
        ({"kind": "board", "slug": "a", "tags": ["x"] * 1000}, "tags", "1000 items; at most"),
        ({"kind": "board", "slug": "a", "tags": ["x" * 100_000]}, "tags[0]", "100000 characters"),
    ],
)
def test_a_refusal_names_the_size_not_the_value(
    params: dict[str, Any], path: str, message: str
) -> None:
    with Workspace.open() as ws, pytest.raises(ServiceError) as err:
        ws.call("create", params)
    e = err.value
    assert (e.code, e.body["field"]) == ("invalid_params", path)
    assert message in e.body["findings"][0]["message"]
    assert len(str(e)) < 300


def test_a_payload_array_over_the_list_cap_is_refused_naming_it() -> None:
    items = ["line"] * (LIST_ITEMS + 1)
    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "b"})
        card = {"kind": "list", "payload": {"items": items}}
        with pytest.raises(ServiceError) as err:
            ws.call("compose_board", {"board": "b", "cards": [card]})
        e = err.value
        assert (e.status, e.code, e.body["limit"], e.body["value"]) == (
            413,
            "limit_exceeded",
            "listItems",
            LIST_ITEMS + 1,
        )
        assert e.body["field"].endswith("payload.items")
        card = {"kind": "list", "payload": {"items": items[:LIST_ITEMS]}}
        assert ws.call("validate", {"card": card})["ok"]
        many = [{"kind": "text", "payload": {"md": "x"}}] * (ARRANGE_CARDS + 1)
        with pytest.raises(ServiceError) as err:
            ws.call("compose_board", {"board": "b", "cards": many})
        assert (err.value.code, err.value.body["field"]) == ("invalid_params", "cards")
