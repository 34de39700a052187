"""The generic verbs ``create``, ``update``, ``list``, ``get`` and ``search``.

Each operation family adds the kinds it owns with :func:`kind_handler`; the
five operations are registered last (see ``layoutkit.service``) so their
``kind`` enums list exactly what exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from layoutkit.service.registry import REGISTRY, Operation, declare
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
    ...; see :func:`layoutkit.service.registry.declare`).
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
                        # with the allowed kinds and a did-you-mean.
                        "properties": {
                            "kind": {
                                "type": "string",
                                "description": f"one of: {', '.join(kinds)}",
                            }
                        },
                        "additionalProperties": True,
                    },
                    _unreachable,
                ),
                kinds=_HANDLERS[verb],
            )
        )


def _unreachable(call: Call) -> dict[str, Any]:
    raise AssertionError("the road dispatches generic verbs to their kind's handler")
