"""Small builders for the result shapes operations declare (``declare(output=...)``).

A result shape is what an agent reads back, so it names the keys an agent relies on
and their types; objects stay open (``additionalProperties`` unset) because results
carry optional extras by kind and by params, and an agent must not fail on them.
"""

from __future__ import annotations

from typing import Any

STR: dict[str, Any] = {"type": "string"}
INT: dict[str, Any] = {"type": "integer"}
NUM: dict[str, Any] = {"type": "number"}
BOOL: dict[str, Any] = {"type": "boolean"}
OBJ: dict[str, Any] = {"type": "object"}
NULLABLE_STR: dict[str, Any] = {"type": ["string", "null"]}
NULLABLE_INT: dict[str, Any] = {"type": ["integer", "null"]}


def obj(properties: dict[str, Any], *required: str, **more: Any) -> dict[str, Any]:
    """An open object whose ``required`` keys must be there with the types given."""
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = list(required)
    return {**out, **more}


def arr(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


#: A card's box on the board, in board pixels.
BOX: dict[str, Any] = {k: NUM for k in ("x", "y", "w", "h")}

#: A picture as structured content shows it: its bytes travel as image content beside
#: the JSON (the registry's result-shape rule), so only its other fields are here.
PICTURE: dict[str, Any] = obj(
    {"mime": STR},
    "mime",
    description="the picture itself is the image content of the result",
    **{"not": {"required": ["data"]}},
)

#: What the service warns about without refusing (an index names the entry sent).
WARNINGS: dict[str, Any] = arr(obj({"code": STR, "message": STR, "index": INT}))
