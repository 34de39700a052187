"""The result shape of hand_back (see shared/outputs)."""

from __future__ import annotations

from typing import Any

from layoutkit.service.shared.outputs import BOOL, INT, OBJ, STR, WARNINGS, arr, obj

_ITEM = obj({"title": STR, "kind": STR, "id": STR, "done": BOOL}, "title", "kind", "done")

HAND_BACK: dict[str, Any] = obj(
    {
        "task": obj({"id": INT, "title": STR, "status": STR, "gates": arr(OBJ)}, "id", "title"),
        "handBack": obj({"kind": STR, "ref": STR, "version": INT}, "ref", "version"),
        "items": arr(_ITEM),
        "open": arr(STR),
        "refs": arr(OBJ),
        "warnings": WARNINGS,
        "text": {"type": "string", "description": "the hand-back as markdown"},
    },
    "task",
    "handBack",
    "items",
    "open",
    "warnings",
    "text",
)
