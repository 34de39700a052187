"""Content operations: ``validate`` and ``docs``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from layoutkit import elements
from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.service.boards import outputs
from layoutkit.service.boards.compose import EDGE_SCHEMA
from layoutkit.service.road.registry import REGISTRY, Operation
from layoutkit.service.road.workspace import Call

_ANY = {"description": "Any JSON value; checked against the content contract."}
_ELEMENT_TITLE = "document element {kind, payload, audience?, dataRef?}"
_CARD_TITLE = "board card {kind, payload, ...}"


@REGISTRY.operation(
    "validate",
    "Check a document element or a board card against the content contract. Returns "
    "ok, the findings (path, severity, code, message, fix) and the normalized payload "
    "with every default filled in. Send exactly one of element or card.",
    {
        # Any value is taken: answering what is wrong with it is the operation's job.
        "properties": {
            "element": {**_ANY, "title": _ELEMENT_TITLE},
            "card": {**_ANY, "title": _CARD_TITLE},
        },
        "additionalProperties": False,
        "oneOf": [{"required": ["element"]}, {"required": ["card"]}],
    },
    share=("view", "annotate"),
    pure=True,
    # Hosts see the contract's shapes, and "exactly one" without a top-level oneOf.
    shown={
        "properties": {
            "element": {**elements.schema_ref("element"), "title": _ELEMENT_TITLE},
            "card": {**elements.schema_ref("card"), "title": _CARD_TITLE},
        },
        "additionalProperties": False,
        "minProperties": 1,
        "maxProperties": 1,
        "$defs": elements.schema_defs(),
    },
    output=outputs.VALIDATE,
)
def validate(call: Call) -> dict[str, Any]:
    params = call.params
    result = (
        elements.validate_element(params["element"])
        if "element" in params
        else elements.validate_card(params["card"])
    )
    return result.as_dict()


@REGISTRY.operation(
    "docs",
    "Read the content contract by topic: one topic per element kind and card kind, plus "
    "envelope, audiences and limits. Without a topic, returns the index of topics.",
    {
        "properties": {"topic": {"type": "string", "maxLength": 200}},
        "additionalProperties": False,
    },
    share=("view", "annotate"),
    pure=True,
    output=outputs.DOCS,
)
def docs(call: Call) -> dict[str, Any]:
    topic = call.params.get("topic")
    registry = call.workspace.registry
    if topic is None:
        ops = [
            {"topic": OP_PREFIX + op.name, "summary": op.description.split(". ")[0].rstrip(".")}
            for op in registry
        ]
        shapes = [
            {"topic": name, "summary": summary} for name, (summary, _) in SCHEMA_TOPICS.items()
        ]
        return {"topics": elements.docs_index() + shapes + ops}
    if topic.startswith(OP_PREFIX) and topic[len(OP_PREFIX) :] in registry.names():
        return {"topic": topic, "text": operation_topic(registry.get(topic[len(OP_PREFIX) :]))}
    topic = TOPIC_ALIASES.get(topic, topic)
    text = SCHEMA_TOPICS[topic][1]() if topic in SCHEMA_TOPICS else elements.docs_topic(topic)
    if text is None:
        names = [*elements.topic_names(), *SCHEMA_TOPICS, *TOPIC_ALIASES]
        names += [OP_PREFIX + n for n in registry.names()]
        raise ServiceError(
            404,
            "unknown_topic",
            f"no docs topic named {topic!r}",
            didYouMean=did_you_mean(topic, names),
        )
    return {"topic": topic, "text": text}


#: Operation topics are named ``op:<operation>`` so they never collide with kinds.
OP_PREFIX = "op:"


def _type_of(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    if "anyOf" in schema:
        return " or ".join(_type_of(s) for s in schema["anyOf"])
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_type_of(schema['items'])}"
    return str(kind)


def _property_table(
    schema: dict[str, Any], heading: str, skip: frozenset[str] = frozenset()
) -> list[str]:
    """Markdown table rows of an object schema's properties."""
    required = set(schema.get("required", []))
    lines = [f"| {heading} | Type | Required | Notes |", "|---|---|---|---|"]
    for name, spec in schema.get("properties", {}).items():
        if name in skip:
            continue
        notes = spec.get("description") or spec.get("title") or ""
        if "pattern" in spec:
            notes = (notes + f" pattern `{spec['pattern']}`").strip()
        cells = (name, _type_of(spec), "yes" if name in required else "no", notes)
        # A pipe inside a cell (enums are written a | b) would split the row.
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines


def operation_topic(op: Operation) -> str:
    """Markdown for one operation, generated from its registry entry."""
    lines = [f"# {op.name}", "", op.description, "", *_property_table(op.params_schema, "Param")]
    for variant in op.variants:
        kind = variant["properties"]["kind"]["const"]
        lines += ["", f"## kind {kind}", ""]
        if len(variant["properties"]) > 1:
            lines += _property_table(variant, "Param", frozenset({"kind"}))
        else:
            lines.append("No params besides kind.")
    lines += [
        "",
        f'Call it as `Workspace.call("{op.name}", params)`, as the MCP tool `{op.name}`, '
        f"over HTTP as `POST /api/v1/ops/{op.name}`, or with `layoutkit call {op.name} '<json>'`.",
        "A refusal carries an HTTP-style status and a machine `code`.",
    ]
    return "\n".join(lines) + "\n"


def edge_topic() -> str:
    """Markdown for wires, generated from the edge schema compose_board checks them with."""
    region = EDGE_SCHEMA["properties"]["fromRegion"]
    lines = [
        "# edge (wire)",
        "",
        EDGE_SCHEMA["description"],
        "",
        "Send wires in compose_board's `edges`, beside the cards they join: `from` and `to` "
        "name a card by its `ref` in the same batch or by the id of a card already on the "
        "board. scrape_board lists them under `edges` with their ids.",
        "",
        *_property_table(EDGE_SCHEMA, "Field"),
        "",
        "## Region (fromRegion, toRegion)",
        "",
        *_property_table(region, "Field"),
        "",
        "```json",
        json.dumps(
            {
                "board": "roadmap",
                "cards": [
                    {"kind": "text", "ref": "goal", "payload": {"md": "# Ship"}},
                    {"kind": "note", "ref": "risk", "payload": {"md": "Fonts"}},
                ],
                "edges": [{"from": "goal", "to": "risk", "rel": "depends-on", "label": "needs"}],
            },
            indent=2,
        ),
        "```",
    ]
    return "\n".join(lines) + "\n"


#: Topics generated from an operation's JSON Schema (the contract's kinds live in elements).
SCHEMA_TOPICS: dict[str, tuple[str, Callable[[], str]]] = {
    "edge": ("Wires between cards: from, to, rel, label and regions.", edge_topic),
}
#: Other names people reach for.
TOPIC_ALIASES = {"wire": "edge", "wires": "edge", "edges": "edge"}
