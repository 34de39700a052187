"""Content operations: ``validate`` and ``docs``."""

from __future__ import annotations

from typing import Any

from layoutkit import elements
from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.service.registry import REGISTRY
from layoutkit.service.workspace import Call

_ANY = {"description": "Any JSON value; checked against the content contract."}


@REGISTRY.operation(
    "validate",
    "Check a document element or a board card against the content contract. Returns "
    "ok, the findings (path, severity, code, message, fix) and the normalized payload "
    "with every default filled in. Send exactly one of element or card.",
    {
        "properties": {
            "element": {**_ANY, "title": "document element {kind, payload, audience?, dataRef?}"},
            "card": {**_ANY, "title": "board card {kind, payload, ...}"},
        },
        "additionalProperties": False,
        "oneOf": [{"required": ["element"]}, {"required": ["card"]}],
    },
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
)
def docs(call: Call) -> dict[str, Any]:
    topic = call.params.get("topic")
    if topic is None:
        return {"topics": elements.docs_index()}
    text = elements.docs_topic(topic)
    if text is None:
        raise ServiceError(
            404,
            "unknown_topic",
            f"no docs topic named {topic!r}",
            didYouMean=did_you_mean(topic, elements.topic_names()),
        )
    return {"topic": topic, "text": text}
