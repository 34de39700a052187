"""The generic verbs ``create``, ``update``, ``list``, ``get`` and ``search``.

Each operation family adds the kinds it owns with :func:`kind_handler`; the
five operations are registered last (see ``layoutkit.service``) so their
``kind`` enums list exactly what exists.

A verb stays one operation whose params depend on ``kind`` (rather than one
operation per verb and kind): the spec and every client name these five
verbs, and an unknown kind is answered with the allowed kinds and a
did-you-mean. Hosts are shown every field of every kind in one flat object,
each field naming the kinds that take it, because tool hosts refuse a
``oneOf`` at the top of an input schema; the per-kind schemas are kept as the
operation's variants (the docs topic shows one table per kind).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import attrs

from layoutkit.service.road.registry import REGISTRY, Operation, declare
from layoutkit.service.road.workspace import Call

VERBS = ("create", "update", "list", "get", "search")
KindHandler = Callable[[Call], dict[str, Any]]
_HANDLERS: dict[str, dict[str, Operation]] = {verb: {} for verb in VERBS}

_DESCRIPTIONS = {
    "create": "Create a resource of the given kind (tag: a word of the workspace's tag "
    "vocabulary, folded as board tags are, with an optional colour and description; the same "
    "create again answers the same receipt; section: a section frame on a board, placed as a "
    "compose naming a new section places it).",
    "update": "Change a resource of the given kind (board: the same fields as set_board_meta; "
    "tag: its colour or description, an empty string clears).",
    "list": "List resources of the given kind (board: tags with AND by default, match any, "
    "a leading minus excludes a tag; tag: every tag, on boards or in the vocabulary, with "
    "its count of boards; section: a board's sections with their saved layout and counts of "
    "children and cards; questions: a board's questions with their state, staged, answered "
    "or released (sent), and counts per state).",
    "get": "Read one resource of the given kind (board; tag: the tag with the boards that "
    "carry it and its page url; questions: a board's durable question record; cards: up to "
    "200 of a board's live cards by id, with payloads; annotations: a board's findings, the "
    "open ones unless states names others).",
    "search": "Search every group of the workspace (tasks, boards, pages, cards, sessions, "
    "shots, tags, annotations) for the words of q; #12, tk-12, <workspace>/12 or a task url "
    "pins that task first; misspelt words are also tried as their nearest workspace words "
    "(corrections); mode resolve reads q as one reference.",
}


def kind_handler(
    verb: str,
    kind: str,
    properties: dict[str, Any],
    required: tuple[str | tuple[str, ...], ...] = (),
    **needs: Any,
) -> Callable[[KindHandler], KindHandler]:
    """Register ``handler`` for ``verb`` on resources of ``kind``.

    ``properties`` and ``required`` describe the params besides ``kind``; they
    are checked before the handler runs, so a bad field is named in a 400. A
    tuple in ``required`` lists aliases of which one must be sent.
    ``needs`` are what the road does first (``board``, ``writes``, ``share``,
    ...; see :func:`layoutkit.service.road.registry.declare`).
    """
    schema: dict[str, Any] = {
        "required": [r for r in required if isinstance(r, str)],
        "properties": {"kind": {"const": kind}, **properties},
        "additionalProperties": False,
    }
    aliases = [r for r in required if isinstance(r, tuple)]
    if aliases:
        schema["allOf"] = [{"anyOf": [{"required": [name]} for name in a]} for a in aliases]

    def register(handler: KindHandler) -> KindHandler:
        if kind in _HANDLERS[verb]:
            raise ValueError(f"{verb} {kind} registered twice")
        _HANDLERS[verb][kind] = declare(f"{verb} {kind}", "", schema, handler, **needs)
        return handler

    return register


def _shown(verb: str) -> dict[str, Any]:
    """Every field of every kind of ``verb`` in one object; a field names the kinds taking it."""
    kinds = sorted(_HANDLERS[verb])
    # name -> canonical JSON of one declaration -> the kinds declaring it so
    by_name: dict[str, dict[str, list[str]]] = {}
    for kind in kinds:
        for name, spec in _HANDLERS[verb][kind].params_schema["properties"].items():
            if name != "kind":
                by_name.setdefault(name, {}).setdefault(json.dumps(spec), []).append(kind)
    kind_spec: dict[str, Any] = {"enum": kinds}
    if verb == "search":
        kind_spec["default"] = "any"
    properties: dict[str, Any] = {"kind": kind_spec}
    for name, declarations in by_name.items():
        specs = [json.loads(text) for text in declarations]
        spec = specs[0] if len(specs) == 1 else {"anyOf": specs}
        takers = sorted(k for ks in declarations.values() for k in ks)
        if takers != kinds:
            only = f"Only for kind {', '.join(takers)}."
            said = spec.get("description", "").rstrip(".")
            spec["description"] = f"{said}. {only}" if said else only
        properties[name] = spec
    variants = [_HANDLERS[verb][kind].params_schema for kind in kinds]
    required = set.intersection(*(set(v.get("required", ())) for v in variants))
    if verb != "search":
        required.add("kind")
    return {
        "required": [name for name in properties if name in required],
        "properties": properties,
        # Every kind's schema is closed, so a name no kind declares is refused.
        "additionalProperties": False,
    }


def register_generic_operations() -> None:
    for verb in VERBS:
        kinds = sorted(_HANDLERS[verb])
        REGISTRY.add(
            attrs.evolve(
                declare(
                    verb,
                    _DESCRIPTIONS[verb] + f" Kinds: {', '.join(kinds)}.",
                    {
                        # search defaults to every kind; the other verbs must name one.
                        "required": ["q"] if verb == "search" else ["kind"],
                        # No enum here: an unknown kind is answered by the road
                        # with the allowed kinds and a did-you-mean, and each
                        # kind's own schema names a bad field.
                        "properties": {"kind": {"type": "string"}},
                        "additionalProperties": True,
                    },
                    _unreachable,
                    shown=_shown(verb),
                    variants=tuple(_HANDLERS[verb][kind].params_schema for kind in kinds),
                    # The other verbs serve the boards toolset with their module.
                    toolset="search" if verb == "search" else None,
                    # A bare verb says little to a person choosing tools; its kinds do.
                    # Titles are words: a kind's underscore (project_memory) is a space.
                    title=f"{verb.capitalize()}: {', '.join(k.replace('_', ' ') for k in kinds)}",
                    output=_common_output(verb),
                ),
                kinds=_HANDLERS[verb],
            )
        )


def _common_output(verb: str) -> dict[str, Any] | None:
    """The result shape every kind of ``verb`` declares alike, else none: a verb's one
    tool can promise only what each of its kinds answers."""
    shapes = {json.dumps(op.output, sort_keys=True) for op in _HANDLERS[verb].values()}
    return json.loads(shapes.pop()) if len(shapes) == 1 else None


def _unreachable(call: Call) -> dict[str, Any]:
    raise AssertionError("the road dispatches generic verbs to their kind's handler")
