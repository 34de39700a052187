"""Titles and behaviour hints of tools, read off what each operation declares.

Hosts show the title to people and use the hints to decide what to confirm
before a call: a tool that only reads, one that destroys, one a retry leaves
unchanged, one that reaches outside the deployment. Nothing here names an
operation: every hint follows from the registry's declarations, so a new
operation is described rightly by declaring what it does.
"""

from __future__ import annotations

from typing import Any

import attrs

from layoutkit.service.road.registry import Operation


@attrs.frozen
class Hints:
    """The four tool-protocol hints of one operation."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool


def _declared(op: Operation) -> list[Operation]:
    # A generic verb runs with the declarations of the kind it dispatches to, so
    # it is described by all of them together.
    return list(op.kinds.values()) if op.kinds else [op]


def changes(op: Operation) -> bool:
    """Whether ``op`` writes: through the road's write transaction or its own."""
    return op.writes or op.changes


def destroys(op: Operation) -> bool:
    """Whether ``op`` may delete, revoke or overwrite: declared, or a ``remove`` param."""
    removes = "remove" in op.params_schema.get("properties", {})
    return op.destroys or (changes(op) and removes)


def hints(op: Operation) -> Hints:
    """The hints of ``op``: read-only when nothing it dispatches to writes; idempotent
    when it only reads or every write it does honours ``requestKey`` (a retry with
    the same key answers the first receipt and writes nothing more)."""
    ops = _declared(op)
    writers = [o for o in ops if changes(o)]
    return Hints(
        read_only=not writers,
        destructive=any(destroys(o) for o in writers),
        idempotent=all(o.idempotent for o in writers),
        open_world=any(o.fetches for o in ops),
    )


def title(op: Operation) -> str:
    """The declared title, else the name as words ("compose_board" -> "Compose board")."""
    if op.title:
        return op.title
    return op.name.replace("_", " ").capitalize()


def annotations(op: Operation) -> dict[str, Any]:
    """The tool-protocol ``annotations`` object of ``op`` (camelCase keys)."""
    found = hints(op)
    return {
        "title": title(op),
        "readOnlyHint": found.read_only,
        "destructiveHint": found.destructive,
        "idempotentHint": found.idempotent,
        "openWorldHint": found.open_world,
    }
