"""Compose templates: a name and slot values in, cards, edges and questions out.

A name is a built-in template (``decision-map``) or one of the workspace's
components (kind ``component``, :mod:`layoutkit.service.boards.components`):
a saved group of cards whose text holds ``{slot}`` placeholders. Either way an
unfilled slot renders literally.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import attrs

from layoutkit.errors import ServiceError, did_you_mean


@attrs.frozen
class Expansion:
    """What a template adds to a compose batch, ahead of the inline entries."""

    cards: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    questions: list[dict[str, Any]]
    section: str | None = None  # compose into this existing section (extend)
    layout: str | None = None


def _slot(params: dict[str, Any], name: str) -> Any:
    # An unfilled slot shows literally, so a missing value is visible on the board.
    value = params.get(name)
    return value if value not in (None, "") else "{" + name + "}"


def decision_map(params: dict[str, Any]) -> Expansion:
    """One outline column: the context, then each decision with its question.

    ``extend: true`` adds the decisions to the existing map section named by
    ``title`` instead of starting a new map.
    """
    title = _slot(params, "title")
    decisions = params.get("decisions") or []
    if not isinstance(decisions, list):
        raise ServiceError(
            400, "invalid_params", "params.decisions must be a list", field="params.decisions"
        )
    cards: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    extend = bool(params.get("extend"))
    if not extend:
        cards.append(
            {"kind": "text", "ref": "dm-context", "payload": {"md": str(_slot(params, "context"))}}
        )
    for i, d in enumerate(decisions):
        if not isinstance(d, dict):
            raise ServiceError(
                400,
                "invalid_params",
                f"params.decisions[{i}] must be an object",
                field=f"params.decisions[{i}]",
            )
        key = str(d.get("key") or f"d{i + 1}")
        ref = f"dm-{key}"
        stakes = d.get("stakes")
        md = f"### {d.get('title') or _slot(d, 'title')}"
        if stakes:
            md += f"\n\n**Stakes:** {stakes}"
        cards.append(
            {"kind": "text", "ref": ref, "payload": {"md": md, "role": "heading", "level": 3}}
        )
        question = {
            "prompt": d.get("title") or key,
            "options": d.get("options") or [],
            "cardRef": ref,
        }
        for name in ("stakes", "multiSelect", "kind", "pivot"):
            if name in d:
                question[name] = d[name]
        questions.append(question)
    if extend:
        return Expansion(cards, [], questions, section=str(title), layout="column")
    section = {
        "kind": "section",
        "ref": "dm-map",
        "payload": {"title": str(title), "layout": {"mode": "grid", "cols": 1}},
        "children": [c["ref"] for c in cards],
    }
    return Expansion([section, *cards], [], questions, layout="column")


TEMPLATES: dict[str, Callable[[dict[str, Any]], Expansion]] = {"decision-map": decision_map}

#: A slot in a component's text: ``{name}``.
SLOT = re.compile(r"\{([a-zA-Z][a-zA-Z0-9_]{0,39})\}")


def slots_in(value: Any, into: list[str]) -> list[str]:
    """The slot names ``value``'s strings hold, in first-seen order, added to ``into``."""
    if isinstance(value, str):
        into.extend(n for n in SLOT.findall(value) if n not in into)
    elif isinstance(value, dict):
        for item in value.values():
            slots_in(item, into)
    elif isinstance(value, list):
        for item in value:
            slots_in(item, into)
    return into


def _fill(value: Any, params: dict[str, Any]) -> Any:
    if isinstance(value, str):
        return SLOT.sub(lambda m: str(_slot(params, m.group(1))), value)
    if isinstance(value, dict):
        return {k: _fill(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, params) for v in value]
    return value


def component_expansion(name: str, definition: dict[str, Any], params: dict[str, Any]) -> Expansion:
    """A component's cards and wires with its slots filled from ``params``.

    Refs are the component's own, prefixed by its name, so inline entries of the
    same batch can wire to them (``<name>/<n>``) without clashing. A param that
    names no slot is refused, with the slots there are.
    """
    slots = list(definition.get("slots") or [])
    for key in params:
        if key not in slots:
            raise ServiceError(
                400,
                "unknown_slot",
                f"component {name!r} has no slot {key!r}",
                field=f"params.{key}",
                didYouMean=did_you_mean(key, slots),
                allowed=slots,
            )

    def ref(local: str) -> str:
        return f"{name}/{local}"

    cards = []
    for card in definition["cards"]:
        entry: dict[str, Any] = {
            "kind": card["kind"],
            "ref": ref(card["ref"]),
            "payload": _fill(card["payload"], params),
        }
        if card.get("children"):
            entry["children"] = [ref(c) for c in card["children"]]
        cards.append(entry)
    edges = [
        {**_fill(edge, params), "from": ref(edge["from"]), "to": ref(edge["to"])}
        for edge in definition.get("edges") or []
    ]
    return Expansion(cards, edges, [], layout=definition.get("layout"))


def expand(
    name: str, params: dict[str, Any], component: Any = None, components: list[str] | None = None
) -> Expansion:
    """Instantiate template ``name``: a built-in one, else ``component`` (the
    workspace's component of that name, read before the call); 404
    ``unknown_template`` with close names (built-ins and ``components``) otherwise."""
    template = TEMPLATES.get(name)
    if template is not None:
        return template(params)
    if component is not None:
        return component_expansion(name, component.definition, params)
    known = sorted([*TEMPLATES, *(components or [])])
    raise ServiceError(
        404,
        "unknown_template",
        f"no template or component {name!r}",
        field="template",
        didYouMean=did_you_mean(name, known),
        allowed=known,
    )
