"""Built-in compose templates: a name and slot values in, cards, edges and questions out."""

from __future__ import annotations

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


def expand(name: str, params: dict[str, Any]) -> Expansion:
    """Instantiate template ``name``; 404 ``unknown_template`` with close names otherwise."""
    template = TEMPLATES.get(name)
    if template is None:
        raise ServiceError(
            404,
            "unknown_template",
            f"no template {name!r}",
            didYouMean=did_you_mean(name, TEMPLATES),
            allowed=sorted(TEMPLATES),
        )
    return template(params)
