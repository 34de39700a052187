"""The generic verbs ``create``, ``update``, ``list``, ``get`` and ``search``.

Each operation family adds the kinds it owns with :func:`kind_handler`; the
five operations are registered last (see ``layoutkit.service``) so their
``kind`` enums list exactly what exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.service.registry import REGISTRY, Operation
from layoutkit.service.workspace import Call

VERBS = ("create", "update", "list", "get", "search")
KindHandler = Callable[[Call], dict[str, Any]]
_HANDLERS: dict[str, dict[str, Operation]] = {verb: {} for verb in VERBS}

_DESCRIPTIONS = {
    "create": "Create a resource of the given kind (board: slug, project, subgroup, tags, "
    "theme, lanes, parentBoard, section, meta).",
    "update": "Change a resource of the given kind (board: the same fields as set_board_meta).",
    "list": "List resources of the given kind (board: tags with AND by default, match any, "
    "a leading minus excludes a tag; tag: every tag with its count; section: a board's "
    "sections).",
    "get": "Read one resource of the given kind (board; questions: a board's durable "
    "question record).",
    "search": "Find resources whose text holds every word of q (boards and cards).",
}


def kind_handler(
    verb: str, kind: str, properties: dict[str, Any], required: tuple[str, ...] = ()
) -> Callable[[KindHandler], KindHandler]:
    """Register ``handler`` for ``verb`` on resources of ``kind``.

    ``properties`` and ``required`` describe the params besides ``kind``; they
    are checked before the handler runs, so a bad field is named in a 400.
    """
    schema = {
        "type": "object",
        "required": [*required],
        "properties": {"kind": {"const": kind}, **properties},
        "additionalProperties": False,
    }

    def register(handler: KindHandler) -> KindHandler:
        if kind in _HANDLERS[verb]:
            raise ValueError(f"{verb} {kind} registered twice")
        _HANDLERS[verb][kind] = Operation(
            f"{verb} {kind}", "", schema, handler, Draft202012Validator(schema)
        )
        return handler

    return register


def register_generic_operations() -> None:
    for verb in VERBS:
        kinds = sorted(_HANDLERS[verb])
        REGISTRY.operation(
            verb,
            _DESCRIPTIONS[verb] + f" Kinds: {', '.join(kinds)}.",
            {
                # search defaults to every kind; the other verbs must name one.
                "required": ["q"] if verb == "search" else ["kind"],
                # No enum here: an unknown kind is answered by the dispatcher
                # with the allowed kinds and a did-you-mean.
                "properties": {
                    "kind": {"type": "string", "description": f"one of: {', '.join(kinds)}"}
                },
                "additionalProperties": True,
            },
        )(_dispatcher(verb))


def _dispatcher(verb: str) -> KindHandler:
    def dispatch(call: Call) -> dict[str, Any]:
        kind = call.params.get("kind", "any" if verb == "search" else None)
        op = _HANDLERS[verb].get(kind)
        if op is None:
            raise ServiceError(
                400,
                "unknown_kind",
                f"{verb} takes kind {', '.join(sorted(_HANDLERS[verb]))}",
                allowed=sorted(_HANDLERS[verb]),
                didYouMean=did_you_mean(str(kind), _HANDLERS[verb]),
            )
        op.check_params(call.params)
        return op.handler(call)

    dispatch.__name__ = verb
    return dispatch
