"""What a refused card or element should have been: the words an agent corrects it by.

The tool list names payload shapes instead of inlining them, so a refusal
carries the part of the shape that was wrong: the field's expected shape in a
sentence (``expected``) and as a small JSON Schema (``expectedSchema``), and
the docs topic and schema resource of the kind it belongs to. They are read off
the contract's generated schemas, following the refused value's own kinds.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from layoutkit import elements
from layoutkit.service.road.expected import describe, shape_schema

_REF = "#/$defs/"
_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


@functools.cache
def _defs() -> dict[str, Any]:
    return elements.schema_defs()


def _resolve(node: Any) -> dict[str, Any]:
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        node = _defs().get(node["$ref"].removeprefix(_REF), {})
    return node if isinstance(node, dict) else {}


def _tokens(path: str) -> list[str | int]:
    return [name if name else int(index) for name, index in _TOKEN.findall(path)]


@functools.cache
def _topics() -> frozenset[str]:
    return frozenset(elements.topic_names())


def _topic(union: str, kind: str) -> str | None:
    # A card kind sharing its name with an element kind of another shape has a
    # topic of its own, named with a card- prefix.
    if union == "card" and f"card-{kind}" in _topics():
        return f"card-{kind}"
    return kind if kind in _topics() else None


def _step(node: dict[str, Any], value: Any, token: str | int) -> tuple[dict[str, Any], Any]:
    if isinstance(token, int):
        inner = value[token] if isinstance(value, list) and token < len(value) else None
        return _resolve(node.get("items")), inner
    inner = value.get(token) if isinstance(value, dict) else None
    if token == "payload" and node.get("oneOf") and isinstance(value, dict):
        for variant in node["oneOf"]:
            if variant["properties"]["kind"].get("const") == value.get("kind"):
                return _resolve(variant["properties"]["payload"]), inner
    return _resolve(node.get("properties", {}).get(token)), inner


def _walk(root: str, value: Any, path: str) -> tuple[dict[str, Any], str | None, str | None, str]:
    """The schema at ``path`` inside ``value`` (a card or an element), the docs topic
    and name of the innermost kind the path passes through, and whether that kind is
    a card's or an element's."""
    node, topic, kind, of = _resolve({"$ref": _REF + root}), None, None, root
    for token in _tokens(path):
        title = node.get("title")
        if title in ("card", "element") and isinstance(value, dict):
            found = _topic(title, str(value.get("kind")))
            if found is not None:
                topic, kind, of = found, str(value["kind"]), title
        node, value = _step(node, value, token)
        if not node:
            break
    return node, topic, kind, of


_ALTERNATIVES = (re.compile(r"one of ([\w, ]+)$"), re.compile(r"needs (\w+), (\w+) or both$"))


def _alternative(node: dict[str, Any], message: str) -> str | None:
    """The first field a "needs one of a, b" refusal names, when ``node`` has it."""
    for pattern in _ALTERNATIVES:
        match = pattern.search(message)
        if match:
            names = [n.strip() for group in match.groups() for n in group.split(",")]
            return next((n for n in names if n in node.get("properties", {})), None)
    return None


def contract_guidance(
    value: Any, path: str, *, code: str = "", message: str = "", root: str = "card"
) -> dict[str, Any]:
    """``expected``, ``expectedSchema``, ``docs`` and ``resource`` for a finding at
    ``path`` (relative to ``value``, a card or an element as sent). A refusal of an
    object for lacking one of several fields points ``at`` the first of them."""
    node, topic, kind, family = _walk(root, value, path)
    out: dict[str, Any] = {}
    pick = _alternative(node, message) if code == "missing_field" else None
    if pick is not None:
        out["at"] = path = f"{path}.{pick}"
        node = _resolve(node["properties"][pick])
    if node:
        needed = " is required" if code == "missing_field" and not pick else ""
        also = f" ({message})" if pick else ""
        of = f" ({kind})" if kind else ""
        out["expected"] = f"{path}{of}{needed}: {describe(node, _resolve)}{also}."
        out["expectedSchema"] = shape_schema(node, _resolve)
    if topic is not None:
        out["docs"] = topic
        out["resource"] = f"layoutkit://schema/{family}/{kind}"
    return out
